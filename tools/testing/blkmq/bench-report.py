#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise make bench: medians over repeats, latency, CPU per I/O, ratios.

usage: bench-report.py DIR
DIR/<kernel>/r<N>/<mode>-irq<I>-<engine>-qd<Q>-j<J>.json (null_blk) and
<disk>-<engine>-qd<Q>-j<J>.json (virtio_blk: no irqmode), as the guest wrote
them, DIR/icount/<kernel>/r1/*.json (the same null_blk cases at one vCPU
under QEMU -icount shift=0, where a guest nanosecond is one instruction)
and DIR/tags/tag-bench.txt from guest/tag-bench.sh.  Writes
DIR/summary.json, DIR/iops.dat and DIR/iops.png (gnuplot) and prints a
table and the targets of the benchmark as measured ratios.
"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys

NAME = re.compile(r"(?P<mode>[a-z_]+)(?:-irq(?P<irq>\d))?-(?P<engine>[a-z_]+)"
                  r"-qd(?P<qd>\d+)-j(?P<jobs>\d+)\.json$")
MODES = ["bio", "request_fn", "mq", "virtio_blk"]
# irqmode of rows without one (a real driver's disk)
NO_IRQ = -1


def load(path):
    with open(path) as f:
        text = f.read()
    return json.loads(text[text.index("{"):])


def sample(path):
    """IOPS, p50/p99 completion latency (us) and CPU us per I/O of one run."""
    job = load(path)["jobs"][0]
    rd = job["read"]
    ios = rd["total_ios"]
    pct = rd["clat_ns"].get("percentile", {})
    # fio reports usr/sys as a share of one CPU over the run, summed over
    # the group's jobs: CPU seconds = share * runtime.
    cpu_s = (job["usr_cpu"] + job["sys_cpu"]) / 100.0 * rd["runtime"] / 1000.0
    # The whole guest's busy share over the run (guest/bench-fio.sh's
    # <case>.cpu), times the CPUs and the run time: fio's own CPU plus the
    # softirqs and kernel threads that worked for it.
    guest_s = 0.0
    try:
        with open(path[:-len(".json")] + ".cpu") as f:
            b0, i0, b1, i1, ncpu = (int(v) for v in f.read().split())
        if b1 + i1 > b0 + i0:
            guest_s = (b1 - b0) / (b1 + i1 - b0 - i0) * ncpu * rd["runtime"] / 1000.0
    except (FileNotFoundError, ValueError):
        pass
    return {
        "iops": rd["iops"],
        "p50_us": pct.get("50.000000", 0) / 1000.0,
        "p99_us": pct.get("99.000000", 0) / 1000.0,
        "cpu_us_per_io": cpu_s * 1e6 / ios if ios else 0.0,
        "guest_us_per_io": guest_s * 1e6 / ios if ios else 0.0,
        "errors": job["error"],
    }


def collect(folder):
    runs = {}
    for path in glob.glob(os.path.join(folder, "*", "r*", "*.json")):
        kernel = os.path.basename(os.path.dirname(os.path.dirname(path)))
        m = NAME.search(os.path.basename(path))
        if not m:
            continue
        irq = int(m["irq"]) if m["irq"] is not None else NO_IRQ
        key = (kernel, m["mode"], irq, m["engine"], int(m["qd"]), int(m["jobs"]))
        runs.setdefault(key, []).append(sample(path))
    rows = []
    for key, samples in sorted(runs.items(), key=lambda kv: (kv[0][0], MODES.index(kv[0][1])
                                                             if kv[0][1] in MODES else 9, kv[0][2:])):
        iops = [s["iops"] for s in samples]
        rows.append({
            "kernel": key[0], "mode": key[1], "irqmode": key[2], "engine": key[3],
            "qd": key[4], "jobs": key[5], "repeats": len(samples),
            "iops_median": statistics.median(iops), "iops_min": min(iops), "iops_max": max(iops),
            "p50_us": statistics.median(s["p50_us"] for s in samples),
            "p99_us": statistics.median(s["p99_us"] for s in samples),
            "cpu_us_per_io": statistics.median(s["cpu_us_per_io"] for s in samples),
            "guest_us_per_io": statistics.median(s["guest_us_per_io"] for s in samples),
            "errors": sum(s["errors"] for s in samples),
        })
    return rows


def find(rows, **want):
    for r in rows:
        if all(r[k] == v for k, v in want.items()):
            return r
    return None


def ratio_lines(rows, tag="", guest_cpu=True):
    """The benchmark's targets, as ratios measured in this one run.  CPU
    per I/O is the guest's busy time where both kernels recorded it and
    GUEST_CPU allows, else fio's usr+sys."""
    out = []
    for engine in ("libaio", "io_uring"):
        for jobs in (1, 2):
            for qd in (1, 32):
                base = dict(irqmode=1, engine=engine, qd=qd, jobs=jobs)
                st = find(rows, kernel="stock", mode="mq", **base)
                se = find(rows, kernel="series", mode="mq", **base)
                sb = find(rows, kernel="series", mode="bio", **base)
                if st and se:
                    # the whole guest's CPU where both runs recorded it
                    cpu = ("guest_us_per_io"
                           if guest_cpu and st["guest_us_per_io"] and se["guest_us_per_io"]
                           else "cpu_us_per_io")
                    out.append(f"{tag}series mq / stock mq IOPS  {engine:<8} QD{qd:<2} "
                               f"jobs={jobs}: {se['iops_median'] / st['iops_median']:.2f}"
                               " (target >= 1.10)")
                    out.append(f"{tag}series mq / stock mq CPU/IO {engine:<8} QD{qd:<2} "
                               f"jobs={jobs}: {se[cpu] / max(st[cpu], 1e-9):.2f}"
                               " (target <= 1.00)")
                if se and sb:
                    out.append(f"{tag}series mq / series bio IOPS {engine:<8} QD{qd:<2} "
                               f"jobs={jobs}: {se['iops_median'] / sb['iops_median']:.2f}"
                               " (target >= 0.95)")
    for r in rows:
        if r["kernel"] != "series" or r["mode"] != "virtio_blk":
            continue
        st = find(rows, kernel="stock", mode="virtio_blk", irqmode=NO_IRQ,
                  engine=r["engine"], qd=r["qd"], jobs=r["jobs"])
        if st and st["iops_median"]:
            label = f"{r['engine']:<8} QD{r['qd']:<2} jobs={r['jobs']}"
            out.append(f"series / stock virtio_blk IOPS   {label}: "
                       f"{r['iops_median'] / st['iops_median']:.2f}")
            if st["cpu_us_per_io"]:
                out.append(f"series / stock virtio_blk CPU/IO {label}: "
                           f"{r['cpu_us_per_io'] / st['cpu_us_per_io']:.2f}")
    return out


TAGLINE = re.compile(r"^(?P<impl>\S+)\s+threads=(?P<threads>\d+) depth=(?P<depth>\d+) "
                     r"hold=(?P<hold>\d+) msecs=\d+ ops=\d+ empty=(?P<empty>\d+) kops/s=(?P<kops>\d+)")


def tag_table(folder):
    """Median kops/s of blk_mq_tag and sbitmap per shape, and their ratio."""
    runs = {}
    try:
        with open(os.path.join(folder, "tags", "tag-bench.txt")) as f:
            for line in f:
                m = TAGLINE.match(line)
                if m:
                    key = (int(m["depth"]), int(m["hold"]), int(m["threads"]))
                    runs.setdefault(key, {}).setdefault(m["impl"], []).append(int(m["kops"]))
    except FileNotFoundError:
        return []
    out = [f"{'depth':>5} {'hold':>4} {'threads':>7} {'blk_mq_tag kops/s':>17} "
           f"{'sbitmap kops/s':>14} {'ratio':>5}"]
    for (depth, hold, threads), impls in sorted(runs.items()):
        ours = statistics.median(impls.get("blk_mq_tag", [0]))
        sbm = statistics.median(impls.get("sbitmap", [0]))
        ratio = f"{ours / sbm:.2f}" if sbm else "-"
        out.append(f"{depth:>5} {hold:>4} {threads:>7} {ours:>17.0f} {sbm:>14.0f} {ratio:>5}")
    return out


def plot(folder, rows):
    dat = os.path.join(folder, "iops.dat")
    series = []
    with open(dat, "w") as f:
        for kernel in ("stock", "series"):
            for mode in MODES:
                pts = [r for r in rows if r["kernel"] == kernel and r["mode"] == mode
                       and r["irqmode"] == 1 and r["engine"] == "libaio" and r["qd"] == 32]
                if not pts:
                    continue
                f.write(f"# {kernel} {mode}\n")
                for r in sorted(pts, key=lambda r: r["jobs"]):
                    f.write(f"{r['jobs']} {r['iops_median']:.0f} {r['iops_min']:.0f} {r['iops_max']:.0f}\n")
                f.write("\n\n")
                series.append(f"{kernel} {mode}")
    if not series:
        return None
    cmds = [
        "set terminal pngcairo noenhanced size 900,600" if has_cairo()
        else "set terminal png noenhanced size 900,600",
        f"set output '{os.path.join(folder, 'iops.png')}'",
        "set title 'null_blk 4k randread, libaio QD32, irqmode=1 (median, min-max)'",
        "set xlabel 'fio jobs'", "set ylabel 'IOPS'", "set key left top", "set xtics 1",
        "plot " + ", ".join(f"'{dat}' index {i} with yerrorlines title '{t}'"
                            for i, t in enumerate(series)),
    ]
    subprocess.run(["gnuplot"], input="\n".join(cmds), text=True, check=True,
                   stderr=subprocess.DEVNULL)
    return os.path.join(folder, "iops.png")


def has_cairo():
    r = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True, text=True)
    return "pngcairo" in (r.stdout + r.stderr)


def icount_table(rows):
    """Instructions per I/O.  Under -icount shift=0 a guest nanosecond is
    one instruction: 10^9 / IOPS counts all the guest ran per I/O, idle
    included (fio, the kernel, softirqs, kernel threads); fio's usr+sys
    its own threads', which the kernel scales to their exact run time.
    The guest's /proc/stat ticks are left out: under -icount an idle
    guest's clock jumps to the next timer, so ticks sample it unevenly."""
    out = [f"{'kernel':<7} {'mode':<10} {'irq':>3} {'engine':<8} {'QD':>3} "
           f"{'IOPS':>9} {'instr/IO':>9} {'fio instr/IO':>12}"]
    for r in rows:
        instr = 1e9 / r["iops_median"] if r["iops_median"] else 0
        out.append(f"{r['kernel']:<7} {r['mode']:<10} {r['irqmode']:>3} {r['engine']:<8} "
                   f"{r['qd']:>3} {r['iops_median']:>9.0f} {instr:>9.0f} "
                   f"{r['cpu_us_per_io'] * 1000:>12.0f}")
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench-report.py DIR")
    folder = sys.argv[1]
    rows = collect(folder)
    icount = collect(os.path.join(folder, "icount"))
    tags = tag_table(folder)
    if not rows and not icount and not tags:
        sys.exit("bench-report: no fio or tag results under " + folder)
    print(f"{'kernel':<7} {'mode':<10} {'irq':>3} {'engine':<8} {'QD':>3} {'jobs':>4} "
          f"{'IOPS med':>9} {'min':>8} {'max':>8} {'p50us':>7} {'p99us':>7} {'CPUus/IO':>8} "
          f"{'guest':>6} {'n':>2}")
    for r in rows:
        irq = "-" if r["irqmode"] == NO_IRQ else r["irqmode"]
        print(f"{r['kernel']:<7} {r['mode']:<10} {irq:>3} {r['engine']:<8} {r['qd']:>3} "
              f"{r['jobs']:>4} {r['iops_median']:>9.0f} {r['iops_min']:>8.0f} {r['iops_max']:>8.0f} "
              f"{r['p50_us']:>7.1f} {r['p99_us']:>7.1f} {r['cpu_us_per_io']:>8.2f} "
              f"{r['guest_us_per_io']:>6.2f} {r['repeats']:>2}")
    ratios = ratio_lines(rows)
    print()
    print("\n".join(ratios))
    if icount:
        print("\nicount: 1 vCPU, QEMU -icount shift=0 (a guest ns is one instruction),"
              " one boot per kernel:")
        print("\n".join(icount_table(icount)))
        ratios += ratio_lines(icount, "icount: ", guest_cpu=False)
        print()
        print("\n".join(r for r in ratios if r.startswith("icount: ")))
    if tags:
        print("\ntag allocator, alloc+free pairs (median of repeats):")
        print("\n".join(tags))
    with open(os.path.join(folder, "summary.json"), "w") as f:
        json.dump({"rows": rows, "icount": icount, "ratios": ratios, "tags": tags}, f,
                  indent=1)
    png = plot(folder, rows)
    print(f"\nplot: {png}" if png else "\nplot: none, no null_blk libaio QD32 rows")
    return 1 if any(r["errors"] for r in rows + icount) else 0


if __name__ == "__main__":
    sys.exit(main())
