# SPDX-License-Identifier: GPL-2.0
# Engine basics on null_blk: mq mode with irqmode 0/1/2 (libaio) and
# io_uring, bio mode, fio randrw crc32c verify with 0 errors; the
# /sys/block/<dev>/mq view and the scheduler attribute ("none" only);
# tag exhaustion at depth 4 with 4 jobs.
. /blkmq/guest/lib.sh
ktap_header 7
fv() { # name extra-fio-args
	fio --name=v --filename=/dev/nullb0 --direct=1 --rw=randrw --bs=4k \
		--size=32M --ioengine=$2 --iodepth=16 --numjobs=1 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output-format=terse --terse-version=3 >/tmp/fio.out 2>&1
	rc=$?
	err=$(awk -F';' '/^3;/ { e += $5; n++ } END { print n ? e : "none" }' /tmp/fio.out)
	case "$err" in ''|*[!0-9]*) err=1 ;; esac
	ktap_result $((rc != 0 || err != 0)) "$1" "fio exit $rc, errors ${err:-?}"
	[ $rc = 0 ] || tail -5 /tmp/fio.out
}
for irq in 0 1 2; do
	nullb_load queue_mode=2 submit_queues=2 irqmode=$irq memory_backed=1 gb=1 completion_nsec=20000 || { ktap_result 1 "load irq$irq"; continue; }
	fv "mq irqmode=$irq libaio" libaio
	if [ $irq = 1 ]; then
		ls /sys/block/nullb0/mq/ /sys/block/nullb0/mq/0
		for f in cpu_list nr_tags nr_reserved_tags queued run dispatched busy state; do echo "mq/0/$f: $(cat /sys/block/nullb0/mq/0/$f)"; done
		for f in /sys/block/nullb0/mq/*/cpu*/*; do echo "$f: $(cat $f)"; done
		cat /sys/block/nullb0/queue/scheduler
		echo none > /sys/block/nullb0/queue/scheduler; r1=$?
		echo mq-deadline > /sys/block/nullb0/queue/scheduler 2>/dev/null; r2=$?
		ktap_result $((r1 != 0 || r2 == 0)) "scheduler attr none only" "none:$r1 deadline:$r2"
		grep nullb0 /proc/diskstats
		cat /sys/block/nullb0/inflight
	fi
	nullb_unload
done
nullb_load queue_mode=2 submit_queues=2 irqmode=1 memory_backed=1 gb=1 || ktap_result 1 load
fv "mq io_uring" io_uring
# plugged sequential writes: merges
fio --name=m --filename=/dev/nullb0 --direct=1 --rw=write --bs=4k --size=8M --ioengine=libaio --iodepth=32 --iodepth_batch_submit=32 --output-format=terse --terse-version=3 >/dev/null 2>&1
grep nullb0 /proc/diskstats
nullb_unload
nullb_load queue_mode=0 memory_backed=1 gb=1 || ktap_result 1 load-bio
fv "bio mode" libaio
nullb_unload
nullb_load queue_mode=2 submit_queues=1 hw_queue_depth=4 irqmode=2 completion_nsec=100000 memory_backed=1 gb=1 || ktap_result 1 load-small
fio --name=v --filename=/dev/nullb0 --direct=1 --rw=randrw --bs=4k --size=8M --offset_increment=8M --ioengine=libaio --iodepth=64 --numjobs=4 --verify=crc32c --verify_fatal=1 --do_verify=1 --output-format=terse --terse-version=3 >/tmp/fio.out 2>&1
rc=$?; ktap_result $rc "depth 4 tag exhaustion, 4 jobs" "rc $rc errs $(cut -d';' -f5 /tmp/fio.out | head -n1)"
nullb_unload
ktap_done
