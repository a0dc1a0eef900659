# SPDX-License-Identifier: GPL-2.0
# The benchmark's guest half: one boot runs the whole fio matrix once.
# usage: bench-fio.sh RUNTIME [PARTS]
# PARTS (comma-separated, default nullb,virtio) picks the matrices:
# nullb: for each null_blk queue mode this kernel has, irqmode 0 and 1,
# libaio and io_uring, QD1 and QD32, 1..nr_cpus jobs: 4k random reads,
# fio JSON to /host/<mode>-irq<irq>-<engine>-qd<qd>-j<jobs>.json.
# virtio: the same 4k random reads on virtio-blk /dev/vda (the host's
# --disk), libaio, QD1 and QD32, 1..nr_cpus jobs, to
# /host/virtio_blk-libaio-qd<qd>-j<jobs>.json.
. /blkmq/guest/lib.sh

runtime=${1:-3}
parts=${2:-nullb,virtio}
cpus=$(grep -c ^processor /proc/cpuinfo)

# randread NAME DEV ENGINE: QD1 and QD32, 1, 2, 4 ... nr_cpus jobs
randread()
{
	local name=$1 dev=$2 engine=$3 qd jobs out
	for qd in 1 32; do
		jobs=1
		while [ "$jobs" -le "$cpus" ]; do
			out=/host/$name-$engine-qd$qd-j$jobs.json
			echo "bench: $name $engine QD$qd jobs=$jobs"
			fio --name=bench --filename="$dev" --direct=1 \
				--rw=randread --bs=4k --ioengine="$engine" \
				--iodepth=$qd --numjobs=$jobs --group_reporting \
				--time_based --runtime="$runtime" \
				--output-format=json --output="$out" >/dev/null || exit 1
			jobs=$((jobs * 2))
			# then nr_cpus itself, when it is not a power of two
			if [ "$jobs" -gt "$cpus" ] && [ "$jobs" -lt $((cpus * 2)) ]; then
				jobs=$cpus
			fi
		done
	done
}

case ,$parts, in
*,nullb,*)
	for mode in 0 1 2; do
		name=$(mode_name $mode)
		nullb_has_mode $mode || { echo "bench: no $name mode in this kernel"; continue; }
		for irq in 0 1; do
			nullb_load queue_mode=$mode submit_queues="$cpus" irqmode=$irq \
				gb=16 bs=4096 || exit 1
			for engine in libaio io_uring; do
				randread "$name-irq$irq" /dev/nullb0 $engine
			done
			nullb_unload || exit 1
		done
	done
	;;
esac

case ,$parts, in
*,virtio,*)
	[ -b /dev/vda ] || { echo "bench: no /dev/vda: the host gave no --disk"; exit 1; }
	n=$(ls -d /sys/block/vda/mq/* | wc -l)
	echo "bench: virtio_blk vda, $(cat /sys/block/vda/size) sectors, $n queues"
	randread virtio_blk /dev/vda libaio
	;;
esac
