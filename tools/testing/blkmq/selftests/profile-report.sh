# SPDX-License-Identifier: GPL-2.0
# profile-report.py on a made-up /proc/profile: functions from System.map,
# ticks to instructions per I/O under -icount, the engine's functions
# summed over the cases.
. "$(dirname "$0")/lib.sh"

# profile_bin FILE COUNT...: a 4-byte bucket size, then one u32 per bucket
profile_bin()
{
	local f=$1
	shift
	python3 -c 'import struct, sys
sys.stdout.buffer.write(struct.pack("<%dI" % (len(sys.argv) - 1), 4, *map(int, sys.argv[2:])))' \
		x "$@" >"$f"
}

not() { ! "$@"; }

R=$T/profile
for k in stock series; do
	mkdir -p "$R/$k"
	printf '%s\n' '0000000000001000 T _stext' '0000000000001000 T blk_mq_get_tag' \
		'0000000000001008 t nvme_foo' '000000000000100c T default_idle' >"$R/$k/System.map"
	echo CONFIG_HZ=100 >"$R/$k/config"
	for c in qd1 qd32; do
		echo 1000 >"$R/$k/ios-$c.txt"
	done
done
# buckets: blk_mq_get_tag x2, nvme_foo, default_idle, (modules)
profile_bin "$R/stock/profile-qd1.bin" 1 1 2 50 0
profile_bin "$R/stock/profile-qd32.bin" 2 1 2 50 0
profile_bin "$R/series/profile-qd1.bin" 0 1 1 50 0
profile_bin "$R/series/profile-qd32.bin" 0 0 1 50 0
echo shift=0 >"$R/icount"

out=$(python3 "$BLKMQ_TOOLS/profile-report.py" "$R") || fail "profile-report failed: $out"
# a tick at HZ=100 is 10^7 instructions; 2 ticks over 1000 I/Os
qd1=$(grep -A4 '^profile qd1' <<<"$out")
expect "instructions per I/O by function" \
	grep -qE '^blk_mq_get_tag +20000 +50\.0 +10000 +50\.0$' <<<"$qd1"
expect "idle ticks left out" not grep -q default_idle <<<"$out"
all=$(sed -n '/^all cases, the engine/,$p' <<<"$out")
# stock 5 ticks, series 1, over 2000 I/Os
expect "engine functions over all cases: stock" \
	grep -qE '^  blk_mq_get_tag +25000$' <<<"$(sed -n '/^stock:/,/^series:/p' <<<"$all")"
expect "engine functions over all cases: series" \
	grep -qE '^  blk_mq_get_tag +5000$' <<<"$(sed -n '/^series:/,$p' <<<"$all")"
# busy: stock 4 + 5 ticks, series 2 + 1, idle left out
expect "kernel busy over all cases" \
	grep -qE '^  kernel, busy +45000$' <<<"$(sed -n '/^stock:/,/^series:/p' <<<"$all")"
expect "kernel busy over all cases, series" \
	grep -qE '^  kernel, busy +15000$' <<<"$(sed -n '/^series:/,$p' <<<"$all")"
