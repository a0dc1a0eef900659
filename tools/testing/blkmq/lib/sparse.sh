# SPDX-License-Identifier: GPL-2.0
# make check's sparse step: Debian's sparse (make C=2) over block/ and
# null_blk in the stock and series bench build trees.  The series may not
# bring a sparse finding that stock does not have too; findings compare
# by file and message, not by line, so moved code does not count as new.

# The series' null_blk is one file; stock's findings in its main.c count
# as findings in that file.
SPARSE_SAME="drivers/block/null_blk/main.c=drivers/block/null_blk.c"

# sparse_targets SRC: the kbuild targets sparse checks in the tree SRC.
# (The series tree may keep an empty null_blk/ folder behind the files it
# removes: the one file decides.)
sparse_targets()
{
	if [ -f "$1/drivers/block/null_blk.c" ]; then
		echo "block/ drivers/block/null_blk.o"
	else
		echo "block/ drivers/block/null_blk/"
	fi
}

# sparse_run KERNEL CONFIG: make C=2 over sparse_targets in the built tree
# (up-to-date objects are not rebuilt, but every source is checked); the
# output goes to sparse.log there.
sparse_run()
{
	local log
	KSRC=$(src_dir "$1")
	KOBJ=$(obj_dir "$1" "$2")
	log=$KOBJ/sparse.log
	[ -f "$KOBJ/.config" ] || die "sparse: $1-$2 is not built ($KOBJ)"
	# shellcheck disable=SC2046 # the targets are words
	with_progress "sparse $1-$2" "$log" \
		"echo \$(grep -c '^  CHECK ' '$log') files checked" -- \
		kmake -j"$(nproc_build)" C=2 $(sparse_targets "$KSRC")
}

# sparse_findings SRC LOG: the findings in LOG for block/, null_blk and
# the repo's include/ files, one "FILE<TAB>LEVEL: message" line each,
# sorted; a finding sparse prints once per file that includes its header
# counts once.  Sparse's indented follow-up lines (expected/got) belong
# to the message.
sparse_findings()
{
	local ours
	ours=$( (cd "$BLKMQ_REPO" && git ls-files include) | tr '\n' ' ')
	awk -v src="$1/" -v same="$SPARSE_SAME" -v ours=" $ours" '
		function path(p) {
			if (index(p, src) == 1)
				p = substr(p, length(src) + 1)
			sub(/^\.\//, "", p)
			return p
		}
		function flush() {
			if (key != "")
				print key
			key = ""
		}
		BEGIN {
			n = split(same, pairs, " ")
			for (i = 1; i <= n; i++) {
				split(pairs[i], kv, "=")
				alias[kv[1]] = kv[2]
			}
		}
		match($0, /^[^ :]+:[0-9]+:[0-9]+: (warning|error): /) {
			flush()
			split($0, f, ":")
			file = path(f[1])
			if (file in alias)
				file = alias[file]
			pos = f[1] ":" f[2] ":" f[3] ":"
			if (file !~ /^(block\/|drivers\/block\/null_blk)/ &&
			    index(ours, " " file " ") == 0)
				next
			key = file "\t" f[2] "\t" substr($0, length(pos) + 2)
			next
		}
		key != "" && index($0, pos "    ") == 1 {
			key = key " | " substr($0, length(pos) + 5)
			next
		}
		{ flush() }
		END { flush() }' "$2" | sort -u | cut -f1,3 | sort
}

# sparse_new STOCK SERIES: the findings (sparse_findings lines) SERIES
# has more of than STOCK.
sparse_new()
{
	comm -13 <(printf '%s\n' "$1" | grep . | sort) <(printf '%s\n' "$2" | grep . | sort)
}

# check_sparse: sparse over block/ and null_blk on stock-bench and
# series-bench; fails on a finding only the series has.
check_sparse()
{
	local k stock series new start detail
	start=$(date +%s)
	for k in stock series; do
		if ! (sparse_run "$k" bench); then
			check_result 1 "sparse: $k-bench block/ and null_blk" \
				"make C=2 failed, log: $(obj_dir "$k" bench)/sparse.log"
			return
		fi
		if ! grep -q '^  CHECK .*/null_blk' "$(obj_dir "$k" bench)/sparse.log"; then
			check_result 1 "sparse: $k-bench block/ and null_blk" \
				"null_blk was not checked, log: $(obj_dir "$k" bench)/sparse.log"
			return
		fi
	done
	stock=$(sparse_findings "$(src_dir stock)" "$(obj_dir stock bench)/sparse.log")
	series=$(sparse_findings "$(src_dir series)" "$(obj_dir series bench)/sparse.log")
	new=$(sparse_new "$stock" "$series")
	detail="stock $(grep -c . <<<"$stock"), series $(grep -c . <<<"$series")"
	detail="$detail, new $(grep -c . <<<"$new"), $(elapsed "$start")"
	check_result "$([ -z "$new" ]; echo $?)" \
		"sparse: the series adds no finding in block/ and null_blk" "$detail"
	[ -z "$new" ] || printf '%s\n' "$new" | sed 's/^/    /' | head -n 20
}
