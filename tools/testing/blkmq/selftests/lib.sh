# SPDX-License-Identifier: GPL-2.0
# Shared by the harness self-tests: each runs alone (bash selftests/X.sh),
# prints one line per assertion and exits non-zero on the first failure.
set -u
BLKMQ_TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export BLKMQ_OUT=$T/out

for f in common setup assemble build initramfs console vm main bench check sparse series \
	bisect; do
	# shellcheck source=/dev/null
	. "$BLKMQ_TOOLS/lib/$f.sh"
done

pass() { echo "ok - $*"; }
fail() { echo "FAIL - $*"; exit 1; }
expect() # DESCRIPTION COMMAND...: the command must succeed
{
	local d=$1
	shift
	"$@" || fail "$d"
	pass "$d"
}

# expect_error DESCRIPTION PATTERN COMMAND...: the command must exit 2
# with exactly one line on stderr that matches PATTERN.
expect_error()
{
	local d=$1 pat=$2 err rc
	shift 2
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" = 2 ] || fail "$d: exit $rc, wanted 2 ($err)"
	[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "$d: wanted one line, got: $err"
	[[ $err =~ $pat ]] || fail "$d: '$err' does not match '$pat'"
	pass "$d: $err"
}

# seam_patch REPO: the fake repo's one base-file patch, patches/0001-seam.patch,
# which changes a line of the fake base's block/blk-core.c.
seam_patch()
{
	cat >"$1/patches/0001-seam.patch" <<'P'
--- a/block/blk-core.c
+++ b/block/blk-core.c
@@ -1,3 +1,3 @@
 int core;
-int seam;
+int seam_hooked;
 int tail;
P
}
