# SPDX-License-Identifier: GPL-2.0
# make check-bisect: build every patch of the exported series in turn.
#
# The series is exported (make series), applied with git am onto a fresh
# copy of the base, and each commit is checked out in turn in one git
# worktree and built there with the bench config, so kbuild and ccache
# rebuild only what each patch changes.  The worktree and the build sit
# at the same relative place as the series tree and its build
# (src/series, build/series-bench), which lets ccache reuse those objects.

check_bisect()
{
	local max=0 dir repo wt n=0 total c subject log pass=0 fail=0 start
	while [ $# -gt 0 ]; do
		case $1 in
		--max) max=${2:-}; shift 2 || shift ;;
		*) die "check-bisect: unknown option '$1' (valid: --max N)" ;;
		esac
	done
	[ "$max" = 0 ] || is_uint "$max" ||
		die "check-bisect: --max must be a positive number, not '$max'"
	start=$(date +%s)
	echo "KTAP version 1"
	series_export || exit 1

	dir=$BLKMQ_OUT/bisect
	repo=$dir/repo
	wt=$dir/src/series
	msg "check-bisect: applying the series to a fresh base in $repo"
	series_am "$repo" || { echo "not ok 1 series applies to the base"; exit 1; }
	rm -rf "$wt"
	git -C "$repo" worktree prune
	mkdir -p "$dir/src" "$dir/logs"
	git -C "$repo" worktree add -q --detach "$wt" base >/dev/null ||
		die "check-bisect: git worktree add $wt failed"

	total=$(git -C "$repo" rev-list --count base..HEAD)
	[ "$max" = 0 ] || [ "$max" -ge "$total" ] || total=$max
	echo "1..$total"
	KSRC=$wt
	KOBJ=$dir/build/series-bench
	while read -r c subject; do
		n=$((n + 1))
		[ "$n" -le "$total" ] || break
		log=$dir/logs/$(printf '%04d' "$n").log
		git -C "$wt" checkout -q --detach "$c" || die "check-bisect: checkout of $c failed"
		msg "check-bisect: $n/$total $subject"
		# A subshell: configure dies on a bad config; that patch fails.
		if (configure series bench &&
			with_progress "check-bisect $n/$total" "$log" \
				"echo \$(grep -cE '^  (CC|LD|AR|AS)' '$log') objects" -- \
				kmake -j"$(nproc_build)" bzImage modules &&
			check_config "$KOBJ" $(config_fragments series bench)); then
			pass=$((pass + 1))
			echo "ok $n $subject"
		else
			report_build_error "$log" 2>&1 | sed 's/^/# /'
			fail=$((fail + 1))
			echo "not ok $n $subject # log: $log"
		fi
	done < <(git -C "$repo" log --reverse --format='%h %s' base..HEAD)
	msg "check-bisect finished in $(elapsed "$start")"
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
}
