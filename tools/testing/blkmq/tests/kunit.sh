# SPDX-License-Identifier: GPL-2.0
# The series' KUnit suites ran at boot (built in with the debug config):
# the tag allocator and CPU map, and the request_fn flush sequences.
# Report each of their test cases from debugfs as one KTAP line here.
. /blkmq/guest/lib.sh

SUITES="blk-mq-tag blk-legacy-flush"

# One "SUITE ok|not ok N - CASE" line per test case (the indented lines;
# the suite's own result line is not indented), or "SUITE missing".
for s in $SUITES; do
	res=/sys/kernel/debug/kunit/$s/results
	if [ -r "$res" ]; then
		grep -E '^ +(not )?ok [0-9]+ ' "$res" | sed "s/^ */$s /"
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
	ok) ktap_result 0 "kunit $suite: ${rest#* }" ;;
	*) ktap_result 1 "kunit $suite: ${rest#ok * }" ;;
	esac
done </tmp/kunit.cases
! grep -qE '^[^ ]+ (missing$|not ok)' /tmp/kunit.cases
