#!/usr/bin/env python3
"""What several vectors at once buy, from a tuning database measured with compound-tune --k
(issue 17's vector buckets): per record (matrix, entry type, precision), the fastest passing
measurement at each k, its time per vector, and how many times faster per vector that is than
the record's fastest SpMV (k = 1): one SpMV's time / (the k-vector product's time / k). Then
what compound-tune --spmm-layouts N would give up: the fastest SpMM on the N matrix layouts
fastest at k = 1 over the fastest SpMM, the worst record per k; and, per multivector layout,
where a product of more vectors costs more per vector than one of fewer (where running k
vectors as several products of fewer would pay).

    vector_buckets.py DB.json[.gz] [--out FILE.md]

Every number comes from one database, so from one tuning run on one device. A record
without a passing SpMV measurement is reported without ratios."""
import argparse
import math

from launch_bounds import emit, load


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
        spmv = best.get(1, (None, None))[0]
        cells = []
        for k in ks:
            if k not in best:
                cells.append("-")
            elif spmv is None:
                cells.append(f"{best[k][0] * 1e6:.1f} µs")
            else:
                per_vector = spmv / (best[k][0] / k)
                speedups[k].append(per_vector)
                cells.append(f"{best[k][0] * 1e6:.1f} µs ({per_vector:.2f}x)")
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("db")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    emit(report(load(args.db)), args.out)


if __name__ == "__main__":
    main()
