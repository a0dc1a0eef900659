# SPDX-License-Identifier: GPL-2.0
# make check: harness self-tests, builds, boots and guest test suites.
# Every result is one KTAP-style line here; the last line is the count.

CHECK_PASS=0
CHECK_FAIL=0
CHECK_SKIP=0
CHECK_N=0
CHECK_FAILED_NAMES=()

check_result() # STATUS NAME [DETAIL]
{
	CHECK_N=$((CHECK_N + 1))
	if [ "$1" = 0 ]; then
		CHECK_PASS=$((CHECK_PASS + 1))
		echo "ok $CHECK_N $2${3:+ # $3}"
	else
		CHECK_FAIL=$((CHECK_FAIL + 1))
		CHECK_FAILED_NAMES+=("$2")
		echo "not ok $CHECK_N $2${3:+ # $3}"
	fi
}

# The guest suites: kernel, config, vCPUs, script under tests/, and any
# more options for blkmq vm; @DISKS@ stands for two virtio disks, vda
# (cache=none) and vdb (cache=writeback), files in a folder made afresh
# for each check (virtio-reboot.sh boots again on what virtio.sh left
# there); @NVME@ for an emulated NVMe disk, a file in the same folder.
CHECK_SUITES="
stock  bench 2 smoke.sh
series bench 2 smoke.sh
series debug 2 nullb-params.sh
series debug 2 nullb-data.sh
series debug 2 nullb-faults.sh
series debug 2 legacy.sh
series debug 2 robust.sh
series debug 2 kunit.sh
series debug 2 drivers.sh @NVME@
series debug 2 dm-mpath.sh
series debug 2 virtio.sh @DISKS@
series debug 2 virtio-reboot.sh @DISKS@
series nomq  2 nomq.sh
"

check_selftests()
{
	local t name log
	mkdir -p "$BLKMQ_OUT/check/selftests"
	for t in "$BLKMQ_TOOLS"/selftests/*.sh; do
		[ "$(basename "$t")" = lib.sh ] && continue
		name=selftest/$(basename "$t" .sh)
		log=$BLKMQ_OUT/check/selftests/$(basename "$t" .sh).log
		if bash "$t" >"$log" 2>&1; then
			check_result 0 "$name"
		else
			check_result 1 "$name" "log: $log"
			sed 's/^/    /' "$log" | tail -n 15
		fi
	done
}

# check_series: make series, then the exported series applied with git am
# to a fresh copy of the base must give exactly the assembled series tree,
# and checkpatch --strict may find only what checkpatch-allow.txt keeps
# (each kept finding is in the cover letter with its reason).
check_series()
{
	local log=$BLKMQ_OUT/check/series.log am=$BLKMQ_OUT/check/series-am out found
	mkdir -p "$BLKMQ_OUT/check"
	if ! (series_export) >"$log" 2>&1; then
		check_result 1 "series: make series exports the patches" "$(tail -n 1 "$log")"
		check_result 1 "series applies to the base and gives the series tree" "no series"
		check_result 1 "series: checkpatch --strict" "no series"
		return
	fi
	check_result 0 "series: make series exports the patches" \
		"$(find "$(series_dir)" -name '0*.patch' ! -name '0000-*' | wc -l) patches"

	if ! (assemble "$(base_dir)" "$BLKMQ_REPO" "$(src_dir series)" "$(base_version)") \
		>>"$log" 2>&1; then
		check_result 1 "series applies to the base and gives the series tree" \
			"assemble failed: $(tail -n 1 "$log")"
	elif ! (series_am "$am") >>"$log" 2>&1; then
		check_result 1 "series applies to the base and gives the series tree" \
			"git am failed: $(tail -n 1 "$log")"
	elif ! out=$(series_same_tree "$am" "$(src_dir series)"); then
		check_result 1 "series applies to the base and gives the series tree" \
			"differs: $(echo "$out" | head -n 3 | tr '\n' ' ')"
	else
		check_result 0 "series applies to the base and gives the series tree"
	fi
	rm -rf "$am" "$am.am.log"

	found=$BLKMQ_OUT/series.work/checkpatch.txt
	if out=$(python3 "$BLKMQ_TOOLS/series-cover.py" verify "$found" "$SERIES_ALLOW"); then
		check_result 0 "series: checkpatch --strict" "$(head -n 1 <<<"$out")"
	else
		check_result 1 "series: checkpatch --strict" "$(head -n 1 <<<"$out"), see $log"
		printf '%s\n' "$out" | tail -n +2 | sed 's/^/    /' | head -n 15
		printf '%s\n' "$out" >>"$log"
	fi
}

# check_runner KERNEL CONFIG: the VM runner itself, on a real boot: exit
# status, the shared folder, the hang bound, and the console scanner.
check_runner()
{
	local kc="$1-$2" share rc
	local vmq=(vm --kernel "$1" --config "$2" --cpus 1 --quiet)
	share=$BLKMQ_OUT/check/runner-share
	rm -rf "$share"
	mkdir -p "$share"

	BLKMQ_REBUILD=0 "${vmq[@]}" --name exit3 -- sh -c 'exit 3' >/dev/null 2>&1
	rc=$?
	check_result $((rc != 3)) "runner $kc: the guest command's exit status comes back" \
		"got $rc, want 3"

	echo hello >"$share/in.txt"
	BLKMQ_REBUILD=0 "${vmq[@]}" --name share --share "$share" -- \
		sh -c 'cat in.txt >out.txt && uname -r >>out.txt' >/dev/null 2>&1
	rc=$?
	grep -qx hello "$share/out.txt" 2>/dev/null
	check_result $((rc != 0 || $? != 0)) "runner $kc: the shared folder is read-write" \
		"exit $rc"

	BLKMQ_REBUILD=0 "${vmq[@]}" --name hang --timeout 40 -- sleep 100000 >/dev/null 2>&1
	rc=$?
	[ "$rc" = 124 ] && [ -s "$VM_RUN/console.log" ]
	check_result $? "runner $kc: a hung guest is killed at its bound, console kept" "exit $rc"

	BLKMQ_REBUILD=0 "${vmq[@]}" --name report -- \
		sh -c 'echo "WARNING: CPU: 0 PID: 1 at harness/selftest.c:1 fake_report" \
			>/dev/kmsg' >/dev/null 2>&1
	rc=$?
	[ "$rc" = 1 ] && grep -q fake_report "$VM_RUN/reports.txt" 2>/dev/null
	check_result $? "runner $kc: a kernel report in the console fails the run" "exit $rc"
}

# Global blk_mq_* symbols that the series leaves in base files it keeps:
# blk-flush.c's flush sequencer and blk-merge.c's merge helper serve the
# engine through the 6.1 names drivers and the engine call them by.
CHECK_BASE_BLK_MQ_SYMS="blk_mq_hctx_set_fq_lock_class blk_mq_sched_try_merge"

# check_ours KERNEL CONFIG: the built series kernel is made of our engine,
# not the base's.  The base's engine and scheduler sources are gone from
# the tree, our files are there as written, no object in block/ comes from
# a removed source, and every blk_mq_* symbol in vmlinux is defined by an
# object built from one of our files.
check_ours()
{
	local src obj f o bad="" syms ours missing
	src=$(src_dir "$1")
	obj=$(obj_dir "$1" "$2")

	while read -r f; do
		case $f in "#"*|"") continue ;; esac
		[ -e "$src/$f" ] && bad="$bad $f"
	done <"$BLKMQ_REPO/patches/removed"
	# Every engine source left in the tree is one of ours.
	for f in "$src"/block/blk-mq* "$src"/include/linux/blk-mq.h; do
		f=${f#"$src"/}
		[ -f "$BLKMQ_REPO/$f" ] || bad="$bad $f"
	done
	check_result $([ -z "$bad" ]; echo $?) \
		"ours $1-$2: removed base sources are gone, every block/blk-mq* file is ours" \
		"${bad:+base files:$bad}"

	bad=""
	while read -r f; do
		cmp -s "$BLKMQ_REPO/$f" "$src/$f" || bad="$bad $f"
	done < <(overlay_files "$BLKMQ_REPO" "$(base_dir)" | grep -E '^(block|include|drivers)/')
	check_result $([ -z "$bad" ]; echo $?) "ours $1-$2: our files are in the tree as written" \
		"${bad:+differ:$bad}"

	# Objects linked into vmlinux from block/, and which of them are ours.
	bad="" ours=""
	for o in $(ar t "$obj/block/built-in.a"); do
		f=${o#"$obj"/}
		f=${f%.o}.c
		grep -qxF "$f" "$BLKMQ_REPO/patches/removed" && bad="$bad $f"
		[ -f "$BLKMQ_REPO/$f" ] && ours="$ours $o"
	done
	check_result $([ -z "$bad" ]; echo $?) \
		"ours $1-$2: no removed source is linked into vmlinux" "${bad:+linked:$bad}"

	syms=$(nm --defined-only "$obj/vmlinux" |
	       awk '$2 ~ /[A-Z]/ && $3 ~ /^_*blk_mq_/ { print $3 }' | sort -u)
	missing=$(comm -23 <(echo "$syms") <( (for o in $ours; do
		nm --defined-only "$o"
	done; echo "$CHECK_BASE_BLK_MQ_SYMS" | tr ' ' '\n' | sed 's/^/0 T /') |
		awk '$3 ~ /^_*blk_mq_/ { print $3 }' | sort -u))
	f="all $(echo "$syms" | grep -c .) blk_mq_* symbols in vmlinux come from our objects"
	check_result $([ -n "$syms" ] && [ -z "$missing" ]; echo $?) "ours $1-$2: $f" \
		"${missing:+not ours: $(echo $missing | cut -c1-300)}"
}

# check_nomq_kconfig: with CONFIG_BLK_MQ=n, allyesconfig must turn off
# every driver that calls into the engine (nomq-drivers.py finds them
# from the engine's exports and the Makefiles).
check_nomq_kconfig()
{
	local obj=$BLKMQ_OUT/check/allyes-nomq log=$BLKMQ_OUT/check/nomq-kconfig.log out
	rm -rf "$obj"
	mkdir -p "$obj"
	echo "# CONFIG_BLK_MQ is not set" >"$obj/allconfig"
	msg "BLK_MQ=n: allyesconfig (about a minute)"
	if ! make -s -C "$(src_dir series)" O="$obj" KCONFIG_ALLCONFIG="$obj/allconfig" \
		allyesconfig >"$log" 2>&1; then
		check_result 1 "BLK_MQ=n: drivers that need the engine depend on it" \
			"allyesconfig failed, see $log"
		return
	fi
	if out=$(python3 "$BLKMQ_TOOLS/nomq-drivers.py" "$(src_dir series)" "$obj/.config" \
		2>&1); then
		check_result 0 "BLK_MQ=n: drivers that need the engine depend on it" \
			"$(echo "$out" | sed -n 2p)"
	else
		check_result 1 "BLK_MQ=n: drivers that need the engine depend on it" \
			"$(echo "$out" | sed -n 2p)"
		echo "$out" | tail -n +3 | head -n 15 | sed 's/^/    /'
	fi
	echo "$out" >>"$log"
	rm -rf "$obj"
}

# check_suite KERNEL CONFIG CPUS SCRIPT [VM OPTIONS...]: one boot; each
# KTAP result of the guest script counts, and a boot that fails outright
# counts once.
check_suite()
{
	local kernel=$1 config=$2 cpus=$3 script=$4 name rc out line n=0
	shift 4
	name=$kernel-$config/$(basename "$script" .sh)
	msg "suite $name: booting"
	# The guest's own KTAP shows live, indented as a KTAP subtest.
	BLKMQ_LIVE_INDENT="    " BLKMQ_REBUILD=0 vm --kernel "$kernel" --config "$config" \
		--cpus "$cpus" \
		--name "$(basename "$script" .sh)" --timeout "${BLKMQ_SUITE_TIMEOUT:-900}" \
		"$@" --script "$BLKMQ_TOOLS/tests/$script"
	rc=$?
	out=$VM_RUN/ctl/output
	while read -r line; do
		case $line in
		"ok "*"# SKIP"*) CHECK_SKIP=$((CHECK_SKIP + 1)); n=$((n + 1))
			echo "skip $name: ${line#ok }" ;;
		"ok "*) check_result 0 "$name: $(echo "$line" | cut -d' ' -f3-)"; n=$((n + 1)) ;;
		"not ok "*)
			check_result 1 "$name: $(echo "$line" | cut -d' ' -f4-)" "log: $VM_RUN"
			n=$((n + 1)) ;;
		esac
	done < <(tr -d '\r' <"$out" 2>/dev/null | grep -E '^(not )?ok [0-9]+ ')
	if [ "$rc" != 0 ]; then
		check_result 1 "$name: guest run" "exit $rc, log: $VM_RUN"
	elif [ "$n" = 0 ]; then
		check_result 1 "$name: guest run" "no test results, log: $VM_RUN"
	fi
}

check()
{
	local start k c n s more kc disks vdisks nvme built=" "
	[ $# -eq 0 ] || die "check takes no arguments"
	start=$(date +%s)
	echo "KTAP version 1"
	setup || exit 1
	msg "accel and timings: see each step; logs under $BLKMQ_OUT"

	check_selftests
	check_series

	for kc in stock-bench series-bench series-debug series-nomq; do
		# A subshell: a build that dies on bad config still gets counted.
		if (build "${kc%-*}" "${kc#*-}"); then
			check_result 0 "build $kc"
			built="$built$kc "
		else
			check_result 1 "build $kc" "log: $(obj_dir "${kc%-*}" "${kc#*-}")/build.log"
		fi
	done

	for kc in series-bench series-debug; do
		[[ $built == *" $kc "* ]] && check_ours "${kc%-*}" "${kc#*-}"
	done

	if [[ $built == *" stock-bench "* && $built == *" series-bench "* ]]; then
		check_sparse
	else
		check_result 1 "sparse: the series adds no finding in block/ and null_blk" \
			"a bench kernel did not build"
	fi

	check_nomq_kconfig

	if [[ $built == *" stock-bench "* ]]; then
		check_runner stock bench
	else
		check_result 1 "runner stock-bench" "kernel did not build"
	fi

	disks=$BLKMQ_OUT/check/disks
	rm -rf "$disks"
	mkdir -p "$disks"
	truncate -s 256M "$disks/vda.img" "$disks/vdb.img" "$disks/nvme.img"
	vdisks="--disk $disks/vda.img,cache=none --disk $disks/vdb.img,cache=writeback"
	nvme="--nvme $disks/nvme.img"
	while read -r k c n s more; do
		[ -n "$k" ] || continue
		if [[ $built != *" $k-$c "* ]]; then
			check_result 1 "$k-$c/${s%.sh}" "kernel did not build"
			continue
		fi
		more=${more//@DISKS@/$vdisks}
		# shellcheck disable=SC2086 # options are words
		check_suite "$k" "$c" "$n" "$s" ${more//@NVME@/$nvme}
	done <<<"$CHECK_SUITES"

	msg "check finished in $(elapsed "$start")"
	[ "$CHECK_FAIL" = 0 ] || printf 'failed: %s\n' "${CHECK_FAILED_NAMES[@]}"
	if [ "$CHECK_SKIP" -gt 0 ]; then
		echo "$CHECK_PASS passed, $CHECK_FAIL failed, $CHECK_SKIP skipped"
	else
		echo "$CHECK_PASS passed, $CHECK_FAIL failed"
	fi
	[ "$CHECK_FAIL" = 0 ]
}
