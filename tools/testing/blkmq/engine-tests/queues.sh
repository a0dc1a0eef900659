# SPDX-License-Identifier: GPL-2.0
# Engine queue set-ups on null_blk: a tag set shared by two disks, one
# tag map shared by all hardware queues, a BLK_MQ_F_BLOCKING driver, the
# flush machinery, nr_requests changes under I/O, CPU hotplug under I/O,
# and virtio-blk when the guest has a /dev/vda (see faults.sh).
. /blkmq/guest/lib.sh
ktap_header 10
fv() { # name dev [extra]
	fio --name=v --filename=$2 --direct=1 --rw=randrw --bs=4k \
		--size=32M --ioengine=libaio --iodepth=16 --numjobs=1 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 $3 \
		--output-format=terse --terse-version=3 >/tmp/fio.out 2>&1
	rc=$?
	err=$(awk -F';' '/^3;/ { e += $5; n++ } END { print n ? e : "none" }' /tmp/fio.out)
	case "$err" in ''|*[!0-9]*) err=1 ;; esac
	ktap_result $((rc != 0 || err != 0)) "$1" "fio exit $rc, errors ${err:-?}"
	[ $rc = 0 ] || tail -5 /tmp/fio.out
}
nullb_load queue_mode=2 submit_queues=2 nr_devices=2 shared_tags=1 irqmode=1 memory_backed=1 gb=1 || ktap_result 1 load
fio --name=w --filename=/dev/nullb1 --direct=1 --rw=randrw --bs=4k --size=32M --ioengine=libaio --iodepth=16 --verify=crc32c --verify_fatal=1 --do_verify=1 --output-format=terse --terse-version=3 >/tmp/fio1.out 2>&1 &
fv "shared tag set, dev 0" /dev/nullb0
wait $!; rc=$?
ktap_result $rc "shared tag set, dev 1" "rc $rc"
nullb_unload
nullb_load queue_mode=2 submit_queues=2 shared_tag_bitmap=1 hw_queue_depth=8 irqmode=2 completion_nsec=50000 memory_backed=1 gb=1 || ktap_result 1 load
fv "hctx-shared tags depth 8" /dev/nullb0
nullb_unload
nullb_load queue_mode=2 submit_queues=2 blocking=1 irqmode=0 memory_backed=1 gb=1 || ktap_result 1 load
fv "blocking driver" /dev/nullb0
nullb_unload
nullb_load queue_mode=2 submit_queues=2 irqmode=1 memory_backed=1 cache_size=16 gb=1 || ktap_result 1 load
cat /sys/block/nullb0/queue/write_cache
fv "write cache + fsync (flush machinery)" /dev/nullb0 "--fsync=4"
grep nullb0 /proc/diskstats
( for i in 1 2 3 4 5 6; do echo 16 > /sys/block/nullb0/queue/nr_requests; sleep 0.3; echo 64 > /sys/block/nullb0/queue/nr_requests; sleep 0.3; done ) &
fv "nr_requests changes (freeze+quiesce) under I/O" /dev/nullb0
wait
cat /sys/block/nullb0/queue/nr_requests
nullb_unload
nullb_load queue_mode=2 submit_queues=2 irqmode=2 completion_nsec=200000 memory_backed=1 gb=1 || ktap_result 1 load
( sleep 1; echo 0 > /sys/devices/system/cpu/cpu1/online; sleep 2; echo 1 > /sys/devices/system/cpu/cpu1/online; sleep 1; echo 0 > /sys/devices/system/cpu/cpu1/online; sleep 1; echo 1 > /sys/devices/system/cpu/cpu1/online ) &
fio --name=h --filename=/dev/nullb0 --direct=1 --rw=randrw --bs=4k --size=32M --ioengine=libaio --iodepth=32 --numjobs=2 --offset_increment=32M --verify=crc32c --verify_fatal=1 --do_verify=1 --output-format=terse --terse-version=3 >/tmp/fio.out 2>&1
rc=$?; wait
ktap_result $rc "CPU hotplug under I/O" "rc $rc"
cat /sys/devices/system/cpu/online
nullb_unload
nullb_load queue_mode=2 submit_queues=1 hw_queue_depth=4 irqmode=2 completion_nsec=100000 memory_backed=1 gb=1 || ktap_result 1 load
fio --name=v --filename=/dev/nullb0 --direct=1 --rw=randrw --bs=4k --size=8M --offset_increment=8M --ioengine=libaio --iodepth=64 --numjobs=4 --verify=crc32c --verify_fatal=1 --do_verify=1 --output-format=terse --terse-version=3 >/tmp/fio.out 2>&1
rc=$?; ktap_result $rc "depth 4 tag exhaustion, 4 jobs" "rc $rc"
cat /sys/block/nullb0/mq/0/busy /sys/block/nullb0/mq/0/dispatched
nullb_unload
if [ -b /dev/vda ]; then
	fv "virtio-blk randrw verify" /dev/vda "--numjobs=2 --offset_increment=24M --size=24M"
	fv "virtio-blk fsync" /dev/vda "--fsync=2 --size=8M"
	cat /sys/block/vda/mq/*/cpu_list
else
	ktap_skip "virtio-blk randrw verify" "no /dev/vda"; ktap_skip "virtio-blk fsync" "no /dev/vda"
fi
ktap_done
