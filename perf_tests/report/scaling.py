#!/usr/bin/env python3
"""Strong and weak scaling of the distributed product from compound-dist-bench runs.

    scaling.py ONE.json MANY.json [--weak SMALL=LARGE[,SMALL=LARGE...]] [--out FILE.md]
               [--csv FILE.csv] [--plot FILE.png] [--strong-target 0.75] [--weak-target 0.85]

ONE.json: a run on 1 rank; MANY.json: the same matrices on R ranks. Per matrix (name, order,
precision) present in both:
  strong efficiency = t(1 rank) / (R * t(R ranks)), 1 the ideal;
  the halo fraction on R ranks (values received per product over rows), how the halo was
  exchanged (nccl, or host-staged mpi), the exchange time alone, the product's time were
  nothing overlapped (exchange + diagonal + off-diagonal products, each alone) and the
  fraction of the exchange the product hides.
--weak SMALL=LARGE pairs a matrix with one R times larger (compound-zoo's xl2 set doubles
the xl grids): weak efficiency = t(SMALL, 1 rank) / t(LARGE, R ranks). Times are the
slowest rank's medians (product_seconds). --plot draws both efficiencies per matrix and
order as bars against the targets' lines (matplotlib, Debian python3-matplotlib). --csv writes
the same per matrix, order and precision as one row (CSV_COLUMNS; times in us, the weak columns
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


def report(one_path, many_path, weak_pairs, efficiencies=None, rows=None):
    """The markdown tables; `efficiencies`, when given, receives {(matrix, order, precision):
    {"strong": e, "weak": e}} for the plot, and `rows` {(matrix, order, precision): row} with
    CSV_COLUMNS."""
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
        efficiencies.setdefault(key, {})["strong"] = efficiency
        serial = b["exchange_seconds"] + b["local_seconds"] + b["remote_seconds"]
        rows[key] = {"matrix": key[0], "order": key[1], "precision": key[2], "exchange": b.get("exchange", ""),
                     "ranks": ranks, "one_rank_us": f"{a['product_seconds'] * 1e6:.1f}",
                     "ranks_us": f"{b['product_seconds'] * 1e6:.1f}", "strong_efficiency": f"{efficiency:.3f}",
                     "halo_fraction": f"{b['halo_fraction']:.4f}", "exchange_alone_us": f"{b['exchange_seconds'] * 1e6:.1f}",
                     "without_overlap_us": f"{serial * 1e6:.1f}", "hidden_fraction": f"{b['hidden_fraction']:.2f}",
                     "weak_matrix": "", "weak_ranks_us": "", "weak_efficiency": ""}
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {a['product_seconds'] * 1e6:.1f} | "
                     f"{b['product_seconds'] * 1e6:.1f} | {efficiency:.2f} | {b['halo_fraction'] * 100:.2f}% | "
                     f"{b.get('exchange', '?')} | {b['exchange_seconds'] * 1e6:.1f} | {serial * 1e6:.1f} | "
                     f"{b['hidden_fraction'] * 100:.0f}% |")
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
                a, b = one_records[key], many_records[other]
                efficiencies.setdefault(key, {})["weak"] = a["product_seconds"] / b["product_seconds"]
                if key in rows:
                    rows[key].update(weak_matrix=large, weak_ranks_us=f"{b['product_seconds'] * 1e6:.1f}",
                                     weak_efficiency=f"{a['product_seconds'] / b['product_seconds']:.3f}")
                lines.append(f"| {small} | {large} | {key[1]} | {key[2]} | {a['product_seconds'] * 1e6:.1f} | "
                             f"{b['product_seconds'] * 1e6:.1f} | {a['product_seconds'] / b['product_seconds']:.2f} |")
            if not found:
                fail(f"--weak {small}={large}: no run of {small} on 1 rank with {large} on {ranks} ranks")
    return "\n".join(lines) + "\n"


def plot(efficiencies, device, ranks, targets, path):
    """Strong and weak efficiency per matrix and order, bars against the targets' lines."""
    try:
        import matplotlib
    except ImportError:
        fail(f"--plot needs matplotlib, missing for {sys.executable} (Debian python3-matplotlib, scripts/setup.sh)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    keys = sorted(efficiencies)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 * len(keys) + 2.0), 4.2))
    colours = {"strong": "#1f77b4", "weak": "#ff7f0e"}
    for i, kind in enumerate(("strong", "weak")):
        xs = [j + (i - 0.5) * 0.38 for j, k in enumerate(keys) if kind in efficiencies[k]]
        ys = [efficiencies[k][kind] for k in keys if kind in efficiencies[k]]
        bars = ax.bar(xs, ys, 0.36, color=colours[kind], label=f"{kind} scaling")
        ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=1)
        ax.axhline(targets[kind], color=colours[kind], linestyle="--", linewidth=1,
                   label=f"{kind} target {targets[kind]:.2f}")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([f"{k[0]}\n{k[1]}, {k[2]}" for k in keys], fontsize=7)
    ax.set_ylim(0, 1.2)
    ax.set_ylabel(f"efficiency, 1 -> {ranks} ranks")
    ax.set_title(f"The distributed product on {device}", fontsize=9)
    ax.legend(fontsize=7, loc="upper center", ncol=4)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("one")
    parser.add_argument("many")
    parser.add_argument("--weak", default="")
    parser.add_argument("--out")
    parser.add_argument("--csv")
    parser.add_argument("--plot")
    parser.add_argument("--strong-target", type=float, default=0.75)
    parser.add_argument("--weak-target", type=float, default=0.85)
    args = parser.parse_args(argv[1:])
    pairs = []
    for item in filter(None, args.weak.split(",")):
        if item.count("=") != 1:
            fail(f"--weak: '{item}' is not SMALL=LARGE")
        pairs.append(tuple(item.split("=")))
    efficiencies, rows = {}, {}
    text = report(args.one, args.many, pairs, efficiencies, rows)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows[key] for key in sorted(rows))
    if args.plot:
        many = load(args.many)[0]
        plot(efficiencies, many["device"]["name"], many["ranks"],
             {"strong": args.strong_target, "weak": args.weak_target}, args.plot)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv)
