#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where the kernel's time goes per I/O, stock against series.

usage: profile-report.py DIR [TOP]
Reads DIR/<kernel>/profile-<case>.bin (a copy of /proc/profile, see
guest/profile.sh), DIR/<kernel>/ios-<case>.txt, and DIR/<kernel>/System.map
and DIR/<kernel>/config of the kernel that wrote them.  /proc/profile is
one u32 of the bucket size in bytes, then one u32 hit count per bucket of
kernel text from _stext; a hit is one timer tick (1/CONFIG_HZ s) that
found the CPU in the kernel at that address.  Module code lies outside
_stext.._etext and is counted in the last bucket, shown as "(modules)".

For each case it prints the TOP functions (default 15) by the larger of
the two kernels' cost, each as microseconds of CPU per I/O (hits / HZ
over the I/Os) and share of the non-idle kernel hits, then the engine's
functions and the whole block layer's summed, and the totals; last, the
same two sums over all cases, which have the most ticks to go on, and
the engine's functions one by one over all cases' I/Os.
Under TCG the guest has no performance counters; the tick is the clock.
When DIR/icount exists (make profile --icount) the guests ran under QEMU
-icount shift=0, where a guest nanosecond is one instruction: a tick is
1e9/HZ instructions, and the costs are shown as instructions per I/O.
"""
import bisect
import glob
import os
import re
import struct
import sys

KERNELS = ["stock", "series"]
# Where an idle CPU's tick lands; left out of the shares and totals.
IDLE = {"default_idle", "native_safe_halt", "arch_cpu_idle", "default_idle_call",
        "cpu_idle_poll", "do_idle", "acpi_safe_halt", "acpi_idle_do_entry",
        "mwait_idle", "cpuidle_enter_state", "halt", "amd_e400_idle"}
# The block layer's own functions, summed as one row: with a few thousand
# ticks per case, single functions of it have too few hits to compare.
BLOCK = re.compile(r"^_*(blk|bio|submit_bio|part_|update_io_ticks|rq_|req_|elv_)")
# The part the engine replaces: requests, tags, dispatch, accounting.
ENGINE = re.compile(r"^_*(blk_mq|sbitmap|sbq_|blk_account|blk_update_request|blk_add_timer|"
                    r"blk_rq_|blk_attempt|update_io_ticks|blk_stat|blk_crypto)")
GROUPS = [("engine (blk_mq_*, tags, accounting)", ENGINE),
          ("block layer (blk_*, bio_*, ...)", BLOCK)]


def symbols(path):
    """Sorted text symbol addresses, their names, and _stext."""
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or parts[1] not in "tTwW":
                continue
            syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    stext = next(a for a, n in syms if n == "_stext")
    return [a for a, _ in syms], [n for _, n in syms], stext


def hz(path):
    with open(path) as f:
        m = re.search(r"^CONFIG_HZ=(\d+)$", f.read(), re.M)
    return int(m.group(1)) if m else 250


def profile(kdir, case):
    """Function -> hits for one case of one kernel, and its I/O count."""
    addrs, names, stext = symbols(os.path.join(kdir, "System.map"))
    with open(os.path.join(kdir, f"profile-{case}.bin"), "rb") as f:
        data = f.read()
    step = struct.unpack_from("<I", data)[0]
    counts = struct.unpack_from(f"<{len(data) // 4 - 1}I", data, 4)
    funcs = {}
    last = len(counts) - 1
    for i, c in enumerate(counts):
        if not c:
            continue
        if i == last:
            name = "(modules)"
        else:
            j = bisect.bisect_right(addrs, stext + i * step) - 1
            name = names[j] if j >= 0 else "?"
        funcs[name] = funcs.get(name, 0) + c
    with open(os.path.join(kdir, f"ios-{case}.txt")) as f:
        ios = int(f.read().split()[0])
    return funcs, ios


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    top = int(sys.argv[2]) if len(sys.argv) == 3 else 15
    res = sys.argv[1]
    icount = os.path.exists(os.path.join(res, "icount"))
    # per tick: microseconds, or thousands of instructions under -icount
    if icount:
        scale, unit, fmt = 1000.0, "instr/IO", "{:>14.0f}"
    else:
        scale, unit, fmt = 1.0, "us/IO", "{:>14.3f}"
    cases = sorted({os.path.basename(p)[len("profile-"):-len(".bin")]
                    for p in glob.glob(os.path.join(res, "*", "profile-*.bin"))})
    if not cases:
        sys.exit(f"profile-report: no profile-*.bin under {res}")
    total = {}
    # kernel -> [function -> hits, I/Os, per-tick scale] over all cases
    whole = {k: [{}, 0, 0.0] for k in KERNELS}
    for case in cases:
        data = {}
        for k in KERNELS:
            kdir = os.path.join(res, k)
            if os.path.exists(os.path.join(kdir, f"profile-{case}.bin")):
                funcs, ios = profile(kdir, case)
                us = scale * 1e6 / hz(os.path.join(kdir, "config"))
                busy = sum(c for n, c in funcs.items() if n not in IDLE)
                data[k] = (funcs, ios, us, busy)
                for n, c in funcs.items():
                    whole[k][0][n] = whole[k][0].get(n, 0) + c
                whole[k][1] += ios
                whole[k][2] = us
        print(f"\nprofile {case}: kernel CPU per I/O by function ({unit}, share of busy ticks)")
        print(f"{'function':<36}" + "".join(f"{k + ' ' + unit:>14}{'%':>7}" for k in data))
        cost = {}
        for k, (funcs, ios, us, busy) in data.items():
            for n, c in funcs.items():
                if n not in IDLE:
                    cost[n] = max(cost.get(n, 0), c * us / max(ios, 1))
        for n in sorted(cost, key=cost.get, reverse=True)[:top]:
            row = f"{n[:35]:<36}"
            for k, (funcs, ios, us, busy) in data.items():
                c = funcs.get(n, 0)
                row += fmt.format(c * us / max(ios, 1)) + f"{100.0 * c / max(busy, 1):>7.1f}"
            print(row)
        for label, pat in GROUPS:
            row = f"{label:<36}"
            for k, (funcs, ios, us, busy) in data.items():
                c = sum(v for n, v in funcs.items() if pat.match(n))
                row += fmt.format(c * us / max(ios, 1)) + f"{100.0 * c / max(busy, 1):>7.1f}"
                sums = total.setdefault(k, {})
                sums[label] = sums.get(label, 0) + c
                sums[""] = sums.get("", 0) + (busy if label == GROUPS[0][0] else 0)
            print(row)
        row = f"{'total busy':<36}"
        for k, (funcs, ios, us, busy) in data.items():
            row += fmt.format(busy * us / max(ios, 1)) + f"{'':>7}"
        print(row)
        print("    " + ", ".join(f"{k}: {ios} I/Os, {busy} busy ticks"
                              for k, (funcs, ios, us, busy) in data.items()))
    print(f"\nall cases, share of busy ticks ({len(cases)} cases)")
    for label, _ in GROUPS:
        print(f"{label:<36}" + "".join(
            f"{k:>14}{100.0 * sums[label] / max(sums[''], 1):>7.1f}" for k, sums in total.items()))
    engine_functions(whole, fmt, unit)


def engine_functions(whole, fmt, unit):
    """The engine's functions, each kernel's, over all cases' I/Os: the
    most ticks any one function of it gets."""
    whole = {k: w for k, w in whole.items() if w[1]}
    print(f"\nall cases, the engine's functions ({unit} over all cases' I/Os)")
    for k, (funcs, ios, us) in whole.items():
        mine = sorted(((c, n) for n, c in funcs.items() if ENGINE.match(n)), reverse=True)
        print(f"{k}:")
        for c, n in mine:
            print(f"  {n[:40]:<42}" + fmt.format(c * us / ios))
        print(f"  {'engine':<42}" + fmt.format(sum(c for c, _ in mine) * us / ios))
        busy = sum(c for n, c in funcs.items() if n not in IDLE)
        print(f"  {'kernel, busy':<42}" + fmt.format(busy * us / ios))


if __name__ == "__main__":
    main()
