# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the blk-mq harness: paths, messages, progress.
#
# Every long step prints a line at least every PROGRESS_EVERY seconds, so a
# user never watches a silent terminal for minutes.

BLKMQ_TOOLS=${BLKMQ_TOOLS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BLKMQ_REPO=${BLKMQ_REPO:-$(cd "$BLKMQ_TOOLS/../../.." && pwd)}
BLKMQ_OUT=${BLKMQ_OUT:-$BLKMQ_REPO/out}
PROGRESS_EVERY=${PROGRESS_EVERY:-20}

# The kernels and configs the harness knows; everything else is bad input.
KERNELS="stock series"
CONFIGS="bench debug lockstat nomq profile"

msg()  { printf 'blkmq: %s\n' "$*"; }
warn() { printf 'blkmq: %s\n' "$*" >&2; }
die()  { printf 'blkmq: error: %s\n' "$*" >&2; exit 2; }

# one_of WHAT VALUE CHOICES...: die with the valid choices unless VALUE is one.
one_of()
{
	local what=$1 val=$2 c
	shift 2
	for c in "$@"; do
		[ "$val" = "$c" ] && return 0
	done
	die "unknown $what '$val' (valid: $*)"
}

# is_uint VALUE: true when VALUE is a positive decimal integer.
is_uint() { [[ $1 =~ ^[1-9][0-9]*$ ]]; }

# check_cpus_runtime CMD CPUS RUNTIME: die naming CMD unless the vCPU count
# is 1..64 and the fio runtime a positive number of seconds.
check_cpus_runtime()
{
	is_uint "$2" && [ "$2" -le 64 ] || die "$1: --cpus must be 1..64, not '$2'"
	is_uint "$3" || die "$1: --runtime must be a positive number of seconds, not '$3'"
}

elapsed() { local s=$(( $(date +%s) - $1 )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

# with_progress LABEL LOG COUNTER_CMD -- CMD...: run CMD with its output in
# LOG and print "LABEL: <counter>, <elapsed>" every PROGRESS_EVERY seconds.
# COUNTER_CMD is evaluated to describe how far the command got.
with_progress()
{
	local label=$1 log=$2 counter=$3 start pid rc
	shift 4
	start=$(date +%s)
	"$@" >"$log" 2>&1 &
	pid=$!
	while ! wait_for "$pid" "$PROGRESS_EVERY"; do
		msg "$label: $(eval "$counter"), $(elapsed "$start")"
	done
	wait "$pid"
	rc=$?
	msg "$label: done in $(elapsed "$start") (exit $rc)"
	return $rc
}

# wait_for PID SECONDS: true once PID has exited, false after SECONDS.
wait_for()
{
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

nproc_build() { echo $(( $(nproc) + 1 )); }
