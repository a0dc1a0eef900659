#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The cover letter of make series, and the checkpatch findings it keeps.

usage: series-cover.py cover COVER TEXT RESULTS CHECKPATCH ALLOW BASE
       series-cover.py verify CHECKPATCH ALLOW

cover fills in COVER, the 0000-cover-letter.patch git format-patch
--cover-letter wrote: TEXT gives its subject (first line) and blurb;
RESULTS is the harness's results folder (the newest bench-*/summary.json
with fio rows gives the benchmark section, the newest with an icount part
its instructions per I/O, else the newest main-*); CHECKPATCH holds the findings
of checkpatch --strict on the patches, one "PATCH:LINE: LEVEL:TYPE:
message [FILE]" line each, and one "PATCH:0: TOTAL: checkpatch's total
line" per patch; ALLOW lists the findings kept on purpose, one "TYPE
FILE-GLOB reason" line each; BASE names the base.

verify prints "N errors, N warnings, N checks" and how many ALLOW keeps,
then every finding ALLOW does not keep; it exits 1 if there is one, or
if checkpatch's own totals are missing for a patch or differ from the
findings read.
"""
import fnmatch
import glob
import json
import os
import re
import sys
import textwrap

FINDING = re.compile(r"^(?P<patch>[^:]+):(?P<line>\d+): (?P<level>ERROR|WARNING|CHECK):"
                     r"(?P<type>[A-Z0-9_]+): (?P<msg>.*) \[(?P<file>[^\]]*)\]$")
TOTAL = re.compile(r"^(?P<patch>[^:]+):0: TOTAL: (?P<line>.*)$")
COUNTS = re.compile(r"^total: (\d+) errors, (\d+) warnings, (\d+) checks, ")
LEVELS = ("ERROR", "WARNING", "CHECK")


def newest(results, prefix):
    runs = sorted(glob.glob(os.path.join(results, prefix + "-*", "summary.json")))
    return runs[-1] if runs else None


def newest_with(results, key):
    """The newest bench-*/summary.json whose KEY is not empty, and its data."""
    for path in reversed(sorted(glob.glob(os.path.join(results, "bench-*", "summary.json")))):
        with open(path) as f:
            data = json.load(f)
        if data.get(key):
            return path, data
    return None, None


def benchmark(results):
    out = []
    path, data = newest_with(results, "rows")
    if path:
        reps = max((r.get("repeats", 0) for r in data["rows"]), default=0)
        out += [f"From make bench ({os.path.basename(os.path.dirname(path))}, {reps} repeats,",
                "QEMU; compare ratios within one run, never absolute numbers), null_blk",
                "4k random reads, irqmode=1, median IOPS and CPU time per I/O:", ""]
        out += ["  " + line for line in data.get("ratios", [])
                if not line.startswith("icount: ")]
    path, data = newest_with(results, "icount")
    if path:
        out += ([""] if out else []) + [
            f"Instructions per I/O (make bench, icount part, "
            f"{os.path.basename(os.path.dirname(path))}:",
            "one vCPU under QEMU -icount shift=0, so IOPS is 10^9 over the",
            "instructions per I/O and repeats agree to about 0.1%), irqmode=1:", ""]
        out += ["  " + line[len("icount: "):] for line in data.get("ratios", [])
                if line.startswith("icount: ")]
    if out:
        return out
    path = newest(results, "main")
    if path:
        with open(path) as f:
            rows = json.load(f)
        out = [f"From make ({os.path.basename(os.path.dirname(path))}, one fio run per row under",
               "QEMU; make bench compares stock and series properly):", "",
               f"  {'kernel':<8} {'mode':<11} {'jobs':>4} {'IOPS':>10}"]
        out += [f"  {r['kernel']:<8} {r['mode']:<11} {r['jobs']:>4} {r['iops']:>10.0f}"
                for r in rows]
        return out
    return ["No benchmark results yet: run make bench (stock vs series, the whole",
            "fio matrix) and make series again."]


def load_allow(path):
    """[(type, glob, reason)] from ALLOW."""
    allow = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    kind, pattern, reason = (line.split(None, 2) + ["", ""])[:3]
                    allow.append((kind, pattern, reason))
    return allow


def load_findings(path):
    with open(path) as f:
        return [m.groupdict() for m in map(FINDING.match, f.read().splitlines()) if m]


def allowed_by(finding, allow):
    for entry in allow:
        if finding["type"] == entry[0] and fnmatch.fnmatchcase(finding["file"], entry[1]):
            return entry
    return None


def where(x):
    return f"{x['patch'][:4]}:{x['line']}" + (f" {x['file']}" if x["file"] else "")


def counts(findings):
    """(errors, warnings, checks) among findings."""
    return tuple(sum(1 for x in findings if x["level"] == lvl) for lvl in LEVELS)


def counts_text(n):
    return f"{n[0]} errors, {n[1]} warnings, {n[2]} checks"


def checkpatch(findings, allow):
    out = [f"checkpatch.pl --strict on every patch: {counts_text(counts(findings))}."]
    kept = {}
    other = []
    for x in findings:
        entry = allowed_by(x, allow)
        if entry:
            kept.setdefault(entry, []).append(x)
        else:
            other.append(x)
    for entry in allow:
        mine = kept.get(entry)
        if not mine:
            continue
        prefix = entry[1].split("*")[0]
        files = sorted({x["file"][len(prefix):] for x in mine if x["file"]})
        out += ["", f"Kept {mine[0]['level']}:{entry[0]} ({len(mine)}x in {entry[1]}):"]
        out += textwrap.wrap(entry[2], 72, initial_indent="  ", subsequent_indent="  ")
        if len(mine) <= 10:
            out += [f"    {where(x)}: {x['msg']}" for x in mine]
        else:
            out += textwrap.wrap(f"in {len(files)} files: " + ", ".join(files), 72,
                                 initial_indent="    ", subsequent_indent="      ")
    if other:
        out += ["", "Not fixed yet (the series check fails on these):"]
        out += [f"  {where(x)}: {x['level']}:{x['type']}: {x['msg']}" for x in other]
    return out


def cover(path, text, results, findings, allow, base):
    with open(text) as f:
        lines = f.read().rstrip("\n").split("\n")
    subject, blurb = lines[0], "\n".join(lines[1:]).strip("\n")
    blurb += "\n\nBenchmark\n=========\n\n" + "\n".join(benchmark(results))
    blurb += "\n\ncheckpatch\n==========\n\n" + "\n".join(
        checkpatch(load_findings(findings), load_allow(allow)))
    blurb += f"\n\nThe series applies to Debian's {base}."
    with open(path) as f:
        letter = f.read()
    if "*** SUBJECT HERE ***" not in letter or "*** BLURB HERE ***" not in letter:
        sys.exit(f"series-cover: {path} is not a fresh git format-patch cover letter")
    letter = letter.replace("*** SUBJECT HERE ***", subject, 1)
    letter = letter.replace("*** BLURB HERE ***", blurb, 1)
    with open(path, "w") as f:
        f.write(letter)
    return 0


def totals(path):
    """Sum of checkpatch's own total lines, and the patches without one."""
    n = [0, 0, 0]
    broken = []
    with open(path) as f:
        for m in filter(None, map(TOTAL.match, f.read().splitlines())):
            c = COUNTS.match(m["line"])
            if not c:
                broken.append(m["patch"])
                continue
            n = [a + int(b) for a, b in zip(n, c.groups())]
    return tuple(n), broken


def verify(path, allow):
    allow = load_allow(allow)
    findings = load_findings(path)
    bad = [x for x in findings if not allowed_by(x, allow)]
    n = counts(findings)
    print(f"{counts_text(n)}; {len(findings) - len(bad)} kept, {len(bad)} not kept")
    for x in bad:
        print(f"{x['patch']}:{x['line']}: {x['level']}:{x['type']}: {x['msg']} [{x['file']}]")
    total, broken = totals(path)
    for p in broken:
        print(f"{p}: checkpatch did not finish (no total line)")
    if not broken and total != n:
        print(f"checkpatch's own totals ({counts_text(total)}) differ from the findings read")
        broken.append("totals")
    return 1 if bad or broken else 0


def main():
    if len(sys.argv) == 8 and sys.argv[1] == "cover":
        return cover(*sys.argv[2:])
    if len(sys.argv) == 4 and sys.argv[1] == "verify":
        return verify(*sys.argv[2:])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
