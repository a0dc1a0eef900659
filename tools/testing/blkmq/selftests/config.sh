# SPDX-License-Identifier: GPL-2.0
# A fragment option that did not make it into .config stops the build.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/obj"
printf 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=m\n' >"$T/frag"
printf 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=m\nCONFIG_D=y\n' >"$T/obj/.config"
expect "all options present passes" check_config "$T/obj" "$T/frag"
printf 'CONFIG_A=y\nCONFIG_B=y\n# CONFIG_C is not set\n' >"$T/obj/.config"
expect_error "missing options are named" \
	'not in .*\.config .*: # CONFIG_B is not set, CONFIG_C=m$' \
	check_config "$T/obj" "$T/frag"
# A later fragment overrides an earlier one, as merge_config.sh does.
printf 'CONFIG_B=y\nCONFIG_E=y\n' >"$T/frag2"
printf 'CONFIG_A=y\nCONFIG_B=y\nCONFIG_C=m\nCONFIG_E=y\n' >"$T/obj/.config"
expect "a later fragment overrides an earlier one" check_config "$T/obj" "$T/frag" "$T/frag2"
printf 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=m\nCONFIG_E=y\n' >"$T/obj/.config"
expect_error "the overriding value is the one checked" 'not in .*\.config .*: CONFIG_B=y$' \
	check_config "$T/obj" "$T/frag" "$T/frag2"
printf 'CONFIG_A=y\nCONFIG_C=m\n' >"$T/obj/.config"
expect "an option left out of .config is not set" check_config "$T/obj" "$T/frag"
for f in "$BLKMQ_TOOLS"/configs/*.config; do
	bad=$(grep -vE '^(CONFIG_[A-Z0-9_]+=.+|# CONFIG_[A-Z0-9_]+ is not set|#.*|)$' "$f")
	[ -z "$bad" ] || fail "$(basename "$f"): lines merge_config.sh cannot read: $bad"
	pass "$(basename "$f") is a well-formed fragment"
done

# A failed build shows its last compiler error, not the whole log.
cat >"$T/build.log" <<'LOG'
  CC      block/blk-core.o
block/blk-mq.c: In function 'blk_mq_foo':
block/blk-mq.c:12:9: warning: unused variable 'x' [-Wunused-variable]
block/blk-mq.c:40:2: error: implicit declaration of function 'bar'
block/blk-mq.c:41:2: error: 'baz' undeclared (first use in this function)
make[3]: *** [scripts/Makefile.build:250: block/blk-mq.o] Error 1
make[2]: *** [scripts/Makefile.build:500: block] Error 2
LOG
out=$(report_build_error "$T/build.log" 2>&1)
[ "$(printf '%s\n' "$out" | wc -l)" = 2 ] || fail "build error report is not two lines: $out"
grep -q "^blkmq: build failed: block/blk-mq.c:41:2: error: 'baz' undeclared" <<<"$out" ||
	fail "build error report misses the last error: $out"
pass "a failed build shows its last compiler error: $(head -n 1 <<<"$out")"
