# SPDX-License-Identifier: GPL-2.0
# The request_fn mode (null_blk queue_mode=1): fio randrw with crc32c
# verify per irqmode; the scheduler attribute (default, bad name, 50
# noop/deadline switches under verified I/O); nr_requests (0 refused,
# resizes under verified I/O); merging and I/O accounting in
# /proc/diskstats; flush and FUA on a device with a write cache (null_blk
# write_cache=1, with and without fua); irqmode=1 completions in the
# submitter's softirq, not ksoftirqd; 20 load/unload cycles with I/O;
# kmemleak clean.
. /blkmq/guest/lib.sh

sched=/sys/block/nullb0/queue/scheduler
nrreq=/sys/block/nullb0/queue/nr_requests

# fio_verify NAME BSRANGE OFFSET [SIZE [FIO OPTIONS...]]: two jobs, each
# on its own region.
fio_verify()
{
	local name=$1 bsrange=$2 offset=$3 size=${4:-2M}
	shift $(($# < 4 ? $# : 4))
	fio --name="$name" --filename=/dev/nullb0 --direct=1 --ioengine=libaio \
		--rw=randrw --bsrange="$bsrange" --offset="$offset" --size="$size" \
		--offset_increment="$size" --numjobs=2 --iodepth=8 \
		--mem_align=512 --verify=crc32c --verify_fatal=1 \
		--do_verify=1 "$@" --group_reporting --output-format=terse \
		--terse-version=3 >"/tmp/fio-$name.out" 2>&1
	rc=$?
	err=$(cut -d';' -f5 "/tmp/fio-$name.out" | grep -E '^[0-9]+$' | head -n 1)
	detail="fio exit $rc, errors ${err:-?}"
	[ $rc = 0 ] && [ "$err" = 0 ] && return 0
	grep -v ';' "/tmp/fio-$name.out" | head -n 5 | while read -r l; do diag "$l"; done
	return 1
}

# Verified fio runs, one after the other, until /tmp/stop appears; each
# run's outcome is appended to /tmp/bg.log.
fio_background()
{
	rm -f /tmp/stop /tmp/bg.log
	(
		n=0
		while [ ! -e /tmp/stop ]; do
			if fio_verify "bg$n" 512-64k 3584 4M; then
				echo "ok $detail" >>/tmp/bg.log
			else
				echo "FAIL run $n: $detail" >>/tmp/bg.log
			fi
			n=$((n + 1))
		done
	) &
	bg_pid=$!
	# let the first run get going
	sleep 1
}

# fio_background_stop: stop, wait; true when every run was clean.
fio_background_stop()
{
	touch /tmp/stop
	wait $bg_pid
	runs=$(wc -l </tmp/bg.log)
	fails=$(grep -c FAIL /tmp/bg.log)
	grep FAIL /tmp/bg.log | head -n 3 | while read -r l; do diag "$l"; done
	[ "$runs" -gt 0 ] && [ "$fails" = 0 ]
}

load()
{
	nullb_load queue_mode=1 gb=1 "$@" 2>/tmp/load.err
}

ktap_header 20

if ! nullb_has_mode 1; then
	diag "queue_mode=1 does not load"
fi

# 1: the default scheduler
if load memory_backed=1; then
	s=$(cat $sched)
	case "$s" in
	*"[deadline]"*noop*|*noop*"[deadline]"*)
		ktap_result 0 "default scheduler is deadline" "$s" ;;
	*) ktap_result 1 "default scheduler is deadline" "$s" ;;
	esac
	nullb_unload
else
	ktap_result 1 "default scheduler is deadline" "load failed: $(cat /tmp/load.err)"
fi

# 2-4: verify per irqmode
for irq in 0 1 2; do
	name="request_fn irqmode=$irq 512..128k at 3584"
	if ! load memory_backed=1 irqmode=$irq completion_nsec=20000; then
		ktap_result 1 "$name" "load failed: $(cat /tmp/load.err)"
		continue
	fi
	fio_verify "v$irq" 512-128k 3584
	rc=$?
	nullb_unload || { rc=1; detail="$detail, unload failed"; }
	ktap_result $rc "$name" "$detail"
done

if ! load memory_backed=1 irqmode=1; then
	diag "load failed: $(cat /tmp/load.err)"
fi

# 5: a bad scheduler name
before=$(cat $sched 2>/dev/null)
if echo bogus >$sched 2>/tmp/echo.err; then
	ktap_result 1 "bad scheduler name refused" "write succeeded"
else
	after=$(cat $sched)
	ktap_result $([ "$before" = "$after" ] && [ -n "$after" ] &&
		grep -q "Invalid argument" /tmp/echo.err; echo $?) \
		"bad scheduler name refused" "$(cat /tmp/echo.err | head -n 1); '$after'"
fi

# 6: nr_requests=0
before=$(cat $nrreq 2>/dev/null)
if echo 0 >$nrreq 2>/tmp/echo.err; then
	ktap_result 1 "nr_requests=0 refused" "write succeeded"
else
	after=$(cat $nrreq)
	ktap_result $([ "$before" = "$after" ] && [ "$after" = 128 ] &&
		grep -q "Invalid argument" /tmp/echo.err; echo $?) \
		"nr_requests=0 refused" "$(head -n 1 /tmp/echo.err); $before -> $after"
fi

# 7: 50 scheduler switches while verified I/O runs
fio_background
why=""
i=0
while [ $i -lt 50 ]; do
	[ $((i % 2)) = 0 ] && want=noop || want=deadline
	echo $want >$sched || { why="switch $i to $want failed"; break; }
	grep -q "\[$want\]" $sched || { why="switch $i: shows $(cat $sched)"; break; }
	i=$((i + 1))
done
fio_background_stop || why="${why:+$why, }fio: $fails of $runs runs failed"
ktap_result $([ -z "$why" ]; echo $?) "50 scheduler switches under fio verify" \
	"${why:-$i switches, $runs fio runs clean, now $(cat $sched)}"

# 8: nr_requests resized while verified I/O runs
fio_background
why=""
for n in 4 1 16 128 7 64 4 256 32 128; do
	echo $n >$nrreq || { why="nr_requests=$n failed"; break; }
	got=$(cat $nrreq)
	[ $n -lt 4 ] && n=4
	[ "$got" = $n ] || { why="nr_requests=$n reads $got"; break; }
	sleep 1
done
fio_background_stop || why="${why:+$why, }fio: $fails of $runs runs failed"
ktap_result $([ -z "$why" ]; echo $?) "nr_requests resized under fio verify" \
	"${why:-$runs fio runs clean}"
nullb_unload

# 9: sequential writes merge; diskstats count I/O and end with none in flight
if load irqmode=2 completion_nsec=200000; then
	fio --name=seq --filename=/dev/nullb0 --direct=1 --ioengine=libaio \
		--rw=write --bs=4k --size=8M --iodepth=32 --iodepth_batch_submit=16 \
		>/dev/null 2>&1
	fio --name=rd --filename=/dev/nullb0 --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --size=4M --iodepth=8 >/dev/null 2>&1
	sleep 1
	# fields: major minor name rd rd_merged rd_sec rd_ms wr wr_merged ...
	set -- $(grep ' nullb0 ' /proc/diskstats)
	diag "diskstats: $*"
	ktap_result $([ "${9:-0}" -gt 0 ]; echo $?) "sequential writes merge" \
		"writes ${8:-?}, merged ${9:-?}"
	ktap_result $([ "${4:-0}" -gt 0 ] && [ "${8:-0}" -gt 0 ] &&
		[ "${12:-1}" = 0 ]; echo $?) "diskstats count I/O, none left in flight" \
		"reads ${4:-?}, writes ${8:-?}, in flight ${12:-?}"
	nullb_unload
else
	ktap_result 1 "sequential writes merge" "load failed: $(cat /tmp/load.err)"
	ktap_result 1 "diskstats count I/O, none left in flight" "load failed"
fi

# 11: the scheduler attribute of a multiqueue queue is unchanged
if nullb_load queue_mode=2 gb=1 2>/tmp/load.err; then
	s=$(cat $sched)
	echo deadline >$sched 2>/dev/null
	rc=$?
	ktap_result $([ "$s" = "[none]" ] && [ $rc != 0 ] && [ "$(cat $sched)" = "[none]" ];
		echo $?) "mq queue keeps [none]" "$s, write deadline: rc $rc"
	nullb_unload
else
	ktap_result 1 "mq queue keeps [none]" "load failed: $(cat /tmp/load.err)"
fi

# 12-18: a write cache.  null_blk write_cache=1 counts the flushes and
# FUA writes it is given in debugfs, and "ops" lists the last requests in
# the order the driver got them: F flush, U FUA write, W write.
dbg=/sys/kernel/debug/null_blk/nullb0
[ -d /sys/kernel/debug/null_blk ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null

# repeat STR N: STR N times
repeat()
{
	r="" k=0
	while [ $k -lt "$2" ]; do r="$r$1"; k=$((k + 1)); done
	echo "$r"
}

# fsync_writes N: N buffered 4k writes, each followed by an fsync of the
# disk; $i says how many succeeded
fsync_writes()
{
	i=0
	while [ $i -lt "$1" ]; do
		dd if=/dev/urandom of=/dev/nullb0 bs=4k count=1 seek=$((4096 + i)) \
			conv=fsync 2>/dev/null || break
		i=$((i + 1))
	done
}

# osync_writes N [FIO OPTIONS...]: N O_SYNC direct 4k writes, one at a
# time (REQ_FUA each); fio's output in /tmp/osync.out
osync_writes()
{
	local n=$1
	shift
	fio --name=osync --filename=/dev/nullb0 --direct=1 --ioengine=libaio \
		--rw=write --bs=4k --offset=64M --size=$((n * 4))k --iodepth=1 \
		--sync=1 --invalidate=0 "$@" >/tmp/osync.out 2>&1
}

for fua in 1 0; do
	name="write_cache fua=$fua"
	if ! load memory_backed=1 irqmode=1 write_cache=1 fua=$fua; then
		for t in 1 2 3; do
			ktap_result 1 "$name" "load failed: $(cat /tmp/load.err)"
		done
		continue
	fi
	diag "$name: queue/write_cache '$(cat /sys/block/nullb0/queue/write_cache)'," \
		"fua '$(cat /sys/block/nullb0/queue/fua)'"

	f0=$(cat $dbg/flushes 2>/dev/null)
	fio_verify "fsync$fua" 512-64k 3584 2M --fsync=1
	rc=$?
	f1=$(cat $dbg/flushes 2>/dev/null)
	ktap_result $([ $rc = 0 ] && [ $((f1 - f0)) -gt 0 ]; echo $?) \
		"$name: fio randrw verify, fsync after every write" \
		"$detail, flushes +$((f1 - f0))"

	# each fsync of the raw disk: the page's write, then one flush
	f0=$(cat $dbg/flushes)
	fsync_writes 16
	f1=$(cat $dbg/flushes)
	ops=$(cat $dbg/ops)
	want=$(repeat WF 16)
	ktap_result $([ $i = 16 ] && [ $((f1 - f0)) = 16 ] &&
		[ "${ops%$want}" != "$ops" ]; echo $?) \
		"$name: 16 write+fsync pairs reach the driver as 16 flushes" \
		"$i writes, flushes +$((f1 - f0)), ops ...$(echo "$ops" | tail -c 33)"

	# O_SYNC writes: REQ_FUA, the driver's own or a flush after each
	f0=$(cat $dbg/flushes)
	u0=$(cat $dbg/fua_writes)
	osync_writes 16
	rc=$?
	f1=$(cat $dbg/flushes)
	u1=$(cat $dbg/fua_writes)
	ops=$(cat $dbg/ops)
	if [ $fua = 1 ]; then
		want=$(repeat U 16) wf=0 wu=16
	else
		want=$(repeat WF 16) wf=16 wu=0
	fi
	detail="fio exit $rc, fua_writes +$((u1 - u0)), flushes +$((f1 - f0))"
	detail="$detail, ops ...$(echo "$ops" | tail -c 33)"
	ktap_result $([ $rc = 0 ] && [ $((f1 - f0)) = $wf ] &&
		[ $((u1 - u0)) = $wu ] && [ "${ops%$want}" != "$ops" ]; echo $?) \
		"$name: 16 O_SYNC writes: $wu FUA writes, $wf flushes" "$detail"
	nullb_unload
done

# 18: with 500 ms per request, an fsync returns only after the flush
# completes (4 write+fsync pairs take at least 4 x 1000 ms), and an
# emulated FUA write completes only after its flush (fio's smallest
# total latency, terse field 79, at least 1000000 us).  Total latency,
# not completion latency: libaio's clock for the latter starts when
# io_submit() returns, after null_blk armed its timer, so a slow guest
# can see 999 ms there although both requests ran.  clock_gettime puts
# fio on the kernel's clock rather than a TSC it calibrates under TCG.
if load memory_backed=1 irqmode=2 completion_nsec=500000000 write_cache=1 fua=0; then
	t0=$(cut -d' ' -f1 /proc/uptime | tr -d .)
	fsync_writes 4
	t1=$(cut -d' ' -f1 /proc/uptime | tr -d .)
	osync_writes 4 --output-format=terse --terse-version=3 \
		--clocksource=clock_gettime
	rc=$?
	lat=$(awk -F';' '/^3;/ { printf "%d", $79 }' /tmp/osync.out)
	fl=$(cat $dbg/flushes)
	detail="4 fsyncs in $(((t1 - t0) * 10)) ms, O_SYNC write latency >= ${lat:-?} us"
	ktap_result $([ $i = 4 ] && [ $rc = 0 ] && [ "$fl" = 8 ] &&
		[ $((t1 - t0)) -ge 400 ] && [ "${lat:-0}" -ge 1000000 ] &&
		[ "$(inflight nullb0)" = "0 0" ]; echo $?) \
		"fsync and emulated FUA wait for the driver's flush" "$detail, flushes $fl"
	nullb_unload
else
	ktap_result 1 "fsync and emulated FUA wait for the driver's flush" \
		"load failed: $(cat /tmp/load.err)"
fi

# 19: irqmode=1 completes in the softirq of the submitting task.  Reads
# one at a time from CPU 0: were each completion left to ksoftirqd/0 it
# would run once per read (2071 times for 2048 reads).  It still runs
# now and then (74 to 150 times here, 9 to 22 in bio and mq mode, more
# on a loaded host), so the bound is one read in two.
ctxsw()
{
	awk '/^(non)?voluntary_ctxt_switches/ { n += $2 } END { print n + 0 }' \
		/proc/"$1"/status
}
ksoftirqd0=""
for f in /proc/[0-9]*/comm; do
	[ "$(cat "$f" 2>/dev/null)" = ksoftirqd/0 ] || continue
	ksoftirqd0=${f%/comm}
	ksoftirqd0=${ksoftirqd0#/proc/}
done
if [ -n "$ksoftirqd0" ] && load irqmode=1; then
	s0=$(ctxsw $ksoftirqd0)
	fio --name=sirq --filename=/dev/nullb0 --direct=1 --ioengine=psync \
		--rw=randread --bs=4k --size=8M --cpus_allowed=0 \
		--output-format=terse --terse-version=3 >/tmp/fio-sirq.out 2>&1
	rc=$?
	s1=$(ctxsw $ksoftirqd0)
	reads=$(awk -F';' '/^3;/ { print $6 / 4 }' /tmp/fio-sirq.out)
	ktap_result $([ $rc = 0 ] && [ "${reads:-0}" = 2048 ] &&
		[ $((s1 - s0)) -lt 1024 ]; echo $?) \
		"irqmode=1: reads end in their own softirq, not in ksoftirqd" \
		"fio exit $rc, reads ${reads:-?}, ksoftirqd/0 ran $((s1 - s0)) times"
	nullb_unload
else
	ktap_result 1 "irqmode=1: reads end in their own softirq, not in ksoftirqd" \
		"${ksoftirqd0:-no ksoftirqd/0}: $(cat /tmp/load.err 2>/dev/null)"
fi

# 20: 20 load/unload cycles with I/O, then look for leaks
kmemleak_begin
why=""
i=0
while [ $i -lt 20 ]; do
	if ! load memory_backed=$((i % 3 != 0)) irqmode=$((i % 3)) \
			completion_nsec=$((i * 1000)); then
		why="load $i failed: $(cat /tmp/load.err)"
		break
	fi
	[ $((i % 4)) = 1 ] && echo noop >$sched
	dd if=/dev/urandom of=/dev/nullb0 bs=4k count=16 conv=fsync 2>/dev/null &&
		dd if=/dev/nullb0 of=/dev/null bs=4k count=32 2>/dev/null ||
		why="I/O in cycle $i failed"
	nullb_unload || { why="unload $i failed"; break; }
	[ -z "$why" ] || break
	i=$((i + 1))
done
note="no kmemleak in this kernel"
if [ -z "$why" ]; then
	kmemleak_check
	case $? in
	0) note="kmemleak clean" ;;
	1) why="kmemleak reports leaks" ;;
	esac
fi
ktap_result $([ -z "$why" ]; echo $?) "20 load/unload cycles with I/O" \
	"${why:-$i cycles, $note}"

ktap_done
