# SPDX-License-Identifier: GPL-2.0
# The tag allocator microbenchmark (debugfs blk_mq_tag_bench, series
# kernel): blk-mq-tag.c against lib/sbitmap, 1 to all vCPUs, a roomy map
# and a crowded one, REPEATS times each.  Lines go to tag-bench.txt in
# the shared folder.  Usage: tag-bench.sh MSECS REPEATS
msecs=${1:-1000}
repeats=${2:-3}
f=/sys/kernel/debug/blk_mq_tag_bench
[ -w $f ] || { echo "no $f: not a series kernel with CONFIG_BLK_MQ_TAG_BENCH"; exit 1; }
ncpu=$(grep -c ^processor /proc/cpuinfo)
: >tag-bench.txt
for shape in "128 1" "128 16" "8 4"; do
	t=1
	while [ $t -le "$ncpu" ]; do
		r=1
		while [ $r -le "$repeats" ]; do
			echo "$t $shape $msecs" >$f || exit 1
			cat $f | tee -a tag-bench.txt
			r=$((r + 1))
		done
		t=$((t * 2))
		[ $t -gt "$ncpu" ] && [ $((t / 2)) -lt "$ncpu" ] && t=$ncpu
	done
done
exit 0
