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

# The guest suites: kernel, config, vCPUs, script under tests/.
CHECK_SUITES="
stock  bench 2 smoke.sh
series bench 2 smoke.sh
series debug 2 nullb-params.sh
series debug 2 nullb-data.sh
series debug 2 nullb-faults.sh
series debug 2 legacy.sh
series debug 2 kunit.sh
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
	check_result $((rc != 3)) "runner $kc: the guest command's exit status comes back" "got $rc, want 3"

	echo hello >"$share/in.txt"
	BLKMQ_REBUILD=0 "${vmq[@]}" --name share --share "$share" -- \
		sh -c 'cat in.txt >out.txt && uname -r >>out.txt' >/dev/null 2>&1
	rc=$?
	grep -qx hello "$share/out.txt" 2>/dev/null
	check_result $((rc != 0 || $? != 0)) "runner $kc: the shared folder is read-write" "exit $rc"

	BLKMQ_REBUILD=0 "${vmq[@]}" --name hang --timeout 40 -- sleep 100000 >/dev/null 2>&1
	rc=$?
	[ "$rc" = 124 ] && [ -s "$VM_RUN/console.log" ]
	check_result $? "runner $kc: a hung guest is killed at its bound, console kept" "exit $rc"

	BLKMQ_REBUILD=0 "${vmq[@]}" --name report -- \
		sh -c 'echo "WARNING: CPU: 0 PID: 1 at harness/selftest.c:1 fake_report" >/dev/kmsg' >/dev/null 2>&1
	rc=$?
	[ "$rc" = 1 ] && grep -q fake_report "$VM_RUN/reports.txt" 2>/dev/null
	check_result $? "runner $kc: a kernel report in the console fails the run" "exit $rc"
}

# check_suite KERNEL CONFIG CPUS SCRIPT: one boot; each KTAP result of
# the guest script counts, and a boot that fails outright counts once.
check_suite()
{
	local kernel=$1 config=$2 cpus=$3 script=$4 name rc out line n=0
	name=$kernel-$config/$(basename "$script" .sh)
	msg "suite $name: booting"
	# The guest's own KTAP shows live, indented as a KTAP subtest.
	BLKMQ_LIVE_INDENT="    " BLKMQ_REBUILD=0 vm --kernel "$kernel" --config "$config" --cpus "$cpus" \
		--name "$(basename "$script" .sh)" --timeout "${BLKMQ_SUITE_TIMEOUT:-900}" \
		--script "$BLKMQ_TOOLS/tests/$script"
	rc=$?
	out=$VM_RUN/ctl/output
	while read -r line; do
		case $line in
		"ok "*"# SKIP"*) CHECK_SKIP=$((CHECK_SKIP + 1)); n=$((n + 1))
			echo "skip $name: ${line#ok }" ;;
		"ok "*) check_result 0 "$name: $(echo "$line" | cut -d' ' -f3-)"; n=$((n + 1)) ;;
		"not ok "*) check_result 1 "$name: $(echo "$line" | cut -d' ' -f4-)" "log: $VM_RUN"; n=$((n + 1)) ;;
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
	local start k c n s kc built=" "
	[ $# -eq 0 ] || die "check takes no arguments"
	start=$(date +%s)
	echo "KTAP version 1"
	setup || exit 1
	msg "accel and timings: see each step; logs under $BLKMQ_OUT"

	check_selftests

	for kc in stock-bench series-bench series-debug; do
		# A subshell: a build that dies on bad config still gets counted.
		if (build "${kc%-*}" "${kc#*-}"); then
			check_result 0 "build $kc"
			built="$built$kc "
		else
			check_result 1 "build $kc" "log: $(obj_dir "${kc%-*}" "${kc#*-}")/build.log"
		fi
	done

	if [[ $built == *" stock-bench "* ]]; then
		check_runner stock bench
	else
		check_result 1 "runner stock-bench" "kernel did not build"
	fi

	while read -r k c n s; do
		[ -n "$k" ] || continue
		if [[ $built != *" $k-$c "* ]]; then
			check_result 1 "$k-$c/${s%.sh}" "kernel did not build"
			continue
		fi
		check_suite "$k" "$c" "$n" "$s"
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
