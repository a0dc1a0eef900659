#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that no driver needing the multiqueue engine builds with BLK_MQ=n.

usage: nomq-drivers.py SRC CONFIG

SRC is the series tree, CONFIG a .config made with CONFIG_BLK_MQ=n (make
check uses allyesconfig, so every driver the architecture offers is on
unless it depends on the engine).  The engine's objects are the ones
block/Makefile builds under CONFIG_BLK_MQ*; every .c file outside block/
that calls a function they export is a user.  Each user's Kconfig
symbols come from the Makefiles (its own rule, a composite object, the
folders above it).  A user whose symbols are all on in CONFIG would fail
to link: those are listed and the exit status is 1.
"""
import os
import re
import subprocess
import sys

SKIP_DIRS = ('block/', 'tools/', 'samples/', 'Documentation/', 'scripts/')
# Drivers that work without the engine and test for it themselves.
SKIP_FILES = ('drivers/block/null_blk.c',)


def makefile_rules(folder, cache={}):
    """[(lhs, [rhs tokens])] of a folder's Kbuild or Makefile."""
    if folder in cache:
        return cache[folder]
    rules = []
    for name in ('Kbuild', 'Makefile'):
        try:
            text = open(os.path.join(folder, name), errors='replace').read()
            break
        except OSError:
            continue
    else:
        cache[folder] = rules
        return rules
    text = re.sub(r'\\\n', ' ', text)
    for line in text.split('\n'):
        line = line.split('#', 1)[0]
        m = re.match(r'\s*([\w$()-]+)\s*(?::=|\+=|=)\s*(.*)', line)
        if m:
            rules.append((m.group(1), m.group(2).split()))
    cache[folder] = rules
    return rules


def cond_of(lhs):
    """'obj-$(CONFIG_X)' -> ('obj', 'X'); 'foo-y' -> ('foo', None)."""
    m = re.fullmatch(r'(.+)-\$\(CONFIG_(\w+)\)', lhs)
    if m:
        return m.group(1), m.group(2)
    m = re.fullmatch(r'(.+)-(y|objs|m)', lhs)
    if m:
        return m.group(1), None
    return None, None


def dir_conds(d, src, depth=0):
    """Kconfig symbols the folder @d (relative) is built under."""
    parent, name = os.path.split(d)
    if not parent or depth > 8:
        return []
    for lhs, rhs in makefile_rules(os.path.join(src, parent)):
        kind, sym = cond_of(lhs)
        if kind == 'obj' and (name + '/') in rhs:
            return ([sym] if sym else []) + dir_conds(parent, src, depth + 1)
    # some folders are reached from further up (e.g. arch/x86/Kbuild)
    return dir_conds(parent, src, depth + 1) if depth < 2 else []


def obj_conds(d, obj, src, depth=0):
    """Symbols an object @obj in folder @d is built under, or None."""
    if depth > 4:
        return None
    for lhs, rhs in makefile_rules(os.path.join(src, d)):
        if obj not in rhs:
            continue
        kind, sym = cond_of(lhs)
        if kind is None:
            continue
        own = [sym] if sym else []
        if kind == 'obj':
            return own + dir_conds(d, src)
        up = obj_conds(d, kind + '.o', src, depth + 1)
        if up is not None:
            return own + up
    return None


def engine_exports(src):
    objs = []
    for lhs, rhs in makefile_rules(os.path.join(src, 'block')):
        _, sym = cond_of(lhs)
        if sym and sym.startswith('BLK_MQ'):
            objs += [o for o in rhs if o.endswith('.o')]
    syms = set()
    for o in objs:
        text = open(os.path.join(src, 'block', o[:-2] + '.c')).read()
        syms.update(re.findall(r'EXPORT_SYMBOL(?:_GPL)?\((\w+)\)', text))
    return objs, syms


def main():
    src, config = sys.argv[1], sys.argv[2]
    on = set()
    for line in open(config):
        m = re.match(r'CONFIG_(\w+)=[ym]$', line.strip())
        if m:
            on.add(m.group(1))
    if 'BLK_MQ' in on:
        sys.exit(f'{config}: CONFIG_BLK_MQ is on, not a BLK_MQ=n config')
    objs, syms = engine_exports(src)
    if not syms:
        sys.exit('no exported engine functions found in block/Makefile objects')

    # grep is much faster than Python at reading 30,000 files
    out = subprocess.run(['grep', '-rlE', '--include=*.c',
                          r'\b(' + '|'.join(sorted(syms)) + r')\s*\(', '.'],
                         cwd=src, capture_output=True, text=True, check=False)
    if out.returncode > 1:
        sys.exit(f'grep failed: {out.stderr.strip()}')
    users = [u[2:] for u in out.stdout.split()
             if not u[2:].startswith(SKIP_DIRS) and u[2:] not in SKIP_FILES]

    bad, unresolved, other_arch, off = [], [], 0, 0
    for u in sorted(users):
        d, f = os.path.split(u)
        conds = obj_conds(d, f[:-2] + '.o', src)
        if conds is None or not conds:
            unresolved.append(u)
        elif all(c in on for c in conds):
            bad.append(f'{u} (CONFIG_{" CONFIG_".join(conds)})')
        elif u.startswith('arch/') and not u.startswith('arch/x86/'):
            other_arch += 1
        else:
            off += 1
    print(f'engine objects: {" ".join(objs)}; {len(syms)} exported functions')
    print(f'{len(users)} users outside block/: {off} off with BLK_MQ=n, '
          f'{other_arch} in other architectures, {len(unresolved)} unresolved, '
          f'{len(bad)} still built')
    for u in unresolved:
        print(f'unresolved (no Kconfig symbol found in the Makefiles): {u}')
    for b in bad:
        print(f'still built with BLK_MQ=n: {b}')
    return 1 if bad or unresolved else 0


if __name__ == '__main__':
    sys.exit(main())
