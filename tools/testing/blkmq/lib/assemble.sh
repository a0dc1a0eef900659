# SPDX-License-Identifier: GPL-2.0
# Assemble the series tree: base + removed files + overlay files + patches.
#
# The repo is an overlay of the kernel tree. A repo file whose top-level
# directory also exists in the base (block/, include/, drivers/, ...) is a
# file the series owns and replaces the base's copy. patches/series lists,
# in order, the patches that change base files; patches/removed lists base
# files the series deletes.
#
# The series tree starts as hard links to the base and is updated in
# place: only paths whose content changed are rewritten, always as a new
# inode (never through a link into the base) and with a fresh mtime, so
# kbuild rebuilds just what an edit touched. A manifest of the paths the
# series manages lets a path that leaves the series go back to the base.

# overlay_files REPO BASE: repo files that sit at kernel paths.
overlay_files()
{
	local repo=$1 base=$2 f top
	(cd "$repo" && git ls-files -co --exclude-standard) | while read -r f; do
		top=${f%%/*}
		[ "$top" != "$f" ] && [ -d "$base/$top" ] && [ -f "$repo/$f" ] && echo "$f"
	done
}

# series_patches REPO: the patch files in series order.
series_patches()
{
	local line
	[ -f "$1/patches/series" ] || return 0
	while read -r line; do
		line=${line%%#*}
		line=$(echo $line)
		[ -n "$line" ] && echo "$1/patches/$line"
	done <"$1/patches/series"
}

patch_paths() { sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1"; }

# apply_patch STAGE PATCH LABEL: apply strictly, or stop naming the hunk.
apply_patch()
{
	local stage=$1 p=$2 out fails
	if ! out=$(patch -d "$stage" -p1 -N --fuzz=0 --no-backup-if-mismatch \
		-r - -i "$p" 2>&1); then
		fails=$(printf '%s\n' "$out" | awk '
			/^(patching|checking) file / { f = $3 }
			/Hunk #[0-9]+ FAILED/ { printf "%s%s: %s", sep, f, $0; sep = "; " }
			/can.t find file|No file to patch|Reversed|already exists/ {
				printf "%s%s", sep, $0; sep = "; "
			}')
		[ -n "$fails" ] || fails=$(printf '%s' "$out" | tail -n 1)
		die "patch $(basename "$p") does not apply to $3: $fails"
	fi
}

# assemble BASE REPO DEST LABEL
assemble()
{
	local base=$1 repo=$2 dest=$3 label=${4:-base}
	local stage manifest new f p changed=0 removed_list patches

	manifest=$dest.manifest
	if [ ! -f "$dest/.blkmq-assembled" ] ||
		[ "$(cat "$dest/.blkmq-assembled")" != "$label" ]; then
		msg "assemble: new series tree from base $label"
		rm -rf "$dest" "$manifest"
		mkdir -p "$(dirname "$dest")"
		cp -al "$base" "$dest" || die "cannot link $base to $dest"
		rm -f "$dest/.blkmq-extracted"
		echo "$label" >"$dest/.blkmq-assembled"
		: >"$manifest"
	fi

	# Scratch space; a run stopped by an error leaves it for the next.
	stage=$dest.stage
	new=$dest.paths
	rm -rf "$stage" "$new"*
	mkdir -p "$stage"

	# 1. The base copy of every path a patch touches.
	mapfile -t patches < <(series_patches "$repo")
	: >"$new.patched"
	for p in "${patches[@]}"; do
		[ -f "$p" ] || die "patches/series names $(basename "$p"), which is not there"
		patch_paths "$p" >>"$new.patched"
	done
	sort -u -o "$new.patched" "$new.patched"
	while read -r f; do
		[ -f "$base/$f" ] || continue
		mkdir -p "$stage/$(dirname "$f")"
		cp "$base/$f" "$stage/$f"
	done <"$new.patched"

	# 2. Removed files leave; overlay files come in.
	removed_list=$repo/patches/removed
	: >"$new.removed"
	if [ -f "$removed_list" ]; then
		sed 's/#.*//; s/[[:space:]]*$//; /^$/d' "$removed_list" >"$new.removed"
		while read -r f; do
			[ -e "$base/$f" ] ||
				die "patches/removed names $f, which the base $label does not have"
			rm -f "$stage/$f"
		done <"$new.removed"
	fi
	overlay_files "$repo" "$base" >"$new.overlay"
	while read -r f; do
		mkdir -p "$stage/$(dirname "$f")"
		cp "$repo/$f" "$stage/$f"
	done <"$new.overlay"

	# 3. Patches, in series order.
	for p in "${patches[@]}"; do
		apply_patch "$stage" "$p" "$label"
	done

	# 4. Bring dest to the staged state, touching only what differs.
	sort -u "$new.patched" "$new.removed" "$new.overlay" >"$new"
	while read -r f; do
		if [ -f "$stage/$f" ]; then
			cmp -s "$stage/$f" "$dest/$f" && continue
			mkdir -p "$dest/$(dirname "$f")"
			rm -f "$dest/$f"
			cp "$stage/$f" "$dest/$f"
		elif [ -e "$dest/$f" ]; then
			rm -f "$dest/$f"
		else
			continue
		fi
		changed=$((changed + 1))
	done <"$new"
	# Paths the series no longer manages go back to the base.
	while read -r f; do
		grep -qxF "$f" "$new" && continue
		rm -f "$dest/$f"
		[ -f "$base/$f" ] && cp "$base/$f" "$dest/$f"
		changed=$((changed + 1))
	done <"$manifest"
	cp "$new" "$manifest"
	rm -rf "$stage" "$new"*
	msg "assemble: $(wc -l <"$manifest") series paths, $changed updated"
}
