# SPDX-License-Identifier: GPL-2.0
# insn-report.py on made-up plugin dumps: blocks to functions, the dump
# of each case (2k+1), instructions per I/O from fio's I/O count, the
# engine's functions over the mq cases, the ratios, and its errors.
. "$(dirname "$0")/lib.sh"

not() { ! "$@"; }

R=$T/insn
# fio_json FILE IOS: a fio JSON with IOS reads
fio_json() { printf '{"jobs": [{"read": {"total_ios": %s}, "write": {"total_ios": 0}}]}\n' \
	"$2" >"$1"; }

for k in stock series; do
	mkdir -p "$R/$k"
	printf '%s\n' 'ffffffff81000000 T _stext' 'ffffffff81000100 T blk_mq_get_tag' \
		'ffffffff81000200 t aio_read' 'ffffffff81000300 T _etext' >"$R/$k/System.map"
	printf '%s\n' mq-irq1-libaio-qd1-j1 mqnostat-irq1-libaio-qd1-j1 \
		bio-irq1-libaio-qd1-j1 >"$R/$k/insn-cases.txt"
	fio_json "$R/$k/insn-mq-irq1-libaio-qd1-j1.json" 1000
	fio_json "$R/$k/insn-mqnostat-irq1-libaio-qd1-j1.json" 1000
	fio_json "$R/$k/insn-bio-irq1-libaio-qd1-j1.json" 2000
done
# dumps: 0 before, 1 = mq case, 3 = mq without statistics, 5 = bio
# case, 2 and 4 between, 6 at exit.  stock mq: tag 3000 + 8 in a block
# inside it, aio 2000, user 5000, null_blk (above _etext) 1000; series
# mq: tag 1000, aio 2000, user 5000; without statistics: tag 500.
cat >"$R/stock/insn-dumps.txt" <<'D'
dump 0
ffffffff81000100 999999
dump 1
ffffffff81000100 3000
ffffffff81000180 8
ffffffff81000200 2000
400000 5000
ffffffffa0001000 1000
dump 2
ffffffff81000200 77
dump 3
ffffffff81000100 3000
dump 4
dump 5
ffffffff81000200 4000
400000 10000
dump 6
D
cat >"$R/series/insn-dumps.txt" <<'D'
dump 0
dump 1
ffffffff81000100 1000
ffffffff81000200 2000
400000 5000
dump 2
dump 3
ffffffff81000100 500
ffffffff81000200 2000
400000 5000
dump 4
dump 5
ffffffff81000200 4000
400000 10000
dump 6
D

out=$(python3 "$BLKMQ_TOOLS/insn-report.py" "$R") || fail "insn-report failed: $out"
mq=$(sed -n '/^insn mq-irq1-libaio-qd1-j1/,/^$/p' <<<"$out")
# stock: 11008 instructions over 1000 I/Os, series 8000
expect "whole guest per I/O" grep -qE '^whole guest +11 +8$' <<<"$mq"
expect "kernel and modules per I/O" grep -qE '^kernel \(and modules\) +6 +3$' <<<"$mq"
expect "engine per I/O" grep -qE '^engine \(blk_mq_\*, tags, accounting\) +3 +1$' <<<"$mq"
expect "a block counts to its function" grep -qE '^  blk_mq_get_tag +3\.0 +1\.0$' <<<"$mq"
expect "module code" grep -qE '^  \(modules\) +1\.0 +0\.0$' <<<"$mq"
expect "the dump between cases is left out" not grep -q 77 <<<"$out"
all=$(sed -n '/^all mq cases/,/^$/p' <<<"$out")
expect "engine functions over the mq cases" grep -qE '^  blk_mq_get_tag +3\.0 +1\.0$' <<<"$all"
expect "mq / stock ratio" \
	grep -qF 'insn: series mq / stock mq IOPS  irq1-libaio-qd1-j1: 1.376' <<<"$out"
# series bio: 14000 over 2000 I/Os = 7 a request, mq 8
expect "mq / bio ratio" \
	grep -qF 'insn: series mq / series bio IOPS irq1-libaio-qd1-j1: 0.875' <<<"$out"
# without statistics: 7500 a request
expect "mq iostats=0 / bio ratio" \
	grep -qF 'insn: series mq iostats=0 / series bio IOPS irq1-libaio-qd1-j1: 0.933' <<<"$out"
expect "mq without statistics is not an mq case" grep -qF '(instructions per I/O over 1 cases)' \
	<<<"$out"

# --annotate: each block's instructions per I/O at its first instruction,
# from the case's dump, and the function's total as in the report
cat >"$R/stock/engine.dis" <<'D'
ffffffff81000100 <blk_mq_get_tag>:
ffffffff81000100:	push   %rbp
ffffffff81000101:	mov    %rsp,%rbp
ffffffff81000180:	lock bts %rdx,(%rsi)
ffffffff81000184:	ret
D
err=$(python3 "$BLKMQ_TOOLS/insn-report.py" --annotate "$R" blk_mq_get_tag 2>&1)
expect "annotate: a kernel without engine.dis: exit 1" test $? = 1
expect "annotate: a kernel without engine.dis: message" \
	grep -qxF "insn-report: no $R/series/engine.dis: make profile PROFILE_INSN=1 writes it" \
	<<<"$err"
cp "$R/stock/engine.dis" "$R/series/engine.dis"
out=$(python3 "$BLKMQ_TOOLS/insn-report.py" --annotate "$R" blk_mq_get_tag) ||
	fail "insn-report --annotate failed: $out"
st=$(sed -n '/^insn mq-irq1-libaio-qd1-j1 stock: blk_mq_get_tag/,/^$/p' <<<"$out")
expect "annotate: a block's count at its first instruction" \
	grep -qxF '    3.00  ffffffff81000100: push %rbp' <<<"$st"
expect "annotate: an instruction inside a block has none" \
	grep -qxF '          ffffffff81000101: mov %rsp,%rbp' <<<"$st"
expect "annotate: the second block" \
	grep -qxF '    0.01  ffffffff81000180: lock bts %rdx,(%rsi)' <<<"$st"
expect "annotate: the function's total" \
	grep -qxF "     3.0  blk_mq_get_tag: the function's instructions per I/O" <<<"$st"
out=$(python3 "$BLKMQ_TOOLS/insn-report.py" --annotate "$R" blk_mq_get_tag \
	mqnostat-irq1-libaio-qd1-j1) || fail "insn-report --annotate CASE failed: $out"
expect "annotate: the case asked for" grep -qxF \
	"     0.5  blk_mq_get_tag: the function's instructions per I/O" \
	<<<"$(sed -n '/^insn mqnostat-irq1-libaio-qd1-j1 series/,/^$/p' <<<"$out")"
for bad in "aio_read:is not an engine function" "blk_nothing:no function blk_nothing in" \
	"blk_mq_get_tag nocase:no case nocase"; do
	read -ra args <<<"${bad%%:*}"
	err=$(python3 "$BLKMQ_TOOLS/insn-report.py" --annotate "$R" "${args[@]}" 2>&1)
	rc=$?
	expect "annotate ${bad%%:*}: exit 1, one line" test "$rc:$(wc -l <<<"$err")" = 1:1
	expect "annotate ${bad%%:*}: ${bad#*:}" grep -qF "${bad#*:}" <<<"$err"
done

# --disassemble: objdump of the engine functions only, from a real binary
cat >"$T/prog.c" <<'C'
int blk_mq_get_tag(int x) { return x * 3 + 1; }
int aio_read(int x) { return x - 7; }
int main(void) { return blk_mq_get_tag(2) + aio_read(1); }
C
mkdir -p "$T/dis"
cc -O1 -fno-inline -o "$T/prog" "$T/prog.c" || fail "cannot build a test binary"
nm -n "$T/prog" | grep ' [tT] ' >"$T/dis/System.map"
expect "disassemble" python3 "$BLKMQ_TOOLS/insn-report.py" --disassemble "$T/dis" "$T/prog"
dis=$T/dis/engine.dis
expect "disassemble: the engine function" grep -qE '^[0-9a-f]+ <blk_mq_get_tag>:$' "$dis"
expect "disassemble: its instructions" grep -qE '^ *[0-9a-f]+:'$'\t''ret' "$dis"
expect "disassemble: no other function" not grep -qE 'aio_read>:|<main>:' "$dis"
err=$(python3 "$BLKMQ_TOOLS/insn-report.py" --disassemble "$T/dis" "$T/nothing" 2>&1)
expect "disassemble a missing vmlinux: exit 1, one line" test "$?:$(wc -l <<<"$err")" = 1:1
expect "disassemble a missing vmlinux: message" \
	grep -q "^insn-report: objdump $T/nothing: " <<<"$err"

# errors: one line, exit non-zero
err=$(python3 "$BLKMQ_TOOLS/insn-report.py" "$T/nothing" 2>&1)
expect "no dumps: exit 1" test $? = 1
expect "no dumps: message" grep -qx "insn-report: no \*/insn-dumps.txt under $T/nothing" <<<"$err"
head -4 "$R/series/insn-dumps.txt" >"$R/series/d" && mv "$R/series/d" "$R/series/insn-dumps.txt"
err=$(python3 "$BLKMQ_TOOLS/insn-report.py" "$R" 2>&1)
expect "too few dumps: exit 1" test $? = 1
expect "too few dumps: message" grep -q "2 dumps for 3 cases, need 7" <<<"$err"

# the plugin builds as the harness builds it, and exports what QEMU looks up
so=$T/insn-count.so
expect "plugin builds with -Werror" cc -O2 -Wall -Werror -shared -fPIC -fvisibility=hidden \
	-o "$so" "$BLKMQ_TOOLS/qemu/insn-count.c"
syms=$(nm -D --defined-only "$so")
expect "plugin exports qemu_plugin_version" grep -qw qemu_plugin_version <<<"$syms"
expect "plugin exports qemu_plugin_install" grep -qw qemu_plugin_install <<<"$syms"
expect "plugin exports nothing else of its own" \
	test "$(grep -cvwE 'qemu_plugin_(version|install)' <<<"$syms")" = 0
