# SPDX-License-Identifier: GPL-2.0
# The guest console log is the run's evidence. Any report from the kernel
# or its checkers in it fails the run.

# One extended regex for the first line of every report we know of:
# WARN(), BUG(), oopses, panics, lockdep, KASAN, kmemleak, the hung-task
# and soft-lockup detectors, RCU stalls and DEBUG_LIST corruption.
CONSOLE_REPORT_RE='WARNING: |BUG: |Oops|kernel BUG at|general protection fault'
CONSOLE_REPORT_RE+='|Kernel panic|KASAN: |unreferenced object 0x'
CONSOLE_REPORT_RE+='|blocked for more than [0-9]+ seconds|soft lockup|detected stalls'
CONSOLE_REPORT_RE+='|INFO: possible |INFO: trying to register non-static key'
CONSOLE_REPORT_RE+='|INFO: inconsistent lock|list_(add|del) corruption|DEBUG_LOCKS_WARN_ON'
CONSOLE_REPORT_RE+='|UBSAN: '

# console_reports LOG: print each report's first line and a few after it
# (at most 60 lines in all); true when there is at least one.
console_reports()
{
	tr -d '\r' <"$1" | awk -v re="$CONSOLE_REPORT_RE" '
		$0 ~ re { left = 6 }
		left > 0 { print; left--; if (++n >= 60) exit }
		END { exit n == 0 }'
}
