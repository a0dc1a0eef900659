# SPDX-License-Identifier: GPL-2.0
# Configure and build a kernel out of tree with kbuild (make O=...).

# config_fragments KERNEL CONFIG: the fragment files, in merge order; the
# series kernel adds series.config, options only the series has.
config_fragments()
{
	local c=$BLKMQ_TOOLS/configs
	case $2 in
	bench) echo -n "$c/bench.config" ;;
	debug) echo -n "$c/bench.config $c/debug.config" ;;
	lockstat) echo -n "$c/bench.config $c/lockstat.config" ;;
	nomq) [ "$1" = series ] || die "config nomq: only the series has CONFIG_BLK_MQ"
		echo -n "$c/bench.config" ;;
	profile) echo -n "$c/bench.config $c/profile.config" ;;
	*) one_of config "$2" $CONFIGS ;;
	esac
	[ "$1" = series ] && echo -n " $c/series.config"
	[ "$2" = nomq ] && echo -n " $c/nomq.config"
	echo
}

src_dir()
{
	case $1 in
	stock) base_dir ;;
	series) echo "$BLKMQ_OUT/src/series" ;;
	esac
}

obj_dir() { echo "$BLKMQ_OUT/build/$1-$2"; }

# ccache keys on the compiler's command line; with paths under the output
# folder made relative, a fresh clone elsewhere hits the same cache.
kmake()
{
	local cc=gcc
	command -v ccache >/dev/null && cc="ccache gcc"
	export CCACHE_BASEDIR=$BLKMQ_OUT CCACHE_NOHASHDIR=1
	make -C "$KSRC" O="$KOBJ" CC="$cc" HOSTCC="$cc" "$@"
}

# check_config OBJ FRAGMENTS...: every option the fragments ask for must be
# in .config exactly as asked (a later fragment overrides an earlier one, as
# in merge_config.sh; "is not set" also holds for an option kconfig leaves
# out); name those that are not.
check_config()
{
	local obj=$1 frag line name opt bad="" names=()
	local -A want=()
	shift
	for frag in "$@"; do
		while read -r line; do
			case $line in
			CONFIG_*=*) name=${line%%=*} ;;
			"# CONFIG_"*" is not set") name=${line#\# } name=${name%% *} ;;
			*) continue ;;
			esac
			[ -n "${want[$name]:-}" ] || names+=("$name")
			want[$name]=$line
		done <"$frag"
	done
	for name in "${names[@]}"; do
		opt=${want[$name]}
		grep -qxF "$opt" "$obj/.config" && continue
		# an option whose dependencies are off is not written at all
		[[ $opt == "# "* ]] && ! grep -qE "^$name=" "$obj/.config" && continue
		bad="$bad${bad:+, }$opt"
	done
	[ -z "$bad" ] || die "config: not in $obj/.config after merge (missing dependency?): $bad"
}

# configure KERNEL CONFIG: (re)make .config when the fragments or base change.
configure()
{
	local frags stamp
	frags=$(config_fragments "$1" "$2")
	stamp=$( (base_version; cat $frags) | sha1sum | cut -c1-16)
	if [ -f "$KOBJ/.config" ] && [ "$(cat "$KOBJ/.blkmq-config" 2>/dev/null)" = "$stamp" ]; then
		return 0
	fi
	msg "configure $1-$2: allnoconfig +" \
		"$(for f in $frags; do basename "$f"; done | tr '\n' ' ')"
	mkdir -p "$KOBJ"
	kmake -s allnoconfig >"$KOBJ/config.log" 2>&1 ||
		die "allnoconfig failed (see $KOBJ/config.log)"
	# shellcheck disable=SC2086
	(cd "$KSRC" && ./scripts/kconfig/merge_config.sh -m -O "$KOBJ" "$KOBJ/.config" $frags) \
		>>"$KOBJ/config.log" 2>&1 || die "merge_config.sh failed (see $KOBJ/config.log)"
	kmake -s olddefconfig >>"$KOBJ/config.log" 2>&1 ||
		die "olddefconfig failed (see $KOBJ/config.log)"
	# shellcheck disable=SC2086
	check_config "$KOBJ" $frags
	echo "$stamp" >"$KOBJ/.blkmq-config"
}

# report_build_error LOG: the last compiler or linker error, not a wall.
report_build_error()
{
	local err
	err=$(grep -E ': (fatal )?error: |undefined reference|^ERROR: |No rule to make target' \
		"$1" | tail -n 1)
	[ -n "$err" ] || err=$(grep -E '\*\*\*|Error [0-9]+' "$1" | head -n 1)
	warn "build failed: ${err:-see log}"
	warn "full log: $1"
}

# build KERNEL CONFIG: configure, compile, install modules; prints the
# kernel image path on the last line of the log.
build()
{
	local kernel=$1 config=$2 log
	one_of kernel "$kernel" $KERNELS
	one_of config "$config" $CONFIGS
	setup
	if [ "$kernel" = series ]; then
		assemble "$(base_dir)" "$BLKMQ_REPO" "$(src_dir series)" "$(base_version)"
	fi
	KSRC=$(src_dir "$kernel")
	KOBJ=$(obj_dir "$kernel" "$config")
	configure "$kernel" "$config"
	log=$KOBJ/build.log
	msg "build $kernel-$config in $KOBJ ($(nproc_build) jobs)"
	if ! with_progress "build $kernel-$config" "$log" \
		"echo \$(grep -cE '^  (CC|LD|AR|AS)' '$log') objects" -- \
		kmake -j"$(nproc_build)" bzImage modules; then
		report_build_error "$log"
		return 1
	fi
	# kbuild re-syncs .config when a series patch changes a Kconfig file:
	# what the fragments ask for must still be there.
	# shellcheck disable=SC2046
	check_config "$KOBJ" $(config_fragments "$kernel" "$config")
	rm -rf "$KOBJ/modroot"
	kmake -s INSTALL_MOD_PATH="$KOBJ/modroot" INSTALL_MOD_STRIP=1 modules_install \
		>"$KOBJ/modules_install.log" 2>&1 || {
		report_build_error "$KOBJ/modules_install.log"
		return 1
	}
	(cd "$KOBJ/modroot" && find . | cpio -o -H newc --quiet) >"$KOBJ/modules.cpio"
	msg "kernel: $KOBJ/arch/x86/boot/bzImage ($(kmake -s kernelrelease 2>/dev/null))"
}
