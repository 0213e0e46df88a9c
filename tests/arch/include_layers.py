#!/usr/bin/env python3
"""The include graph keeps its floors: no #include points at a room on a higher (or the same,
for distinct rooms) floor. Prints the arrows that break it and exits 1; with --stats, also the
lines of code per top-level room and the largest room's share.

The floors are DESIGN.md's layout. A room here is a top-level folder, or for the rooms listed in
INNER, a subfolder of one: the same rule holds inside them."""
import os
import re
import sys
from collections import Counter

# Top-level rooms, lowest floor first. A room may include rooms of lower floors only.
FLOORS = {
    "base": 0,
    "results": 1, "locks": 1,
    "framework": 2, "gate": 2, "importers": 2,
    "suites": 3, "exporters": 3,
    "cli": 4,
}
# Rooms split into floors of their own. "." is the files directly in the room.
INNER = {
    "framework": {"measure": 0, "rt": 1, "env": 2, "readiness": 2, "trace": 3,
                  "background_load": 4, ".": 5,
                  "workload": 6},
    "gate": {"model": 0, "noise": 1, "cause": 2, "prometheus": 2, "pair": 3, "history": 3,
             "calibration": 3},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def room_of(path):
    parts = path.split("/")
    top = parts[0]
    inner = parts[1] if len(parts) > 2 else "."
    return top, inner


def sources(root):
    for top in FLOORS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".cpp", ".h", ".hpp")):
                    yield os.path.relpath(os.path.join(d, f), root)


def breaks(root):
    bad = []
    for src in sources(root):
        top, inner = room_of(src)
        with open(os.path.join(root, src), errors="replace") as f:
            text = f.read()
        for target in INCLUDE.findall(text):
            t_top, t_inner = room_of(target)
            if t_top not in FLOORS:
                continue
            if t_top != top:
                if FLOORS[t_top] >= FLOORS[top]:
                    bad.append(f"{src} -> {target} ({top} may not include {t_top})")
                continue
            floors = INNER.get(top)
            if not floors or t_inner == inner:
                continue
            if inner not in floors or t_inner not in floors:
                bad.append(f"{src} -> {target} (room {top}/{inner} or {top}/{t_inner} has no floor)")
            elif floors[t_inner] >= floors[inner]:
                bad.append(f"{src} -> {target} ({top}/{inner} may not include {top}/{t_inner})")
    return bad


def stats(root):
    lines = Counter()
    for src in sources(root):
        with open(os.path.join(root, src), errors="replace") as f:
            lines[room_of(src)[0]] += sum(1 for _ in f)
    total = sum(lines.values())
    for room, n in lines.most_common():
        print(f"{room:10} {n:6} lines {100.0 * n / total:5.1f}%")
    print(f"{'total':10} {total:6} lines")


def main():
    args = sys.argv[1:]
    root = next((a for a in args if not a.startswith("--")), ".")
    if "--stats" in args:
        stats(root)
    bad = breaks(root)
    for b in bad:
        print(b)
    print(f"{len(bad)} include(s) point at a floor that is not below")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
