#!/usr/bin/env python3
"""Mixed precision against float and double, from a compound-bench run with
--precision all (float, double and mixed pairs of the same matrices in one run).

    mixed_precision.py BENCH.json[.gz] [RERUN.json[.gz]]

One Markdown row per matrix: ours_tuned in float, mixed and double (µs), the time ratios
mixed/float (issue 17's target: <= 1.1) and mixed/double, two byte models of mixed/float,
and the relative errors of mixed and double against the bench's double reference of the
matrix each multiplies (issue 17: mixed within 10x of double's). With a rerun, the ratios
of the rerun follow in brackets.

Byte models, per matrix: "compulsory" is compound-bench's compulsory_bytes (matrix once, x
and y once); "gathers" counts, per non-zero, its entry and column index and the x value it
gathers (every gather a load from L2 or L1, none reused in registers), plus y once: on
matrices whose x gathers miss L1 the gathers, not DRAM, set the pace, and mixed gathers
double vectors.
"""
import gzip
import json
import math
import sys

# Bytes of one stored entry and of one vector element, float and double, per class.
ENTRY_COMPONENTS = {"complex": 2, "quaternion": 4, "block3": 9}
VECTOR_COMPONENTS = {"complex": 2, "quaternion": 4, "block3": 3}


def tuned(path):
    """{(name, precision): matrix record with 'tuned' (the ours_tuned result) added}."""
    bench = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    out = {}
    for m in bench["matrices"]:
        if m.get("op", "N") != "N":  # products with A^T, A^H: transposes.py
            continue
        if m.get("k", 1) != 1:  # the SpMM of k vectors (compound-bench --k): spmm.py
            continue
        results = {r["method"]: r for r in m["results"]}
        m["tuned"] = results["ours_tuned"]
        out[(m["name"], m["precision"])] = m
    return bench, out


def gather_bytes(m, vector_scalar_bytes):
    cls = m["class"]
    entry = ENTRY_COMPONENTS[cls] * 4 + 4  # float entries (float and mixed) + column index
    if m["precision"] == "double":
        entry = ENTRY_COMPONENTS[cls] * 8 + 4
    vector = VECTOR_COMPONENTS[cls] * vector_scalar_bytes
    return m["nnz"] * (entry + vector) + m["rows"] * vector


def ratios(pairs, name):
    f, x, d = (pairs[(name, p)] for p in ("float", "mixed", "double"))
    return x["tuned"]["seconds"] / f["tuned"]["seconds"], x["tuned"]["seconds"] / d["tuned"]["seconds"]


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    bench, pairs = tuned(argv[1])
    rerun = tuned(argv[2])[1] if len(argv) == 3 else None
    names = sorted({n for (n, p) in pairs if p == "mixed"}, key=lambda n: (pairs[(n, "mixed")]["class"], n))
    device = bench["device"]
    print(f"{device['name']} (CC {device['compute_capability']}), commit {bench['commit']}, {bench['date']}: "
          f"ours_tuned, {bench['timing']['mode']} timing\n")
    print("| matrix | class | structure | nnz/row | float µs | mixed µs | double µs | mixed/float | mixed/double "
          "| compulsory bytes mixed/float | gather bytes mixed/float | error mixed | error double |")
    print("|" + "---|" * 13)
    over, within = [], []
    for n in names:
        f, x, d = (pairs[(n, p)] for p in ("float", "mixed", "double"))
        mf, md = ratios(pairs, n)
        again = ""
        if rerun and all((n, p) in rerun for p in ("float", "mixed", "double")):
            rf, rd = ratios(rerun, n)
            again = (f" [{rf:.3f}]", f" [{rd:.3f}]")
        else:
            again = ("", "")
        comp = x["compulsory_bytes"] / f["compulsory_bytes"]
        gath = gather_bytes(x, 8) / gather_bytes(f, 4)
        ex, ed = x["tuned"]["relative_error"], d["tuned"]["relative_error"]
        (over if mf > 1.1 else within).append(n)
        print(f"| {n} | {x['class']} | {x['structure']} | {x['nnz'] / x['rows']:.1f} "
              f"| {f['tuned']['seconds'] * 1e6:.2f} | {x['tuned']['seconds'] * 1e6:.2f} | {d['tuned']['seconds'] * 1e6:.2f} "
              f"| {mf:.3f}{again[0]} | {md:.3f}{again[1]} | {comp:.3f} | {gath:.3f} | {ex:.2e} | {ed:.2e} |")
    geo = math.exp(sum(math.log(ratios(pairs, n)[0]) for n in names) / len(names))
    geo_d = math.exp(sum(math.log(ratios(pairs, n)[1]) for n in names) / len(names))
    print(f"\nGeometric mean: mixed/float {geo:.3f}, mixed/double {geo_d:.3f}. "
          f"Within 1.1x of float: {len(within)} of {len(names)} ({', '.join(within) or 'none'}).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
