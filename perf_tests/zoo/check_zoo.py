#!/usr/bin/env python3
"""Checks a compound-zoo output directory: every matrix index.json lists exists,
its Matrix Market header matches the class, its structure is grid, mesh or
irregular, and the sizes, non-zero count and row statistics recomputed from the
file equal those in index.json (for binary CSR files, the xl scale's: the header's
sizes and the file's length). Every .mtx and .csrb file in the directory must be listed.
Exits non-zero with a message on the first mismatch.

The classes and their component counts come from the variant space
(variant_space.py; a class is also its Matrix Market field name).
--expect-structures names structures that must have a matrix; --irregular-ratio R
requires, for every class of --expect-classes, an irregular matrix whose longest
row holds at least R times the median row's non-zeros.

usage: check_zoo.py DIR [--expect-classes complex,quaternion,block3]
                        [--expect-structures grid,irregular] [--irregular-ratio 1000]
                        [--variant-space FILE]
"""
import argparse
import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report"))
import variant_space  # noqa: E402  (perf_tests/report/variant_space.py)

STRUCTURES = ("grid", "mesh", "irregular")  # docs/zoo.md


def check_binary_header(path, m, components):
    """A binary CSR file (the xl scale): its header against index.json and its size
    against its header. Its arrays (offsets, columns, finite values) are checked by
    the C++ reader (compound_sparse/io/binary_csr.hpp) when a tool loads it; the row
    statistics are not recomputed here (50M+ non-zeros)."""
    with open(path, "rb") as f:
        header = f.read(40)
    if len(header) != 40 or header[:8] != b"CSRBIN1\n":
        fail(f"{path}: not a binary CSR file")
    comps, scalar_bytes, rows, cols, nnz = struct.unpack("<IIqqq", header[8:])
    got = {"components": comps, "rows": rows, "columns": cols, "nonzeros": nnz}
    want = {"components": components, "rows": m["rows"], "columns": m["columns"], "nonzeros": m["nonzeros"]}
    for key in got:
        if got[key] != want[key]:
            fail(f"{m['name']}: index.json (and its class) say {key} = {want[key]}, the file has {got[key]}")
    size = 40 + 4 * (rows + 1) + nnz * (4 + scalar_bytes * comps)
    if os.path.getsize(path) != size:
        fail(f"{path}: {os.path.getsize(path)} bytes, its header needs {size}")
    print(f"check_zoo: {m['name']}: {m['class']} {m['structure']} {rows} x {cols}, {nnz} non-zeros "
          "(binary CSR: header and size): ok")


def fail(message):
    print("check_zoo: " + message, file=sys.stderr)
    sys.exit(1)


def quartiles(values):
    """min, q1, median, q3, max with q = v[floor(q (n - 1))] (docs/zoo.md)."""
    if not values:
        return {"min": 0, "q1": 0, "median": 0, "q3": 0, "max": 0}
    v = sorted(values)
    n = len(v)
    return {"min": v[0], "q1": v[(n - 1) // 4], "median": v[2 * (n - 1) // 4], "q3": v[3 * (n - 1) // 4],
            "max": v[-1]}


def read_pattern(path, field, components):
    """Returns rows, cols, symmetry and the set of (row, col) positions of the full matrix."""
    with open(path) as f:
        banner = f.readline().split()
        if banner[:3] != ["%%MatrixMarket", "matrix", "coordinate"] or len(banner) != 5:
            fail(f"{path}: bad banner {banner}")
        if banner[3] != field:
            fail(f"{path}: field {banner[3]}, expected {field}")
        symmetry = banner[4]
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        rows, cols, stored = (int(x) for x in line.split())
        positions = set()
        count = 0
        for line in f:
            if not line.strip() or line.startswith("%"):
                continue
            parts = line.split()
            if len(parts) != 2 + components:
                fail(f"{path}: line with {len(parts)} fields, expected {2 + components}")
            [float(x) for x in parts[2:]]
            i, j = int(parts[0]) - 1, int(parts[1]) - 1
            if not (0 <= i < rows and 0 <= j < cols):
                fail(f"{path}: entry ({i + 1}, {j + 1}) outside {rows} x {cols}")
            if symmetry != "general" and i < j:
                fail(f"{path}: entry above the diagonal in a {symmetry} file")
            for p in [(i, j)] + ([(j, i)] if symmetry != "general" and i != j else []):
                if p in positions:
                    fail(f"{path}: duplicate entry {p}")
                positions.add(p)
            count += 1
        if count != stored:
            fail(f"{path}: {count} entries, header says {stored}")
    return rows, cols, symmetry, positions


def main():
    ap = argparse.ArgumentParser(description="Checks a compound-zoo output directory against its index.json.")
    ap.add_argument("directory")
    ap.add_argument("--expect-classes", default="", help="comma-separated classes that must have a matrix")
    ap.add_argument("--expect-structures", default="", help="comma-separated structures that must have a matrix")
    ap.add_argument("--irregular-ratio", type=float,
                    help="each expected class needs an irregular matrix with max/median non-zeros per row >= this")
    ap.add_argument("--variant-space", help="variant_space.json (default: see variant_space.py)")
    args = ap.parse_args()
    directory = args.directory
    expect = [c for c in args.expect_classes.split(",") if c]
    expect_structures = [s for s in args.expect_structures.split(",") if s]
    for s in expect_structures:
        if s not in STRUCTURES:
            fail(f"--expect-structures: unknown structure {s} (one of {', '.join(STRUCTURES)})")
    components_of = variant_space.components_of_class(variant_space.load(args.variant_space))
    with open(os.path.join(directory, "index.json")) as f:
        index = json.load(f)
    listed = set()
    for m in index["matrices"]:
        name = m["name"]
        if m["class"] not in components_of:
            fail(f"{name}: unknown class {m['class']} (the variant space has {', '.join(components_of)})")
        if m.get("structure") not in STRUCTURES:
            fail(f"{name}: structure {m.get('structure', '(missing)')}, expected one of {', '.join(STRUCTURES)}")
        field, components = m["class"], components_of[m["class"]]
        listed.add(m["file"])
        if m["file"].endswith(".csrb"):
            check_binary_header(os.path.join(directory, m["file"]), m, components)
            continue
        rows, cols, symmetry, positions = read_pattern(os.path.join(directory, m["file"]), field, components)
        got = {"rows": rows, "columns": cols, "nonzeros": len(positions), "symmetry": symmetry, "field": field}
        for key, value in got.items():
            if m[key] != value:
                fail(f"{name}: index.json says {key} = {m[key]}, the file has {value}")
        per_row = [[] for _ in range(rows)]
        for i, j in positions:
            per_row[i].append(j)
        nnz = [len(c) for c in per_row]
        band = [max((abs(j - i) for j in c), default=0) for i, c in enumerate(per_row)]
        for key, values in (("nonzeros_per_row", nnz), ("bandwidth_per_row", band)):
            if m[key] != quartiles(values):
                fail(f"{name}: index.json {key} = {m[key]}, recomputed {quartiles(values)}")
        print(f"check_zoo: {name}: {m['class']} {m['structure']} {rows} x {cols}, {len(positions)} non-zeros: ok")
    on_disk = {f for f in os.listdir(directory) if f.endswith((".mtx", ".csrb"))}
    if on_disk != listed:
        fail(f"files and index.json differ: unlisted {sorted(on_disk - listed)}, missing {sorted(listed - on_disk)}")
    for c in expect:
        if not any(m["class"] == c for m in index["matrices"]):
            fail(f"no matrix of class {c}")
    for s in expect_structures:
        if not any(m["structure"] == s for m in index["matrices"]):
            fail(f"no matrix of structure {s}")
    if args.irregular_ratio is not None:
        for c in expect:
            # The row statistics were checked against the files above.
            ratios = [m["nonzeros_per_row"]["max"] / max(m["nonzeros_per_row"]["median"], 1)
                      for m in index["matrices"] if m["class"] == c and m["structure"] == "irregular"]
            if not ratios or max(ratios) < args.irregular_ratio:
                fail(f"class {c}: no irregular matrix with max/median non-zeros per row >= {args.irregular_ratio:g} "
                     f"(largest: {max(ratios, default=0):g})")
    print(f"check_zoo: {len(listed)} matrices ok")


if __name__ == "__main__":
    main()
