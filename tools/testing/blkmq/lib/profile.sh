# SPDX-License-Identifier: GPL-2.0
# make profile: where the kernel's time goes per I/O, stock against series.
# The profile kernels (bench.config plus CONFIG_PROFILING) boot with
# profile=SHIFT, the kernel's timer-tick profiler: no performance counters
# are needed, so it works under TCG.  guest/profile.sh runs fio libaio in
# mq mode and saves /proc/profile; profile-report.py maps the buckets to
# functions with the build's System.map.
# With --icount the guests run at one vCPU under QEMU's -icount shift=0:
# a tick is then a fixed number of instructions, so the profile counts
# instructions per I/O, whatever else the host is doing.
# With --insn there are no ticks: the bench kernels run at one vCPU under
# -icount with qemu/insn-count.c, a TCG plugin that counts every executed
# instruction by block; guest/insn.sh brackets each fio run with sync(2),
# where the plugin dumps its counts, and insn-report.py maps the blocks
# to functions: exact instructions per I/O, function by function.  It
# saves the engine functions' disassembly with the counts, so that
# insn-report.py --annotate can show where inside a function they go.

profile_job()
{
	local cpus="" runtime=15 shift_=2 top=15 res k kobj icount=() insn=""
	while [ $# -gt 0 ]; do
		case $1 in
		--cpus) cpus=$2; shift 2 ;;
		--runtime) runtime=$2; shift 2 ;;
		--shift) shift_=$2; shift 2 ;;
		--top) top=$2; shift 2 ;;
		--icount) icount=(--icount 0); shift ;;
		--insn) insn=1; shift ;;
		*)
			die "profile: unknown option '$1'" \
				"(valid: --cpus N, --runtime SECONDS, --shift N, --top N," \
				"--icount, --insn)"
			;;
		esac
	done
	if [ -n "$insn" ]; then
		[ ${#icount[@]} -eq 0 ] ||
			die "profile: --insn and --icount are two kinds of profile"
		[ -z "$cpus" ] || [ "$cpus" = 1 ] ||
			die "profile: --insn runs at one vCPU, not --cpus $cpus"
		profile_insn "$runtime" "$top"
		return
	fi
	if [ ${#icount[@]} -gt 0 ]; then
		[ -z "$cpus" ] || [ "$cpus" = 1 ] ||
			die "profile: --icount runs at one vCPU, not --cpus $cpus"
		cpus=1
	fi
	check_cpus_runtime profile "${cpus:=2}" "$runtime"
	[[ $shift_ =~ ^[0-9]+$ ]] && [ "$shift_" -le 12 ] ||
		die "profile: --shift must be 0..12, not '$shift_'"
	is_uint "$top" || die "profile: --top must be a positive number, not '$top'"
	build stock profile || exit 1
	build series profile || exit 1
	res=$BLKMQ_OUT/results/profile-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$res"
	# the report counts instructions, not microseconds
	[ ${#icount[@]} -eq 0 ] || echo "shift=0" >"$res/icount"
	for k in stock series; do
		kobj=$(obj_dir "$k" profile)
		mkdir -p "$res/$k"
		cp "$kobj/System.map" "$res/$k/System.map"
		cp "$kobj/.config" "$res/$k/config"
		msg "profile: $k"
		BLKMQ_LIVE_INDENT="    " BLKMQ_REBUILD=0 vm --kernel "$k" --config profile \
			--cpus "$cpus" ${icount[@]+"${icount[@]}"} --name profile \
			--share "$res/$k" --timeout 1800 \
			--append "profile=$shift_" \
			--script "$BLKMQ_TOOLS/guest/profile.sh" "$runtime" || exit 1
	done
	msg "profile: results in $res"
	python3 "$BLKMQ_TOOLS/profile-report.py" "$res" "$top"
}

# profile_insn RUNTIME TOP: the --insn profile (see the top of this file).
profile_insn()
{
	local runtime=$1 top=$2 res k kobj so mark
	check_cpus_runtime profile 1 "$runtime"
	is_uint "$top" || die "profile: --top must be a positive number, not '$top'"
	so=$BLKMQ_OUT/qemu/insn-count.so
	mkdir -p "$BLKMQ_OUT/qemu"
	# the plugin's own error stops here, before any kernel is built
	cc -O2 -Wall -Werror -shared -fPIC -fvisibility=hidden -o "$so" \
		"$BLKMQ_TOOLS/qemu/insn-count.c" ||
		die "profile: cannot build the QEMU plugin $BLKMQ_TOOLS/qemu/insn-count.c"
	build stock bench || exit 1
	build series bench || exit 1
	res=$BLKMQ_OUT/results/insn-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$res"
	for k in stock series; do
		kobj=$(obj_dir "$k" bench)
		mkdir -p "$res/$k"
		cp "$kobj/System.map" "$res/$k/System.map"
		# for insn-report.py --annotate: the engine functions' code
		python3 "$BLKMQ_TOOLS/insn-report.py" --disassemble "$res/$k" \
			"$kobj/vmlinux" || exit 1
		# the guest's sync(2) is the plugin's mark
		mark=$(awk '$3 == "__x64_sys_sync" { print $1 }' "$kobj/System.map")
		[ -n "$mark" ] || die "profile: no __x64_sys_sync in $kobj/System.map"
		msg "profile: $k, 1 vCPU, every instruction counted (-icount shift=0, insn-count)"
		BLKMQ_QEMU_EXTRA="-plugin $so,out=$res/$k/insn-dumps.txt,mark=$mark" \
			BLKMQ_LIVE_INDENT="    " BLKMQ_REBUILD=0 vm --kernel "$k" --config bench \
			--cpus 1 --icount 0 --name insn --share "$res/$k" --timeout 1800 \
			--script "$BLKMQ_TOOLS/guest/insn.sh" "$runtime" || exit 1
	done
	msg "profile: results in $res"
	python3 "$BLKMQ_TOOLS/insn-report.py" "$res" "$top"
}
