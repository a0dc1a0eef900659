# SPDX-License-Identifier: GPL-2.0
# null_blk fault injection, as Documentation/block/null_blk.rst describes:
# timeout_every=N drops every Nth request, which then fails by timeout
# with ETIMEDOUT and is not retried, and nothing hangs; requeue_every=N
# makes the block layer retry dispatches, invisibly to the data. In
# multiqueue mode, then in request_fn mode.
. /blkmq/guest/lib.sh

ktap_header 10

# read_block N: one direct 4 KiB read of block N; prints dd's error.
read_block()
{
	timeout 20 dd if=/dev/nullb0 of=/dev/null bs=4k count=1 skip="$1" \
		iflag=direct 2>/tmp/dd.err
}

# fault_cases MODE PREFIX: the five cases in one queue mode.
fault_cases()
{
	mode=$1 p=$2
	# 1. timeout_every=1: every request is lost, so one read fails by timeout.
	dmesg -c >/dev/null
	if nullb_load queue_mode=$mode irqmode=1 gb=1 timeout_every=1; then
		t0=$(cut -d. -f1 /proc/uptime)
		read_block 0
		rc=$?
		secs=$(( $(cut -d. -f1 /proc/uptime) - t0 ))
		err=$(grep -o 'timed out' /tmp/dd.err | head -n 1)
		# Failed (not killed by timeout(1)), with ETIMEDOUT, in a few seconds.
		ok=$([ $rc != 0 ] && [ $rc != 124 ] && [ "$err" = "timed out" ] &&
			[ $secs -le 10 ]; echo $?)
		ktap_result $ok "${p}timeout_every=1: direct read fails with ETIMEDOUT" \
			"dd exit $rc after ${secs}s: $(tail -n 1 /tmp/dd.err)"
		n=$(dmesg | grep -c 'injected timeout')
		ktap_result $([ "$n" = 1 ]; echo $?) \
			"${p}timeout_every=1: one injected timeout, not retried" \
			"$n injected timeouts logged"
		nullb_unload
	else
		ktap_result 1 "${p}timeout_every=1: direct read fails with ETIMEDOUT" "load failed"
		ktap_result 1 "${p}timeout_every=1: one injected timeout, not retried" "load failed"
	fi

	# 2. timeout_every=3: of six single reads, exactly the 3rd and 6th fail.
	if nullb_load queue_mode=$mode irqmode=2 gb=1 timeout_every=3; then
		pattern=""
		for b in 1 2 3 4 5 6; do
			if read_block $b; then pattern="${pattern}."; else pattern="${pattern}X"; fi
		done
		ktap_result $([ "$pattern" = "..X..X" ]; echo $?) \
			"${p}timeout_every=3: every 3rd request fails" \
			"pattern $pattern (X = failed)"
		nullb_unload
	else
		ktap_result 1 "${p}timeout_every=3: every 3rd request fails" "load failed"
	fi

	# 3. requeue_every: fio verify sees nothing of the retries.
	for n in 2 7; do
		if ! nullb_load queue_mode=$mode irqmode=1 gb=1 memory_backed=1 \
				hw_queue_depth=4 requeue_every=$n; then
			ktap_result 1 "${p}requeue_every=$n: fio verify has 0 errors" "load failed"
			continue
		fi
		fio --name=requeue --filename=/dev/nullb0 --direct=1 --ioengine=libaio \
			--rw=randrw --bsrange=512-64k --size=4M --offset_increment=4M \
			--numjobs=2 --iodepth=8 --verify=crc32c --verify_fatal=1 \
			--do_verify=1 --group_reporting --output-format=terse \
			--terse-version=3 >/tmp/fio.out 2>&1
		rc=$?
		err=$(cut -d';' -f5 /tmp/fio.out | grep -E '^[0-9]+$' | head -n 1)
		ktap_result $([ $rc = 0 ] && [ "$err" = 0 ]; echo $?) \
			"${p}requeue_every=$n: fio verify has 0 errors" \
			"fio exit $rc, errors ${err:-?}"
		nullb_unload
	done
}

fault_cases 2 ""
if nullb_has_mode 1 2>/dev/null; then
	fault_cases 1 "request_fn "
else
	for c in "timeout_every=1: direct read fails with ETIMEDOUT" \
		"timeout_every=1: one injected timeout, not retried" \
		"timeout_every=3: every 3rd request fails" \
		"requeue_every=2: fio verify has 0 errors" \
		"requeue_every=7: fio verify has 0 errors"; do
		ktap_skip "request_fn $c" "queue_mode=1 not in this kernel"
	done
fi

ktap_done
