# SPDX-License-Identifier: GPL-2.0
# The console scanner finds every kind of report and nothing in a clean log.
. "$(dirname "$0")/lib.sh"

clean=$T/clean.log
printf '%s\r\n' '[    0.000000] Linux version 6.1.0' \
	'[    1.2] null_blk: disk nullb0 created' 'ok 1 fio verify # errors 0' \
	'BLKMQ_EXIT=0' >"$clean"
expect "a clean log has no report" \
	bash -c ". '$BLKMQ_TOOLS/lib/console.sh'; ! console_reports '$clean' >/dev/null"

while read -r line; do
	[ -n "$line" ] || continue
	printf '%s\r\n' '[    1.0] booting' "[    2.0] $line" \
		'[    2.1] RIP: 0010:blk_mq_foo+0x1/0x2' >"$T/r.log"
	out=$(console_reports "$T/r.log") || fail "not caught: $line"
	grep -qF "$line" <<<"$out" || fail "report line not printed: $line"
	grep -q 'RIP:' <<<"$out" || fail "lines after the report not printed: $line"
	pass "caught: $line"
done <<'EOF2'
WARNING: CPU: 1 PID: 42 at block/blk-mq.c:100 blk_mq_foo+0x1/0x2
BUG: KASAN: use-after-free in blk_mq_foo+0x1/0x2
BUG: unable to handle page fault for address: 0000000000000008
kernel BUG at block/blk-mq.c:12!
Oops: 0000 [#1] PREEMPT SMP
general protection fault, probably for non-canonical address 0xdead: 0000 [#1]
Kernel panic - not syncing: Fatal exception
WARNING: possible circular locking dependency detected
WARNING: inconsistent lock state
INFO: trying to register non-static key.
BUG: sleeping function called from invalid context at block/blk-mq.c:10
unreferenced object 0xffff888003a1c000 (size 64):
INFO: task fio:123 blocked for more than 60 seconds.
watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [fio:1]
rcu: INFO: rcu_sched detected stalls on CPUs/tasks:
list_add corruption. prev->next should be next (ffff8880), but was 0000.
EOF2
