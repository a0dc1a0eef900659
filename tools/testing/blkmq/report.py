#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the main job's fio JSON files into one table and one summary file.

usage: report.py DIR KERNEL
Reads DIR/fio-<mode>-<jobs>.json, prints a table, writes DIR/summary.json.
"""
import glob
import json
import os
import re
import sys

MODE_ORDER = {"bio": 0, "request_fn": 1, "mq": 2}


def load(path):
    """fio may print warnings before the JSON document; skip them."""
    with open(path) as f:
        text = f.read()
    return json.loads(text[text.index("{"):])


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: report.py DIR KERNEL")
    folder, kernel = sys.argv[1], sys.argv[2]
    rows = []
    for path in glob.glob(os.path.join(folder, "fio-*.json")):
        m = re.match(r"fio-(.+)-(\d+)\.json$", os.path.basename(path))
        if not m:
            continue
        job = load(path)["jobs"][0]
        rows.append({
            "kernel": kernel,
            "mode": m.group(1),
            "jobs": int(m.group(2)),
            "iops": job["read"]["iops"] + job["write"]["iops"],
            "usr": job["usr_cpu"],
            "sys": job["sys_cpu"],
            "errors": job["error"],
        })
    if not rows:
        sys.exit("report: no fio results in " + folder)
    rows.sort(key=lambda r: (MODE_ORDER.get(r["mode"], 9), r["jobs"]))
    print(f"{'kernel':<8} {'mode':<11} {'jobs':>4} {'IOPS':>10} {'usr%':>6} {'sys%':>6}")
    for r in rows:
        print(f"{r['kernel']:<8} {r['mode']:<11} {r['jobs']:>4} {r['iops']:>10.0f}"
              f" {r['usr']:>6.1f} {r['sys']:>6.1f}")
    with open(os.path.join(folder, "summary.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return 1 if any(r["errors"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
