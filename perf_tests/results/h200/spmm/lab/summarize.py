#!/usr/bin/env python3
"""Tables of the SpMM lab's CSV files (spmm_lab.hpp): per matrix, entry type and k, the
fastest checked result of ours (SpMM), of our SpMV (k = 1) and of cuSPARSE's forms, and
for a second run the ratio of each to the first.

    python3 lab/summarize.py run1.csv [run2.csv] [--tiles tiles.csv] > summary.md

--tiles adds a table of a `spmm_lab --tiles` run: per k, the fastest time with 1, 2 and 4
vectors a thread.
"""
import csv
import sys
from collections import defaultdict


def best(path):
    """{(matrix, entry): {(method, k): (seconds, variant)}}, fastest checked result each."""
    table = defaultdict(dict)
    for r in csv.DictReader(open(path)):
        if r["ok"] != "1":
            continue
        key, mk, s = (r["matrix"], r["entry"]), (r["method"], int(r["k"])), float(r["seconds"])
        if mk not in table[key] or s < table[key][mk][0]:
            table[key][mk] = (s, r["variant"])
    return table


def main(paths):
    runs = [best(p) for p in paths]
    first = runs[0]
    print(f"# SpMM lab: {paths[0]}\n")
    print("Per vector: SpMM time / k. 'x SpMV': one SpMV's time (ours, fastest of the grid) over the per-vector")
    print("time. 'vs cuSPARSE': cuSPARSE's fastest SpMM form for that k over ours (> 1: ours faster).\n")
    print("| matrix | entry | k | ours SpMM (us) | per vector (us) | x SpMV | ours' variant | cuSPARSE (us) | its form | vs cuSPARSE |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (m, e), d in first.items():
        spmv = d[("ours_spmv", 1)][0]
        for k in sorted({k for (meth, k) in d if meth == "ours_spmm"}):
            o = d[("ours_spmm", k)]
            c = d.get(("cusparse", k))
            cu = f"{c[0] * 1e6:.1f} | {c[1]} | {c[0] / o[0]:.2f}" if c else "- | - | -"
            print(f"| {m} | {e} | {k} | {o[0] * 1e6:.1f} | {o[0] * 1e6 / k:.1f} | {spmv * k / o[0]:.2f} | {o[1]} | {cu} |")
        print(f"| {m} | {e} | SpMV | {spmv * 1e6:.1f} | | | {d[('ours_spmv', 1)][1]} | | | |")
    for path, run in zip(paths[1:], runs[1:]):
        print(f"\n## {path} against {paths[0]}: each method's fastest time, run / first run\n")
        print("| matrix | entry | k | ours SpMM | cuSPARSE | ours SpMV |")
        print("|---|---|---|---|---|---|")
        for (m, e), d in first.items():
            r = run.get((m, e), {})
            for k in sorted({k for (meth, k) in d if meth == "ours_spmm"}):
                cells = []
                for meth in ("ours_spmm", "cusparse", "ours_spmv"):
                    a, b = d.get((meth, k)), r.get((meth, k))
                    cells.append(f"{b[0] / a[0]:.3f}" if a and b else "")
                print(f"| {m} | {e} | {k} | " + " | ".join(cells) + " |")


def tiles(path):
    """The table of a --tiles run: fastest checked time per vectors-a-thread count."""
    table = defaultdict(dict)
    for r in csv.DictReader(open(path)):
        if r["ok"] != "1":
            continue
        kind = "spmv" if r["method"] == "ours_spmv" else "v" + r["variant"].split(".v")[-1]
        key, tk, s = (r["matrix"], r["entry"]), (kind, int(r["k"])), float(r["seconds"])
        if tk not in table[key] or s < table[key][tk]:
            table[key][tk] = s
    print(f"\n## {path}: 1, 2 or 4 vectors a thread (`spmm_lab --tiles --no-cusparse --ks 2,4,8,16`)\n")
    print("Fastest checked time (us) per vectors-a-thread count, blank where none of its candidates was")
    print("among the three fastest of that k; 'x SpMV' is one SpMV's time (same run) times k over the fastest.\n")
    print("| matrix | entry | k | 1 a thread | 2 a thread | 4 a thread | x SpMV |")
    print("|---|---|---|---|---|---|---|")
    for (m, e), d in table.items():
        spmv = d[("spmv", 1)]
        for k in sorted({k for (kind, k) in d if kind != "spmv"}):
            cells = [f"{d[(t, k)] * 1e6:.1f}" if (t, k) in d else "" for t in ("v1", "v2", "v4")]
            fastest = min(d[(t, k)] for t in ("v1", "v2", "v4") if (t, k) in d)
            print(f"| {m} | {e} | {k} | " + " | ".join(cells) + f" | {spmv * k / fastest:.2f} |")


if __name__ == "__main__":
    args = sys.argv[1:]
    tiles_path = None
    if "--tiles" in args:
        i = args.index("--tiles")
        tiles_path = args[i + 1]
        del args[i : i + 2]
    main(args)
    if tiles_path:
        tiles(tiles_path)
