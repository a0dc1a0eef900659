# SPDX-License-Identifier: GPL-2.0
# Boot a built kernel in QEMU, run one command in it, return its status.

VM_USAGE="usage: blkmq vm [--kernel stock|series] [--config bench|debug] [--cpus N] [--mem MiB]
                [--share DIR] [--disk FILE[,cache=none|writeback]]... [--nvme FILE]...
                [--timeout SECONDS]
                [--name NAME] [--append ARGS] [--icount SHIFT] [--quiet]
                (--script FILE [ARGS...] | -- COMMAND...)"

initrd_for() # KOBJ: userspace + this kernel's modules, one file for QEMU
{
	local out=$1/initrd.cpio
	if [ ! -f "$out" ] || [ "$(userspace_cpio)" -nt "$out" ] ||
		[ "$1/modules.cpio" -nt "$out" ]; then
		cat "$(userspace_cpio)" "$1/modules.cpio" >"$out.tmp" && mv "$out.tmp" "$out"
	fi
	echo "$out"
}

# qemu_boot RUN KOBJ ACCEL CPUS MEM SHARE TIMEOUT APPEND [DISK...]: boot,
# run RUN/ctl/cmd, and leave the console in RUN/console.log.  Each DISK,
# FILE,cache=MODE, is a virtio-blk disk (vda, vdb, ...) with one queue per
# vCPU; nvme:FILE is instead an emulated NVMe controller with FILE as its
# one namespace, for the guest's nvme-pci driver.  Returns qemu's
# status, or 124 when it was killed at the time bound.
# With ICOUNT=SHIFT in the environment, a TCG guest's clock counts the
# instructions it runs, 2^SHIFT ns each, so its timings do not depend on
# how busy the host is.
qemu_boot()
{
	local run=$1 kobj=$2 accel=$3 cpus=$4 mem=$5 share=$6 timeout=$7 append=$8 cpu=max
	local fs=(ctl "$run/ctl" "" tools "$BLKMQ_TOOLS" ",readonly=on" share "$share" "")
	local args=() i d dopts=discard=unmap,aio=threads
	shift 8
	[ "$accel" = kvm ] && cpu=host
	for ((i = 0; i < ${#fs[@]}; i += 3)); do
		args+=(-fsdev "local,id=${fs[i]},path=${fs[i + 1]},security_model=none${fs[i + 2]}"
		       -device "virtio-9p-pci,fsdev=${fs[i]},mount_tag=${fs[i]}")
	done
	i=0
	for d in "$@"; do
		case $d in
		nvme:*)
			args+=(-drive "file=${d#nvme:},if=none,id=nvm$i,format=raw,cache=none"
			       -device "nvme,serial=blkmq$i,drive=nvm$i")
			;;
		*)
			args+=(-drive "file=${d%%,*},if=none,id=vd$i,format=raw,$dopts,${d#*,}"
			       -device "virtio-blk-pci,drive=vd$i,num-queues=$cpus")
			;;
		esac
		i=$((i + 1))
	done
	# TCG's max CPU offers 5-level paging, and a KASAN kernel taking an
	# interrupt in early boot with LA57 on reports a wild access. Keep the
	# guest on 4 levels.
	if [ "$accel" = tcg ]; then
		accel="tcg,thread=multi"
		cpu="max,la57=off"
		if [ -n "${ICOUNT:-}" ]; then
			# sleep=off: an idle guest's clock jumps to its next timer
			accel="tcg,thread=single"
			args+=(-icount "shift=$ICOUNT,sleep=off")
		fi
	fi
	timeout -k 5 "$timeout" qemu-system-x86_64 \
		-machine q35 -accel "$accel" -cpu "$cpu" -smp "$cpus" -m "$mem" \
		-nodefaults -no-user-config -display none -no-reboot \
		-serial "file:$run/console.log" \
		-kernel "$kobj/arch/x86/boot/bzImage" -initrd "$(initrd_for "$kobj")" \
		-append "console=ttyS0 loglevel=7 panic=-1 printk.devkmsg=on $append" \
		"${args[@]}" ${BLKMQ_QEMU_EXTRA:-} >"$run/qemu.log" 2>&1
}

# vm_accel KOBJ: set ACCEL to kvm if a KVM guest really boots here, else
# tcg, and ACCEL_WHY to the reason. /dev/kvm can exist while guests hang
# after the BIOS, so boot one to find out; the answer is kept until the
# host reboots.
vm_accel()
{
	local cache=$BLKMQ_OUT/accel boot_id run
	if [ -n "${BLKMQ_ACCEL:-}" ]; then
		one_of BLKMQ_ACCEL "$BLKMQ_ACCEL" kvm tcg
		ACCEL=$BLKMQ_ACCEL
		ACCEL_WHY="set by BLKMQ_ACCEL"
		return
	fi
	boot_id=$(cat /proc/sys/kernel/random/boot_id)
	if [ "$(sed -n 1p "$cache" 2>/dev/null)" != "$boot_id" ]; then
		if [ -w /dev/kvm ]; then
			run=$BLKMQ_OUT/runs/kvm-probe
			rm -rf "$run"
			mkdir -p "$run/ctl" "$run/share"
			echo true >"$run/ctl/cmd"
			msg "probing KVM: booting a guest with -accel kvm (30s bound)"
			qemu_boot "$run" "$1" kvm 1 512 "$run/share" 30 "" || true
			if tr -d '\r' <"$run/console.log" 2>/dev/null |
				grep -q '^BLKMQ_EXIT=0'; then
				printf '%s\nkvm\na KVM guest booted\n' "$boot_id" >"$cache"
			else
				printf '%s\ntcg\na KVM guest did not boot in 30s (log: %s)\n' \
					"$boot_id" "$run/console.log" >"$cache"
			fi
		else
			printf '%s\ntcg\nno usable /dev/kvm\n' "$boot_id" >"$cache"
		fi
	fi
	ACCEL=$(sed -n 2p "$cache")
	ACCEL_WHY=$(sed -n 3p "$cache")
}

vm()
{
	local kernel=series config=bench cpus=2 mem=2048 share="" timeout=600 name=run
	local append="" quiet=0 script="" cmd=() run kobj accel rc tailpid start
	local disks=() nvmes=() d icount=""
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) kernel=$2; shift 2 ;;
		--config) config=$2; shift 2 ;;
		--cpus) cpus=$2; shift 2 ;;
		--mem) mem=$2; shift 2 ;;
		--share) share=$2; shift 2 ;;
		--disk) disks+=("$2"); shift 2 ;;
		--nvme) nvmes+=("$2"); shift 2 ;;
		--timeout) timeout=$2; shift 2 ;;
		--name) name=$2; shift 2 ;;
		--append) append=$2; shift 2 ;;
		--icount) icount=$2; shift 2 ;;
		--quiet) quiet=1; shift ;;
		--script) script=$2; shift 2; cmd=("$@"); break ;;
		--) shift; cmd=("$@"); break ;;
		-h|--help) echo "$VM_USAGE"; return 0 ;;
		*) die "vm: unknown option '$1' (see: blkmq vm --help)" ;;
		esac
	done
	one_of kernel "$kernel" $KERNELS
	one_of config "$config" $CONFIGS
	is_uint "$cpus" && [ "$cpus" -le 64 ] || die "vm: --cpus must be 1..64, not '$cpus'"
	is_uint "$mem" && [ "$mem" -ge 256 ] ||
		die "vm: --mem is in MiB and at least 256, not '$mem'"
	is_uint "$timeout" ||
		die "vm: --timeout must be a positive number of seconds, not '$timeout'"
	[[ $name =~ ^[A-Za-z0-9._-]+$ ]] ||
		die "vm: --name takes letters, digits, '.', '_' and '-', not '$name'"
	[ -z "${BLKMQ_ACCEL:-}" ] || one_of BLKMQ_ACCEL "$BLKMQ_ACCEL" kvm tcg
	if [ -n "$icount" ]; then
		[[ $icount =~ ^[0-9]$ ]] || die "vm: --icount takes a shift of 0..9, not '$icount'"
		# one TCG thread runs all vCPUs with -icount; two vCPUs hang here
		[ "$cpus" = 1 ] || die "vm: --icount needs --cpus 1, not '$cpus'"
		[ "${BLKMQ_ACCEL:-tcg}" = tcg ] || die "vm: --icount needs TCG, not BLKMQ_ACCEL=kvm"
	fi
	[ -z "$share" ] || [ -d "$share" ] || die "vm: share folder '$share' is not there"
	for d in ${disks[@]+"${disks[@]}"}; do
		[[ $d == *,* ]] || d="$d,cache=writeback"
		[ -f "${d%%,*}" ] && [ -w "${d%%,*}" ] ||
			die "vm: --disk '${d%%,*}' is not a writable file" \
				"(make one: truncate -s 256M FILE)"
		[[ ${d#*,} =~ ^cache=(none|writeback)$ ]] ||
			die "vm: --disk takes FILE[,cache=none|writeback], not '$d'"
	done
	for d in ${nvmes[@]+"${nvmes[@]}"}; do
		[ -f "$d" ] && [ -w "$d" ] ||
			die "vm: --nvme '$d' is not a writable file" \
				"(make one: truncate -s 256M FILE)"
	done
	if [ -n "$script" ]; then
		[ -f "$script" ] || die "vm: script '$script' is not there"
	elif [ ${#cmd[@]} -eq 0 ]; then
		die "vm: nothing to run: give --script FILE or -- COMMAND (see: blkmq vm --help)"
	fi

	kobj=$(obj_dir "$kernel" "$config")
	if [ ! -f "$kobj/arch/x86/boot/bzImage" ] || [ ! -f "$kobj/modules.cpio" ] ||
		[ "${BLKMQ_REBUILD:-1}" = 1 ]; then
		build "$kernel" "$config" || return 1
	fi
	ensure_userspace

	run=$BLKMQ_OUT/runs/$(date +%Y%m%d-%H%M%S)-$kernel-$config-$name-$$
	mkdir -p "$run/ctl"
	if [ -z "$share" ]; then
		share=$run/share
		mkdir -p "$share"
	fi
	share=$(cd "$share" && pwd)
	if [ -n "$script" ]; then
		cp "$script" "$run/ctl/script"
		printf 'exec sh /ctl/script' >"$run/ctl/cmd"
	else
		printf 'exec' >"$run/ctl/cmd"
	fi
	printf ' %q' "${cmd[@]}" >>"$run/ctl/cmd"
	echo >>"$run/ctl/cmd"

	if [ -n "$icount" ]; then
		ACCEL=tcg ACCEL_WHY="--icount $icount: QEMU counts instructions only under TCG"
	else
		vm_accel "$kobj"
	fi
	accel=$ACCEL
	msg "boot $kernel-$config: $cpus vCPUs, ${mem} MiB, accel $accel ($ACCEL_WHY)," \
		"bound ${timeout}s"
	msg "run folder: $run"
	: >"$run/console.log"
	if [ "$quiet" = 0 ]; then
		# Show the command's own output live; kernel lines carry a timestamp.
		{
			tail -n +1 -F "$run/console.log" 2>/dev/null &
			echo $! >"$run/.tail"
			wait
		} | sed -u 's/\r$//' |
			grep --line-buffered -vE '^\[ *[0-9]+\.[0-9]+\]|^BLKMQ_EXIT=' |
			sed -u "s/^/${BLKMQ_LIVE_INDENT:-}/" &
		tailpid=$!
	fi
	start=$(date +%s)
	for ((d = 0; d < ${#disks[@]}; d++)); do
		[[ ${disks[d]} == *,* ]] || disks[d]="${disks[d]},cache=writeback"
	done
	for d in ${nvmes[@]+"${nvmes[@]}"}; do
		disks+=("nvme:$d")
	done
	ICOUNT=$icount qemu_boot "$run" "$kobj" "$accel" "$cpus" "$mem" "$share" "$timeout" \
		"$append" ${disks[@]+"${disks[@]}"}
	rc=$?
	sleep 0.5
	if [ -n "${tailpid:-}" ]; then
		kill "$(cat "$run/.tail")" 2>/dev/null
		wait "$tailpid" 2>/dev/null
		rm -f "$run/.tail"
	fi

	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		warn "guest did not finish in ${timeout}s and was killed;" \
			"console log: $run/console.log"
		rc=124
	elif [ "$rc" != 0 ]; then
		warn "qemu failed (exit $rc): $(tail -n 1 "$run/qemu.log")"
		rc=125
	else
		rc=$(tr -d '\r' <"$run/console.log" |
		     sed -n 's/^BLKMQ_EXIT=\([0-9]*\)$/\1/p' | tail -n 1)
		if [ -z "$rc" ]; then
			warn "guest stopped without reporting a status;" \
				"console log: $run/console.log"
			rc=125
		fi
	fi
	if console_reports "$run/console.log" >"$run/reports.txt"; then
		warn "kernel reports in the console log ($run/console.log):"
		sed 's/^/    /' "$run/reports.txt" >&2
		[ "$rc" = 0 ] && rc=1
	else
		rm -f "$run/reports.txt"
	fi
	echo "$rc" >"$run/status"
	msg "guest finished in $(elapsed "$start"): exit $rc"
	VM_RUN=$run
	return "$rc"
}
