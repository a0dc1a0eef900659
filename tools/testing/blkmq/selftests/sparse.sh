# SPDX-License-Identifier: GPL-2.0
# The sparse step reads findings for block/, null_blk and the repo's
# headers from a make C=2 log, by file and message, and names the ones
# only the series has.
. "$(dirname "$0")/lib.sh"
not() { ! "$@"; }

stock=$T/stock
series=$T/series
cat >"$T/stock.log" <<LOG
  CHECK   $stock/block/blk-core.c
$stock/block/blk-core.c:10:5: warning: symbol 'foo' was not declared. Should it be static?
$stock/block/blk-mq.c:20:9: warning: incorrect type in assignment (different address spaces)
$stock/block/blk-mq.c:20:9:    expected void [noderef] __rcu *p
$stock/block/blk-mq.c:20:9:    got void *
$stock/drivers/block/null_blk/main.c:30:1: warning: context imbalance in 'nb' - unexpected unlock
$stock/include/linux/blk-mq.h:40:2: warning: cast truncates bits from constant value
$stock/include/linux/blk-mq.h:40:2: warning: cast truncates bits from constant value
$stock/fs/buffer.c:1:1: warning: not ours
LOG
cat >"$T/series.log" <<LOG
  CHECK   $series/block/blk-core.c
$series/block/blk-core.c:12:5: warning: symbol 'foo' was not declared. Should it be static?
$series/block/blk-mq.c:25:9: warning: incorrect type in assignment (different address spaces)
$series/block/blk-mq.c:25:9:    expected void [noderef] __rcu *p
$series/block/blk-mq.c:25:9:    got void *q
./include/generated/autoconf.h:1:1: warning: not ours either
$series/drivers/block/null_blk.c:31:1: warning: context imbalance in 'nb' - unexpected unlock
$series/drivers/block/null_blk.c:90:1: error: bad constant expression
$series/include/linux/blk-mq.h:41:2: warning: cast truncates bits from constant value
$series/include/linux/blk-mq.h:41:2: warning: cast truncates bits from constant value
$series/include/linux/blk-mq.h:41:2: warning: cast truncates bits from constant value
LOG
mkdir -p "$BLKMQ_OUT"
s=$(sparse_findings "$stock" "$T/stock.log")
r=$(sparse_findings "$series" "$T/series.log")
printf '%s\n' "$s" >"$T/s.txt"
expect "stock: four findings, a header's once" test "$(grep -c . <<<"$s")" = 4
line=$(printf 'block/blk-core.c\t%s' "warning: symbol 'foo' was not declared. Should it be static?")
expect "files are tree paths, the message follows" grep -qxF "$line" "$T/s.txt"
expect "stock null_blk/main.c counts as null_blk.c" \
	grep -q "^drivers/block/null_blk.c	warning: context imbalance" "$T/s.txt"
expect "the expected/got lines belong to the message" \
	grep -q "different address spaces) | expected void \[noderef\] __rcu \*p | got void \*$" \
	"$T/s.txt"
expect "files outside block/, null_blk and our headers are left out" \
	not grep -q "not ours" <<<"$s$r"
new=$(sparse_new "$s" "$r")
printf '%s\n' "$new" >"$T/new.txt"
expect "a moved finding is not new" not grep -q "symbol 'foo'" "$T/new.txt"
expect "a finding only the series has is new" grep -q "error: bad constant expression" "$T/new.txt"
expect "a changed got line is new" grep -q "| got void \*q$" "$T/new.txt"
expect "exactly those two are new" test "$(grep -c . "$T/new.txt")" = 2
expect "the same findings give nothing new" test -z "$(sparse_new "$s" "$s")"
