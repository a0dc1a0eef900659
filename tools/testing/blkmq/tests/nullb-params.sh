# SPDX-License-Identifier: GPL-2.0
# null_blk parameter checks: each bad value makes modprobe fail with
# EINVAL ("Invalid argument"), the kernel log has one null_blk line
# (per init attempt) and it names the parameter with the value given, and
# nothing is left behind (no /sys/module/null_blk, no /dev/nullb*). Then a
# good load works.
. /blkmq/guest/lib.sh

# nr_cpu_ids is one more than the highest possible CPU.
possible=$(cat /sys/devices/system/cpu/possible)
nr_cpu_ids=$((${possible##*[-,]} + 1))

set -- \
	"queue_mode queue_mode=9" \
	"submit_queues submit_queues=0" \
	"submit_queues submit_queues=$((nr_cpu_ids + 1))" \
	"hw_queue_depth hw_queue_depth=0" \
	"bs bs=3" \
	"bs bs=1536" \
	"bs bs=8192" \
	"gb gb=0" \
	"gb gb=18446744073709551615" \
	"irqmode irqmode=7" \
	"completion_nsec completion_nsec=-1" \
	"nr_devices nr_devices=100000" \
	"requeue_every requeue_every=1" \
	"write_cache queue_mode=0 write_cache=1" \
	"use_per_node_hctx use_per_node_hctx=1 submit_queues=1"

ktap_header $(($# + 1))
diag "nr_cpu_ids $nr_cpu_ids"
modprobe -r null_blk 2>/dev/null

for c in "$@"; do
	param=${c%% *}
	arg=${c#* }
	dmesg -c >/dev/null
	modprobe null_blk $arg >/tmp/modprobe.out 2>&1
	rc=$?
	# busybox modprobe falls back from finit_module() to init_module()
	# after a failure, so init may run twice: count distinct lines.
	lines=$(dmesg | grep 'null_blk:' | sed 's/^\[[^]]*\] //' | sort -u | wc -l)
	line=$(dmesg | grep 'null_blk:' | tail -n 1)
	why=""
	[ $rc != 0 ] || why="loaded"
	grep -q "Invalid argument" /tmp/modprobe.out ||
		why="${why:+$why, }not EINVAL: $(cat /tmp/modprobe.out)"
	[ "$lines" = 1 ] || why="${why:+$why, }$lines log lines"
	# the parameter as given, not as the driver read it back
	given=$(echo " $arg" | sed "s/.* \($param=[^ ]*\).*/\1/")
	case "$line" in
	*"$given "*) ;;
	*) why="${why:+$why, }log line does not name $given" ;;
	esac
	[ -e /sys/module/null_blk ] && why="${why:+$why, }module left loaded"
	ls /dev/nullb* >/dev/null 2>&1 && why="${why:+$why, }/dev/nullb* left"
	[ -z "$why" ] || { modprobe -r null_blk 2>/dev/null; diag "$line"; }
	ktap_result $([ -z "$why" ]; echo $?) "$arg is refused" "${why:-${line#*] }}"
done

why=""
if nullb_load queue_mode=2 submit_queues=$nr_cpu_ids hw_queue_depth=1 bs=4096 \
		gb=1 irqmode=2 completion_nsec=0 nr_devices=2; then
	[ -b /dev/nullb0 ] && [ -b /dev/nullb1 ] || why="no /dev/nullb0 and 1"
	[ "$(cat /sys/block/nullb0/queue/logical_block_size)" = 4096 ] ||
		why="${why:+$why, }logical_block_size not 4096"
	dd if=/dev/nullb1 of=/dev/null bs=4k count=4 2>/dev/null ||
		why="${why:+$why, }read failed"
	nullb_unload || why="${why:+$why, }unload failed"
else
	why="load failed"
fi
ktap_result $([ -z "$why" ]; echo $?) "good parameters load" "$why"

ktap_done
