#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# blkmq: assemble, build, boot and test the blk-mq series.
#
#   blkmq setup                      install packages, extract the base
#   blkmq assemble                   base + overlay + patches -> out/src/series
#   blkmq build KERNEL CONFIG        kernel: stock|series, config: bench|debug|lockstat|profile
#   blkmq vm [OPTIONS] -- CMD...     boot a kernel, run CMD, exit with its status
#   blkmq main [--kernel K] [--cpus N] [--runtime S]
#                                    null_blk in each mode + fio, one table
#   blkmq bench [--cpus N] [--repeats N] [--runtime S] [--parts LIST]
#               [--only REGEX]
#                                    stock vs series, fio matrix, A B A B ...
#   blkmq profile [--cpus N] [--runtime S] [--shift N] [--top N] [--icount | --insn]
#                                    stock vs series, kernel time per I/O by function
#   blkmq check                      the whole test suite
#   blkmq check-sparse               its sparse step alone: stock vs series
#   blkmq series                     the series as git format-patch files
#   blkmq check-bisect [--max N]     build every exported patch in turn
#
# Output goes to $BLKMQ_OUT (default: out/ at the repo root).
set -u
set -o pipefail

BLKMQ_TOOLS=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
for f in common setup assemble build initramfs console vm main bench profile check sparse \
	series bisect; do
	# shellcheck source=/dev/null
	. "$BLKMQ_TOOLS/lib/$f.sh"
done

usage() { sed -n '3,/^# Output goes/s/^# \{0,1\}//p' "$0"; }

[ $# -gt 0 ] || { usage; exit 2; }
cmd=$1
shift
case $cmd in
setup) [ $# -eq 0 ] || die "setup takes no arguments"; setup ;;
assemble)
	[ $# -eq 0 ] || die "assemble takes no arguments"
	setup
	assemble "$(base_dir)" "$BLKMQ_REPO" "$(src_dir series)" "$(base_version)"
	;;
build)
	[ $# -eq 2 ] ||
		die "usage: blkmq build KERNEL CONFIG (kernels: $KERNELS; configs: $CONFIGS)"
	build "$1" "$2"
	;;
vm) vm "$@" ;;
main) main_job "$@" ;;
bench) bench_job "$@" ;;
profile) profile_job "$@" ;;
check) check "$@" ;;
check-sparse)
	[ $# -eq 0 ] || die "check-sparse takes no arguments"
	build stock bench && build series bench || exit 1
	check_sparse
	[ "$CHECK_FAIL" = 0 ]
	;;
series) [ $# -eq 0 ] || die "series takes no arguments"; series_export ;;
check-bisect) check_bisect "$@" ;;
-h|--help|help) usage ;;
*)
	die "unknown command '$cmd'" \
		"(valid: setup assemble build vm main bench profile check check-sparse series" \
		"check-bisect)"
	;;
esac
