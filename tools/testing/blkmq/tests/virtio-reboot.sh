# SPDX-License-Identifier: GPL-2.0
# The boot after virtio.sh, on the same disk files: what it wrote to vdb
# and flushed before the power-off reads back intact.
. /blkmq/guest/lib.sh

ktap_header 1
io_bound 300 fio --name=persist --filename=/dev/vdb --direct=1 \
	--ioengine=libaio --rw=write --bs=64k --offset=128M --size=32M \
	--verify=crc32c --verify_only --verify_fatal=1 \
	--output-format=terse --terse-version=3 >/tmp/fio.out 2>&1
rc=$?
err=$(awk -F';' '/^3;/ { e += $5; n++ } END { print n ? e : "none" }' /tmp/fio.out)
ktap_result $([ $rc = 0 ] && [ "$err" = 0 ]; echo $?) \
	"vdb: 32 MiB written before the power-off verify after the reboot" \
	"fio exit $rc, errors $err"
[ $rc = 0 ] || tail -n 5 /tmp/fio.out | sed 's/^/# /'
ktap_done
