# SPDX-License-Identifier: GPL-2.0
# The series built with CONFIG_BLK_MQ=n: the engine is not in the
# kernel, null_blk runs the bio and request_fn modes with verified I/O,
# refuses queue_mode=2 with one clear line, and defaults to request_fn.
. /blkmq/guest/lib.sh

ktap_header 8

# blk_update_request (blk-request.c, built either way) shows kallsyms works
n=$(grep -cE ' (blk_mq_submit_bio|blk_mq_alloc_tag_set|blk_mq_run_hw_queue)$' /proc/kallsyms)
u=$(grep -cE ' blk_update_request$' /proc/kallsyms)
ktap_result $([ "$n" = 0 ] && [ "$u" = 1 ]; echo $?) "the engine is not built in" \
	"kallsyms: $n of blk_mq_submit_bio/alloc_tag_set/run_hw_queue, blk_update_request $u"

# queue_mode=2: refused, one line naming the parameter and the option.
dmesg -c >/dev/null
modprobe null_blk queue_mode=2 nr_devices=1 2>/dev/null
rc=$?
line=$(dmesg | grep 'null_blk: queue_mode=2' | tail -n 1)
ktap_result $([ $rc != 0 ] && [ ! -e /dev/nullb0 ] &&
	echo "$line" |
		grep -q 'queue_mode=2 is not available: this kernel is built without CONFIG_BLK_MQ'
	echo $?) "queue_mode=2 is refused" "modprobe exit $rc: ${line#*] }"
[ -d /sys/module/null_blk ] && modprobe -r null_blk

# The default is request_fn.
if nullb_load nr_devices=1 gb=1; then
	mode=$(cat /sys/module/null_blk/parameters/queue_mode)
	sched=$(cat /sys/block/nullb0/queue/scheduler)
	ktap_result $([ "$mode" = 1 ] && [ ! -e /sys/block/nullb0/mq ]; echo $?) \
		"the default queue_mode is 1 (request_fn)" "queue_mode $mode, scheduler '$sched'"
	nullb_unload
else
	ktap_result 1 "the default queue_mode is 1 (request_fn)" "null_blk did not load"
fi

for mode in 0 1; do
	for irq in 0 1; do
		if nullb_load queue_mode=$mode irqmode=$irq memory_backed=1 nr_devices=1 gb=1; then
			fio_verify "$(mode_name $mode) irqmode=$irq: fio randrw verify" \
				/dev/nullb0 --numjobs=2 --offset_increment=16M
			nullb_unload
		else
			ktap_result 1 "$(mode_name $mode) irqmode=$irq: fio randrw verify" \
				"null_blk did not load"
		fi
	done
done

# The request_fn elevators are there without the engine.
if nullb_load queue_mode=1 memory_backed=1 nr_devices=1 gb=1; then
	echo noop >/sys/block/nullb0/queue/scheduler
	s=$(cat /sys/block/nullb0/queue/scheduler)
	ktap_result $(echo "$s" | grep -q '\[noop\]'; echo $?) \
		"request_fn: the scheduler switches to noop" "'$s'"
	nullb_unload
else
	ktap_result 1 "request_fn: the scheduler switches to noop" "null_blk did not load"
fi
ktap_done
