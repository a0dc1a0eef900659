# SPDX-License-Identifier: GPL-2.0
# The profile's guest half (profile kernel, booted with profile=N): for
# null_blk mq mode, irqmode 0 and 1, fio libaio 4k randread QD1 and QD32,
# one job, /proc/profile is cleared before and saved after the run, with
# the run's I/O count from /proc/diskstats, in the shared folder as
# profile-<case>.bin and ios-<case>.txt.  usage: profile.sh RUNTIME
. /blkmq/guest/lib.sh

runtime=${1:-15}
cpus=$(grep -c ^processor /proc/cpuinfo)
if [ ! -w /proc/profile ]; then
	echo "profile: no /proc/profile (CONFIG_PROFILING, boot with profile=N)"
	exit 1
fi

for irq in 0 1; do
	nullb_load queue_mode=2 submit_queues="$cpus" irqmode=$irq gb=16 bs=4096 || exit 1
	for qd in 1 32; do
		case=irq$irq-libaio-qd$qd-j1
		r0=$(awk '$3 == "nullb0" { print $4 + $8 }' /proc/diskstats)
		# any write that is not one int long clears the counters
		echo 0 >/proc/profile
		fio --name=profile --filename=/dev/nullb0 --direct=1 --rw=randread \
			--bs=4k --ioengine=libaio --iodepth=$qd --numjobs=1 \
			--time_based --runtime="$runtime" \
			--output-format=terse >/dev/null || exit 1
		cat /proc/profile >"/host/profile-$case.bin"
		r1=$(awk '$3 == "nullb0" { print $4 + $8 }' /proc/diskstats)
		echo $((r1 - r0)) >"/host/ios-$case.txt"
		echo "profile: $case: $((r1 - r0)) I/Os"
	done
	nullb_unload || exit 1
done
