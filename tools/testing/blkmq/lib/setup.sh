# SPDX-License-Identifier: GPL-2.0
# Dependencies and the base tree.

BASE_PKG=linux-source-6.1
BASE_TARBALL=/usr/src/linux-source-6.1.tar.xz

# Debian packages the harness needs: the base source, the kernel build
# tools, the VM and its userspace, and the checkers.
DEPS="$BASE_PKG gcc make bc flex bison libelf-dev libssl-dev cpio kmod
xz-utils patch python3 qemu-system-x86 qemu-utils fio dmsetup busybox-static
sparse ccache gnuplot-nox git"

pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# ensure_deps: apt-get install whatever is missing, and only that.
ensure_deps()
{
	local p missing=() why
	for p in $DEPS; do
		pkg_installed "$p" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] ||
		die "missing packages (${missing[*]}); run as root so apt-get can install them"
	msg "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >"$BLKMQ_OUT/apt-update.log" 2>&1 ||
		warn "apt-get update failed (see $BLKMQ_OUT/apt-update.log)"
	if ! apt-get install -y -q --no-install-recommends "${missing[@]}" \
		>"$BLKMQ_OUT/apt-install.log" 2>&1; then
		# Name the package that failed and apt's own reason for it.
		for p in "${missing[@]}"; do
			pkg_installed "$p" && continue
			why=$(apt-get install -y -q --no-install-recommends "$p" 2>&1 |
			      grep -E '^E:' | head -n 1)
			[ -n "$why" ] || why="see $BLKMQ_OUT/apt-install.log"
			pkg_installed "$p" || die "cannot install package $p: $why"
		done
	fi
}

base_version() { dpkg-query -W -f='${Version}' "$BASE_PKG"; }

# BASE_DIR: the pristine base tree, extracted once per base version.
base_dir() { echo "$BLKMQ_OUT/base/$(base_version)/linux-source-6.1"; }

ensure_base()
{
	local ver dir
	ver=$(base_version) || die "$BASE_PKG is not installed"
	dir=$(base_dir)
	if [ ! -f "$dir/.blkmq-extracted" ]; then
		[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL is missing; reinstall $BASE_PKG"
		msg "extracting base $BASE_PKG $ver"
		rm -rf "$(dirname "$dir")"
		mkdir -p "$(dirname "$dir")"
		tar -C "$(dirname "$dir")" -xf "$BASE_TARBALL" || die "cannot extract $BASE_TARBALL"
		# The base is read-only to everything but this function.
		touch "$dir/.blkmq-extracted"
	fi
	msg "base: $BASE_PKG $ver"
}

setup()
{
	mkdir -p "$BLKMQ_OUT"
	ensure_deps
	ensure_base
}
