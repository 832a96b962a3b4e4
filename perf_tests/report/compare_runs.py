#!/usr/bin/env python3
"""Compare two runs of the bench on the same device (scripts/campaign.sh's rerun stage runs it
on WORK/bench and WORK/rerun): does a rerun reproduce the first run within noise?

    compare_runs.py RUN_A RUN_B [--db-a DB] [--db-b DB] [--out FILE.md] [--noise 0.05]

RUN_A and RUN_B are run directories (bench.json or bench.json.gz, and where the run tuned,
tuning/<key>.json: the tuner's full output, docs/tuning.md); a database may also be given
directly (--db-a, --db-b, e.g. a result set's tuner_output.json.gz), and may be
gzip-compressed.
Two comparisons, both written as one Markdown page (stdout, or --out):

1. compound-bench: for every matrix, precision and method (ours tuned / default,
   cuSPARSE -- its fastest form, the report's baseline --, Kokkos Kernels) the time of B
   over the time of A; and for every cuSPARSE form the bench ran ("cusparse_forms"),
   as method "cusparse_form:<form>". Products with A^T / A^H are matrices "name^T" /
   "name^H", the SpMM of k > 1 vectors (compound-bench --k) matrices "name k=K": each is
   compared with its own kind only ("k" absent in older files: 1).
2. compound-tune: for every database record, B's best variant judged by A's own
   measurements (t_A(best_B) / t_A(best_A)) and the other way round. The two runs may
   well name different best variants when several are within noise of each other;
   what must hold is that each run's choice is within noise in the other's timing.

A ratio within 1 +- noise (default 5%) counts as reproduced. Exit status 0 always
(it reports; the reader judges), 2 on bad input.
"""
import argparse
import gzip
import json
import math
import pathlib
import statistics
import sys


def load_json(path):
    try:
        with (gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"compare_runs.py: cannot read {path}: {e}")


def find_bench(run):
    """RUN/bench.json, or RUN/bench.json.gz (a committed run, compressed)."""
    found = [p for p in (pathlib.Path(run) / "bench.json", pathlib.Path(run) / "bench.json.gz") if p.exists()]
    return found[0] if found else None


def find_database(run):
    run = pathlib.Path(run)
    dbs = sorted((run / "tuning").glob("*.json")) + sorted((run / "tuning").glob("*.json.gz"))
    return dbs[0] if dbs else None


def bench_times(bench):
    """(matrix, precision, method) -> (seconds, variant) for every ok result, and for every
    ok cuSPARSE form under method "cusparse_form:<form>" (files from before the forms have none)."""
    times = {}
    for m in bench["matrices"]:
        name = m["name"] + ("" if m.get("op", "N") == "N" else "^" + m["op"])  # products with A^T, A^H
        k = m.get("k", 1)
        name += "" if k == 1 else f" k={k}"  # the SpMM of k vectors
        for r in m["results"]:
            if r.get("ok") and r.get("seconds", 0) > 0:
                times[(name, m["precision"], r["method"])] = (r["seconds"], r.get("variant", ""))
        for f in m.get("cusparse_forms") or []:
            if f.get("ok") and f.get("seconds", 0) > 0:
                times[(name, m["precision"], "cusparse_form:" + f["variant"])] = (f["seconds"], f["variant"])
    return times


def record_times(db):
    """(name, entry type, precision) -> (best variant, {variant: seconds}), the SpMV's
    measurements only: those of the SpMM (k > 1) share its variant names."""
    records = {}
    for m in db["matrices"]:
        f = m["features"]
        seconds = {x["variant"]: x["seconds"] for x in m["measurements"]
                   if x.get("ok") and x.get("seconds", 0) > 0 and x.get("k", 1) == 1}
        records[(m["name"], f["entry_type"], f["precision"])] = (m["best"], seconds)
    return records


def summary_line(ratios, noise):
    if not ratios:
        return "no common results"
    within = sum(1 for r in ratios if abs(r - 1) <= noise)
    spread = [abs(math.log(r)) for r in ratios]
    return (f"{within} of {len(ratios)} within ±{noise:.0%}; median |log ratio| {statistics.median(spread):.3f}, "
            f"range {min(ratios):.3f} to {max(ratios):.3f}")


def compare_bench(a, b, noise):
    ta, tb = bench_times(a), bench_times(b)
    keys = sorted(set(ta) & set(tb))
    lines = ["| matrix | precision | method | A (µs) | B (µs) | B / A | variant A | variant B |",
             "|---|---|---|---|---|---|---|---|"]
    by_method = {}
    for k in keys:
        (sa, va), (sb, vb) = ta[k], tb[k]
        ratio = sb / sa
        by_method.setdefault(k[2], []).append(ratio)
        flag = "" if abs(ratio - 1) <= noise else " **"
        lines.append(f"| {k[0]} | {k[1]} | {k[2]} | {sa * 1e6:.2f} | {sb * 1e6:.2f} | {ratio:.3f}{flag} | "
                     f"`{va}` | `{vb}` |")
    only = sorted(set(ta) ^ set(tb))
    head = [f"- {method}: {summary_line(r, noise)}" for method, r in sorted(by_method.items())]
    if only:
        head.append(f"- in one run only: {', '.join('/'.join(k) for k in only)}")
    return head, lines


def compare_databases(a, b, noise):
    ra, rb = record_times(a), record_times(b)
    keys = sorted(set(ra) & set(rb))
    lines = ["| matrix | entry | precision | best A | best B | t_A(best B) / t_A(best A) | "
             "t_B(best A) / t_B(best B) |", "|---|---|---|---|---|---|---|"]
    ratios = []
    for k in keys:
        (best_a, sa), (best_b, sb) = ra[k], rb[k]
        cells = []
        for times, mine, other in ((sa, best_a, best_b), (sb, best_b, best_a)):
            if other in times and mine in times:
                r = times[other] / times[mine]
                ratios.append(r)
                cells.append(f"{r:.3f}" + ("" if r <= 1 + noise else " **"))
            else:
                cells.append("not measured")
        same = "(same)" if best_a == best_b else f"`{best_b}`"
        lines.append(f"| {k[0]} | {k[1]} | {k[2]} | `{best_a}` | {same} | {cells[0]} | {cells[1]} |")
    same_best = sum(1 for k in keys if ra[k][0] == rb[k][0])
    within = sum(1 for r in ratios if r <= 1 + noise)
    head = [f"- records in both: {len(keys)}; the same best variant in {same_best}",
            f"- each run's best judged by the other run's timing: {within} of {len(ratios)} within +{noise:.0%}"
            + (f" (worst {max(ratios):.3f})" if ratios else "")]
    return head, lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_a")
    parser.add_argument("run_b")
    parser.add_argument("--db-a", help="run A's tuning database (default: RUN_A/tuning/*.json)")
    parser.add_argument("--db-b", help="run B's tuning database (default: RUN_B/tuning/*.json)")
    parser.add_argument("--out", help="write the Markdown here instead of stdout")
    parser.add_argument("--noise", type=float, default=0.05, help="relative tolerance (default 0.05)")
    args = parser.parse_args()
    if not 0 < args.noise < 1:
        parser.error("--noise must be between 0 and 1")
    out = [f"# Run-to-run comparison\n", f"A: `{args.run_a}`  \nB: `{args.run_b}`\n"]
    bench_a, bench_b = find_bench(args.run_a), find_bench(args.run_b)
    if bench_a and bench_b:
        a, b = load_json(bench_a), load_json(bench_b)
        if a["device"].get("name") != b["device"].get("name"):
            out.append(f"**Different devices:** {a['device'].get('name')} and {b['device'].get('name')}\n")
        head, lines = compare_bench(a, b, args.noise)
        out += ["## compound-bench (B / A per result; ** outside the noise band)\n",
                f"Commits {a.get('commit')} and {b.get('commit')}; copy bandwidth "
                f"{a['copy_bandwidth_bytes_per_s'] / 1e12:.2f} and {b['copy_bandwidth_bytes_per_s'] / 1e12:.2f} TB/s.\n"]
        out += head + [""] + lines + [""]
    else:
        out.append("(no bench.json in one of the runs)\n")
    db_a = args.db_a or find_database(args.run_a)
    db_b = args.db_b or find_database(args.run_b)
    if db_a and db_b:
        head, lines = compare_databases(load_json(db_a), load_json(db_b), args.noise)
        out += ["## compound-tune (each run's best variant in the other run's measurements)\n",
                f"Databases `{db_a}` and `{db_b}`.\n"]
        out += head + [""] + lines + [""]
    else:
        out.append("(no tuning database in one of the runs)\n")
    text = "\n".join(out)
    if args.out:
        pathlib.Path(args.out).write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
