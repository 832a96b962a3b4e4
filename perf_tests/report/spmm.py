#!/usr/bin/env python3
"""The SpMM of k vectors against one SpMV and the baselines' SpMM, from a compound-bench run
with --k (say --k 1,2,4,8,16).

    spmm.py BENCH.json[.gz]|DIR [--out FILE.md]

Per matrix and precision (entry class and precision), one Markdown table with a row per k in
the file: ours_tuned's time per vector (a product of k vectors over k; "seconds_per_vector"),
the ratio "one SpMV / per-vector SpMM" of ours (ours_tuned at k = 1 over its time per vector at
k: how much each vector gains from sharing the matrix's reads; 1 at k = 1), the fastest
cuSPARSE form at that k (its SpMV forms at k = 1, its SpMM forms above) and ours against it,
and Kokkos Kernels (its multivector spmv above k = 1) and ours against it. Ratios over 1: ours
faster. Then the geometric means per entry class, precision and k.

Only products with A (op N) are read; a record without "k" (files from before --k) is k = 1.
Mixed precision is read like the others (its baselines run the double product of the same
matrix, docs/perf.md). Exit status 0, 2 on input that is not a compound-bench run.
"""
import argparse
import gzip
import json
import math
import pathlib
import sys


def fail(message):
    print(f"spmm.py: {message}", file=sys.stderr)
    sys.exit(2)


def read_bench(path, fail):
    """(path, bench dict) of a bench.json, bench.json.gz, or a directory holding one; `fail`
    reports what is wrong (summarize.py reads its input with it too)."""
    path = pathlib.Path(path)
    if path.is_dir():
        found = [p for p in (path / "bench.json", path / "bench.json.gz") if p.exists()]
        if not found:
            fail(f"{path}: no bench.json or bench.json.gz in this directory")
        path = found[0]
    try:
        with (gzip.open(path, "rt") if path.suffix == ".gz" else open(path)) as f:
            bench = json.load(f)
    except (OSError, json.JSONDecodeError, EOFError) as e:
        fail(f"cannot read {path}: {e}")
    if not isinstance(bench, dict) or not isinstance(bench.get("matrices"), list):
        fail(f"{path}: not a compound-bench result (no list 'matrices')")
    return path, bench


def load(path):
    """The bench dict of a bench.json, bench.json.gz, or a directory holding one."""
    return read_bench(path, fail)[1]


def seconds(record, method):
    """(seconds per product, result) of a method that ran, else (None, result or None)."""
    r = next((r for r in record["results"] if r.get("method") == method), None) if record else None
    if r and r.get("ok") and r.get("seconds", 0) > 0:
        return r["seconds"], r
    return None, r


def groups(bench):
    """{(name, precision): {k: record}} of the products with A, and each pair's class."""
    out, classes = {}, {}
    for i, m in enumerate(bench["matrices"]):
        if not isinstance(m, dict) or not all(key in m for key in ("name", "precision", "results")):
            fail(f"matrices[{i}]: not a matrix record (needs name, precision, results)")
        if m.get("op", "N") != "N":  # products with A^T, A^H: transposes.py
            continue
        key = (m["name"], m["precision"])
        k = int(m.get("k", 1))
        if k in out.setdefault(key, {}):
            fail(f"{m['name']} ({m['precision']}) k = {k} is in the file twice")
        out[key][k] = m
        classes[key] = m.get("class", "unknown")
    return out, classes


def micro(s):
    return f"{s * 1e6:.2f}" if s else "–"


def ratio(x):
    return f"{x:.2f}" if x else "–"


def cell(text):
    """Markdown table cell: error texts may hold '|' or newlines."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def why(result):
    """'n/a' with the reason of a result that did not run, or '–' when there is none."""
    if result is None:
        return "–"
    error = result.get("error") or "failed"
    return "n/a (" + (error if len(error) <= 60 else error[:57] + "...") + ")"


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def matrix_rows(by_k):
    """Table rows of one matrix and precision, and {k: (spmv ratio, vs cuSPARSE, vs KK)}."""
    spmv, _ = seconds(by_k.get(1), "ours_tuned")
    rows, ratios = [], {}
    for k in sorted(by_k):
        m = by_k[k]
        ours, ours_r = seconds(m, "ours_tuned")
        cus, cus_r = seconds(m, "cusparse")
        kk, kk_r = seconds(m, "kokkos_kernels")
        gain = spmv / (ours / k) if spmv and ours else None
        vs_cus = cus / ours if cus and ours else None
        vs_kk = kk / ours if kk and ours else None
        ratios[k] = (gain, vs_cus, vs_kk)
        rows.append([str(k),
                     micro(ours / k) if ours else why(ours_r),
                     f"`{ours_r['variant']}`" if ours else "",
                     ratio(gain),
                     (f"{micro(cus / k)} (`{cus_r['variant']}`)" if cus else why(cus_r)),
                     ratio(vs_cus),
                     micro(kk / k) if kk else why(kk_r),
                     ratio(vs_kk)])
    return rows, ratios


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]


def report(bench):
    by_pair, classes = groups(bench)
    device = bench.get("device", {})
    out = [f"# SpMM: k vectors per product — {device.get('name', 'unknown device')}", "",
           f"Commit {bench.get('commit', 'unknown')}, {bench.get('date', '')}, "
           f"{bench.get('timing', {}).get('mode', 'unknown')} timing. Times per vector (µs): a product of k "
           "vectors over k. \"SpMV / per vector\": ours' one SpMV (k = 1) over ours' time per vector at k. "
           "\"vs cuSPARSE\", \"vs KK\": the baseline's time over ours at the same k (> 1: ours faster); "
           "cuSPARSE is its fastest form at that k (SpMV forms at k = 1, SpMM forms above)."]
    if not any(k > 1 for by_k in by_pair.values() for k in by_k):
        out += ["", "No SpMM results (no record with k > 1): run compound-bench with --k 1,2,4,8,16."]
    header = ["k", "ours µs/vector", "ours' variant", "SpMV / per vector", "cuSPARSE µs/vector (form)",
              "vs cuSPARSE", "KK µs/vector", "vs KK"]
    summary = {}  # (class, precision, k) -> [(gain, vs cuSPARSE, vs KK)]
    order = sorted(by_pair, key=lambda key: (classes[key], key[1], key[0]))
    for key in order:
        rows, ratios = matrix_rows(by_pair[key])
        out += ["", f"## {key[0]} ({classes[key]}, {key[1]})", ""] + table(header, rows)
        for k, r in ratios.items():
            summary.setdefault((classes[key], key[1], k), []).append(r)
    if summary:
        rows = []
        for (cls, precision, k), values in sorted(summary.items()):
            cells = []
            for i in range(3):
                present = [v[i] for v in values if v[i]]
                g = geomean(present)
                of = "" if len(present) == len(values) else f" ({len(present)} of {len(values)})"
                cells.append("–" if g is None else f"{g:.2f}{of}")
            rows.append([cls, precision, str(k), str(len(values))] + cells)
        out += ["", "## Geometric means per entry class", "",
                "Over the matrices with both results (\"n of m\" where some did not run)."]
        out += [""] + table(["class", "precision", "k", "matrices", "SpMV / per vector", "vs cuSPARSE", "vs KK"], rows)
    return "\n".join(out) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bench", help="bench.json, bench.json.gz, or a directory holding one")
    parser.add_argument("--out", help="write the Markdown here instead of stdout")
    args = parser.parse_args(argv)
    text = report(load(args.bench))
    if args.out:
        pathlib.Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
