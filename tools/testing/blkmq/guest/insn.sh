# SPDX-License-Identifier: GPL-2.0
# The instruction count's guest half (make profile PROFILE_INSN=1): the
# host's QEMU carries the insn-count plugin, which dumps its counts each
# time the guest enters sync(2).  For each case (null_blk mq and bio
# mode, irqmode 1, fio libaio and io_uring 4k randread, QD1 and QD32,
# one job; and mq with the disk statistics off, libaio QD1) a sync comes
# right before fio and right after it, so the plugin's dump 2k+1 is case
# k's run alone.  fio's JSON (its I/O count) goes to
# /host/insn-<case>.json, the case names in order to
# /host/insn-cases.txt.  usage: insn.sh RUNTIME
. /blkmq/guest/lib.sh

runtime=${1:-2}

# insn_case CASE ENGINE QD: one counted fio run on /dev/nullb0
insn_case() {
	sync
	fio --name=insn --filename=/dev/nullb0 --direct=1 --rw=randread \
		--bs=4k --ioengine="$2" --iodepth="$3" --numjobs=1 \
		--time_based --runtime="$runtime" --output-format=json \
		--output="/host/insn-$1.json" >/dev/null || return 1
	sync
	echo "$1" >>/host/insn-cases.txt
	echo "insn: $1"
}

: >/host/insn-cases.txt
for mode in 2 0; do
	name=$(mode_name $mode)
	nullb_load queue_mode=$mode submit_queues=1 irqmode=1 gb=16 bs=4096 || exit 1
	for engine in libaio io_uring; do
		for qd in 1 32; do
			insn_case "$name-irq1-$engine-qd$qd-j1" $engine $qd || exit 1
		done
	done
	if [ $mode = 2 ]; then
		# what the disk statistics cost: null_blk's bio mode keeps none
		echo 0 >/sys/block/nullb0/queue/iostats || exit 1
		insn_case mqnostat-irq1-libaio-qd1-j1 libaio 1 || exit 1
	fi
	nullb_unload || exit 1
done
