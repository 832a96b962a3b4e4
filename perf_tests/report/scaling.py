#!/usr/bin/env python3
"""Strong and weak scaling of the distributed product from compound-dist-bench runs.

    scaling.py ONE.json MANY.json [MORE.json ...] [--weak SMALL=LARGE[,SMALL=LARGE...]] [--out FILE.md]
               [--csv FILE.csv] [--plot FILE.png] [--strong-target T] [--weak-target T]

ONE.json: a run on 1 rank; MANY.json: the same matrices on R ranks; MORE.json: on other rank
counts (e.g. 2, then 4), each with its own tables, CSV rows and bars. Per matrix (name, order,
precision) present in both:
  strong efficiency = t(1 rank) / (R * t(R ranks)), 1 the ideal;
  the halo fraction on R ranks (values received per product over rows), how the halo was
  exchanged (nccl, or host-staged mpi), the exchange time alone, the product's time were
  nothing overlapped (exchange + diagonal + off-diagonal products, each alone) and the
  fraction of the exchange the product hides.
--weak SMALL=LARGE pairs a matrix with one R times larger (compound-zoo's xl2 set doubles
the xl grids, xl4 quadruples them; a pair whose LARGE is not in a run is left out of that
run's table, and one in no run at all is an error): weak efficiency = t(SMALL, 1 rank) / t(LARGE, R ranks). Times are the
slowest rank's medians (product_seconds). --plot draws both efficiencies per matrix and
order as bars against the targets' lines (matplotlib, Debian python3-matplotlib); a target is
one number for every rank count, or RANKS=T per rank count ("2=0.90,4=0.80"; defaults 0.75
and 0.85). --csv writes the same per matrix, order, precision and rank count as one row (CSV_COLUMNS; times in us, the weak columns
empty where the matrix has no --weak pair). Exit 2 on
input that is not a compound-dist-bench run, or a run that is not ok.
"""
import argparse
import csv
import json
import sys

CSV_COLUMNS = ["matrix", "order", "precision", "exchange", "ranks", "one_rank_us", "ranks_us", "strong_efficiency",
               "halo_fraction", "exchange_alone_us", "without_overlap_us", "hidden_fraction",
               "weak_matrix", "weak_ranks_us", "weak_efficiency"]


def fail(message):
    print(f"scaling.py: {message}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path) as f:
            run = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        fail(f"cannot read {path}: {e}")
    if not isinstance(run, dict) or not isinstance(run.get("matrices"), list) or "ranks" not in run:
        fail(f"{path}: not a compound-dist-bench run (no 'ranks' and list 'matrices')")
    records = {}
    for m in run["matrices"]:
        try:
            key = (m["name"], m["order"], m["precision"])
            if not m["ok"]:
                fail(f"{path}: {key[0]} ({key[1]}, {key[2]}) did not match the reference: "
                     f"relative error {m['relative_error']}")
            if not m["product_seconds"] > 0:
                fail(f"{path}: {key[0]} has no positive product time")
            records[key] = m
        except KeyError as e:
            fail(f"{path}: a matrix record without {e}")
    return run, records


def report(one_path, many_path, weak_pairs, efficiencies=None, rows=None, found_pairs=None):
    """The markdown tables; `efficiencies`, when given, receives {(matrix, order, precision):
    {("strong", R): e, ("weak", R): e}} for the plot, `rows` {(matrix, order, precision, R): row}
    with CSV_COLUMNS, and `found_pairs` the weak pairs this run had."""
    found_pairs = set() if found_pairs is None else found_pairs
    efficiencies = {} if efficiencies is None else efficiencies
    rows = {} if rows is None else rows
    one, one_records = load(one_path)
    many, many_records = load(many_path)
    if one["ranks"] != 1:
        fail(f"{one_path} ran on {one['ranks']} ranks, not 1")
    ranks = many["ranks"]
    lines = [f"Strong scaling, 1 -> {ranks} ranks ({many['device']['name']}); times are the slowest rank's "
             "medians per product.", "",
             "| matrix | order | precision | 1 rank (us) | "
             f"{ranks} ranks (us) | efficiency | halo / rows | exchange | exchange alone (us) | "
             "without overlap (us) | hidden |",
             "|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|"]
    for key in sorted(set(one_records) & set(many_records)):
        a, b = one_records[key], many_records[key]
        efficiency = a["product_seconds"] / (ranks * b["product_seconds"])
        efficiencies.setdefault(key, {})[("strong", ranks)] = efficiency
        serial = b["exchange_seconds"] + b["local_seconds"] + b["remote_seconds"]
        rows[key + (ranks,)] = {"matrix": key[0], "order": key[1], "precision": key[2], "exchange": b.get("exchange", ""),
                     "ranks": ranks, "one_rank_us": f"{a['product_seconds'] * 1e6:.1f}",
                     "ranks_us": f"{b['product_seconds'] * 1e6:.1f}", "strong_efficiency": f"{efficiency:.3f}",
                     "halo_fraction": f"{b['halo_fraction']:.4f}", "exchange_alone_us": f"{b['exchange_seconds'] * 1e6:.1f}",
                     "without_overlap_us": f"{serial * 1e6:.1f}", "hidden_fraction": f"{b['hidden_fraction']:.2f}",
                     "weak_matrix": "", "weak_ranks_us": "", "weak_efficiency": ""}
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {a['product_seconds'] * 1e6:.1f} | "
                     f"{b['product_seconds'] * 1e6:.1f} | {efficiency:.2f} | {b['halo_fraction'] * 100:.2f}% | "
                     f"{b.get('exchange', '?')} | {b['exchange_seconds'] * 1e6:.1f} | {serial * 1e6:.1f} | "
                     f"{b['hidden_fraction'] * 100:.0f}% |")
    weak_pairs = [(small, large) for small, large in weak_pairs
                  if any(key[0] == large for key in many_records)]
    if weak_pairs:
        lines += ["", f"Weak scaling, 1 -> {ranks} ranks, the matrix {ranks} times larger.", "",
                  f"| matrix on 1 rank | matrix on {ranks} ranks | order | precision | 1 rank (us) | "
                  f"{ranks} ranks (us) | efficiency |", "|---|---|---|---|---:|---:|---:|"]
        for small, large in weak_pairs:
            found = False
            for key in sorted(one_records):
                if key[0] != small:
                    continue
                other = (large, key[1], key[2])
                if other not in many_records:
                    continue
                found = True
                found_pairs.add((small, large))
                a, b = one_records[key], many_records[other]
                efficiencies.setdefault(key, {})[("weak", ranks)] = a["product_seconds"] / b["product_seconds"]
                if key + (ranks,) in rows:
                    rows[key + (ranks,)].update(weak_matrix=large, weak_ranks_us=f"{b['product_seconds'] * 1e6:.1f}",
                                     weak_efficiency=f"{a['product_seconds'] / b['product_seconds']:.3f}")
                lines.append(f"| {small} | {large} | {key[1]} | {key[2]} | {a['product_seconds'] * 1e6:.1f} | "
                             f"{b['product_seconds'] * 1e6:.1f} | {a['product_seconds'] / b['product_seconds']:.2f} |")
            if not found:
                fail(f"--weak {small}={large}: no run of {small} on 1 rank in the orders of {large} on {ranks} ranks")
    return "\n".join(lines) + "\n"


def plot(efficiencies, device, targets, path):
    """Strong and weak efficiency per matrix and order and rank count, bars against the
    targets' lines (`targets`: {(kind, ranks): target})."""
    try:
        import matplotlib
    except ImportError:
        fail(f"--plot needs matplotlib, missing for {sys.executable} (Debian python3-matplotlib, scripts/setup.sh)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    keys = sorted(efficiencies)
    series = sorted({s for k in keys for s in efficiencies[k]}, key=lambda s: (s[0] != "strong", s[1]))
    width = 0.8 / max(1, len(series))
    fig, ax = plt.subplots(figsize=(max(6.0, 0.5 * len(keys) * len(series) + 2.0), 4.4))
    palette = {"strong": ["#1f77b4", "#6baed6", "#08306b"], "weak": ["#ff7f0e", "#fdae6b", "#7f2704"]}
    for i, (kind, ranks) in enumerate(series):
        colour = palette[kind][[s for s in series if s[0] == kind].index((kind, ranks)) % 3]
        xs = [j + (i - (len(series) - 1) / 2) * width for j, k in enumerate(keys) if (kind, ranks) in efficiencies[k]]
        ys = [efficiencies[k][(kind, ranks)] for k in keys if (kind, ranks) in efficiencies[k]]
        bars = ax.bar(xs, ys, width * 0.95, color=colour, label=f"{kind}, 1 -> {ranks}")
        ax.bar_label(bars, fmt="%.2f", fontsize=6, padding=1)
        ax.axhline(targets[(kind, ranks)], color=colour, linestyle="--", linewidth=1,
                   label=f"{kind} target, {ranks}: {targets[(kind, ranks)]:.2f}")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([f"{k[0]}\n{k[1]}, {k[2]}" for k in keys], fontsize=7)
    ax.set_ylim(0, 1.25)
    ax.set_ylabel("efficiency")
    ax.set_title(f"The distributed product on {device}", fontsize=9)
    ax.legend(fontsize=6, loc="upper center", ncol=4)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def targets_of(text, kind, rank_counts):
    """{(kind, R): target} from "0.9" (every R) or "2=0.90,4=0.80"."""
    try:
        if "=" not in text:
            return {(kind, r): float(text) for r in rank_counts}
        given = {int(k): float(v) for k, v in (item.split("=") for item in text.split(","))}
    except ValueError:
        fail(f"--{kind}-target: '{text}' is neither a number nor RANKS=T,RANKS=T")
    missing = [r for r in rank_counts if r not in given]
    if missing:
        fail(f"--{kind}-target: no target for {missing[0]} ranks")
    return {(kind, r): given[r] for r in rank_counts}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("one")
    parser.add_argument("many", nargs="+")
    parser.add_argument("--weak", default="")
    parser.add_argument("--out")
    parser.add_argument("--csv")
    parser.add_argument("--plot")
    parser.add_argument("--strong-target", default="0.75")
    parser.add_argument("--weak-target", default="0.85")
    args = parser.parse_args(argv[1:])
    pairs = []
    for item in filter(None, args.weak.split(",")):
        if item.count("=") != 1:
            fail(f"--weak: '{item}' is not SMALL=LARGE")
        pairs.append(tuple(item.split("=")))
    efficiencies, rows, found = {}, {}, set()
    text = "\n".join(report(args.one, many, pairs, efficiencies, rows, found) for many in args.many)
    for small, large in pairs:
        if (small, large) not in found:
            fail(f"--weak {small}={large}: {large} is in none of the runs on several ranks")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows[key] for key in sorted(rows))
    if args.plot:
        runs = [load(many)[0] for many in args.many]
        rank_counts = sorted({run["ranks"] for run in runs})
        targets = {**targets_of(args.strong_target, "strong", rank_counts),
                   **targets_of(args.weak_target, "weak", rank_counts)}
        plot(efficiencies, runs[0]["device"]["name"], targets, args.plot)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv)
