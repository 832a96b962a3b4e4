#!/usr/bin/env python3
"""Tables of the SpMM lab's CSV files (spmm_lab.hpp): per matrix, entry type and k, the
fastest checked result of ours (SpMM), of our SpMV (k = 1) and of cuSPARSE's forms, and
for a second run the ratio of each to the first.

    python3 lab/summarize.py run1.csv [run2.csv] > summary.md
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


if __name__ == "__main__":
    main(sys.argv[1:])
