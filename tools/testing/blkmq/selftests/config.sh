# SPDX-License-Identifier: GPL-2.0
# A fragment option that did not make it into .config stops the build.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/obj"
printf 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=m\n' >"$T/frag"
printf 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=m\nCONFIG_D=y\n' >"$T/obj/.config"
expect "all options present passes" check_config "$T/obj" "$T/frag"
printf 'CONFIG_A=y\nCONFIG_B=y\n# CONFIG_C is not set\n' >"$T/obj/.config"
expect_error "missing options are named" 'not in .*\.config .*: # CONFIG_B is not set, CONFIG_C=m$' \
	check_config "$T/obj" "$T/frag"
for f in "$BLKMQ_TOOLS"/configs/*.config; do
	bad=$(grep -vE '^(CONFIG_[A-Z0-9_]+=.+|# CONFIG_[A-Z0-9_]+ is not set|#.*|)$' "$f")
	[ -z "$bad" ] || fail "$(basename "$f"): lines merge_config.sh cannot read: $bad"
	pass "$(basename "$f") is a well-formed fragment"
done
