#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the harness guest: mount what tests need, run the command the
# host left in /ctl/cmd, report its status, power off.
#
#   /ctl     the run's control folder (rw): cmd in, exit status out
#   /blkmq   tools/testing/blkmq from the host (ro): tests and helpers
#   /host    the shared folder (rw): scripts in, results out

/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mkdir -p /proc /sys /dev /tmp /ctl /blkmq /host /run
# vfs TYPE DIR: mount a virtual file system, named after its type.
vfs() { mount -t "$1" "$1" "$2"; }
vfs proc /proc
vfs sysfs /sys
vfs devtmpfs /dev
mkdir -p /dev/shm /dev/pts
vfs tmpfs /dev/shm
vfs tmpfs /tmp
vfs debugfs /sys/kernel/debug 2>/dev/null
vfs configfs /sys/kernel/config 2>/dev/null

p9() { mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=none${3:+,$3} "$1" "$2"; }
p9 ctl /ctl || echo "blkmq-init: cannot mount the control folder"
p9 tools /blkmq ro
p9 share /host

export BLKMQ_GUEST=1 HOME=/tmp
cd /host || cd /
# The command's output goes to the console and, whole and in order, to
# /ctl/output, where the host reads KTAP results from.
(sh /ctl/cmd </dev/null; echo $? >/tmp/.rc) 2>&1 | tee /ctl/output
rc=$(cat /tmp/.rc 2>/dev/null || echo 255)
cd /

# A kmemleak report is a failure of the run, like any other report; the
# scan needs objects older than its grace period, so scan twice.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
fi

echo "$rc" >/ctl/exit
sync
echo "BLKMQ_EXIT=$rc"
poweroff -f
