# SPDX-License-Identifier: GPL-2.0
# Helpers for scripts that run inside the harness guest (busybox sh).
# Tests print KTAP (https://docs.kernel.org/dev-tools/ktap.html) and the
# host counts the result lines.

KTAP_N=0
KTAP_FAILED=0

ktap_header() { echo "KTAP version 1"; echo "1..$1"; }

# ktap_result STATUS NAME [DETAIL]: STATUS is 0 for ok.
ktap_result()
{
	KTAP_N=$((KTAP_N + 1))
	if [ "$1" = 0 ]; then
		echo "ok $KTAP_N $2${3:+ # $3}"
	else
		KTAP_FAILED=$((KTAP_FAILED + 1))
		echo "not ok $KTAP_N $2${3:+ # $3}"
	fi
}

ktap_skip() { KTAP_N=$((KTAP_N + 1)); echo "ok $KTAP_N $1 # SKIP $2"; }

ktap_done() { [ "$KTAP_FAILED" = 0 ]; }

diag() { echo "# $*"; }

# nullb_load ARGS...: load null_blk with module parameters; its error
# message (dmesg's last null_blk line) goes to stderr on failure.
nullb_load()
{
	modprobe null_blk "$@" 2>/tmp/modprobe.err && return 0
	dmesg | grep -i null_blk | tail -n 1 >&2
	return 1
}

nullb_unload() { modprobe -r null_blk; }

# nullb_has_mode MODE: true when this kernel's null_blk offers queue_mode MODE.
nullb_has_mode()
{
	nullb_load queue_mode="$1" nr_devices=1 gb=1 2>/dev/null || return 1
	nullb_unload
}

mode_name()
{
	case $1 in
	0) echo bio ;;
	1) echo request_fn ;;
	2) echo mq ;;
	*) echo "mode$1" ;;
	esac
}
