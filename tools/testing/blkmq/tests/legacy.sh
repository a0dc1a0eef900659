# SPDX-License-Identifier: GPL-2.0
# The request_fn mode (null_blk queue_mode=1): fio randrw with crc32c
# verify per irqmode; the scheduler attribute (default, bad name, 50
# noop/deadline switches under verified I/O); nr_requests (0 refused,
# resizes under verified I/O); merging and I/O accounting in
# /proc/diskstats; 20 load/unload cycles with I/O; kmemleak clean.
. /blkmq/guest/lib.sh

sched=/sys/block/nullb0/queue/scheduler
nrreq=/sys/block/nullb0/queue/nr_requests

# fio_verify NAME BSRANGE OFFSET [SIZE]: two jobs, each on its own region.
fio_verify()
{
	size=${4:-2M}
	fio --name="$1" --filename=/dev/nullb0 --direct=1 --ioengine=libaio \
		--rw=randrw --bsrange="$2" --offset="$3" --size="$size" \
		--offset_increment="$size" --numjobs=2 --iodepth=8 \
		--mem_align=512 --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --group_reporting --output-format=terse \
		--terse-version=3 >"/tmp/fio-$1.out" 2>&1
	rc=$?
	err=$(cut -d';' -f5 "/tmp/fio-$1.out" | grep -E '^[0-9]+$' | head -n 1)
	detail="fio exit $rc, errors ${err:-?}"
	[ $rc = 0 ] && [ "$err" = 0 ] && return 0
	grep -v ';' "/tmp/fio-$1.out" | head -n 5 | while read -r l; do diag "$l"; done
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

ktap_header 12

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

# 12: 20 load/unload cycles with I/O, then look for leaks
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
