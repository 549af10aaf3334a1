#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the emulator's layers against their DAG (emu/CMakeLists.txt,
EMU_DEPS_<layer>): fails on a back-edge.

  check_layers.py --src emu/src [--nm nm] LAYER=DEP,DEP=ARCHIVE ...

A layer reaches its dependencies and, transitively, theirs. Fails when a
file of src/<layer>/ includes "<other>/..." of a layer out of its reach,
when a directory of src/ is no layer, or when a layer's archive needs a
symbol that no archive in its reach defines but an archive out of its
reach does (a call upward that an extern declaration hid from the include
check). ARCHIVE may be omitted (LAYER=DEPS=): includes only.
"""
import argparse
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/[^"]+"', re.M)
DEFINED = set('TDBRVWGSiu')  # nm types of a definition (W/V weak)


def reach(layer, deps, seen=None):
    seen = set() if seen is None else seen
    for d in deps[layer]:
        if d not in seen:
            seen.add(d)
            reach(d, deps, seen)
    return seen


def nm_symbols(nm, archive):
    """(defined, undefined) global symbols of an archive."""
    out = subprocess.run([nm, '-g', '-P', archive], check=True, capture_output=True,
                         text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2 or line.endswith(':') or len(f[1]) != 1:
            continue
        if f[1] == 'U':
            undefined.add(f[0])
        elif f[1] in DEFINED:
            defined.add(f[0])
    return defined, undefined


def demangle(names):
    """Readable names (c++filt when there is one), in the same order."""
    try:
        out = subprocess.run(['c++filt'], input='\n'.join(names), check=True,
                             capture_output=True, text=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return list(names)
    return out if len(out) == len(names) else list(names)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--src', required=True)
    ap.add_argument('--nm', default='nm')
    ap.add_argument('layers', nargs='+', metavar='LAYER=DEPS=ARCHIVE')
    a = ap.parse_args()

    deps, archives = {}, {}
    for spec in a.layers:
        parts = spec.split('=')
        if len(parts) != 3:
            sys.exit(f'check_layers: bad layer spec {spec!r} (LAYER=DEP,DEP=ARCHIVE)')
        name, dl, archive = parts
        deps[name] = [d for d in dl.split(',') if d]
        if archive:
            archives[name] = archive
    for name, dl in deps.items():
        for d in dl:
            if d not in deps:
                sys.exit(f'check_layers: {name} depends on unknown layer {d}')
    reaches = {n: reach(n, deps) for n in deps}
    for n in deps:
        if n in reaches[n]:
            sys.exit(f'check_layers: the layers form a cycle through {n}')

    errors = []
    for entry in sorted(os.listdir(a.src)):
        path = os.path.join(a.src, entry)
        if os.path.isdir(path) and entry not in deps:
            errors.append(f'src/{entry}/: not a layer (add it to EMU_LAYERS and EMU_DEPS_{entry})')
    for layer in deps:
        ldir = os.path.join(a.src, layer)
        if not os.path.isdir(ldir):
            errors.append(f'src/{layer}/: missing')
            continue
        for fname in sorted(os.listdir(ldir)):
            if not fname.endswith(('.h', '.cc')):
                continue
            with open(os.path.join(ldir, fname), encoding='utf-8') as f:
                text = f.read()
            for m in INCLUDE.finditer(text):
                other = m.group(1)
                if other in deps and other != layer and other not in reaches[layer]:
                    line = text.count('\n', 0, m.start()) + 1
                    errors.append(f'src/{layer}/{fname}:{line}: includes {other}/, '
                                  f'which {layer} does not reach (reach: '
                                  f'{" ".join(sorted(reaches[layer])) or "none"})')

    syms = {n: nm_symbols(a.nm, p) for n, p in archives.items()}
    for layer, (defined, undefined) in syms.items():
        ok = set(defined)
        for d in reaches[layer]:
            if d in syms:
                ok |= syms[d][0]
        bad = []
        for s in sorted(undefined - ok):
            above = [n for n, (dfn, _) in syms.items() if s in dfn]
            if above:
                bad.append((s, above))
        for (s, above), name in zip(bad, demangle([s for s, _ in bad])):
            errors.append(f'{layer}: needs {name}, defined in {", ".join(sorted(above))}, '
                          f'which {layer} does not reach')

    for e in errors:
        print(e)
    if errors:
        print(f'check_layers: {len(errors)} back-edge(s) or unplaced directories')
        return 1
    print(f'check_layers: {len(deps)} layers, no back-edge '
          f'({len(archives)} archives checked)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
