# SPDX-License-Identifier: GPL-2.0
# make series: the repo as a git format-patch series onto the base.
#
# tools/testing/blkmq/series.txt groups what the repo changes into
# commits.  Each commit's tree is assembled with the same assembler as
# the series tree, from the repo's files and patches assigned to that
# commit and the ones before it, so the last commit is the assembled
# series tree by construction and every commit in between is a tree the
# assembler could have built.

SERIES_PLAN=${SERIES_PLAN:-$BLKMQ_TOOLS/series.txt}
SERIES_COVER=${SERIES_COVER:-$BLKMQ_TOOLS/series-cover.txt}
SERIES_ALLOW=${SERIES_ALLOW:-$BLKMQ_TOOLS/checkpatch-allow.txt}

series_dir() { echo "$BLKMQ_OUT/series"; }

# series_units REPO BASE: what series.txt must assign, one per line:
# repo files at kernel paths, patches/NAME for each patch in
# patches/series, and the paths patches/removed deletes.
series_units()
{
	local repo=$1 base=$2 p
	overlay_files "$repo" "$base"
	series_patches "$repo" | while read -r p; do
		echo "patches/$(basename "$p")"
	done
	[ -f "$repo/patches/removed" ] &&
		sed 's/#.*//; s/[[:space:]]*$//; /^$/d' "$repo/patches/removed"
	return 0
}

# series_parse PLAN: fill SERIES_SUBJECT, SERIES_GLOBS and SERIES_BODY,
# one entry per commit, in order.
series_parse()
{
	local plan=$1 line n=-1 lineno=0
	SERIES_SUBJECT=()
	SERIES_GLOBS=()
	SERIES_BODY=()
	[ -f "$plan" ] || die "series: $plan is missing"
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		case $line in
		"#"*|"") continue ;;
		"subject "*)
			n=$((n + 1))
			SERIES_SUBJECT[n]=${line#subject }
			SERIES_GLOBS[n]=""
			SERIES_BODY[n]=""
			[[ ${SERIES_SUBJECT[n]} =~ ^[^\ :]+:\ . ]] ||
				die "series: $plan:$lineno: want 'subject subsystem: summary'"
			;;
		"files "*)
			[ "$n" -ge 0 ] || die "series: $plan:$lineno: 'files' before any 'subject'"
			SERIES_GLOBS[n]="${SERIES_GLOBS[n]} ${line#files }"
			;;
		"|"*)
			[ "$n" -ge 0 ] || die "series: $plan:$lineno: '|' before any 'subject'"
			line=${line#|}
			SERIES_BODY[n]="${SERIES_BODY[n]}${line# }"$'\n'
			;;
		*) die "series: $plan:$lineno: not a 'subject', 'files', '|' or '#' line" ;;
		esac
	done <"$plan"
	[ "$n" -ge 0 ] || die "series: $plan has no commits"
	for ((line = 0; line <= n; line++)); do
		[ -n "${SERIES_GLOBS[line]// /}" ] ||
			die "series: $plan: '${SERIES_SUBJECT[line]}' has no files"
		[ -n "${SERIES_BODY[line]}" ] ||
			die "series: $plan: '${SERIES_SUBJECT[line]}' has no body"
	done
}

# series_commit_of UNIT: index of the first commit with a matching glob.
series_commit_of()
{
	local i g
	local -
	set -f	# the globs are patterns for [[ ]], not for the file system
	for ((i = 0; i < ${#SERIES_SUBJECT[@]}; i++)); do
		for g in ${SERIES_GLOBS[i]}; do
			# shellcheck disable=SC2053
			[[ $1 == $g ]] && { echo "$i"; return 0; }
		done
	done
	return 1
}

# series_plan REPO BASE: parse series.txt and assign every unit;
# SERIES_UNITS[i] lists commit i's units.  An unassigned unit stops here.
series_plan()
{
	local repo=$1 base=$2 u i plan=${SERIES_PLAN#"$BLKMQ_REPO"/}
	series_parse "$SERIES_PLAN"
	SERIES_UNITS=()
	while read -r u; do
		i=$(series_commit_of "$u") ||
			die "series: no commit in $plan takes $u (add a glob to a 'files' line)"
		SERIES_UNITS[i]="${SERIES_UNITS[i]:-}$u"$'\n'
	done < <(series_units "$repo" "$base")
}

# series_stage REPO FAKE UNITS: add UNITS (from REPO) to the fake repo
# FAKE that the assembler reads; patches/series keeps REPO's order.
series_stage()
{
	local repo=$1 fake=$2 u p
	while read -r u; do
		[ -n "$u" ] || continue
		case $u in
		patches/*)
			cp "$repo/$u" "$fake/$u"
			echo "${u#patches/}" >>"$fake/patches/.staged"
			;;
		*)
			if [ -f "$repo/$u" ]; then
				mkdir -p "$fake/$(dirname "$u")"
				cp -p "$repo/$u" "$fake/$u"
			else
				echo "$u" >>"$fake/patches/removed"
			fi
			;;
		esac
	done <<<"$3"
	: >"$fake/patches/series"
	series_patches "$repo" | while read -r p; do
		grep -qxF "$(basename "$p")" "$fake/patches/.staged" 2>/dev/null &&
			basename "$p" >>"$fake/patches/series"
	done
	return 0
}

# series_identity REPO: "Name <email>" of the repo's git identity.
series_identity()
{
	local name email
	name=$(git -C "$1" config user.name) && email=$(git -C "$1" config user.email) ||
		die "series: set git user.name and user.email: they sign the patches"
	echo "$name <$email>"
}

# series_git_env REPO: commits by the repo's identity at the date of its
# last commit, so that the same repo state exports the same series.
series_git_env()
{
	local date
	date=$(git -C "$1" log -1 --format=%cd --date=raw 2>/dev/null) || date="0 +0000"
	export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
	GIT_AUTHOR_NAME=$(git -C "$1" config user.name)
	GIT_AUTHOR_EMAIL=$(git -C "$1" config user.email)
	GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
	GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
	export GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date
}

# series_objects: a git object store kept between runs, so that the
# base's 75,000 files are compressed and written once, not per run.
series_objects()
{
	local o=$BLKMQ_OUT/series.objects
	mkdir -p "$o/info" "$o/pack"
	echo "$o"
}

# series_git_base DIR LABEL: make DIR, a copy of the base, a git repo
# whose one commit is the base, every file included.  Its objects go to
# the shared store.
series_git_base()
{
	local dir=$1
	git -C "$dir" init -q || die "series: git init $dir failed"
	rm -rf "$dir/.git/objects"
	ln -s "$(series_objects)" "$dir/.git/objects"
	git -C "$dir" config core.looseCompression 1
	git -C "$dir" config gc.auto 0
	git -C "$dir" add -A -f -- . ':(exclude).blkmq-assembled' ':(exclude).blkmq-extracted' ||
		die "series: git add of the base failed in $dir"
	git -C "$dir" commit -q --no-verify -m "linux-source-6.1 $2" ||
		die "series: base commit failed in $dir"
	git -C "$dir" tag base
}

# series_export: write the series into $BLKMQ_OUT/series/.
series_export()
{
	local repo=$BLKMQ_REPO base label work fake tree out i n=0 sob start
	start=$(date +%s)
	setup
	base=$(base_dir)
	label=$(base_version)
	series_plan "$repo" "$base"
	sob=$(series_identity "$repo")
	series_git_env "$repo"

	work=$BLKMQ_OUT/series.work
	out=$(series_dir)
	fake=$work/repo
	tree=$work/tree
	rm -rf "$work"
	mkdir -p "$fake/patches"
	git -C "$fake" init -q
	: >"$fake/patches/series"

	msg "series: base commit (git add of the whole base, about a minute)"
	assemble "$base" "$fake" "$tree" "$label" >/dev/null
	series_git_base "$tree" "$label"

	for ((i = 0; i < ${#SERIES_SUBJECT[@]}; i++)); do
		if [ -z "${SERIES_UNITS[i]:-}" ]; then
			msg "series: nothing for '${SERIES_SUBJECT[i]}', no commit"
			continue
		fi
		series_stage "$repo" "$fake" "${SERIES_UNITS[i]}"
		assemble "$base" "$fake" "$tree" "$label" >/dev/null
		git -C "$tree" add -A -f -- . ':(exclude).blkmq-assembled' ||
			die "series: git add failed for '${SERIES_SUBJECT[i]}'"
		printf '%s\n\n%s\nSigned-off-by: %s\n' \
			"${SERIES_SUBJECT[i]}" "${SERIES_BODY[i]}" "$sob" |
			git -C "$tree" commit -q --no-verify --allow-empty -F - ||
			die "series: commit failed for '${SERIES_SUBJECT[i]}'"
		n=$((n + 1))
		msg "series: $n: ${SERIES_SUBJECT[i]}"
	done

	rm -rf "$out"
	# -B: the engine files are rewrites; show them whole, not interleaved.
	git -C "$tree" format-patch -q --cover-letter --no-renames -B --no-signature \
		-o "$out" base..HEAD || die "series: git format-patch failed"
	series_checkpatch "$out" "$base" >"$work/checkpatch.txt"
	python3 "$BLKMQ_TOOLS/series-cover.py" cover "$out/0000-cover-letter.patch" \
		"$SERIES_COVER" "$BLKMQ_OUT/results" "$work/checkpatch.txt" "$SERIES_ALLOW" \
		"linux-source-6.1 $label" || die "series: writing the cover letter failed"
	# The commits live on in the patches; the tree is 1.5 GB of links and objects.
	rm -rf "$tree" "$fake"
	msg "series: $n patches and a cover letter in $out ($(elapsed "$start"))"
}

# series_checkpatch DIR BASE: checkpatch --strict on every patch in DIR,
# one "PATCH:LINE: LEVEL:TYPE: message [FILE:LINE]" line per finding and
# "PATCH:0: TOTAL: total: ..." with checkpatch's own counts (empty if it
# did not finish).  The patches go in on stdin: checkpatch reads a path
# git tracks as a source file, not as a patch.
series_checkpatch()
{
	local p
	for p in "$1"/[0-9][0-9][0-9][0-9]-*.patch; do
		case $(basename "$p") in 0000-cover-letter.patch) continue ;; esac
		perl "$2/scripts/checkpatch.pl" --strict --no-tree --show-types \
			- <"$p" 2>&1 | awk -v patch="$(basename "$p")" '
			function flush() {
				if (f != "")
					print patch ":" l ": " f " [" src "]"
				f = ""
			}
			/^(ERROR|WARNING|CHECK):[A-Z0-9_]+: / {
				flush(); f = $0; l = 0; src = ""; next
			}
			f != "" && /^#[0-9]+: FILE: / {
				l = substr($1, 2, length($1) - 2)
				src = $3
				sub(/:[0-9]*:$/, "", src)
				flush(); next
			}
			f != "" && /^#[0-9]+:/ { l = substr($1, 2, length($1) - 2); flush(); next }
			/^total: / { flush(); total = $0 }
			END {
				flush()
				print patch ":0: TOTAL: " total
			}'
	done
}

# series_am DIR: DIR becomes a fresh copy of the base as a git repo, with
# the exported series applied by git am.
series_am()
{
	local dir=$1 p
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	# Hard links are safe: git apply and checkout replace a file, never
	# write into it, so the base stays as extracted.
	cp -al "$(base_dir)" "$dir" || die "series: cannot copy the base to $dir"
	rm -f "$dir/.blkmq-extracted"
	series_git_base "$dir" "$(base_version)"
	for p in "$(series_dir)"/[0-9][0-9][0-9][0-9]-*.patch; do
		case $(basename "$p") in 0000-cover-letter.patch) continue ;; esac
		git -C "$dir" am -q --whitespace=nowarn "$p" >"$dir.am.log" 2>&1 || {
			warn "series: git am $(basename "$p") failed:" \
				"$(grep -m1 -E 'error|fail' "$dir.am.log")"
			return 1
		}
	done
}

# series_tree_list DIR FORMAT [FIND-TESTS]: DIR's entries but folders,
# .git and the assembler's stamp, sorted.
series_tree_list()
{
	local dir=$1 fmt=$2
	shift 2
	(cd "$dir" && find . -path ./.git -prune -o ! -type d ! -name .blkmq-assembled "$@" \
		-printf "$fmt" | sort)
}

# series_same_tree A B: identical lists of files and symlinks, contents,
# link targets and executable bits; prints the first differences.
series_same_tree()
{
	local a=$1 b=$2
	diff <(series_tree_list "$a" '%y %p\n') <(series_tree_list "$b" '%y %p\n') |
		head -n 5 | grep . && return 1
	diff <(series_tree_list "$a" '%p\n' -perm /111) <(series_tree_list "$b" '%p\n' -perm /111) |
		sed 's/^/exec bit: /' | head -n 5 | grep . && return 1
	# The lists match, so "Only in" can only be an empty folder, which git
	# cannot hold (the assembler leaves one behind a removed file).
	diff -rq --no-dereference -x .git -x .blkmq-assembled "$a" "$b" | grep -v '^Only in ' |
		head -n 5 | grep . && return 1
	return 0
}
