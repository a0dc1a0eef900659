# SPDX-License-Identifier: GPL-2.0
# The base's SCSI and NVMe stacks, unchanged, on our engine (the debug
# config builds them as modules):
# - scsi_debug behind the SCSI midlayer and sd, two hardware queues:
#   completions at once and from a timer, fio verify on each;
# - nvme-pci on QEMU's emulated NVMe controller (the host's --nvme disk):
#   one I/O queue per vCPU, fio verify, a flush per fsync;
# - the NVMe host driver (nvme-core without multipath, so that the
#   namespace's disk is the host's own multiqueue disk) through the NVMe
#   loop target, whose namespace is a memory-backed null_blk disk: fio
#   verify through the host, then data written through the host read
#   back and verified on null_blk itself;
# then every module unloads, and kmemleak finds nothing.
. /blkmq/guest/lib.sh

ktap_header 15
kmemleak_begin

# scsi_disk: the block device scsi_debug's first disk got, or nothing.
scsi_disk()
{
	local b

	for b in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
		[ -e "$b" ] && basename "$b" && return 0
	done
	return 1
}

# wait_for FILE: up to 10 s for FILE to appear.
wait_for()
{
	local t=0

	while [ ! -e "$1" ] && [ $t -lt 50 ]; do
		sleep 0.2
		t=$((t + 1))
	done
	[ -e "$1" ]
}

# 1-5: scsi_debug, 64 MiB, two submit queues; the second load completes
# each command from an hrtimer 50 us later.
: >/tmp/unload.err
for delay in "delay=0" "ndelay=50000"; do
	name="scsi_debug $delay"
	# no udev here to load the disk driver when the disk shows up
	if ! modprobe sd_mod 2>/tmp/modprobe.err ||
		! modprobe scsi_debug dev_size_mb=64 submit_queues=2 $delay \
			2>/tmp/modprobe.err; then
		ktap_result 1 "$name: the disk is on the engine" \
			"modprobe: $(cat /tmp/modprobe.err)"
		ktap_result 1 "$name: fio randrw verify" "not loaded"
		continue
	fi
	d=""
	wait_for /sys/bus/pseudo/drivers/scsi_debug/adapter0 && sleep 1
	for t in 1 2 3 4 5 6 7 8 9 10; do
		d=$(scsi_disk) && [ -b "/dev/$d" ] && break
		sleep 1
	done
	n=$(ls -d /sys/block/"$d"/mq/* 2>/dev/null | wc -l)
	ktap_result $([ -n "$d" ] && [ -b "/dev/$d" ] && [ "$n" = 2 ]; echo $?) \
		"$name: the disk is on the engine" "${d:-no disk}, $n hardware queues"
	if [ -b "/dev/$d" ]; then
		fio_verify "$name: fio randrw verify" "/dev/$d" --numjobs=2 \
			--size=16M --offset_increment=16M --bsrange=4k-64k
	else
		ktap_result 1 "$name: fio randrw verify" "no disk"
	fi
	# rmmod: busybox's modprobe -r also tries scsi_mod, which sd_mod holds
	rmmod scsi_debug 2>>/tmp/unload.err || echo "$name: unload failed" >>/tmp/unload.err
done
modprobe -r sd_mod 2>>/tmp/unload.err
ktap_result $([ ! -s /tmp/unload.err ] && [ ! -d /sys/module/scsi_debug ] &&
	[ ! -d /sys/module/sd_mod ] && [ ! -d /sys/module/scsi_mod ]; echo $?) \
	"scsi_debug, sd_mod and scsi_mod unload" "$(head -n 1 /tmp/unload.err)"

# nvme_disk TRANSPORT: the disk of the first namespace of the NVMe
# controller with that transport, waiting up to 10 s; sets ctrl and d.
nvme_disk()
{
	local c b t

	ctrl="" d=""
	for t in 1 2 3 4 5 6 7 8 9 10; do
		for c in /sys/class/nvme/nvme*; do
			[ "$(cat "$c/transport" 2>/dev/null)" = "$1" ] && ctrl=$(basename "$c")
		done
		for b in /sys/class/nvme/"$ctrl"/nvme*n*; do
			[ -n "$ctrl" ] && [ -e "$b" ] && [ -b "/dev/$(basename "$b")" ] &&
				d=$(basename "$b")
		done
		[ -n "$d" ] && return 0
		sleep 1
	done
	return 1
}

# 6-9: nvme-pci on the emulated controller.
ncpu=$(grep -c ^processor /proc/cpuinfo)
: >/tmp/modprobe.err
modprobe nvme-core multipath=0 2>/tmp/modprobe.err &&
	modprobe nvme 2>>/tmp/modprobe.err
nvme_disk pcie
n=$(ls -d /sys/block/"$d"/mq/* 2>/dev/null | wc -l)
ktap_result $([ -n "$d" ] && [ "$n" = "$ncpu" ]; echo $?) \
	"nvme-pci: the namespace is a disk on the engine, a queue per vCPU" \
	"${d:-no disk}, $n hardware queues, $ncpu vCPUs$(first_error /tmp/modprobe.err)"
if [ -n "$d" ]; then
	fio_verify "nvme-pci: fio randrw verify" "/dev/$d" --numjobs=2 \
		--size=32M --offset_increment=32M --bsrange=4k-64k
	# each pair: the page's write, then one flush (fio's fsync=1 would
	# not sync after its last write)
	f0=$(diskstat "$d" 16)
	i=$(write_fsync_pages "/dev/$d" 16 32768)
	f1=$(diskstat "$d" 16)
	ktap_result $([ $i = 16 ] && [ $((f1 - f0)) = 16 ]; echo $?) \
		"nvme-pci: 16 write+fsync pairs make 16 flushes" \
		"$i writes, write_cache '$(cat "/sys/block/$d/queue/write_cache")'," \
		"flushes +$((f1 - f0))"
else
	ktap_result 1 "nvme-pci: fio randrw verify" "no disk"
	ktap_result 1 "nvme-pci: 16 write+fsync pairs make 16 flushes" "no disk"
fi
modprobe -r nvme nvme-core 2>/tmp/modprobe.err
ktap_result $([ $? = 0 ] && [ ! -d /sys/module/nvme ]; echo $?) \
	"nvme-pci and nvme-core unload" "$(head -n 1 /tmp/modprobe.err)"

# 10-14: the NVMe loop target exports /dev/nullb0 as namespace 1 of
# subsystem blkmq; the NVMe host driver connects to it over loop.
cfs=/sys/kernel/config/nvmet
subsys=$cfs/subsystems/blkmq
port=$cfs/ports/1
grep -q ' /sys/kernel/config ' /proc/mounts ||
	mount -t configfs none /sys/kernel/config
setup_ok=0
: >/tmp/modprobe.err
if nullb_load queue_mode=2 memory_backed=1 gb=1 irqmode=1 submit_queues=2 \
		2>/tmp/load.err &&
	modprobe nvme-core multipath=0 2>/tmp/modprobe.err &&
	modprobe nvmet 2>>/tmp/modprobe.err &&
	modprobe nvme-loop 2>>/tmp/modprobe.err &&
	mkdir $subsys && echo 1 >$subsys/attr_allow_any_host &&
	mkdir $subsys/namespaces/1 &&
	echo -n /dev/nullb0 >$subsys/namespaces/1/device_path &&
	echo 1 >$subsys/namespaces/1/enable &&
	mkdir $port && echo loop >$port/addr_trtype &&
	ln -s $subsys $port/subsystems/blkmq &&
	echo "transport=loop,nqn=blkmq" >/dev/nvme-fabrics; then
	setup_ok=1
fi
nvme_disk loop
n=$(ls -d /sys/block/"$d"/mq/* 2>/dev/null | wc -l)
errs=$(first_error /tmp/modprobe.err /tmp/load.err)
ktap_result $([ $setup_ok = 1 ] && [ -n "$d" ] && [ "$n" -ge 1 ] &&
	[ "$(cat /sys/block/"$d"/size)" = "$(cat /sys/block/nullb0/size)" ]; echo $?) \
	"nvme-loop: the namespace is a disk on the engine" \
	"setup $setup_ok, ${d:-no disk}, $n hardware queues$errs"
if [ -n "$d" ]; then
	fio_verify "nvme-loop: fio randrw verify" "/dev/$d" --numjobs=2 \
		--size=16M --offset_increment=16M --bsrange=4k-64k
	# Written through the NVMe stack, then read back on null_blk itself:
	# the same job (its seed, offsets and sizes) with --verify_only.
	fio_verify "nvme-loop: random writes through the host" "/dev/$d" \
		--rw=randwrite --do_verify=0 --numjobs=2 --offset=64M \
		--size=16M --offset_increment=16M --bsrange=4k-64k
	fio_verify "nvme-loop: null_blk holds what the host wrote" /dev/nullb0 \
		--rw=randwrite --verify_only --numjobs=2 --offset=64M \
		--size=16M --offset_increment=16M --bsrange=4k-64k
else
	ktap_result 1 "nvme-loop: fio randrw verify" "no disk"
	ktap_result 1 "nvme-loop: random writes through the host" "no disk"
	ktap_result 1 "nvme-loop: null_blk holds what the host wrote" "no disk"
fi

[ -n "$ctrl" ] && echo 1 >/sys/class/nvme/"$ctrl"/delete_controller
rm -f $port/subsystems/blkmq
rmdir $port 2>/dev/null
rmdir $subsys/namespaces/1 $subsys 2>/dev/null
modprobe -r nvme-loop nvmet nvme-fabrics nvme-core 2>/tmp/modprobe.err &&
	nullb_unload 2>>/tmp/modprobe.err
ktap_result $([ $? = 0 ] && [ ! -d /sys/module/nvme_loop ] &&
	[ ! -d /sys/module/nvme_core ] && [ ! -d /sys/module/null_blk ]; echo $?) \
	"nvme-loop, nvmet, nvme-core and null_blk unload" "$(head -n 1 /tmp/modprobe.err)"

# 15
kmemleak_check
ktap_result $? "no kmemleak report"
ktap_done
