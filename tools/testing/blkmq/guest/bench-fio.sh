# SPDX-License-Identifier: GPL-2.0
# The benchmark's guest half: one boot runs the whole fio matrix once.
# usage: bench-fio.sh RUNTIME [REGEX]
# For each null_blk queue mode this kernel has, irqmode 0 and 1, libaio
# and io_uring, QD1 and QD32, 1..nr_cpus jobs: 4k random reads, fio JSON
# to /host/<mode>-irq<irq>-<engine>-qd<qd>-j<jobs>.json.  With REGEX, only
# the cases whose name (the file name less .json) matches it.
. /blkmq/guest/lib.sh

runtime=${1:-3}
only=${2:-}
cpus=$(grep -c ^processor /proc/cpuinfo)

# cases MODE_NAME IRQ: the case names of one null_blk load, one a line.
cases()
{
	local engine qd jobs
	for engine in libaio io_uring; do
		for qd in 1 32; do
			jobs=1
			while [ "$jobs" -le "$cpus" ]; do
				echo "$1-irq$2-$engine-qd$qd-j$jobs"
				jobs=$((jobs * 2))
				[ "$jobs" -gt "$cpus" ] && [ "$jobs" -lt $((cpus * 2)) ] && jobs=$cpus
			done
		done
	done | grep -E -- "${only:-.}"
}

for mode in 0 1 2; do
	name=$(mode_name $mode)
	[ -n "$(cases "$name" 0)$(cases "$name" 1)" ] || continue
	nullb_has_mode $mode || { echo "bench: no $name mode in this kernel"; continue; }
	for irq in 0 1; do
		list=$(cases "$name" $irq)
		[ -n "$list" ] || continue
		nullb_load queue_mode=$mode submit_queues="$cpus" irqmode=$irq gb=16 bs=4096 || exit 1
		for case in $list; do
			rest=${case#*-irq?-}
			engine=${rest%%-*}
			qd=${rest#*-qd}
			qd=${qd%%-*}
			jobs=${rest##*-j}
			echo "bench: $name irqmode=$irq $engine QD$qd jobs=$jobs"
			fio --name=bench --filename=/dev/nullb0 --direct=1 \
				--rw=randread --bs=4k --ioengine="$engine" \
				--iodepth="$qd" --numjobs="$jobs" --group_reporting \
				--time_based --runtime="$runtime" \
				--output-format=json --output="/host/$case.json" >/dev/null || exit 1
		done
		nullb_unload || exit 1
	done
done
