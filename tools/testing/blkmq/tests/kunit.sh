# SPDX-License-Identifier: GPL-2.0
# The series' KUnit suites ran at boot (built in with the debug config):
# the tag allocator and CPU map, how the engine ends a request and takes
# one on a given hardware queue, and the request_fn flush sequences and
# request merges.  Report each of their test cases from debugfs as one
# KTAP line here, then one line per suite for the suite's own verdict.
# A case KUnit skipped did not run: it fails here, since the debug config
# builds everything each case needs.
#
# KUnit keeps 512 bytes of log per case, and a case's result line is the
# last thing in its log, so a case that failed with long messages can
# lose it.  The debugfs file's suite header (1..N, the number of cases)
# and its last line (ok|not ok 1 SUITE, from the suite's status) are not
# kept in that log: the suite's line checks every case reported and the
# suite's verdict against them.
. /blkmq/guest/lib.sh

SUITES="blk-mq-tag blk-mq-end blk-mq-alloc blk-legacy-flush blk-legacy-merge"

# One "SUITE ok|not ok N - CASE" line per test case (the indented lines;
# the suite's own result line is not indented), then "SUITE suite CASES
# REPORTED VERDICT", or "SUITE missing".
for s in $SUITES; do
	res=/sys/kernel/debug/kunit/$s/results
	if [ -r "$res" ]; then
		grep -E '^    (not )?ok [0-9]+ ' "$res" | sed "s/^ */$s /"
		echo "$s suite $(sed -n 's/^    1\.\.\([0-9]*\)$/\1/p' "$res" | head -n 1)" \
			"$(grep -cE '^    (not )?ok [0-9]+ ' "$res")" \
			"$(grep -E "^(not )?ok 1 $s\$" "$res" | sed 's/ 1 .*//; s/not ok/not-ok/')"
	else
		echo "$s missing"
	fi
done >/tmp/kunit.cases

n=$(wc -l </tmp/kunit.cases)
ktap_header $((n))
while read -r suite status rest; do
	case $status in
	missing) ktap_result 1 "$suite KUnit suite ran" \
		"no /sys/kernel/debug/kunit/$suite/results" ;;
	suite)
		# shellcheck disable=SC2086 # the three fields, split
		set -- $rest
		ktap_result $([ -n "${1:-}" ] && [ "${1:-}" = "${2:-}" ] &&
			[ "${3:-}" = ok ]; echo $?) \
			"kunit $suite: the suite passed, every case reported" \
			"${1:-?} cases, ${2:-?} reported, suite ${3:-no verdict}"
		;;
	ok)
		case $rest in
		*"# SKIP"*)
			name=${rest#* }
			ktap_result 1 "kunit $suite: ${name%% # SKIP*}" \
				"KUnit skipped it:${rest#*# SKIP}"
			;;
		*) ktap_result 0 "kunit $suite: ${rest#* }" ;;
		esac
		;;
	*) ktap_result 1 "kunit $suite: ${rest#ok * }" ;;
	esac
done </tmp/kunit.cases
[ "$KTAP_FAILED" = 0 ]
