# SPDX-License-Identifier: GPL-2.0
# Helpers for scripts that run inside the harness guest (busybox sh).
# Tests print KTAP (https://docs.kernel.org/dev-tools/ktap.html) and the
# host counts the result lines.

KTAP_N=0
KTAP_FAILED=0

ktap_header() { echo "KTAP version 1"; echo "1..$1"; }

# ktap_result STATUS NAME [DETAIL...]: STATUS is 0 for ok; the DETAIL
# arguments are joined with spaces.
ktap_result()
{
	local status=$1 name=$2 detail=""

	[ $# -gt 2 ] && shift 2 && detail="$*"
	KTAP_N=$((KTAP_N + 1))
	if [ "$status" = 0 ]; then
		echo "ok $KTAP_N $name${detail:+ # $detail}"
	else
		KTAP_FAILED=$((KTAP_FAILED + 1))
		echo "not ok $KTAP_N $name${detail:+ # $detail}"
	fi
}

ktap_skip() { KTAP_N=$((KTAP_N + 1)); echo "ok $KTAP_N $1 # SKIP $2"; }

ktap_done() { [ "$KTAP_FAILED" = 0 ]; }

diag() { echo "# $*"; }

# diskstat DISK FIELD: a field of the disk's /proc/diskstats line, counted
# from 1 after the name (1 reads completed, 5 writes completed, 9 in
# flight, 12 discards, 16 flushes).
diskstat()
{
	awk -v d="$1" -v f="$2" '$3 == d { print $(3 + f) }' /proc/diskstats
}

# first_error FILE...: ", " and the first line of these files, if any.
first_error() { cat "$@" 2>/dev/null | head -n 1 | sed 's/^/, /'; }

# write_fsync_pages DEV N PAGE: N times, write one random 4 KiB page of DEV
# (from page PAGE on) and fsync it: a write, then one flush if DEV has a
# write cache.  Prints how many pairs completed.
write_fsync_pages()
{
	local i=0

	while [ $i -lt "$2" ]; do
		dd if=/dev/urandom of="$1" bs=4k count=1 seek=$(($3 + i)) \
			conv=fsync 2>/dev/null || break
		i=$((i + 1))
	done
	echo $i
}

# nullb_load ARGS...: load null_blk with module parameters; its error
# message (dmesg's last null_blk line) goes to stderr on failure.
nullb_load()
{
	modprobe null_blk "$@" 2>/tmp/modprobe.err && return 0
	dmesg | grep -i null_blk | tail -n 1 >&2
	return 1
}

nullb_unload() { modprobe -r null_blk; }

# nullb_has_mode MODE: true when this kernel's null_blk offers queue_mode MODE.
nullb_has_mode()
{
	nullb_load queue_mode="$1" nr_devices=1 gb=1 2>/dev/null || return 1
	nullb_unload
}

mode_name()
{
	case $1 in
	0) echo bio ;;
	1) echo request_fn ;;
	2) echo mq ;;
	*) echo "mode$1" ;;
	esac
}

# nullb_modes: the queue modes this kernel's null_blk offers.
nullb_modes()
{
	local m
	for m in 0 1 2; do
		nullb_has_mode $m && echo $m
	done
}

# inflight_dump: every request a driver holds, per hardware queue of each
# multiqueue disk, as "# hung: <disk> hctx <n>: <tag> <op> <sector>+<len> <age>".
inflight_dump()
{
	local f d h line
	for f in /sys/block/*/mq/*/in_flight; do
		[ -r "$f" ] || continue
		d=${f#/sys/block/}
		h=${d#*/mq/}
		h=${h%/in_flight}
		d=${d%%/*}
		while read -r line; do
			echo "# hung: $d hctx $h: $line"
		done <"$f"
	done
	for f in /sys/block/*/inflight; do
		d=${f#/sys/block/}
		line=$(inflight "${d%%/*}")
		[ "$line" = "0 0" ] || echo "# hung: ${d%%/*} inflight $line"
	done
}

# inflight DISK: the disk's reads and writes in flight, as "R W".
inflight() { awk '{ print $1 " " $2 }' /sys/block/"$1"/inflight; }

# io_bound SECS CMD...: run CMD with a bound on its time.  Past the bound
# the requests still in flight are dumped and CMD is killed; returns 124
# then, else CMD's status.
io_bound()
{
	local secs=$1 pid t=0
	shift
	"$@" &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		if [ $t -ge $((secs * 5)) ]; then
			echo "# I/O did not finish in ${secs}s: $*"
			inflight_dump
			kill -9 $pid 2>/dev/null
			wait $pid 2>/dev/null
			return 124
		fi
		sleep 0.2
		t=$((t + 1))
	done
	wait $pid
}

# fio_verify NAME DEV [FIO OPTIONS...]: a randrw fio job with crc32c
# verify on DEV, bounded to 300 s; one KTAP result: fio's exit status and
# its error count must both be 0.  Options given later override earlier.
fio_verify()
{
	local name=$1 dev=$2 rc err
	shift 2
	io_bound 300 fio --name=verify --filename="$dev" --direct=1 \
		--ioengine=libaio --rw=randrw --bs=4k --size=16M --iodepth=16 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 "$@" \
		--group_reporting --output-format=terse --terse-version=3 \
		>/tmp/fio.out 2>&1
	rc=$?
	err=$(awk -F';' '/^3;/ { e += $5; n++ } END { print n ? e : "none" }' /tmp/fio.out)
	case "$err" in ''|*[!0-9]*) err=none ;; esac
	ktap_result $([ $rc = 0 ] && [ "$err" = 0 ]; echo $?) "$name" \
		"fio exit $rc, errors $err"
	[ $rc = 0 ] || tail -n 5 /tmp/fio.out | sed 's/^/# /'
}

KMEMLEAK=/sys/kernel/debug/kmemleak

# kmemleak_begin: forget what kmemleak suspects so far (boot allocations),
# so that kmemleak_check reports only what leaks after this point.
kmemleak_begin()
{
	[ -e $KMEMLEAK ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -e $KMEMLEAK ] || return 0
	echo scan >$KMEMLEAK
	echo clear >$KMEMLEAK
}

# kmemleak_check: scan (twice: objects younger than the grace period are
# not reported); print any report as KTAP diagnostics.  Returns 0 when
# clean, 1 on leaks, 2 when the kernel has no kmemleak.
kmemleak_check()
{
	local leaks
	[ -e $KMEMLEAK ] || return 2
	echo scan >$KMEMLEAK
	sleep 6
	echo scan >$KMEMLEAK
	leaks=$(cat $KMEMLEAK)
	[ -z "$leaks" ] && return 0
	echo "$leaks" | head -n 30 | while read -r l; do diag "$l"; done
	return 1
}
