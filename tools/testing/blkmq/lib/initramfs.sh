# SPDX-License-Identifier: GPL-2.0
# The guest's userspace: busybox-static, Debian's fio with its shared
# libraries, and the harness init. Kernel modules come in a second cpio
# archive per build; the kernel unpacks both.

userspace_cpio() { echo "$BLKMQ_OUT/initramfs/userspace.cpio"; }

ensure_userspace()
{
	local cpio root lib stamp
	cpio=$(userspace_cpio)
	stamp=$( (sha1sum "$BLKMQ_TOOLS/guest/init.sh"
		  ls -l --time-style=+%s /bin/busybox /usr/bin/fio) | sha1sum | cut -c1-16)
	[ -f "$cpio" ] && [ "$(cat "$cpio.stamp" 2>/dev/null)" = "$stamp" ] && return 0
	msg "initramfs: busybox, fio and $(ldd /usr/bin/fio | grep -c '=>') libraries"
	root=$BLKMQ_OUT/initramfs/root
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,usr/bin,lib64,etc}
	cp /bin/busybox "$root/bin/busybox"
	cp /usr/bin/fio "$root/usr/bin/fio"
	# Each library at the path the dynamic loader asks for.
	for lib in $(ldd /usr/bin/fio | grep -oE '/[^ ]+'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	cp "$BLKMQ_TOOLS/guest/init.sh" "$root/init"
	echo "root:x:0:0:root:/tmp:/bin/sh" >"$root/etc/passwd"
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$cpio.tmp" && mv "$cpio.tmp" "$cpio"
	echo "$stamp" >"$cpio.stamp"
	rm -rf "$root"
}
