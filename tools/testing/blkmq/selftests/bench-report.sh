# SPDX-License-Identifier: GPL-2.0
# bench-report.py on made-up fio JSON: medians and ranges over repeats,
# CPU per I/O, the ratio lines, and a plot file.
. "$(dirname "$0")/lib.sh"

fio_json() # FILE IOPS USR SYS
{
	cat >"$1" <<J
fio: a warning fio prints before its JSON
{"jobs": [{"error": 0, "usr_cpu": $3, "sys_cpu": $4,
  "read": {"iops": $2, "total_ios": $(($2 * 2)), "runtime": 2000,
           "clat_ns": {"percentile": {"50.000000": 5000, "99.000000": 20000}}}}]}
J
}

R=$T/bench
for k in stock series; do
	for r in 1 2 3; do
		mkdir -p "$R/$k/r$r"
		for m in bio mq; do
			iops=$((r * 1000))
			[ $k = series ] && [ $m = mq ] && iops=$((r * 1200))
			fio_json "$R/$k/r$r/$m-irq1-libaio-qd32-j1.json" $iops 10 40
			# the guest half busy on 2 CPUs: 2 CPU seconds in 2 s
			echo "1000 500 1100 600 2" >"$R/$k/r$r/$m-irq1-libaio-qd32-j1.cpu"
		done
		iops=$((r * 100))
		[ $k = series ] && iops=$((r * 90))
		fio_json "$R/$k/r$r/virtio_blk-libaio-qd1-j1.json" $iops 10 40
	done
done
for k in stock series; do
	mkdir -p "$R/icount/$k/r1"
	iops=1000
	[ $k = series ] && iops=1100
	fio_json "$R/icount/$k/r1/mq-irq1-libaio-qd1-j1.json" $iops 30 60
	# /proc/stat says series idled half the time: not used under icount
	[ $k = stock ] && echo "0 0 200 0 1" >"$R/icount/$k/r1/mq-irq1-libaio-qd1-j1.cpu"
	[ $k = series ] && echo "0 0 100 100 1" >"$R/icount/$k/r1/mq-irq1-libaio-qd1-j1.cpu"
done
mkdir -p "$R/tags"
for r in 1 2 3; do
	echo "blk_mq_tag threads=2 depth=128 hold=1 msecs=1000 ops=1 empty=0 kops/s=$((r * 300))"
	echo "sbitmap    threads=2 depth=128 hold=1 msecs=1000 ops=1 empty=0 kops/s=$((r * 200))"
done >"$R/tags/tag-bench.txt"
out=$(python3 "$BLKMQ_TOOLS/bench-report.py" "$R") || fail "bench-report failed: $out"
line=$(grep '^series  mq' <<<"$out")
expect "median and min-max over three repeats" \
	grep -qE 'series +mq +1 libaio +32 +1 +2400 +1200 +3600' <<<"$line"
# 50% of a CPU for 2 s over 2*iops I/Os: 500, 250, 167 us/IO; median 250.
expect "CPU per I/O from usr+sys and runtime" \
	grep -qE " 250\.00 +[0-9.]+ +3$" <<<"$(grep '^stock   mq' <<<"$out")"
# 2 CPU seconds over 2*iops I/Os: median 2e6 / 4000 = 500 us/IO.
expect "guest CPU per I/O from the .cpu ticks" \
	grep -qE " 250\.00 +500\.00 +3$" <<<"$(grep '^stock   mq' <<<"$out")"
expect "CPU/IO ratio from the guest's CPU" \
	grep -q 'series mq / stock mq CPU/IO libaio   QD32 jobs=1: 0.83' <<<"$out"
# one busy CPU for 2 s over 2000 I/Os is 1 ms, a million instructions
expect "icount: instructions per I/O" \
	grep -qE '^stock +mq +1 libaio +1 +1000 +1000000 +900000$' <<<"$out"
# fio's 90% of 2 s over 2200 and over 2000 I/Os
expect "icount: CPU/IO from fio's usr+sys" \
	grep -q '^icount: series mq / stock mq CPU/IO libaio   QD1  jobs=1: 0.91' <<<"$out"
expect "icount: series/stock ratio" \
	grep -q '^icount: series mq / stock mq IOPS  libaio   QD1  jobs=1: 1.10' <<<"$out"
expect "series/stock mq ratio" \
	grep -q 'series mq / stock mq IOPS  libaio   QD32 jobs=1: 1.20' <<<"$out"
expect "series mq/bio ratio" \
	grep -q 'series mq / series bio IOPS libaio   QD32 jobs=1: 1.20' <<<"$out"
expect "virtio_blk row: no irqmode, median over three repeats" \
	grep -qE '^series +virtio_blk +- +libaio +1 +1 +180 +90 +270 ' <<<"$out"
expect "series/stock virtio_blk ratio" \
	grep -q 'series / stock virtio_blk IOPS   libaio   QD1  jobs=1: 0.90' <<<"$out"
expect "tag bench: medians and ratio" grep -qE '^ +128 +1 +2 +600 +400 +1.50$' <<<"$out"
expect "summary.json written" python3 -c "import json; json.load(open('$R/summary.json'))"
expect "plot written" test -s "$R/iops.png"

# a run of the tag part alone reports it; a run with nothing is an error
mkdir -p "$T/tagsonly/tags"
cp "$R/tags/tag-bench.txt" "$T/tagsonly/tags/"
out=$(python3 "$BLKMQ_TOOLS/bench-report.py" "$T/tagsonly") || fail "tags only: $out"
expect "tag part alone: its table" grep -qE '^ +128 +1 +2 +600 +400 +1.50$' <<<"$out"
mkdir -p "$T/empty"
out=$(python3 "$BLKMQ_TOOLS/bench-report.py" "$T/empty" 2>&1) && fail "empty run passes: $out"
expect "nothing to report: one line" \
	test "$out" = "bench-report: no fio or tag results under $T/empty"
