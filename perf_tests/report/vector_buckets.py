#!/usr/bin/env python3
"""What several vectors at once buy, from a tuning database measured with compound-tune --k
(issue 17's vector buckets): per record (matrix, entry type, precision), the fastest passing
measurement at each k, its time per vector, and how many times faster per vector that is than
the record's fastest SpMV (k = 1): one SpMV's time / (the k-vector product's time / k). Then
what compound-tune --spmm-layouts N would give up: the fastest SpMM on the N matrix layouts
fastest at k = 1 over the fastest SpMM, the worst record per k; and, per multivector layout,
where a product of more vectors costs more per vector than one of fewer (where running k
vectors as several products of fewer would pay).

    vector_buckets.py DB.json[.gz] [--device NAME] [--out FILE.md] [--plot FILE.png]

--plot draws the per-vector ratios against k: one panel per entry class, a line per record
(solid double, dashed float, dotted mixed), the class's geometric mean in bold, and the lines
where a product of k vectors costs one SpMV (ratio k) and where it gains nothing (ratio 1).
Every number comes from one device's records: a database that holds several devices'
(tuning/sm_90.json: an H200's and an H100's) needs --device NAME, and is otherwise refused
with the devices it holds. A record without a passing SpMV measurement is reported without
ratios (and not drawn)."""
import argparse
import math

from launch_bounds import emit, load, records_of_device


def fastest_per_k(record):
    """{k: (seconds, variant)} over the record's measurements that passed."""
    best = {}
    for m in record.get("measurements", []):
        if not m.get("ok"):
            continue
        k = int(m.get("k", 1))
        if k not in best or m["seconds"] < best[k][0]:
            best[k] = (m["seconds"], m["variant"])
    return best


def layout_of(variant):
    """The matrix layout ("outer.inner") of a variant name."""
    return ".".join(variant.split(".")[:2])


def restricted_loss(record, n):
    """{k > 1: the fastest time at k on the n matrix layouts fastest at k = 1, over the
    fastest at k}: what compound-tune --spmm-layouts n gives up on this record (None
    without a passing SpMV)."""
    per_k = {}
    for m in record.get("measurements", []):
        if m.get("ok"):
            layouts = per_k.setdefault(int(m.get("k", 1)), {})
            layout = layout_of(m["variant"])
            layouts[layout] = min(layouts.get(layout, math.inf), m["seconds"])
    if 1 not in per_k:
        return None
    kept = sorted(per_k[1], key=per_k[1].get)[:n]
    losses = {}
    for k, layouts in per_k.items():
        on_kept = [layouts[lay] for lay in kept if lay in layouts]
        if k > 1:
            losses[k] = (min(on_kept) if on_kept else math.inf) / min(layouts.values())
    return losses


def fewer_vectors_faster(record, margin=1.02):
    """[(multivector layout, k, ratio, j)]: where the fastest product of k vectors in that
    multivector layout (a variant name's third part: aos, soa) costs more per vector than the
    fastest of j < k vectors in it, by more than `margin`; ratio = that time per vector over
    the smaller bucket's best. There, k vectors run as k / j products of j would be faster."""
    best = {}
    for m in record.get("measurements", []):
        if m.get("ok"):
            key = (m["variant"].split(".")[2], int(m.get("k", 1)))
            best[key] = min(best.get(key, math.inf), m["seconds"] / key[1])
    found = []
    for (layout, k), per_vector in sorted(best.items()):
        smaller = {j: t for (lay, j), t in best.items() if lay == layout and j < k}
        if smaller:
            j = min(smaller, key=smaller.get)
            if per_vector > margin * smaller[j]:
                found.append((layout, k, per_vector / smaller[j], j))
    return found


def per_vector_ratios(best):
    """{k: one SpMV's time / (the k-vector product's time / k)} from fastest_per_k's result;
    empty without a passing SpMV (k = 1)."""
    if 1 not in best:
        return {}
    return {k: best[1][0] / (seconds / k) for k, (seconds, _) in best.items()}


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def report(db):
    records = db.get("matrices", [])
    if not records:
        raise SystemExit("vector_buckets.py: the database has no record")
    ks = sorted({k for r in records for k in fastest_per_k(r)})
    device = db.get("device", {}).get("name", "unknown device")
    lines = [f"# Vector buckets of {len(records)} records ({device})", "",
             "Per vector: one SpMV's time / (the k-vector product's time / k); the fastest passing",
             "measurement at each k.", "",
             "| matrix | entry | precision | rows | non-zeros | " + " | ".join(f"k = {k}" for k in ks) +
             " | tuning s |",
             "|---|---|---|---|---|" + "---|" * len(ks) + "---|"]
    speedups = {k: [] for k in ks}
    winners = []
    for r in records:
        f = r.get("features", {})
        best = fastest_per_k(r)
        ratios = per_vector_ratios(best)
        cells = []
        for k in ks:
            if k not in best:
                cells.append("-")
            elif k not in ratios:
                cells.append(f"{best[k][0] * 1e6:.1f} µs")
            else:
                speedups[k].append(ratios[k])
                cells.append(f"{best[k][0] * 1e6:.1f} µs ({ratios[k]:.2f}x)")
        lines.append(f"| {r.get('name', '?')} | {f.get('entry_type', '?')} | {f.get('precision', '?')} | "
                     f"{f.get('rows', '?')} | {f.get('nnz', '?')} | " + " | ".join(cells) +
                     f" | {r.get('tuning_seconds', float('nan')):.0f} |")
        winners.append((r.get("name", "?"), f.get("precision", "?"), best))
    lines += ["", "Geometric mean of the per-vector ratios: " +
              ", ".join(f"k = {k}: {geomean(speedups[k]):.2f}" for k in ks if speedups[k]) + ".", "",
              "The SpMM searched only on the N matrix layouts fastest at k = 1 (compound-tune",
              "--spmm-layouts N): its fastest time over the fastest of all, worst over the records:", ""]
    for n in (1, 2, 4, 6):
        worst = {}
        for r in records:
            for k, loss in (restricted_loss(r, n) or {}).items():
                worst[k] = max(worst.get(k, 1.0), loss)
        if worst:
            lines.append(f"- N = {n}: " + ", ".join(f"k = {k} {worst[k]:.3f}" for k in sorted(worst)))
    lines += ["", "Where fewer vectors a product are faster: per multivector layout (a variant's vector",
              "layout), the fastest product of k vectors per vector over the fastest of a smaller",
              "bucket j, where over 1.02 (k vectors as k / j products of j would be faster):", ""]
    slower = [(r, fewer_vectors_faster(r)) for r in records]
    for r, found in slower:
        f = r.get("features", {})
        for layout in sorted({x[0] for x in found}):
            lines.append(f"- {r.get('name', '?')} {f.get('precision', '?')} {layout}: " +
                         ", ".join(f"k = {k} {ratio:.2f}x (k = {j})" for lay, k, ratio, j in found if lay == layout))
    if not any(found for _, found in slower):
        lines.append("- none")
    lines += ["", "Fastest variant per k:", ""]
    for name, precision, best in winners:
        lines.append(f"- {name} {precision}: " + "; ".join(f"k = {k} {best[k][1]}" for k in sorted(best)))
    return "\n".join(lines) + "\n"


PRECISION_STYLES = {"double": "-", "float": "--", "mixed": ":"}


def plot(db, path):
    """Writes the per-vector ratios against k as a PNG (see the module's help)."""
    from make_report import CLASS_PALETTE, ReportError, pyplot
    by_class = {}
    for r in db.get("matrices", []):
        ratios = per_vector_ratios(fastest_per_k(r))
        if len(ratios) > 1:  # a line needs k = 1 and a k above it
            f = r.get("features", {})
            by_class.setdefault(f.get("entry_type", "?"), []).append((f.get("precision", "?"), ratios))
    if not by_class:
        raise SystemExit("vector_buckets.py: nothing to plot: no record has a passing SpMV and a k > 1")
    classes = list(by_class)  # in the database's order of records: no list of entry classes of our own
    try:
        plt = pyplot()
    except ReportError as e:
        raise SystemExit(f"vector_buckets.py: {e}") from None
    ks = sorted({k for lines in by_class.values() for _, ratios in lines for k in ratios})
    fig, axes = plt.subplots(1, len(classes), figsize=(4.2 * len(classes) + 0.6, 4.4), sharey=True, squeeze=False)
    for i, (cls, ax) in enumerate(zip(classes, axes[0])):
        color = CLASS_PALETTE[i % len(CLASS_PALETTE)]
        for precision, ratios in by_class[cls]:
            xs = sorted(ratios)
            ax.plot(xs, [ratios[k] for k in xs], PRECISION_STYLES.get(precision, "-."), color=color, alpha=0.35,
                    linewidth=1)
        means = [(k, geomean([r[k] for _, r in by_class[cls] if k in r])) for k in ks]
        ax.plot([k for k, _ in means], [g for _, g in means], "o-", color=color, linewidth=2.5,
                label="geometric mean")
        ax.plot(ks, ks, ":", color="grey", linewidth=1, label="k (the product costs one SpMV)")
        ax.axhline(1.0, color="black", linewidth=0.8, label="1 (nothing gained)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xticks(ks)
        ax.set_xticklabels([str(k) for k in ks])
        ax.set_xlabel("vectors a product (k)")
        ax.set_title(f"{cls}: {len(by_class[cls])} records")
        ax.grid(True, which="major", alpha=0.3)
    axes[0][0].set_ylabel("one SpMV / time a vector")
    ticks = [t for t in (0.5, 1, 2, 4, 8, 16) if t <= 2 * max(ks)]
    axes[0][0].set_yticks(ticks)
    axes[0][0].set_yticklabels([f"{t:g}" for t in ticks])
    handles, labels = axes[0][-1].get_legend_handles_labels()
    handles[labels.index("geometric mean")] = plt.Line2D([], [], marker="o", color="dimgrey", linewidth=2.5)
    for precision, style in PRECISION_STYLES.items():
        if any(p == precision for lines in by_class.values() for p, _ in lines):
            handles.append(plt.Line2D([], [], linestyle=style, color="grey"))
            labels.append(precision)
    fig.legend(handles, labels, fontsize=8, loc="lower center", ncol=len(labels), frameon=False)
    device = db.get("device", {}).get("name", "unknown device")
    fig.suptitle(f"Several vectors at once, per vector: the fastest product at each k ({device})")
    fig.tight_layout(rect=(0, 0.06, 1, 1))  # the legend below the panels, clear of the lines
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("db")
    parser.add_argument("--device", help="this device's records (a database of several devices needs it)")
    parser.add_argument("--out")
    parser.add_argument("--plot", help="write the per-vector ratios against k to this PNG")
    args = parser.parse_args(argv)
    db = records_of_device(load(args.db), args.device, "vector_buckets.py")
    emit(report(db), args.out)
    if args.plot:
        plot(db, args.plot)


if __name__ == "__main__":
    main()
