# SPDX-License-Identifier: GPL-2.0
# Bad input to the harness gets one clear line naming the valid choices,
# exit 2, and nothing is built or booted.
. "$(dirname "$0")/lib.sh"
B=$BLKMQ_TOOLS/blkmq.sh

cmds="setup assemble build vm main bench profile check check-sparse series check-bisect"
expect_error "unknown command" "unknown command 'frob' \(valid: $cmds\)" "$B" frob
expect_error "unknown kernel" \
	"unknown kernel 'nosuch' \(valid: stock series\)" \
	"$B" build nosuch bench
expect_error "unknown config" \
	"unknown config 'fast' \(valid: bench debug lockstat nomq profile\)" \
	"$B" build series fast
expect_error "build arity" "usage: blkmq build KERNEL CONFIG" "$B" build series
expect_error "vm: unknown kernel" "unknown kernel 'foo'" "$B" vm --kernel foo -- true
expect_error "vm: unknown config" "unknown config 'x'" "$B" vm --config x -- true
expect_error "vm: script not there" \
	"script '/no/such/script.sh' is not there" \
	"$B" vm --script /no/such/script.sh
expect_error "vm: share not there" \
	"share folder '/no/such/dir' is not there" \
	"$B" vm --share /no/such/dir -- true
expect_error "vm: bad cpus" "--cpus must be 1..64, not '0'" "$B" vm --cpus 0 -- true
expect_error "vm: bad mem" "--mem is in MiB and at least 256, not '1G'" "$B" vm --mem 1G -- true
expect_error "vm: bad timeout" \
	"--timeout must be a positive number of seconds, not 'soon'" \
	"$B" vm --timeout soon -- true
expect_error "vm: bad icount" "--icount takes a shift of 0..9, not '10'" \
	"$B" vm --cpus 1 --icount 10 -- true
expect_error "vm: icount with two vCPUs" "--icount needs --cpus 1, not '2'" \
	"$B" vm --icount 0 -- true
expect_error "vm: nvme image not there" \
	"--nvme '/no/such.img' is not a writable file" \
	"$B" vm --nvme /no/such.img -- true
expect_error "vm: unknown option" "vm: unknown option '--frob'" "$B" vm --frob
expect_error "vm: nothing to run" "vm: nothing to run" "$B" vm
expect_error "main: unknown kernel" "unknown kernel 'old'" "$B" main --kernel old
expect_error "main: bad runtime" \
	"--runtime must be a positive number of seconds, not '-1'" \
	"$B" main --runtime -1
expect_error "main: unknown option" "main: unknown option '--fast'" "$B" main --fast
expect_error "BLKMQ_ACCEL" \
	"unknown BLKMQ_ACCEL 'hvf' \(valid: kvm tcg\)" \
	env BLKMQ_ACCEL=hvf "$B" vm -- true
expect_error "bench: bad repeats" "--repeats must be 1..50, not '0'" "$B" bench --repeats 0
expect_error "bench: bad cpus" "--cpus must be 1..64, not 'x'" "$B" bench --cpus x
expect_error "bench: unknown option" "bench: unknown option '--kernel'" "$B" bench --kernel stock
expect_error "bench: unknown part" \
	"bench: --parts: unknown part 'disk' \\(valid: nullb, virtio, icount, tags, lockstat\\)" \
	"$B" bench --parts nullb,disk
expect_error "bench: bad only" "--only takes an extended regex, not 'mq\\(\\('" \
	"$B" bench --only 'mq(('
expect_error "profile: bad shift" "--shift must be 0..12, not '13'" "$B" profile --shift 13
expect_error "profile: icount at two vCPUs" "--icount runs at one vCPU, not --cpus 2" \
	"$B" profile --icount --cpus 2
expect_error "profile: unknown option" "profile: unknown option '--kernel'" \
	"$B" profile --kernel stock
expect_error "profile: insn at two vCPUs" "--insn runs at one vCPU, not --cpus 2" \
	"$B" profile --insn --cpus 2
expect_error "profile: insn and icount" "--insn and --icount are two kinds of profile" \
	"$B" profile --insn --icount
expect_error "profile: insn, bad top" "--top must be a positive number, not 'x'" \
	"$B" profile --insn --top x
expect_error "series: no arguments" "series takes no arguments" "$B" series now
expect_error "check-sparse: no arguments" "check-sparse takes no arguments" \
	"$B" check-sparse now
expect_error "check-bisect: bad max" "--max must be a positive number, not '0x'" \
	"$B" check-bisect --max 0x
expect_error "check-bisect: unknown option" "check-bisect: unknown option '--frob'" \
	"$B" check-bisect --frob
expect "nothing was built" test ! -e "$BLKMQ_OUT/build"
