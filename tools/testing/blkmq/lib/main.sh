# SPDX-License-Identifier: GPL-2.0
# The main job: build, boot, null_blk in each queue mode, fio, a table.

main_job()
{
	local kernel=series cpus=2 runtime=5 res
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) kernel=$2; shift 2 ;;
		--cpus) cpus=$2; shift 2 ;;
		--runtime) runtime=$2; shift 2 ;;
		*)
			die "main: unknown option '$1'" \
				"(valid: --kernel stock|series, --cpus N, --runtime SECONDS)"
			;;
		esac
	done
	one_of kernel "$kernel" $KERNELS
	is_uint "$cpus" || die "main: --cpus must be a positive number, not '$cpus'"
	is_uint "$runtime" ||
		die "main: --runtime must be a positive number of seconds, not '$runtime'"
	build "$kernel" bench || exit 1
	res=$BLKMQ_OUT/results/main-$kernel-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$res"
	BLKMQ_REBUILD=0 vm --kernel "$kernel" --config bench --cpus "$cpus" --name main \
		--share "$res" --script "$BLKMQ_TOOLS/guest/main-fio.sh" "$runtime" || exit 1
	msg "fio JSON: $res"
	python3 "$BLKMQ_TOOLS/report.py" "$res" "$kernel"
}
