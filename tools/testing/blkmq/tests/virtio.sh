# SPDX-License-Identifier: GPL-2.0
# virtio-blk, the base's driver unchanged, on whichever engine this kernel
# has.  The host gives two disks backed by files, one queue per vCPU:
# vda with cache=none, vdb with cache=writeback (see CHECK_SUITES).
# Per disk: the queue layout, fio verify, a flush-heavy job and the
# flushes it makes, O_SYNC writes (REQ_FUA) and theirs; discard; then
# loop on a file, and the data written for the reboot check
# (virtio-reboot.sh verifies it in the next boot).
. /blkmq/guest/lib.sh

ktap_header 17
ncpu=$(grep -c ^processor /proc/cpuinfo)

for d in vda vdb; do
	if [ ! -b /dev/$d ]; then
		for i in 1 2 3 4 5 6; do ktap_result 1 "$d: disk present" "no /dev/$d"; done
		continue
	fi
	diag "$d: $(cat /sys/block/$d/size) sectors, write_cache" \
		"'$(cat /sys/block/$d/queue/write_cache)'," \
		"discard_max_bytes $(cat /sys/block/$d/queue/discard_max_bytes)"

	n=$(ls -d /sys/block/$d/mq/* 2>/dev/null | wc -l)
	ktap_result $([ "$n" = "$ncpu" ]; echo $?) \
		"$d: one hardware queue per vCPU" "$n queues, $ncpu vCPUs"

	fio_verify "$d: fio randrw verify, 2 jobs, 4k-64k" /dev/$d \
		--numjobs=2 --size=32M --offset_increment=32M --bsrange=4k-64k

	fio_verify "$d: write+fsync each block, verify" /dev/$d \
		--rw=write --size=1M --offset=64M --iodepth=1 --fsync=1

	# Each fsync of the raw disk is one flush request to the device.
	f0=$(diskstat $d 16)
	i=0
	while [ $i -lt 64 ]; do
		dd if=/dev/zero of=/dev/$d bs=4k count=1 seek=$((17000 + i)) \
			oflag=direct conv=fsync 2>/dev/null || break
		i=$((i + 1))
	done
	f1=$(diskstat $d 16)
	ktap_result $([ $i = 64 ] && [ $((f1 - f0)) = 64 ]; echo $?) \
		"$d: 64 write+fsync pairs reach the device as 64 flushes" \
		"$i writes, flushes +$((f1 - f0))"

	# O_SYNC direct writes: REQ_FUA, which virtio emulates with a flush.
	f0=$(diskstat $d 16)
	fio_verify "$d: O_SYNC writes, verify" /dev/$d \
		--rw=write --size=512k --offset=72M --iodepth=1 --sync=1
	f1=$(diskstat $d 16)
	ktap_result $([ $((f1 - f0)) = 128 ]; echo $?) \
		"$d: 128 O_SYNC writes, FUA without FUA support, make 128 flushes" \
		"flushes +$((f1 - f0))"
done

# Discard, where the device offers it.
if [ "$(cat /sys/block/vdb/queue/discard_max_bytes 2>/dev/null)" -gt 0 ] 2>/dev/null; then
	c0=$(diskstat vdb 12)
	blkdiscard -o $((80 << 20)) -l $((8 << 20)) /dev/vdb 2>/tmp/discard.err
	rc=$?
	c1=$(diskstat vdb 12)
	ktap_result $([ $rc = 0 ] && [ $((c1 - c0)) -ge 1 ]; echo $?) \
		"vdb: discard of 8 MiB completes" \
		"exit $rc, discards +$((c1 - c0)) $(cat /tmp/discard.err)"
else
	ktap_skip "vdb: discard" "the device offers no discard"
fi

# CPU 1 offline under reads.  virtio-blk's queue interrupts are managed:
# the vector of CPU 1's queue goes down with CPU 1, so that queue must
# have drained before, or a read still in flight there never completes.
h=""
for q in /sys/block/vda/mq/*; do
	[ "$(cat "$q"/cpu_list 2>/dev/null)" = 1 ] && h=$q
done
if [ -n "$h" ] && [ -w /sys/devices/system/cpu/cpu1/online ]; then
	io_bound 120 fio --name=offline --filename=/dev/vda --direct=1 \
		--ioengine=libaio --rw=randread --bs=4k --iodepth=32 --size=64M \
		--cpus_allowed=1 --time_based --runtime=8 \
		--output-format=terse --terse-version=3 >/tmp/offline.out 2>&1 &
	pid=$!
	# offline once fio reads from CPU 1 (its queue dispatches), 20 s at most
	d0=$(cat "$h"/dispatched)
	t=0
	while [ $(($(cat "$h"/dispatched) - d0)) -lt 100 ] && [ $t -lt 100 ]; do
		sleep 0.2
		t=$((t + 1))
	done
	echo 0 >/sys/devices/system/cpu/cpu1/online
	after=$(cat "$h"/tags_in_use)
	state=$(cat "$h"/state)
	sleep 2
	echo 1 >/sys/devices/system/cpu/cpu1/online
	wait $pid
	rc=$?
	err=$(awk -F';' '/^3;/ { e += $5; n++ } END { print n ? e : "none" }' \
		/tmp/offline.out)
	ktap_result $([ "$after" = "0 0" ] && [ "$state" = inactive ]; echo $?) \
		"vda: CPU 1 offline under reads: its queue ${h##*/} drained first" \
		"then tags in use: $after, state $state"
	ktap_result $([ $rc = 0 ] && [ "$err" = 0 ]; echo $?) \
		"vda: reads across CPU 1 offline and back all complete" \
		"fio exit $rc, errors $err"
	[ $rc = 0 ] || tail -n 5 /tmp/offline.out | sed 's/^/# /'
else
	ktap_result 1 "vda: CPU 1 offline under reads: its queue drained first" \
		"no queue of CPU 1 alone, or CPU 1 cannot go offline"
	ktap_result 1 "vda: reads across CPU 1 offline and back all complete" \
		"not run"
fi

# loop, another base driver, on a file in tmpfs.
if modprobe loop 2>/dev/null || [ -e /dev/loop-control ] || [ -b /dev/loop0 ]; then
	head -c $((64 << 20)) /dev/zero >/tmp/loop.img
	dev=$(losetup -f)
	losetup "$dev" /tmp/loop.img
	fio_verify "loop: fio randrw verify on $dev" "$dev" \
		--numjobs=2 --size=16M --offset_increment=16M --direct=0
	losetup -d "$dev"
else
	ktap_result 1 "loop: fio randrw verify" "no loop driver in this kernel"
fi

# For virtio-reboot.sh: data that must survive the power-off, flushed
# by fio at the end (--end_fsync) as a careful writer would.
io_bound 300 fio --name=persist --filename=/dev/vdb --direct=1 \
	--ioengine=libaio --rw=write --bs=64k --offset=128M --size=32M \
	--verify=crc32c --do_verify=0 --end_fsync=1 \
	--output-format=terse --terse-version=3 >/tmp/fio.out 2>&1
rc=$?
ktap_result $rc "vdb: 32 MiB written and flushed for the reboot check" "fio exit $rc"

ktap_done
