#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Exact instructions per I/O, function by function, stock against series.

usage: insn-report.py DIR [TOP]
       insn-report.py --annotate DIR FUNCTION [CASE]
       insn-report.py --disassemble KDIR VMLINUX
Reads, for each kernel (stock, series) under DIR/<kernel>/: System.map;
insn-dumps.txt, written by the insn-count QEMU plugin (qemu/insn-count.c):
"dump N" lines, each followed by "ADDR COUNT" lines, the instructions
executed in translation blocks starting at ADDR since the dump before;
insn-cases.txt, the case names in the order guest/insn.sh ran them; and
insn-<case>.json, fio's output, for the case's I/O count.  The guest
enters sync(2) right before and right after each fio run, and each entry
makes a dump, so case k (from 0) is dump 2k+1.

A block is counted to the function whose symbol is the last at or below
its address; user space is "(user)", module code (null_blk) "(modules)".
For each case it prints the whole guest's instructions per I/O (fio's own
start and exit included, the same for both kernels), the kernel's, the
engine's (the functions the series replaces: requests, tags, dispatch,
completion, accounting), and the TOP functions (default 20) by the larger
of the two kernels' cost.  Last, over all cases: the engine's functions
one by one, and the ratios the benchmark's targets are about (and mq
with the disk statistics off, case "mqnostat-...", against bio mode).

--annotate shows where one engine function's instructions go, which the
function's row cannot when the hot path is inline: its disassembly, with
each block's instructions per I/O of CASE (default
mq-irq1-libaio-qd1-j1) at the block's first instruction, for each kernel,
and the total, the function's row in the report.  It reads
DIR/<kernel>/engine.dis, which --disassemble writes into KDIR from the
kernel's VMLINUX: objdump of every engine function of KDIR/System.map.
"""
import bisect
import json
import os
import re
import subprocess
import sys

KERNELS = ["stock", "series"]
# profile-report.py's ENGINE, and the clock reads of the request's life
ENGINE = re.compile(r"^_*(blk_mq|sbitmap|sbq_|blk_account|blk_update_request|blk_add_timer|"
                    r"blk_rq_|blk_attempt|update_io_ticks|blk_stat|blk_crypto)")
KERNEL_BASE = 0xffff800000000000
# objdump -d lines: a function's header, an instruction
DIS_FUNC = re.compile(r"^([0-9a-f]+) <(.+)>:$")
DIS_INSN = re.compile(r"^ *([0-9a-f]+):\t(.*)$")
DEFAULT_CASE = "mq-irq1-libaio-qd1-j1"


def symbols(path):
    """Sorted text symbol addresses and their names."""
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                syms.append((int(parts[0], 16), parts[2]))
    if not syms:
        sys.exit(f"insn-report: no text symbols in {path}")
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def dumps(path):
    """The plugin's dumps: a list of {address: instructions}."""
    out = []
    with open(path) as f:
        for line in f:
            if line.startswith("dump "):
                out.append({})
            elif line.strip():
                if not out:
                    sys.exit(f"insn-report: {path}: counts before the first dump line")
                addr, count = line.split()
                out[-1][int(addr, 16)] = int(count)
    return out


def functions(blocks, addrs, names, end):
    """{function: instructions} of one dump."""
    funcs = {}
    for addr, count in blocks.items():
        if addr < KERNEL_BASE:
            name = "(user)"
        elif addr < addrs[0] or addr >= end:
            name = "(modules)"
        else:
            name = names[bisect.bisect_right(addrs, addr) - 1]
        funcs[name] = funcs.get(name, 0) + count
    return funcs


def total_ios(path):
    with open(path) as f:
        job = json.load(f)["jobs"][0]
    return sum(job[d]["total_ios"] for d in ("read", "write", "trim") if d in job)


def text_end(addrs, names):
    """Where kernel text ends (_etext); modules lie above it."""
    return addrs[names.index("_etext")] if "_etext" in names else addrs[-1] + 1


def load_blocks(kdir):
    """{case: ({block address: instructions}, I/Os)} of one kernel."""
    with open(os.path.join(kdir, "insn-cases.txt")) as f:
        cases = [c.strip() for c in f if c.strip()]
    ds = dumps(os.path.join(kdir, "insn-dumps.txt"))
    if len(ds) < 2 * len(cases) + 1:
        sys.exit(f"insn-report: {kdir}: {len(ds)} dumps for {len(cases)} cases, "
                 f"need {2 * len(cases) + 1} (a sync(2) the script did not make?)")
    data = {}
    for k, case in enumerate(cases):
        ios = total_ios(os.path.join(kdir, f"insn-{case}.json"))
        if not ios:
            sys.exit(f"insn-report: {kdir}: case {case} did no I/O")
        data[case] = (ds[2 * k + 1], ios)
    return data


def load(kdir):
    """{case: ({function: instructions}, I/Os)} of one kernel."""
    addrs, names = symbols(os.path.join(kdir, "System.map"))
    end = text_end(addrs, names)
    return {case: (functions(blocks, addrs, names, end), ios)
            for case, (blocks, ios) in load_blocks(kdir).items()}


def ranges(addrs, names, end, want):
    """[(start, stop)] of the kernel's text symbols whose names @want takes."""
    out = []
    for i, name in enumerate(names):
        start = addrs[i]
        if start >= end or not want(name):
            continue
        # aliases share an address: the function ends at the next one above
        j = bisect.bisect_right(addrs, start)
        out.append((start, addrs[j] if j < len(addrs) else end))
    return out


def disassemble(kdir, vmlinux):
    """Write KDIR/engine.dis: objdump -d of the engine functions."""
    addrs, names = symbols(os.path.join(kdir, "System.map"))
    lines = []
    for start, stop in ranges(addrs, names, text_end(addrs, names), ENGINE.match):
        try:
            r = subprocess.run(["objdump", "-d", "--no-show-raw-insn",
                                f"--start-address={start:#x}", f"--stop-address={stop:#x}",
                                vmlinux], capture_output=True, text=True)
        except OSError as e:
            sys.exit(f"insn-report: objdump: {e.strerror}")
        if r.returncode:
            msg = r.stderr.strip().splitlines()
            sys.exit(f"insn-report: objdump {vmlinux}: {msg[-1] if msg else r.returncode}")
        lines += [x for x in r.stdout.splitlines() if DIS_FUNC.match(x) or DIS_INSN.match(x)]
    if not lines:
        sys.exit(f"insn-report: no engine function disassembled from {vmlinux}")
    with open(os.path.join(kdir, "engine.dis"), "w") as f:
        f.write("\n".join(lines) + "\n")


def listing(path):
    """{address: instruction text} of an engine.dis."""
    if not os.path.exists(path):
        sys.exit(f"insn-report: no {path}: make profile PROFILE_INSN=1 writes it")
    insns = {}
    with open(path) as f:
        for line in f:
            m = DIS_INSN.match(line.rstrip("\n"))
            if m:
                insns[int(m.group(1), 16)] = " ".join(m.group(2).split())
    return insns


def annotate(res, func, case):
    """@func's disassembly with each block's instructions per I/O of @case."""
    kernels = {}
    for k in KERNELS:
        kdir = os.path.join(res, k)
        if os.path.exists(os.path.join(kdir, "insn-dumps.txt")):
            addrs, names = symbols(os.path.join(kdir, "System.map"))
            kernels[k] = (kdir, ranges(addrs, names, text_end(addrs, names),
                                       lambda n: n == func))
    if not any(funcs for _, funcs in kernels.values()):
        sys.exit(f"insn-report: no function {func} in {res}")
    if not ENGINE.match(func):
        sys.exit(f"insn-report: {func} is not an engine function: it is not disassembled")
    shown = {}
    for k, (kdir, funcs) in kernels.items():
        if funcs:
            data = load_blocks(kdir)
            if case not in data:
                sys.exit(f"insn-report: {kdir}: no case {case} (the cases: {', '.join(data)})")
            shown[k] = (data[case], listing(os.path.join(kdir, "engine.dis")))
    for k, (kdir, funcs) in kernels.items():
        if k not in shown:
            print(f"\n{k}: no function {func}")
            continue
        (blocks, ios), insns = shown[k]
        total = 0
        print(f"\ninsn {case} {k}: {func}, instructions per I/O at each block's start")
        for start, stop in funcs:
            here = {a: c for a, c in blocks.items() if start <= a < stop}
            for a in sorted(set(here) | {a for a in insns if start <= a < stop}):
                count = f"{here[a] / ios:8.2f}" if a in here else " " * 8
                print(f"{count}  {a:x}: {insns.get(a, '(not in engine.dis)')}")
            total += sum(here.values())
        print(f"{total / ios:8.1f}  {func}: the function's instructions per I/O")


def kernel_part(funcs):
    return sum(c for n, c in funcs.items() if n not in ("(user)",))


def engine_part(funcs):
    return sum(c for n, c in funcs.items() if ENGINE.match(n))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--disassemble":
        disassemble(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) in (4, 5) and sys.argv[1] == "--annotate":
        annotate(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) == 5 else DEFAULT_CASE)
        return
    if len(sys.argv) not in (2, 3) or sys.argv[1].startswith("--"):
        sys.exit(__doc__)
    res = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) == 3 else 20
    data = {k: load(os.path.join(res, k)) for k in KERNELS
            if os.path.exists(os.path.join(res, k, "insn-dumps.txt"))}
    if not data:
        sys.exit(f"insn-report: no */insn-dumps.txt under {res}")
    cases = [c for c in next(iter(data.values()))
             if all(c in d for d in data.values())]
    header = "".join(f"{k:>10}" for k in data)
    for case in cases:
        print(f"\ninsn {case}: instructions per I/O")
        print(f"{'':<36}{header}")
        rows = [("whole guest", lambda f: sum(f.values())),
                ("kernel (and modules)", kernel_part),
                ("engine (blk_mq_*, tags, accounting)", engine_part)]
        for label, part in rows:
            print(f"{label:<36}" + "".join(
                f"{part(f) / ios:>10.0f}" for f, ios in (data[k][case] for k in data)))
        cost = {}
        for k in data:
            funcs, ios = data[k][case]
            for n, c in funcs.items():
                if n != "(user)":
                    cost[n] = max(cost.get(n, 0), c / ios)
        for n in sorted(cost, key=lambda n: (-cost[n], n))[:top]:
            print(f"  {n[:34]:<34}" + "".join(
                f"{data[k][case][0].get(n, 0) / data[k][case][1]:>10.1f}" for k in data))
    engine_functions(data, cases)
    targets(data, cases)


def engine_functions(data, cases):
    """Each engine function over all mq cases' I/Os, both kernels."""
    mq = [c for c in cases if c.startswith("mq-")]
    if not mq:
        return
    sums = {}
    for k in data:
        funcs, ios = {}, 0
        for case in mq:
            f, n = data[k][case]
            for name, c in f.items():
                if ENGINE.match(name):
                    funcs[name] = funcs.get(name, 0) + c
            ios += n
        sums[k] = {name: c / ios for name, c in funcs.items()}
    print(f"\nall mq cases, the engine's functions (instructions per I/O over {len(mq)} cases)")
    print(f"  {'':<40}{''.join(f'{k:>10}' for k in sums)}")
    # functions of the slow paths round to nothing: leave them out
    names = sorted({n for s in sums.values() for n, v in s.items() if v >= 0.05},
                   key=lambda n: (-max(s.get(n, 0) for s in sums.values()), n))
    for n in names:
        print(f"  {n[:40]:<40}" + "".join(f"{s.get(n, 0):>10.1f}" for s in sums.values()))
    print(f"  {'engine':<40}" + "".join(f"{sum(s.values()):>10.1f}" for s in sums.values()))


def per_io(data, kernel, case):
    """Whole-guest instructions per I/O of @case on @kernel, or None."""
    if case not in data.get(kernel, {}):
        return None
    f, n = data[kernel][case]
    return sum(f.values()) / n


def targets(data, cases):
    """IOPS ratios from instructions per I/O (one vCPU, a guest ns each).

    mq cases against stock's and against bio mode; "mqnostat-" cases (mq
    with the disk statistics off) against bio mode only.
    """
    print("\nratios from whole-guest instructions per I/O (IOPS = 10^9 / instr/IO)")
    names = {"mq": "series mq", "mqnostat": "series mq iostats=0"}
    for case in cases:
        mode, _, rest = case.partition("-")
        if mode not in names:
            continue
        series = per_io(data, "series", case)
        stock = per_io(data, "stock", case)
        if mode == "mq" and series is not None and stock is not None:
            print(f"insn: series mq / stock mq IOPS  {rest}: {stock / series:.3f}")
        bio = per_io(data, "series", "bio-" + rest)
        if series is not None and bio is not None:
            print(f"insn: {names[mode]} / series bio IOPS {rest}: {bio / series:.3f}")


if __name__ == "__main__":
    main()
