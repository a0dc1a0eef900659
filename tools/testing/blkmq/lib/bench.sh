# SPDX-License-Identifier: GPL-2.0
# make bench: the stock and series bench kernels, the same fio matrix on
# both in the same VM settings, booted alternately (A B A B ...) so that
# drift in the host hits both alike; then medians, ranges and ratios.
#
# --only REGEX (or BENCH_ONLY) keeps the fio cases whose name,
# <mode>-irq<I>-<engine>-qd<Q>-j<J>, matches the extended regex, and skips
# the tag and lock parts: a quick paired look, written to quick-<time>/ so
# that the cover letter, which takes the newest bench-*/, never sees it.

bench_job()
{
	local cpus=2 repeats=5 runtime=3 only=${BENCH_ONLY:-} res r k
	while [ $# -gt 0 ]; do
		case $1 in
		--cpus) cpus=$2; shift 2 ;;
		--repeats) repeats=$2; shift 2 ;;
		--runtime) runtime=$2; shift 2 ;;
		--only) only=$2; shift 2 ;;
		*) die "bench: unknown option '$1' (valid: --cpus N, --repeats N, --runtime SECONDS, --only REGEX)" ;;
		esac
	done
	check_cpus_runtime bench "$cpus" "$runtime"
	is_uint "$repeats" && [ "$repeats" -le 50 ] || die "bench: --repeats must be 1..50, not '$repeats'"
	if [ -n "$only" ]; then
		echo | grep -Eq -- "$only" 2>/dev/null
		[ $? -le 1 ] || die "bench: --only takes an extended regex, not '$only'"
	fi
	[ "$repeats" -ge 5 ] || warn "bench: $repeats repeats is a quick look; the method asks for at least 5"
	build stock bench || exit 1
	build series bench || exit 1
	[ -n "$only" ] || build series lockstat || exit 1
	res=$BLKMQ_OUT/results/$([ -n "$only" ] && echo quick || echo bench)-$(date +%Y%m%d-%H%M%S)
	for ((r = 1; r <= repeats; r++)); do
		for k in stock series; do
			msg "bench: repeat $r/$repeats, $k"
			mkdir -p "$res/$k/r$r"
			BLKMQ_LIVE_INDENT="    " BLKMQ_REBUILD=0 vm --kernel "$k" --config bench \
				--cpus "$cpus" --name "bench-r$r" --share "$res/$k/r$r" \
				--timeout 3600 --script "$BLKMQ_TOOLS/guest/bench-fio.sh" "$runtime" "$only" || exit 1
		done
	done
	if [ -n "$only" ]; then
		msg "bench: results in $res"
		python3 "$BLKMQ_TOOLS/bench-report.py" "$res"
		return
	fi
	msg "bench: tag allocator against lib/sbitmap, series kernel"
	mkdir -p "$res/tags"
	BLKMQ_LIVE_INDENT="    " BLKMQ_REBUILD=0 vm --kernel series --config bench \
		--cpus "$cpus" --name tag-bench --share "$res/tags" --timeout 1800 \
		--script "$BLKMQ_TOOLS/guest/tag-bench.sh" 1000 "$repeats" || exit 1
	msg "bench: lock statistics, series lockstat kernel"
	mkdir -p "$res/lockstat"
	BLKMQ_LIVE_INDENT="    " BLKMQ_REBUILD=0 vm --kernel series --config lockstat \
		--cpus "$cpus" --name lockstat --share "$res/lockstat" --timeout 1800 \
		--script "$BLKMQ_TOOLS/guest/lockstat.sh" "$runtime" || exit 1
	msg "bench: results in $res"
	python3 "$BLKMQ_TOOLS/bench-report.py" "$res" || exit 1
	echo
	echo "locks per I/O, fio 4k randread libaio QD32, one job per vCPU:"
	python3 "$BLKMQ_TOOLS/lockstat-report.py" "$res/lockstat"
}
