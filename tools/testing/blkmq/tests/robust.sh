# SPDX-License-Identifier: GPL-2.0
# Robustness of every null_blk queue mode this kernel has: bad I/O gets
# the errors the syscalls promise, bad sysfs writes change nothing, a
# module in use cannot go, 100 load/unload cycles with I/O, nr_requests
# changes and CPU hotplug under fio verify with exact counters afterwards,
# and I/O that outlives its bound is caught with the stuck tags dumped.
# Run on the debug kernel: any lockdep, KASAN, hung-task or kmemleak
# report fails the run.
. /blkmq/guest/lib.sh

CYCLES=${CYCLES:-100}
HOTPLUG=${HOTPLUG:-10}
MODES=$(nullb_modes)
nmodes=$(echo $MODES | wc -w)
# per mode: 3 bad I/O, 2 teardown, 1 load cycles, 1 hotplug fio, 1 hotplug
# counters; per queue with sysfs knobs: 4 bad writes, 1 nr_requests fio;
# plus 2 for the hung-I/O bound, and in mq mode 4 for the drain at CPU
# offline and 2 for a queue without statistics
nsysfs=0
for m in $MODES; do [ $m != 0 ] && nsysfs=$((nsysfs + 1)); done
ndrain=0
nstats=0
case " $(echo $MODES) " in *" 2 "*) ndrain=4 nstats=2 ;; esac
ktap_header $((nmodes * 8 + nsysfs * 5 + 2 + ndrain + nstats))
diag "modes: $MODES; cpus online: $(cat /sys/devices/system/cpu/online)"
modprobe -r null_blk 2>/dev/null

# ctx_completed DISK: reads+writes completed, summed over all software
# contexts in the disk's mq sysfs directory.
ctx_completed()
{
	cat /sys/block/"$1"/mq/*/cpu*/completed 2>/dev/null |
		awk '{ n += $1 + $2 } END { print n + 0 }'
}

for m in $MODES; do
	mn=$(mode_name $m)

	# --- bad I/O: on a 4 KiB-sector disk of 1 GiB ---
	if nullb_load queue_mode=$m bs=4096 gb=1 memory_backed=1; then
		end=$((1024 * 1024 / 4))
		out=$(dd if=/dev/nullb0 of=/dev/null bs=4k skip=$end count=1 \
			iflag=direct 2>&1)
		rc=$?
		echo "$out" | grep -q '^0+0 records in'
		ktap_result $([ $rc = 0 ] && [ $? = 0 ]; echo $?) \
			"$mn: a read at the end of the disk returns 0 bytes" "dd exit $rc"
		out=$(dd if=/dev/zero of=/dev/nullb0 bs=4k seek=$end count=1 \
			oflag=direct 2>&1)
		rc=$?
		echo "$out" | grep -q 'No space left on device'
		ktap_result $([ $rc != 0 ] && [ $? = 0 ]; echo $?) \
			"$mn: a write past the end fails with ENOSPC" \
			"dd exit $rc: $(echo "$out" | head -n 1)"
		# (not dd: busybox dd retries without O_DIRECT after EINVAL)
		why=""
		for a in "--bs=512 --offset=0" "--bs=4k --offset=512"; do
			fio --name=unaligned --filename=/dev/nullb0 --direct=1 \
				--ioengine=psync --rw=read --size=4k $a \
				>/tmp/fio.out 2>&1
			rc=$?
			[ $rc != 0 ] && grep -q 'Invalid argument' /tmp/fio.out ||
				why="${why:+$why, }$a: fio exit $rc"
		done
		t="$mn: direct reads of 512 B, or at offset 512,"
		ktap_result $([ -z "$why" ]; echo $?) \
			"$t on 4 KiB sectors fail with EINVAL" "${why:-both EINVAL}"
	else
		for t in "read at end" "write past end" "misaligned direct I/O"; do
			ktap_result 1 "$mn: $t" "load failed"
		done
	fi

	# --- bad sysfs writes: refused with EINVAL, nothing changes ---
	if [ $m != 0 ]; then
		q=/sys/block/nullb0/queue
		for w in "nr_requests 0" "nr_requests garbage" "nr_requests -5" \
			"scheduler no-such-elevator"; do
			attr=${w%% *}
			val=${w#* }
			before=$(cat $q/$attr)
			err=$( (echo "$val" >$q/$attr) 2>&1)
			rc=$?
			after=$(cat $q/$attr)
			ok=$([ $rc != 0 ] && echo "$err" | grep -q 'Invalid argument' &&
				[ "$before" = "$after" ]; echo $?)
			ktap_result $ok "$mn: writing '$val' to queue/$attr is refused, unchanged" \
				"exit $rc, '$before' -> '$after'"
		done

		# --- queue freeze under I/O: nr_requests changes while fio runs ---
		( for i in 1 2 3 4 5 6 7 8 9 10; do
			echo 4 >$q/nr_requests; sleep 0.2
			echo 64 >$q/nr_requests; sleep 0.2
		done ) &
		changer=$!
		fio_verify "$mn: nr_requests changes 20 times under fio verify" \
			/dev/nullb0 --numjobs=2 --offset_increment=16M --iodepth=32
		wait $changer
	fi
	nullb_unload

	# --- teardown: in use, the module stays; closed, it goes ---
	if nullb_load queue_mode=$m gb=1; then
		exec 3</dev/nullb0
		modprobe -r null_blk 2>/tmp/rmmod.err
		rc=$?
		[ -d /sys/module/null_blk ] && [ -b /dev/nullb0 ] &&
			dd if=/dev/nullb0 of=/dev/null bs=4k count=1 2>/dev/null
		ktap_result $([ $rc != 0 ] && [ $? = 0 ]; echo $?) \
			"$mn: unloading while /dev/nullb0 is open fails, disk still works" \
			"modprobe -r exit $rc: $(head -n 1 /tmp/rmmod.err)"
		exec 3<&-
		nullb_unload
		rc=$?
		ktap_result $([ $rc = 0 ] && [ ! -d /sys/module/null_blk ]; echo $?) \
			"$mn: after close the module unloads" "exit $rc"
	else
		ktap_result 1 "$mn: unloading while open fails" "load failed"
		ktap_result 1 "$mn: after close the module unloads" "load failed"
	fi

	# --- load and unload, with a short write and read-back each time ---
	bad=0
	head -c 65536 /dev/urandom >/tmp/pattern
	i=0
	while [ $i -lt $CYCLES ]; do
		i=$((i + 1))
		if ! nullb_load queue_mode=$m gb=1 memory_backed=1 \
				irqmode=$((i % 3)) submit_queues=$((i % 2 + 1)); then
			bad=$((bad + 1)); diag "cycle $i: load failed"; continue
		fi
		dd if=/tmp/pattern of=/dev/nullb0 bs=64k count=1 seek=$i \
			oflag=direct 2>/dev/null &&
			dd if=/dev/nullb0 of=/tmp/back bs=64k count=1 skip=$i \
				iflag=direct 2>/dev/null &&
			cmp -s /tmp/pattern /tmp/back ||
			{ bad=$((bad + 1)); diag "cycle $i: I/O failed"; }
		nullb_unload || { bad=$((bad + 1)); diag "cycle $i: unload failed"; }
	done
	ktap_result $([ $bad = 0 ]; echo $?) \
		"$mn: $CYCLES load/write/read/unload cycles" "$bad failed"

	# --- CPU hotplug under fio verify; exact counters on a second disk ---
	if nullb_load queue_mode=$m nr_devices=2 submit_queues=2 irqmode=1 \
			gb=1 memory_backed=1; then
		w0=$(diskstat nullb1 5)
		c0=$(ctx_completed nullb1)
		( i=0
		while [ $i -lt $HOTPLUG ]; do
			i=$((i + 1))
			echo 0 >/sys/devices/system/cpu/cpu1/online; sleep 0.3
			echo 1 >/sys/devices/system/cpu/cpu1/online; sleep 0.3
		done ) &
		plugger=$!
		# 400 single direct writes on nullb1, none mergeable: each one
		# request, so the counters must move by exactly 400.
		( j=0
		while [ $j -lt 400 ]; do
			dd if=/dev/zero of=/dev/nullb1 bs=4k count=1 seek=$((j * 2)) \
				oflag=direct 2>/dev/null || echo "write $j failed"
			j=$((j + 1))
		done ) >/tmp/dd-writes.out &
		writer=$!
		fio_verify "$mn: fio verify on 2 CPUs, CPU 1 off and on $HOTPLUG times" \
			/dev/nullb0 --numjobs=2 --offset_increment=16M --iodepth=32 \
			--size=16M
		wait $plugger
		wait $writer
		echo 1 >/sys/devices/system/cpu/cpu1/online 2>/dev/null
		sleep 1
		w1=$(diskstat nullb1 5)
		c1=$(ctx_completed nullb1)
		why=""
		[ -s /tmp/dd-writes.out ] && why="$(head -n 1 /tmp/dd-writes.out)"
		if [ $m != 0 ]; then
			[ $((w1 - w0)) = 400 ] ||
				why="${why:+$why, }diskstats writes +$((w1 - w0))"
			[ "$(diskstat nullb1 9)" = 0 ] ||
				why="${why:+$why, }diskstats in flight $(diskstat nullb1 9)"
			[ "$(inflight nullb1)" = "0 0" ] ||
				why="${why:+$why, }inflight $(inflight nullb1)"
			[ "$(awk '{ $1 = $1; print }' /sys/block/nullb1/stat)" = \
			  "$(awk '$3 == "nullb1" {
				$1 = $2 = $3 = ""; $0 = $0; $1 = $1; print
			  }' /proc/diskstats)" ] ||
				why="${why:+$why, }sysfs stat differs from diskstats"
		fi
		if [ $m = 2 ]; then
			[ $((c1 - c0)) = 400 ] ||
				why="${why:+$why, }mq ctx completed +$((c1 - c0))"
		fi
		if [ $m = 0 ]; then
			t="$mn: 400 writes during hotplug all complete"
			t="$t (no request counters in bio mode)"
		else
			t="$mn: 400 writes during hotplug: none lost or doubled, counters agree"
		fi
		ktap_result $([ -z "$why" ]; echo $?) "$t" \
			"${why:-diskstats +$((w1 - w0)), ctx +$((c1 - c0))}"
		nullb_unload
	else
		ktap_result 1 "$mn: fio verify under CPU hotplug" "load failed"
		ktap_result 1 "$mn: counters after hotplug" "load failed"
	fi
done

# --- the last CPU of a hardware queue goes offline: its queue drains ---
# CPU 1 alone feeds hardware queue 1.  Reads complete 4 s after they are
# issued, so requests are surely in flight there when CPU 1 is taken
# offline; the offline must wait until they have all ended, and nothing
# may take a tag there until CPU 1 is back.
drain_fio() # NAME RUNTIME-OPTIONS...: reads from CPU 1, fio terse to /tmp/NAME.out
{
	local name=$1
	shift
	fio --name="$name" --filename=/dev/nullb0 --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth=16 --cpus_allowed=1 "$@" \
		--output-format=terse --terse-version=3 >/tmp/"$name".out 2>&1
}
drain_errors() # NAME: fio's error count from /tmp/NAME.out
{
	awk -F';' '/^3;/ { e += $5; n++ } END { print n ? e : "none" }' /tmp/"$1".out
}
if [ $ndrain != 0 ] &&
   nullb_load queue_mode=2 submit_queues=2 irqmode=2 completion_nsec=4000000000 \
		gb=1; then
	h1=/sys/block/nullb0/mq/1
	drain_fio drain --time_based --runtime=10 &
	fpid=$!
	t=0
	while [ "$(cat $h1/tags_in_use)" = "0 0" ] && [ $t -lt 100 ]; do
		sleep 0.1
		t=$((t + 1))
	done
	before=$(cat $h1/tags_in_use)
	echo 0 >/sys/devices/system/cpu/cpu1/online
	after=$(cat $h1/tags_in_use)
	state=$(cat $h1/state)
	ktap_result $([ "$before" != "0 0" ] && [ "$after" = "0 0" ]; echo $?) \
		"mq: CPU 1 goes offline only after its hardware queue has drained" \
		"tags in use (normal reserved) before: $before, after: $after"
	ktap_result $([ "$state" = inactive ]; echo $?) \
		"mq: its hardware queue is inactive while CPU 1 is offline" \
		"state $state"
	wait $fpid
	rc=$?
	err=$(drain_errors drain)
	ktap_result $([ $rc = 0 ] && [ "$err" = 0 ]; echo $?) \
		"mq: fio reading across the offline ends without errors" \
		"fio exit $rc, errors $err"
	[ $rc = 0 ] || tail -n 5 /tmp/drain.out | sed 's/^/# /'

	echo 1 >/sys/devices/system/cpu/cpu1/online
	c0=$(awk '{ print $2 }' $h1/cpu1/completed)	# sync: reads
	# 16 reads with a hole after each, so that none merge
	drain_fio back --rw=read:4k --size=128k
	rc=$?
	c1=$(awk '{ print $2 }' $h1/cpu1/completed)
	state=$(cat $h1/state)
	ktap_result $([ $rc = 0 ] && [ "$state" = running ] &&
		      [ $((c1 - c0)) = 16 ]; echo $?) \
		"mq: CPU 1 back online, its hardware queue serves 16 reads again" \
		"fio exit $rc, state $state, reads completed +$((c1 - c0))"
	nullb_unload
elif [ $ndrain != 0 ]; then
	for t in "drains before offline" "inactive while offline" \
		 "fio across the offline" "serves reads again"; do
		ktap_result 1 "mq: hardware queue of an offline CPU: $t" "load failed"
	done
fi

# --- hung I/O: past its bound a read is caught and its tag dumped ---
# A 5 s completion delay against a 1 s bound leaves a wide margin on a
# loaded host.
if nullb_load queue_mode=2 irqmode=2 completion_nsec=5000000000 gb=1; then
	io_bound 1 dd if=/dev/nullb0 of=/dev/null bs=4k count=1 iflag=direct \
		>/tmp/bound.out 2>&1
	rc=$?
	grep -q '^# hung: nullb0 hctx [0-9]*: [0-9]* READ 0+8 [0-9]*ms$' /tmp/bound.out
	ktap_result $([ $rc = 124 ] && [ $? = 0 ]; echo $?) \
		"a read past its 1 s bound fails and its tag is dumped" \
		"exit $rc: $(grep -m1 '^# hung: nullb0 hctx' /tmp/bound.out)"
	sed 's/^/# /' /tmp/bound.out
	# The request is not lost: it completes when its delay is over.
	sleep 6
	left=$(cat /sys/block/nullb0/mq/*/in_flight)
	ktap_result $([ -z "$left" ] && [ "$(inflight nullb0)" = "0 0" ]; echo $?) \
		"the slow request then completes, nothing left in flight" \
		"${left:-none left}"
	nullb_unload
else
	ktap_result 1 "a read past its bound is caught" "load failed"
	ktap_result 1 "the slow request then completes" "load failed"
fi

# --- iostats 0: a request takes no start time and moves no statistic ---
# Reads complete 3 s after they are issued.  With the statistics off the
# held read has no age in in_flight and the read counter stays; turned on
# again, a read is counted with its 3 s (were its start time missing, the
# time would be the whole uptime).
if [ $nstats != 0 ] &&
   nullb_load queue_mode=2 irqmode=2 completion_nsec=3000000000 gb=1; then
	echo 0 >/sys/block/nullb0/queue/iostats
	r0=$(diskstat nullb0 1)
	dd if=/dev/nullb0 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &
	reader=$!
	held=""
	i=0
	while [ -z "$held" ] && [ $i -lt 25 ]; do
		sleep 0.1
		held=$(cat /sys/block/nullb0/mq/*/in_flight)
		i=$((i + 1))
	done
	wait $reader
	rc=$?
	r1=$(diskstat nullb0 1)
	why=""
	echo "$held" | grep -qx '[0-9]* READ 0+8 -' ||
		why="in_flight '$held'"
	[ $rc = 0 ] || why="${why:+$why, }dd exit $rc"
	[ "$r1" = "$r0" ] || why="${why:+$why, }reads +$((r1 - r0))"
	ktap_result $([ -z "$why" ]; echo $?) \
		"mq, iostats 0: a held read has no age, no read is counted" \
		"${why:-in_flight '$held', reads +0}"

	echo 1 >/sys/block/nullb0/queue/iostats
	t0=$(diskstat nullb0 4)
	dd if=/dev/nullb0 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
	rc=$?
	r2=$(diskstat nullb0 1)
	t1=$(diskstat nullb0 4)
	ms=$((t1 - t0))
	ktap_result $([ $rc = 0 ] && [ $((r2 - r1)) = 1 ] &&
		[ $ms -ge 2900 ] && [ $ms -lt 60000 ]; echo $?) \
		"mq, iostats 1 again: the next read is counted with its 3 s" \
		"dd exit $rc, reads +$((r2 - r1)), read ms +$ms"
	nullb_unload
elif [ $nstats != 0 ]; then
	ktap_result 1 "mq, iostats 0: a held read has no age, no read is counted" \
		"load failed"
	ktap_result 1 "mq, iostats 1 again: the next read is counted with its 3 s" \
		"load failed"
fi

ktap_done
