#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Locks per I/O from the lockstat runs of guest/lockstat.sh.

usage: lockstat-report.py DIR
Reads DIR/lock_stat-<mode>.txt and DIR/ios-<mode>.txt and prints, per
mode, every lock class taken at least once per 20 I/Os: acquisitions,
acquisitions that moved to another CPU (acq-bounces) and contentions,
each per I/O.  A lock that two CPUs share shows as bounces and
contentions; a per-CPU one shows acquisitions only.
"""
import os
import re
import sys

# "class name:  con-bounces contentions wt-min wt-max wt-total wt-avg
#  acq-bounces acquisitions ht-min ht-max ht-total ht-avg"
LINE = re.compile(r"^\s*(?P<name>\S.*?):\s+(?P<conb>\d+)\s+(?P<con>\d+)\s+"
                  r"[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+(?P<acqb>\d+)\s+(?P<acq>\d+)\s")


def classes(path):
    """Class name -> (contentions, acq-bounces, acquisitions), summed over
    the read and write lines lock_stat prints for rwlocks."""
    out = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            name = m["name"].removesuffix("-R").removesuffix("-W")
            c, b, a = out.get(name, (0, 0, 0))
            out[name] = (c + int(m["con"]), b + int(m["acqb"]), a + int(m["acq"]))
    return out


def table(folder, mode):
    try:
        with open(os.path.join(folder, f"ios-{mode}.txt")) as f:
            ios = int(f.read().strip())
        locks = classes(os.path.join(folder, f"lock_stat-{mode}.txt"))
    except (FileNotFoundError, ValueError):
        return None
    lines = [f"{mode}: {ios} I/Os",
             f"  {'lock class':<44} {'acq/IO':>8} {'bounce/IO':>9} {'contend/IO':>10}"]
    rows = [(n, c, b, a) for n, (c, b, a) in locks.items() if ios and a * 20 >= ios]
    for n, c, b, a in sorted(rows, key=lambda r: (-r[2], -r[3])):
        lines.append(f"  {n[:44]:<44} {a / ios:>8.3f} {b / ios:>9.3f} {c / ios:>10.4f}")
    return lines


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: lockstat-report.py DIR")
    found = False
    for mode in ("mq", "request_fn"):
        t = table(sys.argv[1], mode)
        if t:
            found = True
            print("\n".join(t))
            print()
    if not found:
        sys.exit("lockstat-report: no lock_stat-<mode>.txt with ios-<mode>.txt in " + sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
