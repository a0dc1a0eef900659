# SPDX-License-Identifier: GPL-2.0
# The benchmark's guest half: one boot runs the whole fio matrix once.
# usage: bench-fio.sh RUNTIME [PARTS] [REGEX]
# PARTS (comma-separated, default nullb,virtio) picks the matrices:
# nullb: for each null_blk queue mode this kernel has, irqmode 0 and 1,
# libaio and io_uring, QD1 and QD32, 1..nr_cpus jobs: 4k random reads,
# fio JSON to /host/<mode>-irq<irq>-<engine>-qd<qd>-j<jobs>.json.
# virtio: the same 4k random reads on virtio-blk /dev/vda (the host's
# --disk), libaio, QD1 and QD32, 1..nr_cpus jobs, to
# /host/virtio_blk-libaio-qd<qd>-j<jobs>.json.
# With REGEX, only the cases whose name (the file name less .json)
# matches it.  Next to each JSON, <case>.cpu holds the guest's busy and
# idle CPU time over the run, from /proc/stat, in USER_HZ ticks:
# "busy_before idle_before busy_after idle_after nr_cpus".  It counts what fio's
# own usr/sys leaves out: softirqs and kernel threads working for it.
. /blkmq/guest/lib.sh

runtime=${1:-3}
parts=${2:-nullb,virtio}
only=${3:-}
cpus=$(grep -c ^processor /proc/cpuinfo)

# cases PREFIX ENGINE...: PREFIX-ENGINE-qdQ-jJ for QD1 and QD32 and 1, 2,
# 4 ... nr_cpus jobs, one a line, those REGEX (if any) matches.
cases()
{
	local prefix=$1 engine qd jobs
	shift
	for engine in "$@"; do
		for qd in 1 32; do
			jobs=1
			while [ "$jobs" -le "$cpus" ]; do
				echo "$prefix-$engine-qd$qd-j$jobs"
				jobs=$((jobs * 2))
				# then nr_cpus itself, when it is not a power of two
				if [ "$jobs" -gt "$cpus" ] && [ "$jobs" -lt $((cpus * 2)) ]; then
					jobs=$cpus
				fi
			done
		done
	done | grep -E -- "${only:-.}"
}

# cpu_ticks: busy and idle ticks of all CPUs (user nice system idle
# iowait irq softirq steal ...; iowait counts as idle).
cpu_ticks()
{
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat
}

# randread DEV CASE...: one fio 4k random read job per case on DEV.
randread()
{
	local dev=$1 case rest engine qd jobs before
	shift
	for case in "$@"; do
		rest=${case%-qd*}
		engine=${rest##*-}
		qd=${case##*-qd}
		qd=${qd%%-*}
		jobs=${case##*-j}
		echo "bench: $case"
		before=$(cpu_ticks)
		fio --name=bench --filename="$dev" --direct=1 \
			--rw=randread --bs=4k --ioengine="$engine" \
			--iodepth="$qd" --numjobs="$jobs" --group_reporting \
			--time_based --runtime="$runtime" \
			--output-format=json --output="/host/$case.json" >/dev/null || exit 1
		echo "$before $(cpu_ticks) $cpus" >"/host/$case.cpu"
	done
}

case ,$parts, in
*,nullb,*)
	for mode in 0 1 2; do
		name=$(mode_name $mode)
		list=$(cases "$name-irq0" libaio io_uring; cases "$name-irq1" libaio io_uring)
		[ -n "$list" ] || continue
		nullb_has_mode $mode || { echo "bench: no $name mode in this kernel"; continue; }
		for irq in 0 1; do
			list=$(cases "$name-irq$irq" libaio io_uring)
			[ -n "$list" ] || continue
			nullb_load queue_mode=$mode submit_queues="$cpus" irqmode=$irq \
				gb=16 bs=4096 || exit 1
			# shellcheck disable=SC2086 # one case a word
			randread /dev/nullb0 $list
			nullb_unload || exit 1
		done
	done
	;;
esac

case ,$parts, in
*,virtio,*)
	list=$(cases virtio_blk libaio)
	[ -n "$list" ] || exit 0
	[ -b /dev/vda ] || { echo "bench: no /dev/vda: the host gave no --disk"; exit 1; }
	n=$(ls -d /sys/block/vda/mq/* | wc -l)
	echo "bench: virtio_blk vda, $(cat /sys/block/vda/size) sectors, $n queues"
	# shellcheck disable=SC2086
	randread /dev/vda $list
	;;
esac
exit 0
