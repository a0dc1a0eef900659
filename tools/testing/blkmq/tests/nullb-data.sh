# SPDX-License-Identifier: GPL-2.0
# null_blk data integrity: fio randrw with crc32c verify on memory-backed
# devices, across queue modes, irqmodes, queue counts and depths, with
# block sizes from 512 B to 128 KiB at offsets that are 512-aligned but
# not 4 KiB-aligned, buffers that start mid-page, and two jobs at once.
# Then 20 load/unload cycles with a little I/O, and a kmemleak scan.
. /blkmq/guest/lib.sh

possible=$(cat /sys/devices/system/cpu/possible)
nr_cpu_ids=$((${possible##*[-,]} + 1))

# fio_verify NAME BSRANGE OFFSET: two jobs, each on its own 2 MiB region,
# with libaio at depth 8, or with the fio options in $FIO_IO.
fio_verify()
{
	fio --name="$1" --filename=/dev/nullb0 --direct=1 \
		${FIO_IO:---ioengine=libaio --iodepth=8} \
		--rw=randrw --bsrange="$2" --offset="$3" --size=2M \
		--offset_increment=2M --numjobs=2 --mem_align=512 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--group_reporting --output-format=terse --terse-version=3 \
		>/tmp/fio.out 2>&1
	rc=$?
	err=$(cut -d';' -f5 /tmp/fio.out | grep -E '^[0-9]+$' | head -n 1)
	detail="fio exit $rc, errors ${err:-?}"
	[ $rc = 0 ] && [ "$err" = 0 ] && return 0
	grep -v ';' /tmp/fio.out | head -n 5 | while read -r l; do diag "$l"; done
	return 1
}

# run_case NAME BSRANGE OFFSET PARAMS...: load, verify, unload.
run_case()
{
	name=$1 bsr=$2 off=$3
	shift 3
	if ! nullb_load memory_backed=1 gb=1 "$@" 2>/tmp/load.err; then
		ktap_result 1 "$name" "load failed: $(cat /tmp/load.err)"
		return
	fi
	fio_verify "$name" "$bsr" "$off"
	rc=$?
	nullb_unload || { rc=1; detail="$detail, unload failed"; }
	ktap_result $rc "$name" "$detail"
}

mq_cases=""
for irq in 0 1 2; do
	for q in 1 $nr_cpu_ids; do
		for d in 1 64; do
			mq_cases="$mq_cases $irq:$q:$d"
		done
	done
done

# bio: 3 irqmodes; request_fn: 3; mq: 12; bs=4096: 2; blocking: 2;
# RWF_NOWAIT: 7; load/unload: 1
ktap_header $((3 + 3 + $(echo $mq_cases | wc -w) + 2 + 2 + 7 + 1))
diag "nr_cpu_ids $nr_cpu_ids"

for irq in 0 1 2; do
	run_case "bio irqmode=$irq 512..128k at 3584" 512-128k 3584 \
		queue_mode=0 irqmode=$irq completion_nsec=20000
done

if nullb_has_mode 1 2>/dev/null; then
	for irq in 0 1 2; do
		run_case "request_fn irqmode=$irq 512..128k at 3584" 512-128k 3584 \
			queue_mode=1 irqmode=$irq completion_nsec=20000
	done
else
	for irq in 0 1 2; do
		ktap_skip "request_fn irqmode=$irq verify" "queue_mode=1 not in this kernel"
	done
fi

for c in $mq_cases; do
	irq=${c%%:*} rest=${c#*:}
	q=${rest%%:*} d=${rest#*:}
	run_case "mq irqmode=$irq submit_queues=$q hw_queue_depth=$d 512..128k at 3584" \
		512-128k 3584 queue_mode=2 irqmode=$irq submit_queues=$q \
		hw_queue_depth=$d completion_nsec=20000
done

run_case "mq bs=4096 4k..128k at 12288" 4k-128k 12288 \
	queue_mode=2 bs=4096 irqmode=1
run_case "bio bs=4096 4k..128k at 12288" 4k-128k 12288 \
	queue_mode=0 bs=4096 irqmode=2

# A driver whose ->queue_rq() may sleep (BLK_MQ_F_BLOCKING): dispatch
# runs where sleeping is allowed, and a depth of 4 keeps tags short.
for irq in 0 2; do
	run_case "mq blocking=1 irqmode=$irq hw_queue_depth=4 512..128k at 3584" \
		512-128k 3584 queue_mode=2 blocking=1 irqmode=$irq \
		hw_queue_depth=4 completion_nsec=20000
done

# RWF_NOWAIT (REQ_NOWAIT bios, as io_uring sends first): a queue that
# does not take them fails each one with EOPNOTSUPP (fio error 95).  Bio
# and request_fn mode serve them without sleeping, in every irqmode; mq
# as well.
FIO_IO="--ioengine=pvsync2 --nowait=1"
for irq in 0 1 2; do
	run_case "bio irqmode=$irq RWF_NOWAIT 512..128k at 3584" 512-128k 3584 \
		queue_mode=0 irqmode=$irq completion_nsec=20000
done
for irq in 0 1 2; do
	if nullb_has_mode 1 2>/dev/null; then
		run_case "request_fn irqmode=$irq RWF_NOWAIT 512..128k at 3584" \
			512-128k 3584 queue_mode=1 irqmode=$irq completion_nsec=20000
	else
		ktap_skip "request_fn irqmode=$irq RWF_NOWAIT" "queue_mode=1 not in this kernel"
	fi
done
run_case "mq irqmode=1 RWF_NOWAIT 512..128k at 3584" 512-128k 3584 \
	queue_mode=2 irqmode=1
FIO_IO=""

# Load and unload 20 times, cycling through the queue modes, with a
# little I/O each time, then look for leaks. kmemleak's earlier suspects
# (boot) are cleared first.
kmemleak_begin
why=""
i=0
while [ $i -lt 20 ]; do
	mode=$(( (i / 2) % 3 ))
	if ! nullb_load queue_mode=$mode memory_backed=$((i % 3 != 0)) \
			irqmode=$((i % 3)) gb=1 2>/tmp/load.err; then
		why="load $i failed: $(cat /tmp/load.err)"
		break
	fi
	dd if=/dev/urandom of=/dev/nullb0 bs=4k count=4 conv=fsync 2>/dev/null &&
		dd if=/dev/nullb0 of=/dev/null bs=4k count=8 2>/dev/null ||
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
