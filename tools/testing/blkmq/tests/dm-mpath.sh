# SPDX-License-Identifier: GPL-2.0
# Request-based device mapper on the engine: the base's dm-multipath,
# unchanged, over two memory-backed null_blk disks in two path groups.
# Every I/O of the multipath disk is a request of its own queue, cloned
# onto a path's queue (blk_rq_prep_clone(), blk_insert_cloned_request():
# block/blk-mq-clone.c), so this runs the clone path of the engine:
# - the multipath disk is on the engine; fio verify through it;
# - reads and flushes through it are counted once on the multipath disk
#   and once on the path (a flush's clone carries no bio);
# - with its path failed, I/O goes to the other group's disk alone;
# - with no path left and queue_if_no_path, a read waits, requeued by dm
#   again and again, and ends once a path is back;
# - a read that times out on a path fails that path, and dm requeues it
#   to the other, where it ends well;
# then dm and null_blk unload, and kmemleak finds nothing.
. /blkmq/guest/lib.sh

ktap_header 9
kmemleak_begin

# reads_through N SKIP: N direct 4 KiB reads of the multipath disk from
# page SKIP on; fails unless all N were read.
reads_through()
{
	dd if="$dev" of=/dev/null bs=4k count="$1" skip="$2" iflag=direct \
		2>/tmp/dd.err
}

# path_state DISK: A (active) or F (failed), from dmsetup status.
path_state()
{
	dmsetup status mpath 2>/dev/null |
		awk -v d="$(cat /sys/block/"$1"/dev)" '{
			for (i = 1; i < NF; i++) if ($i == d) print $(i + 1) }'
}

# no features, no hardware handler, two path groups of one path each,
# round-robin (a repeat count of 1), the first group active
group0="round-robin 0 1 1 /dev/nullb0 1"
group1="round-robin 0 1 1 /dev/nullb1 1"

# mpath_create: the table "mpath" over nullb0 and nullb1; sets sectors,
# d (dm-N) and dev (/dev/dm-N).  Errors go to /tmp/setup.err.
mpath_create()
{
	local b

	d="" dev=""
	sectors=$(cat /sys/block/nullb0/size)
	dmsetup create mpath --noudevsync --noudevrules --table \
		"0 $sectors multipath 0 0 2 1 $group0 $group1" \
		2>>/tmp/setup.err || return 1
	for b in /sys/block/dm-*; do
		[ "$(cat "$b/dm/name" 2>/dev/null)" = mpath ] && d=$(basename "$b")
	done
	[ -n "$d" ] && [ -b "/dev/$d" ] && dev=/dev/$d
}

d="" dev="" sectors="" ok=0
: >/tmp/setup.err
nullb_load queue_mode=2 nr_devices=2 memory_backed=1 write_cache=1 \
		gb=1 irqmode=1 submit_queues=2 2>/tmp/setup.err &&
	modprobe dm-multipath 2>>/tmp/setup.err &&
	modprobe dm-round-robin 2>>/tmp/setup.err &&
	mpath_create && ok=1
mq=$(ls -d /sys/block/"$d"/mq/* 2>/dev/null | wc -l)
ktap_result $([ $ok = 1 ] && [ "$mq" -ge 1 ] &&
	[ "$(cat /sys/block/"$d"/dm/name 2>/dev/null)" = mpath ] &&
	[ "$(cat /sys/block/"$d"/size)" = "$sectors" ]; echo $?) \
	"dm-multipath: the multipath disk is on the engine" \
	"${dev:-no disk}, $mq hardware queues, paths" \
	"$(path_state nullb0)$(path_state nullb1)$(first_error /tmp/setup.err)"

if [ -n "$dev" ]; then
	fio_verify "dm-multipath: fio randrw verify" "$dev" --numjobs=2 \
		--size=16M --offset_increment=16M --bsrange=4k-64k

	r0=$(diskstat "$d" 1) p0=$(diskstat nullb0 1) q0=$(diskstat nullb1 1)
	reads_through 64 16384
	rc=$?
	r1=$(diskstat "$d" 1) p1=$(diskstat nullb0 1) q1=$(diskstat nullb1 1)
	ktap_result $([ $rc = 0 ] && [ $((r1 - r0)) = 64 ] &&
		[ $((p1 - p0)) = 64 ] && [ $((q1 - q0)) = 0 ]; echo $?) \
		"dm-multipath: 64 reads count 64 on it and 64 on the active path" \
		"dd exit $rc, reads +$((r1 - r0)), nullb0 +$((p1 - p0))," \
		"nullb1 +$((q1 - q0))"

	# each pair: the page's write, then one flush for the fsync
	f0=$(diskstat "$d" 16) g0=$(diskstat nullb0 16)
	n0=$(cat /sys/kernel/debug/null_blk/nullb0/flushes 2>/dev/null)
	i=$(write_fsync_pages "$dev" 8 16384)
	f1=$(diskstat "$d" 16) g1=$(diskstat nullb0 16)
	n1=$(cat /sys/kernel/debug/null_blk/nullb0/flushes 2>/dev/null)
	ktap_result $([ $i = 8 ] && [ $((f1 - f0)) = 8 ] &&
		[ $((g1 - g0)) = 8 ] && [ $((n1 - n0)) = 8 ]; echo $?) \
		"dm-multipath: 8 write+fsync pairs count 8 flushes on it and on the path" \
		"$i writes, flushes +$((f1 - f0)), nullb0 +$((g1 - g0))," \
		"null_blk saw +$((n1 - n0))"

	# fail nullb0: dm switches to the second group
	dmsetup message mpath 0 fail_path /dev/nullb0 2>/tmp/dm.err
	p0=$(diskstat nullb0 1) q0=$(diskstat nullb1 1)
	reads_through 32 16384
	rc=$?
	p1=$(diskstat nullb0 1) q1=$(diskstat nullb1 1)
	ktap_result $([ $rc = 0 ] && [ "$(path_state nullb0)" = F ] &&
		[ $((p1 - p0)) = 0 ] && [ $((q1 - q0)) = 32 ]; echo $?) \
		"dm-multipath: with nullb0 failed, 32 reads go to nullb1 alone" \
		"dd exit $rc, nullb0 $(path_state nullb0) +$((p1 - p0))," \
		"nullb1 +$((q1 - q0))$(first_error /tmp/dm.err)$([ $rc = 0 ] ||
			first_error /tmp/dd.err)"

	# no path: the read is requeued until nullb1 is reinstated
	dmsetup message mpath 0 queue_if_no_path 2>/tmp/dm.err &&
		dmsetup message mpath 0 fail_path /dev/nullb1 2>>/tmp/dm.err
	r0=$(diskstat "$d" 1) q0=$(diskstat nullb1 1)
	reads_through 1 16384 &
	pid=$!
	sleep 2
	kill -0 $pid 2>/dev/null
	running=$?
	dmsetup message mpath 0 reinstate_path /dev/nullb1 2>>/tmp/dm.err
	wait $pid
	rc=$?
	r1=$(diskstat "$d" 1) q1=$(diskstat nullb1 1)
	ktap_result $([ $running = 0 ] && [ $rc = 0 ] &&
		[ $((r1 - r0)) = 1 ] && [ $((q1 - q0)) = 1 ]; echo $?) \
		"dm-multipath: with no path, a read waits, and ends once a path is back" \
		"waiting after 2 s: $([ $running = 0 ] && echo yes || echo no);" \
		"dd exit $rc, reads +$((r1 - r0)), nullb1 +$((q1 - q0))$(first_error \
			/tmp/dm.err)$([ $rc = 0 ] || first_error /tmp/dd.err)"
else
	for t in "fio randrw verify" \
		"64 reads count 64 on it and 64 on the active path" \
		"8 write+fsync pairs count 8 flushes on it and on the path" \
		"with nullb0 failed, 32 reads go to nullb1 alone" \
		"with no path, a read waits, and ends once a path is back"; do
		ktap_result 1 "dm-multipath: $t" "no multipath disk"
	done
fi

# A path's error: null_blk, loaded again, drops the 4th request on each
# disk and fails it after 2 s with BLK_STS_TIMEOUT.  dm-multipath then
# fails nullb0 and requeues the read, which the driver had started, to
# nullb1: the read ends well, counted once on the multipath disk.
: >/tmp/setup.err
dmsetup remove mpath 2>>/tmp/setup.err &&
	nullb_unload 2>>/tmp/setup.err &&
	nullb_load queue_mode=2 nr_devices=2 gb=1 irqmode=1 timeout_every=4 \
		2>>/tmp/setup.err &&
	mpath_create
if [ -n "$dev" ]; then
	r0=$(diskstat "$d" 1) q0=$(diskstat nullb1 1)
	reads_through 4 0
	rc=$?
	r1=$(diskstat "$d" 1) q1=$(diskstat nullb1 1)
	ktap_result $([ $rc = 0 ] && [ "$(path_state nullb0)" = F ] &&
		[ $((r1 - r0)) = 4 ] && [ $((q1 - q0)) = 1 ]; echo $?) \
		"dm-multipath: a read that times out on nullb0 fails the path and ends on nullb1" \
		"dd exit $rc, reads +$((r1 - r0)), nullb0 $(path_state nullb0)," \
		"nullb1 +$((q1 - q0))$(first_error /tmp/setup.err)$([ $rc = 0 ] ||
			first_error /tmp/dd.err)"
else
	ktap_result 1 \
		"dm-multipath: a read that times out on nullb0 fails the path and ends on nullb1" \
		"no multipath disk$(first_error /tmp/setup.err)"
fi

: >/tmp/unload.err
dmsetup remove mpath 2>>/tmp/unload.err
modprobe -r dm-round-robin dm-multipath dm-mod 2>>/tmp/unload.err
nullb_unload 2>>/tmp/unload.err
ktap_result $([ ! -s /tmp/unload.err ] && [ ! -d /sys/module/dm_multipath ] &&
	[ ! -d /sys/module/dm_mod ] && [ ! -d /sys/module/null_blk ]; echo $?) \
	"dm-multipath, dm-mod and null_blk unload" "$(head -n 1 /tmp/unload.err)"

kmemleak_check
ktap_result $? "no kmemleak report"
ktap_done
