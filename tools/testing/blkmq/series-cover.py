#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The cover letter of make series, and the checkpatch findings it keeps.

usage: series-cover.py cover COVER TEXT RESULTS CHECKPATCH ALLOW BASE
       series-cover.py unallowed CHECKPATCH ALLOW

cover fills in COVER, the 0000-cover-letter.patch git format-patch
--cover-letter wrote: TEXT gives its subject (first line) and blurb;
RESULTS is the harness's results folder (the newest bench-*, else main-*,
summary.json gives the benchmark section); CHECKPATCH holds the findings
of checkpatch --strict on the patches, one "PATCH:LINE: LEVEL:TYPE:
message [FILE]" line each; ALLOW lists the findings kept on purpose, one
"TYPE FILE-GLOB reason" line each; BASE names the base.

unallowed prints the findings ALLOW does not cover and exits 1 if any.
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


def newest(results, prefix):
    runs = sorted(glob.glob(os.path.join(results, prefix + "-*", "summary.json")))
    return runs[-1] if runs else None


def benchmark(results):
    path = newest(results, "bench")
    if path:
        with open(path) as f:
            data = json.load(f)
        rows = data.get("rows", [])
        reps = max((r.get("repeats", 0) for r in rows), default=0)
        out = [f"From make bench ({os.path.basename(os.path.dirname(path))}, {reps} repeats,",
               "QEMU; compare ratios within one run, never absolute numbers), null_blk",
               "4k random reads, irqmode=1, median IOPS and CPU time per I/O:", ""]
        out += ["  " + line for line in data.get("ratios", [])]
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


def checkpatch(findings, allow):
    count = {lvl: sum(1 for x in findings if x["level"] == lvl)
             for lvl in ("ERROR", "WARNING", "CHECK")}
    out = [f"checkpatch.pl --strict on every patch: {count['ERROR']} errors, "
           f"{count['WARNING']} warnings, {count['CHECK']} checks."]
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


def unallowed(findings, allow):
    allow = load_allow(allow)
    bad = [x for x in load_findings(findings) if not allowed_by(x, allow)]
    for x in bad:
        print(f"{x['patch']}:{x['line']}: {x['level']}:{x['type']}: {x['msg']} [{x['file']}]")
    return 1 if bad else 0


def main():
    if len(sys.argv) == 8 and sys.argv[1] == "cover":
        return cover(*sys.argv[2:])
    if len(sys.argv) == 4 and sys.argv[1] == "unallowed":
        return unallowed(*sys.argv[2:])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
