#!/usr/bin/env python3
"""Products with Aᵀ and Aᴴ against A, from a compound-bench run with --ops N,T,H.

    transposes.py BENCH.json[.gz] [RERUN.json[.gz]]

One Markdown row per matrix and precision: ours_tuned for A, Aᵀ and Aᴴ (µs; ours multiplies
a tuned copy of op(A), as TunedSpmv does for apply(op, ...)), the ratio Aᴴ/A (issue 17's
target: <= 1.3), the fastest cuSPARSE form for A and for Aᴴ (cuSPARSE multiplies A with its
operation), and ours against cuSPARSE for Aᴴ. With a rerun, its Aᴴ/A ratio follows in
brackets.
"""
import gzip
import json
import math
import sys


def load(path):
    """(bench, {(name, precision, op): matrix record}), the SpMV's records (k = 1; the SpMM of
    k > 1 vectors, compound-bench --k, is spmm.py's)."""
    bench = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    runs = {}
    for m in bench["matrices"]:
        if m.get("k", 1) != 1:
            continue
        m["by_method"] = {r["method"]: r for r in m["results"]}
        runs[(m["name"], m["precision"], m.get("op", "N"))] = m
    return bench, runs


def seconds(runs, key, method):
    m = runs.get(key)
    if not m or method not in m["by_method"] or not m["by_method"][method]["ok"]:
        return None
    return m["by_method"][method]["seconds"]


def micro(s):
    return f"{s * 1e6:.2f}" if s else "–"


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    bench, runs = load(argv[1])
    rerun = load(argv[2])[1] if len(argv) == 3 else {}
    device = bench["device"]
    print(f"{device['name']}, commit {bench['commit']}, {bench['date']}, {bench['timing']['mode']} timing\n")
    print("| matrix | class | precision | ours A µs | ours Aᵀ µs | ours Aᴴ µs | Aᴴ/A | cuSPARSE A µs | cuSPARSE Aᴴ µs (form) "
          "| cuSPARSE Aᴴ / ours Aᴴ |")
    print("|" + "---|" * 10)
    pairs = sorted({(n, p) for (n, p, op) in runs if op == "H" and (n, p, "N") in runs},
                   key=lambda k: (runs[(k[0], k[1], "H")]["class"], k[0], k[1]))
    ratios = []
    for n, p in pairs:
        a, t, h = (seconds(runs, (n, p, op), "ours_tuned") for op in ("N", "T", "H"))
        ca, ch = seconds(runs, (n, p, "N"), "cusparse"), seconds(runs, (n, p, "H"), "cusparse")
        form = runs[(n, p, "H")]["by_method"].get("cusparse", {}).get("variant", "")
        ratio = h / a if a and h else None
        again = ""
        ra, rh = seconds(rerun, (n, p, "N"), "ours_tuned"), seconds(rerun, (n, p, "H"), "ours_tuned")
        if ra and rh:
            again = f" [{rh / ra:.3f}]"
        if ratio:
            ratios.append(ratio)
        print(f"| {n} | {runs[(n, p, 'H')]['class']} | {p} | {micro(a)} | {micro(t)} | {micro(h)} "
              f"| {f'{ratio:.3f}' if ratio else '–'}{again} | {micro(ca)} | {micro(ch)} ({form}) "
              f"| {f'{ch / h:.2f}' if ch and h else '–'} |")
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        within = sum(r <= 1.3 for r in ratios)
        print(f"\nGeometric mean Aᴴ/A {geo:.3f}; within 1.3: {within} of {len(ratios)}, the largest {max(ratios):.3f}.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
