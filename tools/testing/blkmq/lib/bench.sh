# SPDX-License-Identifier: GPL-2.0
# make bench: the stock and series bench kernels, the same fio matrix on
# both in the same VM settings, booted alternately (A B A B ...) so that
# drift in the host hits both alike; then medians, ranges and ratios.
# --parts picks what runs (default all): nullb (the null_blk matrix),
# virtio (virtio-blk on a raw host file, cache=none, one queue per vCPU),
# tags (tag allocator against sbitmap), lockstat (lock statistics),
# icount (the null_blk matrix at one vCPU, once per kernel, under QEMU's
# -icount: the guest's clock counts instructions, so IOPS there is the
# inverse of the instructions per I/O, and the host's load cannot move it).
#
# --only REGEX (or BENCH_ONLY) keeps the fio cases whose name,
# <mode>-irq<I>-<engine>-qd<Q>-j<J> or virtio_blk-<engine>-qd<Q>-j<J>,
# matches the extended regex, and skips the tag and lock parts: a quick
# paired look, written to quick-<time>/ so that the cover letter, which
# takes the newest bench-*/, never sees it.

BENCH_PARTS=nullb,virtio,icount,tags,lockstat
# Size of the virtio-blk benchmark disk, a host file written once per run.
BENCH_DISK_MB=256

# bench_has PART PARTS: true when PART is in the comma-separated PARTS.
bench_has() { [[ ,$2, == *,$1,* ]]; }

bench_job()
{
	local cpus=2 repeats=5 runtime=3 parts=$BENCH_PARTS only=${BENCH_ONLY:-}
	local res r k p ab disk=()
	while [ $# -gt 0 ]; do
		case $1 in
		--cpus) cpus=$2; shift 2 ;;
		--repeats) repeats=$2; shift 2 ;;
		--runtime) runtime=$2; shift 2 ;;
		--parts) parts=$2; shift 2 ;;
		--only) only=$2; shift 2 ;;
		*)
			die "bench: unknown option '$1'" \
				"(valid: --cpus N, --repeats N, --runtime SECONDS, --parts LIST," \
				"--only REGEX)"
			;;
		esac
	done
	[ -n "$parts" ] || die "bench: --parts needs a list, e.g. nullb,virtio"
	for p in ${parts//,/ }; do
		bench_has "$p" "$BENCH_PARTS" ||
			die "bench: --parts: unknown part '$p' (valid: ${BENCH_PARTS//,/, })"
	done
	check_cpus_runtime bench "$cpus" "$runtime"
	is_uint "$repeats" && [ "$repeats" -le 50 ] ||
		die "bench: --repeats must be 1..50, not '$repeats'"
	if [ -n "$only" ]; then
		echo | grep -Eq -- "$only" 2>/dev/null
		[ $? -le 1 ] || die "bench: --only takes an extended regex, not '$only'"
		# a quick look at some fio cases: no tag or lock part
		parts=$(echo "$parts" | tr , '\n' | grep -E '^(nullb|virtio|icount)$' | paste -sd,)
		[ -n "$parts" ] || die "bench: --only needs the nullb, virtio or icount part"
	fi
	[ "$repeats" -ge 5 ] ||
		warn "bench: $repeats repeats is a quick look; the method asks for at least 5"
	build stock bench || exit 1
	build series bench || exit 1
	if bench_has lockstat "$parts"; then
		build series lockstat || exit 1
	fi
	res=$BLKMQ_OUT/results/$([ -n "$only" ] && echo quick || echo bench)
	res=$res-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$res"
	if bench_has virtio "$parts"; then
		# written, not sparse: reads must reach the host's disk
		dd if=/dev/zero of="$res/virtio.img" bs=1M count=$BENCH_DISK_MB \
			conv=fsync status=none || die "bench: cannot write $res/virtio.img"
		disk=(--disk "$res/virtio.img,cache=none")
	fi
	ab=$repeats
	bench_has nullb "$parts" || bench_has virtio "$parts" || ab=0
	for ((r = 1; r <= ab; r++)); do
		for k in stock series; do
			msg "bench: repeat $r/$repeats, $k"
			mkdir -p "$res/$k/r$r"
			BLKMQ_LIVE_INDENT="    " BLKMQ_REBUILD=0 vm --kernel "$k" --config bench \
				--cpus "$cpus" --name "bench-r$r" --share "$res/$k/r$r" \
				${disk[@]+"${disk[@]}"} --timeout 3600 \
				--script "$BLKMQ_TOOLS/guest/bench-fio.sh" "$runtime" "$parts" \
				"$only" || { rm -f "$res/virtio.img"; exit 1; }
		done
	done
	rm -f "$res/virtio.img"
	if bench_has icount "$parts"; then
		for k in stock series; do
			msg "bench: $k, 1 vCPU, guest clock = instructions (-icount shift=0)"
			mkdir -p "$res/icount/$k/r1"
			BLKMQ_LIVE_INDENT="    " BLKMQ_REBUILD=0 vm --kernel "$k" --config bench \
				--cpus 1 --icount 0 --name icount --share "$res/icount/$k/r1" \
				--timeout 3600 --script "$BLKMQ_TOOLS/guest/bench-fio.sh" \
				"$runtime" nullb "$only" || exit 1
		done
	fi
	if bench_has tags "$parts"; then
		msg "bench: tag allocator against lib/sbitmap, series kernel"
		mkdir -p "$res/tags"
		BLKMQ_LIVE_INDENT="    " BLKMQ_REBUILD=0 vm --kernel series --config bench \
			--cpus "$cpus" --name tag-bench --share "$res/tags" --timeout 1800 \
			--script "$BLKMQ_TOOLS/guest/tag-bench.sh" 1000 "$repeats" || exit 1
	fi
	if bench_has lockstat "$parts"; then
		msg "bench: lock statistics, series lockstat kernel"
		mkdir -p "$res/lockstat"
		BLKMQ_LIVE_INDENT="    " BLKMQ_REBUILD=0 vm --kernel series --config lockstat \
			--cpus "$cpus" --name lockstat --share "$res/lockstat" --timeout 1800 \
			--script "$BLKMQ_TOOLS/guest/lockstat.sh" "$runtime" || exit 1
	fi
	msg "bench: results in $res"
	# a lockstat-only run has no fio or tag results for the report
	if [ "$parts" != lockstat ]; then
		python3 "$BLKMQ_TOOLS/bench-report.py" "$res" || exit 1
	fi
	if bench_has lockstat "$parts"; then
		echo
		echo "locks per I/O, fio 4k randread libaio QD32, one job per vCPU:"
		python3 "$BLKMQ_TOOLS/lockstat-report.py" "$res/lockstat"
	fi
}
