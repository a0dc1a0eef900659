# SPDX-License-Identifier: GPL-2.0
# The engine's KUnit suites ran at boot (built in with the debug config);
# report each of their test cases from debugfs as one KTAP line here.
. /blkmq/guest/lib.sh

res=/sys/kernel/debug/kunit/blk-mq-tag/results
if [ ! -r "$res" ]; then
	ktap_header 1
	ktap_result 1 "blk-mq-tag KUnit suite ran" "no $res"
	exit 1
fi
cases=$(grep -cE '^ *(not )?ok [0-9]+ ' "$res")
ktap_header "$cases"
grep -E '^ *(not )?ok [0-9]+ ' "$res" | sed 's/^ *//' | grep -v 'blk-mq-tag$' |
while read -r status rest; do
	case $status in
	ok) ktap_result 0 "kunit blk-mq-tag: ${rest#* }" ;;
	*) ktap_result 1 "kunit blk-mq-tag: ${rest#ok * }" ;;
	esac
done
! grep -qE '^ *not ok' "$res"
