# SPDX-License-Identifier: GPL-2.0
# The guest's userspace: busybox-static, Debian's fio and dmsetup with
# their shared libraries, and the harness init. Kernel modules come in a
# second cpio archive per build; the kernel unpacks both.

userspace_cpio() { echo "$BLKMQ_OUT/initramfs/userspace.cpio"; }

# Dynamically linked programs the guest runs, at their paths here and there.
USERSPACE_BINS="/usr/bin/fio /usr/sbin/dmsetup"

# userspace_libs: the shared libraries they need, once each.
userspace_libs()
{
	local bin

	for bin in $USERSPACE_BINS; do
		ldd "$bin" | grep -oE '/[^ ]+'
	done | sort -u
}

ensure_userspace()
{
	local cpio root lib stamp
	cpio=$(userspace_cpio)
	stamp=$( (sha1sum "$BLKMQ_TOOLS/guest/init.sh"
		  ls -l --time-style=+%s /bin/busybox $USERSPACE_BINS) |
		sha1sum | cut -c1-16)
	[ -f "$cpio" ] && [ "$(cat "$cpio.stamp" 2>/dev/null)" = "$stamp" ] && return 0
	msg "initramfs: busybox, fio, dmsetup and $(userspace_libs | wc -l) libraries"
	root=$BLKMQ_OUT/initramfs/root
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,usr/bin,lib64,etc}
	cp /bin/busybox "$root/bin/busybox"
	mkdir -p "$root/usr/sbin"
	for bin in $USERSPACE_BINS; do
		cp "$bin" "$root$bin"
	done
	# Each library at the path the dynamic loader asks for.
	for lib in $(userspace_libs); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	cp "$BLKMQ_TOOLS/guest/init.sh" "$root/init"
	echo "root:x:0:0:root:/tmp:/bin/sh" >"$root/etc/passwd"
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$cpio.tmp" && mv "$cpio.tmp" "$cpio"
	echo "$stamp" >"$cpio.stamp"
	rm -rf "$root"
}
