# SPDX-License-Identifier: GPL-2.0
# Smoke: the kernel boots with the harness userspace, null_blk loads in
# each queue mode it offers, and a short fio verify job on a memory-backed
# device finds 0 errors in each.
. /blkmq/guest/lib.sh

ktap_header 5
diag "kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"

fio --version >/dev/null 2>&1
ktap_result $? "fio runs in the guest"

modes=""
for m in 0 1 2; do
	nullb_has_mode $m && modes="$modes $m"
done
diag "null_blk queue modes:$modes"
case "$modes" in
*0*2*) ktap_result 0 "null_blk offers bio and mq modes" ;;
*) ktap_result 1 "null_blk offers bio and mq modes" "has:$modes" ;;
esac

for m in 0 1 2; do
	name=$(mode_name $m)
	case "$modes" in
	*$m*) ;;
	*) [ $m = 1 ] && continue
	   ktap_result 1 "fio verify on null_blk $name" "mode missing"; continue ;;
	esac
	if ! nullb_load queue_mode=$m memory_backed=1 gb=1 irqmode=1 submit_queues=2; then
		ktap_result 1 "fio verify on null_blk $name" "load failed"
		continue
	fi
	fio --name=smoke --filename=/dev/nullb0 --direct=1 --rw=randrw --bs=4k \
		--size=16M --ioengine=libaio --iodepth=8 --numjobs=1 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output-format=terse --terse-version=3 >/tmp/fio.out 2>&1
	rc=$?
	err=$(cut -d';' -f5 /tmp/fio.out | head -n 1)
	ktap_result $((rc != 0 || err != 0)) "fio verify on null_blk $name" \
		"fio exit $rc, errors ${err:-?}"
	nullb_unload
done
# Without request_fn mode the plan has one line fewer: close it honestly.
case "$modes" in
*1*) ;;
*) ktap_skip "fio verify on null_blk request_fn" "mode not in this kernel" ;;
esac

ktap_done
