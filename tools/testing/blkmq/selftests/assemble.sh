# SPDX-License-Identifier: GPL-2.0
# The assembler on a tiny fake base: overlay, patches, removals, strict
# failure, and incremental updates that leave untouched files alone.
. "$(dirname "$0")/lib.sh"

base=$T/base
repo=$T/repo
dest=$T/series
mkdir -p "$base/block" "$base/include/linux" "$base/drivers/block" "$repo/patches"
printf 'int engine;\n' >"$base/block/blk-mq.c"
printf 'int core;\nint seam;\nint tail;\n' >"$base/block/blk-core.c"
printf 'int null_old;\n' >"$base/drivers/block/null_old.c"
printf 'int keep;\n' >"$base/include/linux/keep.h"
printf '#define X 1\n' >"$base/include/linux/blk-mq.h"

git -C "$repo" init -q
mkdir -p "$repo/include/linux" "$repo/drivers/block" "$repo/notkernel"
printf '#define X 2\n' >"$repo/include/linux/blk-mq.h"
printf 'int null_new;\n' >"$repo/drivers/block/null_blk.c"
printf 'harness only\n' >"$repo/notkernel/file"
printf 'drivers/block/null_old.c\n' >"$repo/patches/removed"
seam_patch "$repo"
printf '# our patches\n0001-seam.patch\n' >"$repo/patches/series"

out=$(assemble "$base" "$repo" "$dest" v1 2>&1) || fail "first assemble: $out"
pass "first assemble: $(echo "$out" | tail -n 1)"
expect "overlay header replaces the base's" grep -qx '#define X 2' "$dest/include/linux/blk-mq.h"
expect "new overlay file arrives" test -f "$dest/drivers/block/null_blk.c"
expect "patch applied" grep -qx 'int seam_hooked;' "$dest/block/blk-core.c"
expect "removed file is gone" test ! -e "$dest/drivers/block/null_old.c"
expect "repo-only folders stay out" test ! -e "$dest/notkernel"
expect "base is untouched" grep -qx '#define X 1' "$base/include/linux/blk-mq.h"
expect "base keeps the removed file" test -f "$base/drivers/block/null_old.c"
expect "base keeps the unpatched seam" grep -qx 'int seam;' "$base/block/blk-core.c"

touch -d '2000-01-01' "$dest/block/blk-core.c" "$dest/include/linux/blk-mq.h" \
	"$dest/drivers/block/null_blk.c" "$dest/block/blk-mq.c"
out=$(assemble "$base" "$repo" "$dest" v1 2>&1) || fail "second assemble: $out"
expect "re-assemble without edits updates nothing" grep -q ', 0 updated' <<<"$out"

printf 'int null_new2;\n' >"$repo/drivers/block/null_blk.c"
assemble "$base" "$repo" "$dest" v1 >/dev/null 2>&1 || fail "third assemble"
old() { [ "$(stat -c %Y "$1")" -lt 1000000000 ]; }
fresh() { ! old "$1"; }
expect "edited file gets a fresh mtime" fresh "$dest/drivers/block/null_blk.c"
expect "unedited overlay file keeps its mtime" old "$dest/include/linux/blk-mq.h"
expect "patched file keeps its mtime" old "$dest/block/blk-core.c"
expect "base-only file keeps its mtime" old "$dest/block/blk-mq.c"

rm "$repo/include/linux/blk-mq.h"
: >"$repo/patches/removed"
assemble "$base" "$repo" "$dest" v1 >/dev/null 2>&1 || fail "fourth assemble"
expect "a file leaving the overlay returns to the base" \
	grep -qx '#define X 1' "$dest/include/linux/blk-mq.h"
expect "a file leaving patches/removed returns" test -f "$dest/drivers/block/null_old.c"

cat >"$repo/patches/0002-stale.patch" <<'P'
--- a/block/blk-core.c
+++ b/block/blk-core.c
@@ -1,3 +1,3 @@
 int core;
-int no_such_line;
+int other;
 int tail;
P
echo 0002-stale.patch >>"$repo/patches/series"
cp "$dest/block/blk-core.c" "$T/before"
expect_error "a stale patch stops the build and names patch and hunk" \
	'patch 0002-stale.patch does not apply to v1: block/blk-core.c: Hunk #1 FAILED' \
	assemble "$base" "$repo" "$dest" v1
expect "a failed assemble changes nothing" cmp -s "$T/before" "$dest/block/blk-core.c"

echo 0003-missing.patch >"$repo/patches/series"
expect_error "a missing patch file is named" 'names 0003-missing.patch, which is not there' \
	assemble "$base" "$repo" "$dest" v1
printf 'no/such/file.c\n' >"$repo/patches/removed"
: >"$repo/patches/series"
expect_error "patches/removed naming a path the base lacks" 'no/such/file.c' \
	assemble "$base" "$repo" "$dest" v1
