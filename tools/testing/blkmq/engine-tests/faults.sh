# SPDX-License-Identifier: GPL-2.0
# Engine faults and life cycle (series kernel, debug config, which has
# null_blk fault injection): ->timeout(), requeue and busy injection, the
# flush machinery, freeze/quiesce under I/O, CPU hotplug under I/O, tag
# exhaustion, and virtio-blk when the guest has a /dev/vda (pass
# BLKMQ_QEMU_EXTRA="-drive file=IMG,if=virtio,format=raw", IMG >= 64 MiB).
. /blkmq/guest/lib.sh
ktap_header 8
fv() { # name dev [extra]
	fio --name=v --filename=$2 --direct=1 --rw=randrw --bs=4k \
		--size=16M --ioengine=libaio --iodepth=16 --numjobs=1 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 $3 \
		--output-format=terse --terse-version=3 >/tmp/fio.out 2>&1
	rc=$?
	err=$(awk -F';' '/^3;/ { e += $5; n++ } END { print n ? e : "none" }' /tmp/fio.out)
	case "$err" in ''|*[!0-9]*) err=1 ;; esac
	ktap_result $((rc != 0 || err != 0)) "$1" "fio exit $rc, errors $err"
	[ $rc = 0 ] || tail -5 /tmp/fio.out
}
# The two injected timeouts hit the partition scan of add_disk(): each
# must be reported by null_blk's ->timeout() and fail its read, and I/O
# must work afterwards.
before=$(dmesg | grep -c 'null_blk: rq .* timed out')
if nullb_load queue_mode=2 submit_queues=2 irqmode=1 memory_backed=1 gb=1 timeout=1,100,0,2; then
	n=$(( $(dmesg | grep -c 'null_blk: rq .* timed out') - before ))
	dd if=/dev/nullb0 of=/dev/null bs=4k count=64 iflag=direct 2>/tmp/dd.err; r=$?
	ktap_result $((n != 2 || r != 0)) "2 injected timeouts handled, then I/O works" "timeouts $n, dd $r"
	nullb_unload
else
	ktap_result 1 "2 injected timeouts handled, then I/O works" "load failed"
fi
if nullb_load queue_mode=2 submit_queues=2 irqmode=1 memory_backed=1 gb=1 requeue=1,10,0,-1; then
	fv "requeue + BLK_STS_RESOURCE injection (10%)" /dev/nullb0
	cat /sys/block/nullb0/mq/*/busy | tr '\n' ' '; echo
	nullb_unload
else
	ktap_result 1 "requeue" "load failed"
fi
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
fio --name=h --filename=/dev/nullb0 --direct=1 --rw=randrw --bs=4k --size=16M --ioengine=libaio --iodepth=32 --numjobs=2 --offset_increment=16M --verify=crc32c --verify_fatal=1 --do_verify=1 --output-format=terse --terse-version=3 >/tmp/fio.out 2>&1
rc=$?; wait
ktap_result $rc "CPU hotplug under I/O" "rc $rc"
cat /sys/devices/system/cpu/online
nullb_unload
nullb_load queue_mode=2 submit_queues=1 hw_queue_depth=4 irqmode=2 completion_nsec=100000 memory_backed=1 gb=1 || ktap_result 1 load
fio --name=v --filename=/dev/nullb0 --direct=1 --rw=randrw --bs=4k --size=4M --offset_increment=4M --ioengine=libaio --iodepth=64 --numjobs=4 --verify=crc32c --verify_fatal=1 --do_verify=1 --output-format=terse --terse-version=3 >/tmp/fio.out 2>&1
rc=$?; ktap_result $rc "depth 4 tag exhaustion, 4 jobs" "rc $rc"
nullb_unload
if [ -b /dev/vda ]; then
	fv "virtio-blk randrw verify, 2 jobs" /dev/vda "--numjobs=2 --offset_increment=24M"
	fv "virtio-blk fsync" /dev/vda "--fsync=2 --size=8M"
	cat /sys/block/vda/mq/*/cpu_list
else
	ktap_skip "virtio-blk randrw verify" "no /dev/vda"; ktap_skip "virtio-blk fsync" "no /dev/vda"
fi
ktap_done
