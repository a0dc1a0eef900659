# SPDX-License-Identifier: GPL-2.0
# The main job's guest half: for each queue mode this kernel's null_blk
# has, load it and run a short 4k random-read fio job at 1 job and at one
# job per CPU. fio's JSON goes to /host/fio-<mode>-<jobs>.json.
. /blkmq/guest/lib.sh

runtime=${1:-5}
cpus=$(grep -c ^processor /proc/cpuinfo)
jobs_list=1
[ "$cpus" -gt 1 ] && jobs_list="1 $cpus"

for mode in 0 1 2; do
	name=$(mode_name $mode)
	if ! nullb_has_mode $mode; then
		echo "main: queue_mode=$mode ($name) not in this kernel"
		continue
	fi
	nullb_load queue_mode=$mode submit_queues="$cpus" irqmode=1 gb=4 bs=4096 || exit 1
	for jobs in $jobs_list; do
		echo "main: fio $name, $jobs job(s), ${runtime}s"
		fio --name="$name" --filename=/dev/nullb0 --direct=1 --rw=randread \
			--bs=4k --ioengine=libaio --iodepth=32 --numjobs="$jobs" \
			--group_reporting --time_based --runtime="$runtime" \
			--output-format=json --output="/host/fio-$name-$jobs.json" || exit 1
	done
	nullb_unload || exit 1
done
