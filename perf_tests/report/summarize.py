#!/usr/bin/env python3
"""A committed result set's summary from its compound-bench run (perf_tests/results/<kind>/).

    summarize.py BENCH.json[.gz]|DIR [--rerun BENCH.json[.gz]|DIR|bench.csv ...] [--csv FILE] [--markdown FILE]
                 [--plot FILE.png] [--plot-k FILE.png] [--slim FILE.json.gz]

--csv: one row per matrix, precision, op and k: ours tuned (the fastest variant over all layouts
and schedules), ours default (the fastest CSR-AoS-AoS variant), cuSPARSE's fastest form and
Kokkos Kernels, each in µs per product (a product of all k vectors; the ratios are the same per
vector), the ratio of each baseline's time to ours tuned's (over 1: ours faster), ours tuned's
variant and cuSPARSE's form; with --rerun, the rerun's times of ours tuned, cuSPARSE and Kokkos
Kernels. A method that did not run leaves its cells empty and its error in `failed`.

--markdown: the headline tables. Per entry class and precision, the geometric mean (and the
minimum) over the matrices of cuSPARSE's time over ours tuned's, one column per k of the run;
the same against Kokkos Kernels; the quaternions at k = 1 against cuSPARSE's real 4×4 forms
only (4×4 BSR and the expanded CSR) and its 2×2 complex BSR forms only; with --rerun, per
method and k the number of pairs whose rerun time is within ±5% of the run's and the range of
rerun / run, and the same for the speedup over cuSPARSE (the rerun's over the run's).

--plot: ours tuned over cuSPARSE's fastest form at k = 1, products with A, one point per matrix,
grouped by entry class and precision, each group's geometric mean as a bar.
--plot-k: the geometric means of the same ratio over k, one line per class and precision (for a
run with k > 1).
--slim: the run rewritten without each matrix's `search` list (every candidate's time: nearly all
of the file's bytes); everything the reports read is kept (make_report.py, spmm.py,
compare_runs.py and this script read the slim file as they read the full one).

--rerun may be given several times (a rerun made in parts), each a compound-bench run or its
bench.csv (method rows; the rows of method cusparse_form are skipped); a pair in two of them is
refused.

A record without "k" is k = 1, without "op" op N. Exit 2 on input that is not a compound-bench run.
"""
import argparse
import csv
import gzip
import json
import math
import pathlib
import sys

import spmm  # read_bench: the bench file, as spmm.py reads it

CLASSES = ["quaternion", "block3", "complex"]
PRECISIONS = ["float", "double", "mixed"]
METHODS = ["ours_tuned", "ours_default", "cusparse", "kokkos_kernels"]
NOISE = 0.05
COLUMNS = ["matrix", "class", "structure", "precision", "op", "k", "nnz",
           "ours_tuned_us", "ours_default_us", "cusparse_us", "kokkos_kernels_us",
           "speedup_vs_cusparse", "speedup_vs_kokkos_kernels", "speedup_default_vs_cusparse",
           "ours_tuned_variant", "cusparse_form",
           "rerun_ours_tuned_us", "rerun_cusparse_us", "rerun_kokkos_kernels_us", "failed"]


def fail(message):
    print(f"summarize.py: {message}", file=sys.stderr)
    sys.exit(2)


def load(path):
    """The bench dict of a bench.json, bench.json.gz, or a directory holding one."""
    path, bench = spmm.read_bench(path, fail)
    for i, m in enumerate(bench["matrices"]):
        if not isinstance(m, dict) or not all(key in m for key in ("name", "precision", "results")):
            fail(f"{path}: matrices[{i}]: not a matrix record (needs name, precision, results)")
    records(bench)  # refuses a pair measured twice
    return bench


def load_csv(path):
    """The matrix records (name, precision, op, k, results) of a compound-bench bench.csv."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"cannot read {path}: {e}")
    if not rows or not {"matrix", "precision", "method", "ok", "seconds"} <= set(rows[0]):
        fail(f"{path}: not a compound-bench bench.csv (needs matrix, precision, method, ok, seconds)")
    out = {}
    for row in rows:
        if row["method"] == "cusparse_form":
            continue
        k_ = (row["matrix"], row["precision"], row.get("op") or "N", int(row.get("k") or 1))
        m = out.setdefault(k_, {"name": k_[0], "precision": k_[1], "op": k_[2], "k": k_[3], "results": []})
        m["results"].append({"method": row["method"], "variant": row.get("variant", ""),
                             "ok": row["ok"] in ("1", "true", "True"), "seconds": float(row["seconds"] or 0)})
    return {"matrices": list(out.values())}


def load_reruns(paths):
    """The reruns' matrix records as one run; a pair twice is refused (records())."""
    matrices = []
    for path in paths:
        matrices += (load_csv(path) if str(path).endswith(".csv") else load(path))["matrices"]
    rerun = {"matrices": matrices}
    records(rerun, "the reruns")
    return rerun


def key(m):
    return (m["name"], m["precision"], m.get("op", "N"), int(m.get("k", 1)))


def records(bench, where="the file"):
    """{(name, precision, op, k): record}, in the file's order; a pair twice is an error."""
    out = {}
    for m in bench["matrices"]:
        if key(m) in out:
            fail(f"{m['name']} ({m['precision']}, op {key(m)[2]}, k = {key(m)[3]}) is in {where} twice")
        out[key(m)] = m
    return out


def result(m, method):
    """The method's result, or None."""
    return next((r for r in m["results"] if r.get("method") == method), None) if m else None


def seconds(m, method):
    """Seconds per product of a method that ran, else None."""
    r = result(m, method)
    return r["seconds"] if r and r.get("ok") and r.get("seconds", 0) > 0 else None


def ratio(base, ours):
    return base / ours if base and ours else None


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def us(s):
    return f"{s * 1e6:.3f}" if s else ""


def r3(x):
    return f"{x:.3f}" if x else ""


def csv_rows(bench, rerun=None):
    """The summary's rows (dicts of COLUMNS), in the run's order."""
    again = records(rerun) if rerun else {}
    rows = []
    for k_, m in records(bench).items():
        t = {method: seconds(m, method) for method in METHODS}
        failed = []
        for method in METHODS:
            r = result(m, method)
            if r is not None and not t[method]:
                failed.append(f"{method}: {' '.join(str(r.get('error', 'failed')).split())}")
        best = m.get("cusparse_best") or {}
        form = best.get("variant") if t["cusparse"] else ""
        if not form and t["cusparse"]:
            form = result(m, "cusparse").get("variant", "")
        other = again.get(k_)
        rows.append({
            "matrix": m["name"], "class": m.get("class", "unknown"), "structure": m.get("structure", "unknown"),
            "precision": m["precision"], "op": k_[2], "k": k_[3], "nnz": m.get("nnz", ""),
            "ours_tuned_us": us(t["ours_tuned"]), "ours_default_us": us(t["ours_default"]),
            "cusparse_us": us(t["cusparse"]), "kokkos_kernels_us": us(t["kokkos_kernels"]),
            "speedup_vs_cusparse": r3(ratio(t["cusparse"], t["ours_tuned"])),
            "speedup_vs_kokkos_kernels": r3(ratio(t["kokkos_kernels"], t["ours_tuned"])),
            "speedup_default_vs_cusparse": r3(ratio(t["cusparse"], t["ours_default"])),
            "ours_tuned_variant": (result(m, "ours_tuned") or {}).get("variant", "") if t["ours_tuned"] else "",
            "cusparse_form": form or "",
            "rerun_ours_tuned_us": us(seconds(other, "ours_tuned")),
            "rerun_cusparse_us": us(seconds(other, "cusparse")),
            "rerun_kokkos_kernels_us": us(seconds(other, "kokkos_kernels")),
            "failed": "; ".join(failed)})
    return rows


def write_csv(rows, path):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def groups(bench, op="N"):
    """{(class, precision): {k: [record]}} of the products with `op`, classes and precisions in order."""
    out = {}
    for m in bench["matrices"]:
        if m.get("op", "N") == op:
            out.setdefault((m.get("class", "unknown"), m["precision"]), {}).setdefault(int(m.get("k", 1)), []).append(m)
    order = {c: i for i, c in enumerate(CLASSES)}
    prec = {p: i for i, p in enumerate(PRECISIONS)}
    return dict(sorted(out.items(), key=lambda kv: (order.get(kv[0][0], 99), kv[0][0],
                                                     prec.get(kv[0][1], 99), kv[0][1])))


def cell(ms, base):
    """'g× (min m)' of base's time over ours tuned's, '(n of N)' where some lack one of them."""
    values = [ratio(seconds(m, base), seconds(m, "ours_tuned")) for m in ms]
    have = [v for v in values if v]
    if not have:
        return "–"
    text = f"{geomean(have):.2f}× (min {min(have):.2f})"
    return text + (f" ({len(have)} of {len(values)})" if len(have) < len(values) else "")


def ratio_table(g, base, ks):
    head = "| class | precision | matrices | " + " | ".join(f"k = {k}" for k in ks) + " |"
    out = [head, "|" + "---|" * (3 + len(ks))]
    for (cls, p), by_k in g.items():
        n = max(len(v) for v in by_k.values())
        out.append(f"| {cls} | {p} | {n} | " + " | ".join(cell(by_k.get(k, []), base) for k in ks) + " |")
    return out


def quaternion_forms(g):
    """The quaternions at k = 1 against cuSPARSE's real 4×4 forms only and its 2×2 complex forms only."""
    out = []
    for (cls, p), by_k in g.items():
        if cls != "quaternion" or 1 not in by_k:
            continue
        real, cplx = [], []
        for m in by_k[1]:
            ours = seconds(m, "ours_tuned")
            forms = {f["variant"]: f["seconds"] for f in m.get("cusparse_forms", [])
                     if f.get("ok") and f.get("seconds", 0) > 0}
            r = [s for v, s in forms.items() if "2x2complex" not in v]
            c = [s for v, s in forms.items() if "2x2complex" in v]
            real.append(ratio(min(r), ours) if r else None)
            cplx.append(ratio(min(c), ours) if c else None)
        if any(real) or any(cplx):
            fmt = lambda v: f"{geomean(v):.2f}× (min {min(x for x in v if x):.2f})" if any(v) else "–"
            out.append(f"| {p} | {len(by_k[1])} | {fmt(real)} | {fmt(cplx)} |")
    if not out:
        return []
    return ["| precision | matrices | against the real 4×4 forms (4×4 BSR, expanded CSR) | against the 2×2 complex BSR forms |",
            "|---|---|---|---|"] + out


def rerun_table(bench, rerun, noise=NOISE):
    """Per method (and for the speedup over cuSPARSE) and k: the pairs whose rerun is within ±noise of
    the run, and the range of rerun / run."""
    first = {k: m for k, m in records(bench).items() if k[2] == "N"}
    again = records(rerun)
    ks = sorted({k[3] for k in first})

    def speedup(m):
        return ratio(seconds(m, "cusparse"), seconds(m, "ours_tuned"))

    measures = [(method, lambda m, method=method: seconds(m, method))
                for method in ("ours_tuned", "cusparse", "kokkos_kernels")]
    measures.append(("speedup over cuSPARSE", speedup))
    out = ["| rerun / run | " + " | ".join(f"k = {k}" for k in ks) + " |", "|" + "---|" * (1 + len(ks))]
    for label, value in measures:
        cells = []
        for k in ks:
            ratios = [value(again.get(key_)) / value(m) for key_, m in first.items()
                      if key_[3] == k and value(m) and again.get(key_) and value(again.get(key_))]
            within = sum(1 for x in ratios if abs(x - 1) <= noise)
            cells.append(f"{within} of {len(ratios)} ({min(ratios):.3f}–{max(ratios):.3f})" if ratios else "–")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    missing = [f"{n} ({p}, op {o}, k = {k})" for (n, p, o, k) in first if (n, p, o, k) not in again]
    return out + (["", f"Not in the rerun: {', '.join(missing)}."] if missing else [])


def markdown(bench, rerun=None):
    g = groups(bench)
    ks = sorted({k for by_k in g.values() for k in by_k})
    dev = bench.get("device", {}).get("name", "unknown device")
    out = [f"Ours tuned against cuSPARSE's fastest form ({dev}; products with A): geometric mean of "
           "cuSPARSE's time over ours (over 1: ours faster), the minimum over the matrices in brackets.", ""]
    out += ratio_table(g, "cusparse", ks)
    out += ["", "Ours tuned against Kokkos Kernels, the same way.", ""] + ratio_table(g, "kokkos_kernels", ks)
    q = quaternion_forms(g)
    if q:
        out += ["", "Quaternions at k = 1 against a family of cuSPARSE's forms only (the fastest of that family).", ""] + q
    if rerun:
        out += ["", "Rerun: per pair, the rerun's time over the run's (and its speedup over cuSPARSE over the "
                "run's), products with A: pairs within ±5% (reproduced), and the range.", ""]
        out += rerun_table(bench, rerun)
    return "\n".join(out) + "\n"


def plot(bench, path):
    """Ours tuned over cuSPARSE's fastest form at k = 1, one point per matrix, per class and precision."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    g = [(c, p, [ratio(seconds(m, "cusparse"), seconds(m, "ours_tuned")) for m in by_k.get(1, [])])
         for (c, p), by_k in groups(bench).items()]
    g = [(c, p, [v for v in vals if v]) for c, p, vals in g]
    g = [x for x in g if x[2]]
    if not g:
        return False
    colours = {"float": "#1f77b4", "double": "#d62728", "mixed": "#2ca02c"}
    fig, ax = plt.subplots(figsize=(max(6.0, 1.45 * len(g) + 1.5), 4.4), dpi=110)
    ticks, labels = [], []
    x, last = 0.0, None
    for cls, p, vals in g:
        if last is not None and cls != last:
            x += 0.6
        gm = geomean(vals)
        ax.bar(x, gm, width=0.7, color=colours.get(p, "grey"), alpha=0.35)
        jitter = [((i * 0.618) % 1 - 0.5) * 0.45 for i in range(len(vals))]
        ax.scatter([x + j for j in jitter], vals, s=12, color=colours.get(p, "grey"), zorder=3)
        ax.hlines(gm, x - 0.35, x + 0.35, color=colours.get(p, "grey"), linewidth=2)
        ticks.append(x)
        labels.append(f"{cls}, {p}\n{len(vals)} matrices\n{gm:.2f}×")
        x, last = x + 1.0, cls
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    lo = min(min(v) for _, _, v in g)
    hi = max(max(v) for _, _, v in g)
    ax.set_ylim(min(0.8, lo * 0.9), hi * 1.25)
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}×"))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_yticks([t for t in (0.5, 1, 1.5, 2, 3, 5, 10) if min(0.8, lo * 0.9) <= t <= hi * 1.25])
    ax.set_xticks(ticks)
    ax.set_xticklabels(labels, fontsize=9)
    ax.set_ylabel("cuSPARSE's fastest form / ours (time)")
    ax.set_title(f"SpMV (k = 1): ours tuned over cuSPARSE's fastest form, {bench.get('device', {}).get('name', '')}\n"
                 "dots: matrices; bars (and the number below): geometric mean; above 1×: ours faster", fontsize=10)
    ax.grid(axis="y", which="major", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def plot_k(bench, path):
    """Geometric mean of cuSPARSE's fastest form over ours tuned per k, one line per class and precision."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    g = groups(bench)
    ks = sorted({k for by_k in g.values() for k in by_k})
    if len(ks) < 2:
        return False
    colours = {"quaternion": "#9467bd", "block3": "#ff7f0e", "complex": "#17becf"}
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=110)
    for (cls, p), by_k in g.items():
        pts = [(k, geomean([ratio(seconds(m, "cusparse"), seconds(m, "ours_tuned")) for m in by_k[k]]))
               for k in ks if k in by_k]
        pts = [(k, v) for k, v in pts if v]
        if pts:
            ax.plot([k for k, _ in pts], [v for _, v in pts], marker="o", color=colours.get(cls, "grey"),
                    linestyle="-" if p == "float" else "--", label=f"{cls} {p}")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xticks(ks)
    ax.set_xticklabels([str(k) for k in ks])
    ax.set_xlabel("k (vectors per product)")
    ax.set_ylabel("cuSPARSE's fastest form / ours (geometric mean)")
    ax.set_ylim(bottom=0)
    ax.set_title(f"Speedup over cuSPARSE's fastest form by k, {bench.get('device', {}).get('name', '')}", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def slim(bench, path):
    """The run without each matrix's search list, gzipped (json.dump(indent=1), as merge_bench.py)."""
    out = dict(bench)
    out["matrices"] = [{k: v for k, v in m.items() if k != "search"} for m in bench["matrices"]]
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=9) as f:
        json.dump(out, f, indent=1)
        f.write("\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description="A result set's summary.csv, headline tables and plots "
                                             "from its compound-bench run.")
    ap.add_argument("bench", metavar="BENCH_JSON_OR_DIR")
    ap.add_argument("--rerun", metavar="BENCH_JSON_OR_DIR_OR_CSV", action="append", default=[],
                    help="the same run repeated (several: its parts)")
    ap.add_argument("--csv", metavar="FILE")
    ap.add_argument("--markdown", metavar="FILE", help="the headline tables ('-': stdout)")
    ap.add_argument("--plot", metavar="FILE.png")
    ap.add_argument("--plot-k", metavar="FILE.png")
    ap.add_argument("--slim", metavar="FILE.json.gz")
    args = ap.parse_args(argv)
    bench = load(args.bench)
    rerun = load_reruns(args.rerun) if args.rerun else None
    if not (args.csv or args.markdown or args.plot or args.plot_k or args.slim):
        args.markdown = "-"
    if args.csv:
        write_csv(csv_rows(bench, rerun), args.csv)
    if args.markdown:
        text = markdown(bench, rerun)
        if args.markdown == "-":
            sys.stdout.write(text)
        else:
            pathlib.Path(args.markdown).write_text(text, encoding="utf-8")
    if args.plot and not plot(bench, args.plot):
        print("summarize.py: no k = 1 pair with both ours tuned and cuSPARSE: no plot", file=sys.stderr)
    if args.plot_k and not plot_k(bench, args.plot_k):
        print("summarize.py: the run has one k only: no plot by k", file=sys.stderr)
    if args.slim:
        slim(bench, args.slim)
    return 0


if __name__ == "__main__":
    sys.exit(main())
