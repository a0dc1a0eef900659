# SPDX-License-Identifier: GPL-2.0
# make series on a tiny fake base: series.txt assigns every file, patch
# and removal to a commit; an unassigned file or a bad plan stops it with
# one line naming it; the exported patches git am onto the base and give
# exactly the assembled tree.
. "$(dirname "$0")/lib.sh"
not() { ! "$@"; }

fbase=$T/base
repo=$T/repo
mkdir -p "$fbase/block" "$fbase/drivers/block/old" "$fbase/scripts" "$fbase/Documentation"
mkdir -p "$repo/patches"
printf 'int engine;\n' >"$fbase/block/blk-mq.c"
printf 'int core;\nint seam;\nint tail;\n' >"$fbase/block/blk-core.c"
printf 'int old;\n' >"$fbase/drivers/block/old/main.c"
printf 'doc\n' >"$fbase/Documentation/old.rst"
printf 'MAINTAINERS\n' >"$fbase/MAINTAINERS"
# checkpatch stand-in: one finding in the harness patch, none elsewhere,
# and checkpatch's total line for each patch.
cat >"$fbase/scripts/checkpatch.pl" <<'EOF'
my $in = join("", <STDIN>);
if ($in =~ m@tools/run@) {
	print "WARNING:LONG_LINE: line length of 101 exceeds 100 columns\n";
	print "#9: FILE: tools/run:2:\n+x\n\n";
	print "total: 0 errors, 1 warnings, 0 checks, 9 lines checked\n";
} else {
	print "total: 0 errors, 0 warnings, 0 checks, 9 lines checked\n";
}
EOF
mkdir -p "$fbase/tools"
touch "$fbase/.blkmq-extracted"

git -C "$repo" init -q
git -C "$repo" config user.name "Self Test"
git -C "$repo" config user.email "self@test.example"
mkdir -p "$repo/block" "$repo/drivers/block" "$repo/tools"
printf 'int engine2;\n' >"$repo/block/blk-mq.c"
printf 'int tag;\n' >"$repo/block/blk-mq-tag.c"
printf 'int null;\n' >"$repo/drivers/block/null.c"
printf '#!/bin/sh\necho run\n' >"$repo/tools/run"
chmod +x "$repo/tools/run"
printf 'drivers/block/old/main.c\nDocumentation/old.rst\n' >"$repo/patches/removed"
seam_patch "$repo"
printf '0001-seam.patch\n' >"$repo/patches/series"
git -C "$repo" add -A
git -C "$repo" commit -q -m init

cat >"$T/series.txt" <<'EOF'
# a comment
subject null: new driver
files drivers/block/null.c drivers/block/old/*
| The new driver.

subject block: new engine
files block/* patches/*seam*
| The engine.
|
| Second paragraph.

subject block: nothing yet
files block/legacy*
| Never used.

subject tools: harness
files tools/*
| The harness.
EOF
printf 'LONG_LINE tools/* kept on purpose\n' >"$T/allow.txt"
printf 'test: a cover subject\n\nThe blurb.\n' >"$T/cover.txt"

export BLKMQ_REPO=$repo SERIES_PLAN=$T/series.txt SERIES_ALLOW=$T/allow.txt
export SERIES_COVER=$T/cover.txt
setup() { mkdir -p "$BLKMQ_OUT"; }
base_dir() { echo "$fbase"; }
base_version() { echo 1.0; }

expect_error "unassigned file" \
	"^blkmq: error: series: no commit in .*series.txt takes Documentation/old.rst \(add" \
	series_export

printf '\nsubject Documentation: docs\nfiles Documentation/*\n| Docs.\n' >>"$T/series.txt"
out=$(series_export 2>&1) || fail "series_export: $out"
pass "export: $(echo "$out" | tail -n 1)"
expect "the empty commit is skipped" grep -q "nothing for 'block: nothing yet'" <<<"$out"
S=$BLKMQ_OUT/series
expect "four patches and a cover letter" test "$(ls "$S" | wc -l)" = 5
expect "patch 1 is null" test -f "$S/0001-null-new-driver.patch"
expect "null removes the old driver" grep -q '^deleted file mode' "$S/0001-null-new-driver.patch"
expect "the engine takes the seam patch" grep -q '^+int seam_hooked;' "$S"/0002-*.patch
expect "the body is kept" grep -qx 'Second paragraph.' "$S"/0002-*.patch
expect "signed off by the repo identity" \
	grep -qx 'Signed-off-by: Self Test <self@test.example>' "$S"/0003-*.patch
expect "docs come last" grep -q '^deleted file mode' "$S"/0004-Documentation-docs.patch
expect "cover subject" \
	grep -q '^Subject: \[PATCH 0/4\] test: a cover subject' "$S/0000-cover-letter.patch"
expect "cover: no benchmark yet" grep -q 'run make bench' "$S/0000-cover-letter.patch"
expect "cover: the kept finding" grep -q 'Kept WARNING:LONG_LINE' "$S/0000-cover-letter.patch"
# the timed A/B rows from the newest bench with rows, the instruction
# counts from the newest with an icount part, which may be another run
R=$BLKMQ_OUT/results
mkdir -p "$R/bench-20260101-000000" "$R/bench-20260102-000000"
echo '{"rows": [{"repeats": 5}], "icount": [], "ratios": ["ab: 1.05"]}' \
	>"$R/bench-20260101-000000/summary.json"
echo '{"rows": [], "icount": [{}], "ratios": ["icount: ic: 1.03"]}' \
	>"$R/bench-20260102-000000/summary.json"
out=$(series_export 2>&1) || fail "series_export with bench results: $out"
expect "cover: the A/B ratios" grep -qx '  ab: 1.05' "$S/0000-cover-letter.patch"
expect "cover: the A/B run named" \
	grep -q '^From make bench (bench-20260101-000000, 5 repeats,' "$S/0000-cover-letter.patch"
expect "cover: the icount ratios" grep -qx '  ic: 1.03' "$S/0000-cover-letter.patch"
rm -r "$R"
found=$BLKMQ_OUT/series.work/checkpatch.txt
verify() { python3 "$BLKMQ_TOOLS/series-cover.py" verify "$found" "$T/allow.txt"; }
out=$(verify) || fail "checkpatch findings all allowed: $out"
pass "checkpatch findings all allowed: $out"
expect "the counts by level" \
	test "$out" = "0 errors, 1 warnings, 0 checks; 1 kept, 0 not kept"
: >"$T/allow.txt"
out=$(verify) && fail "a finding not allowed passes: $out"
expect "a finding not allowed is reported" \
	grep -qx '000[0-9]-tools-harness.patch:9: WARNING:LONG_LINE: .* \[tools/run\]' <<<"$out"
printf 'LONG_LINE tools/* kept on purpose\n' >"$T/allow.txt"
cp "$found" "$T/found.txt"
grep -v ':0: TOTAL: ' "$T/found.txt" >"$found"
out=$(verify) && fail "findings with no checkpatch totals pass: $out"
expect "checkpatch's totals missing fails" grep -q 'differ from the findings read' <<<"$out"
sed 's/^\(0001-[^:]*:0: TOTAL: \).*/\1/' "$T/found.txt" >"$found"
out=$(verify) && fail "a checkpatch that died passes: $out"
expect "a checkpatch that died is named" \
	grep -qx '0001-null-new-driver.patch: checkpatch did not finish (no total line)' <<<"$out"
cp "$T/found.txt" "$found"

assemble "$fbase" "$repo" "$T/series-tree" 1.0 >/dev/null 2>&1 || fail "assemble"
series_am "$T/am" >/dev/null 2>&1 || fail "git am: $(cat "$T/am.am.log")"
pass "git am of the exported series"
expect "git am gives the assembled tree" series_same_tree "$T/am" "$T/series-tree"
expect "the executable bit comes through" test -x "$T/am/tools/run"
echo drift >>"$T/series-tree/block/blk-core.c"
expect "a differing tree is caught" not series_same_tree "$T/am" "$T/series-tree"

printf 'subject no colon here\nfiles x\n| y\n' >"$T/series.txt"
expect_error "subject without subsystem" "series.txt:1: want 'subject subsystem: summary'$" \
	series_export
printf 'subject a: b\n| body\n' >"$T/series.txt"
expect_error "commit without files" "'a: b' has no files$" series_export
printf 'subject a: b\nfiles *\nfrob\n' >"$T/series.txt"
expect_error "unknown line" "series.txt:3: not a 'subject', 'files', '|' or '#' line$" series_export
