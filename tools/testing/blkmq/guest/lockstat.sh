# SPDX-License-Identifier: GPL-2.0
# Lock evidence (lockstat kernel, CONFIG_LOCK_STAT): for mq with one
# hardware queue per vCPU and for request_fn, fio 4k randread with one job
# per vCPU; /proc/lock_stat is cleared before and saved after each run,
# with the I/O count from /proc/diskstats, in the shared folder as
# lock_stat-<mode>.txt and ios-<mode>.txt.  usage: lockstat.sh RUNTIME
. /blkmq/guest/lib.sh

runtime=${1:-3}
cpus=$(grep -c ^processor /proc/cpuinfo)
[ -w /proc/lock_stat ] || { echo "lockstat: no /proc/lock_stat (CONFIG_LOCK_STAT)"; exit 1; }
echo 1 >/proc/sys/kernel/lock_stat

for mode in 2 1; do
	name=$(mode_name $mode)
	nullb_has_mode $mode || { echo "lockstat: no $name mode in this kernel"; continue; }
	nullb_load queue_mode=$mode submit_queues="$cpus" irqmode=1 gb=16 bs=4096 || exit 1
	r0=$(awk '$3 == "nullb0" { print $4 + $8 }' /proc/diskstats)
	echo 0 >/proc/lock_stat
	fio --name=lockstat --filename=/dev/nullb0 --direct=1 --rw=randread \
		--bs=4k --ioengine=libaio --iodepth=32 --numjobs="$cpus" \
		--cpus_allowed_policy=split --cpus_allowed=0-$((cpus - 1)) \
		--group_reporting --time_based --runtime="$runtime" \
		--output-format=terse >/dev/null || exit 1
	cat /proc/lock_stat >"/host/lock_stat-$name.txt"
	r1=$(awk '$3 == "nullb0" { print $4 + $8 }' /proc/diskstats)
	echo $((r1 - r0)) >"/host/ios-$name.txt"
	echo "lockstat: $name: $((r1 - r0)) I/Os"
	nullb_unload || exit 1
done
