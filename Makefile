# SPDX-License-Identifier: GPL-2.0
# The two commands that matter:
#   make        build the series kernel, boot it, null_blk + fio in each mode
#   make check  the whole test suite; ends with "N passed, N failed"
#
# Options: KERNEL=stock|series CPUS=N RUNTIME=SECONDS (main job),
#          BLKMQ_OUT=DIR (output folder, default ./out).

BLKMQ := tools/testing/blkmq/blkmq.sh
KERNEL ?= series
CPUS ?= 2
RUNTIME ?= 5

.PHONY: all main check setup assemble build-stock build-series build-debug clean

all: main

main:
	@$(BLKMQ) main --kernel $(KERNEL) --cpus $(CPUS) --runtime $(RUNTIME)

check:
	@$(BLKMQ) check

setup:
	@$(BLKMQ) setup

assemble:
	@$(BLKMQ) assemble

build-stock:
	@$(BLKMQ) build stock bench

build-series:
	@$(BLKMQ) build series bench

build-debug:
	@$(BLKMQ) build series debug

clean:
	rm -rf out

# make bench: stock vs series, the whole fio matrix, A B A B ... booted.
# Options: CPUS=N (vCPUs: a bigger machine shows scaling 1, 2, 4 ... N),
#          REPEATS=N (at least 5 for the method), BENCH_RUNTIME=S per job,
#          BENCH_PARTS=LIST (some of nullb,virtio,icount,tags,lockstat;
#          default all),
#          BENCH_ONLY=REGEX (only the fio cases it matches, e.g.
#          'mq-irq1-libaio-qd(1|32)-j1'; no tag or lock part).
REPEATS ?= 5
BENCH_RUNTIME ?= 3
BENCH_PARTS ?= nullb,virtio,icount,tags,lockstat

.PHONY: bench profile
bench:
	@$(BLKMQ) bench --cpus $(CPUS) --repeats $(REPEATS) --runtime $(BENCH_RUNTIME) \
		--parts $(BENCH_PARTS) $(if $(BENCH_ONLY),--only '$(BENCH_ONLY)')

# make profile: the stock and series profile kernels (CONFIG_PROFILING,
# booted with profile=2), fio libaio 1 job in mq mode, kernel time per I/O
# by function side by side.  PROFILE_RUNTIME=S per fio job;
# PROFILE_ICOUNT=1: one vCPU under QEMU -icount, instructions per I/O.
# PROFILE_INSN=1: every instruction counted by a QEMU plugin, exactly, by
# function (the bench kernels; mq and bio mode, libaio and io_uring).
PROFILE_RUNTIME ?= 15

profile:
	@$(BLKMQ) profile \
		$(if $(PROFILE_INSN),--insn,$(if $(PROFILE_ICOUNT),--icount,--cpus $(CPUS))) \
		--runtime $(PROFILE_RUNTIME)

# make series: the repo as a git format-patch series (out/series/).
# make check-bisect: build each exported patch in turn (bench config);
#                    BISECT_MAX=N stops after the first N patches.
.PHONY: series check-bisect
series:
	@$(BLKMQ) series

check-bisect:
	@$(BLKMQ) check-bisect $(if $(BISECT_MAX),--max $(BISECT_MAX))
