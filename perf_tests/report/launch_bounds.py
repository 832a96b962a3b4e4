#!/usr/bin/env python3
"""Which launch bounds a tuning database needs: the measurement behind the default GPU
launch bounds of cmake/CompoundSparseVariantSpace.cmake (issue 17's pruning).

    launch_bounds.py DB.json[.gz] [--device NAME] [--k 1|2,4,8,16] [--keep 256:1,256:2,...] [--max-loss 1.03]
                     [--out FILE.md]

Per record (matrix and precision) of the database, the fastest SpMV time of each launch-
bounds pair (threads:min_teams_per_sm) among its measurements that passed the check. A set
of pairs loses, on a record, its fastest time over the record's fastest: what selection
gives up if only those pairs were compiled (the record's next-best usable variant is then
chosen, tuning/selection.hpp). Reported:
  - how often each pair is a record's best;
  - for every size of set, the set with the smallest worst loss (ties: geometric mean);
  - the smallest set whose worst loss is at most --max-loss;
  - with --keep, that set's loss per record.
Only the database's pairs are seen: a pair never measured can be neither kept nor judged.
--k judges the measurements at those numbers of vectors instead of the SpMV's (k = 1): each
record and k is then a case, named "NAME ENTRY k=K" (the SpMM's own launch bounds,
COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS in cmake/CompoundSparseVariants.cmake).
A database that holds several devices' records (devices of one compute capability share a
file: an H200's and an H100's in tuning/sm_90.json) is judged one device at a time: --device
names it, and without it such a file is refused with the devices it holds."""
import argparse
import gzip
import itertools
import json
import math
import re
import sys

BOUNDS = re.compile(r"\.t(\d+)\.b(\d+)\.")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, json.JSONDecodeError) as e:
        raise SystemExit(f"launch_bounds.py: cannot read {path}: {e}") from None


def records_of_device(db, device=None, tool="launch_bounds.py"):
    """The database restricted to one device's records: a record names its device, or is
    the file's (its header's "device"). `device` None: the file must hold one device's records
    only; otherwise SystemExit names the devices and their record counts."""
    header = db.get("device", {}).get("name", "")
    def device_of(record):
        return record.get("device") or header
    counts = {}
    for record in db.get("matrices", []):
        counts[device_of(record)] = counts.get(device_of(record), 0) + 1
    if device is None:
        if len(counts) <= 1:
            return db
        held = ", ".join(f"{d} ({n} records)" for d, n in sorted(counts.items()))
        raise SystemExit(f"{tool}: the database holds several devices' records: {held}; choose one with --device")
    if device not in counts:
        held = ", ".join(sorted(counts)) or "none"
        raise SystemExit(f"{tool}: the database has no record of {device!r} (devices: {held})")
    kept = [r for r in db.get("matrices", []) if device_of(r) == device]
    return dict(db, matrices=kept, device=dict(db.get("device", {}), name=device))


def emit(text, out=None):
    """Writes a report to standard output, and to the file `out` when given."""
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(text)
    sys.stdout.write(text)


def pair_of(variant):
    match = BOUNDS.search(variant)
    if not match:
        raise SystemExit(f"launch_bounds.py: variant {variant!r} names no launch bounds (.tN.bM.)")
    return f"{match.group(1)}:{match.group(2)}"


def fastest_per_pair(db, ks=(1,)):
    """[(case name, {pair: fastest seconds})] over the measurements that passed at each k of
    `ks` (default the SpMV's, k = 1): a case per record and k."""
    records = []
    for record in db.get("matrices", []):
        for k in ks:
            best = {}
            for m in record.get("measurements", []):
                if not m.get("ok") or m.get("k", 1) != k:
                    continue
                pair = pair_of(m["variant"])
                best[pair] = min(best.get(pair, math.inf), m["seconds"])
            if best:
                name = record["name"] + " " + record.get("features", {}).get("entry_type", "")
                records.append((name.strip() + (f" k={k}" if ks != (1,) else ""), best))
    if not records:
        raise SystemExit("launch_bounds.py: the database has no record with a passing measurement")
    return records


def losses(records, kept):
    """Per record, the kept pairs' fastest over the record's fastest (inf: none kept was measured)."""
    out = []
    for name, best in records:
        kept_times = [best[p] for p in kept if p in best]
        out.append((name, (min(kept_times) if kept_times else math.inf) / min(best.values())))
    return out


def summary(values):
    worst = max(values)
    geomean = math.exp(sum(math.log(v) for v in values) / len(values)) if worst < math.inf else math.inf
    return worst, geomean


def report(db, keep=None, max_loss=1.03, ks=(1,)):
    records = fastest_per_pair(db, ks)
    pairs = sorted({p for _, best in records for p in best}, key=lambda p: tuple(int(x) for x in p.split(":")))
    wins = {p: 0 for p in pairs}
    for _, best in records:
        wins[min(best, key=best.get)] += 1
    lines = [f"# Launch bounds the database needs ({len(records)} records, pairs measured: {', '.join(pairs)})", "",
             "| pair | records where it is the fastest |", "|---|---|"]
    lines += [f"| {p} | {wins[p]} |" for p in pairs]
    lines += ["", "| pairs kept | best set of that size | worst loss | geometric-mean loss |", "|---|---|---|---|"]
    smallest = None
    for size in range(1, len(pairs) + 1):
        scored = [(summary([l for _, l in losses(records, s)]), s) for s in itertools.combinations(pairs, size)]
        (worst, geomean), best_set = min(scored, key=lambda t: t[0])
        lines.append(f"| {size} | {';'.join(best_set)} | {worst:.3f} | {geomean:.4f} |")
        if smallest is None and worst <= max_loss:
            smallest = (best_set, worst, geomean)
    lines.append("")
    if smallest:
        lines.append(f"Smallest set within {max_loss}x of every record's fastest: {';'.join(smallest[0])} "
                     f"(worst {smallest[1]:.3f}, geometric mean {smallest[2]:.4f}).")
    else:
        lines.append(f"No set is within {max_loss}x of every record's fastest.")
    if keep:
        unknown = [p for p in keep if p not in pairs]
        per_record = losses(records, keep)
        worst, geomean = summary([l for _, l in per_record])
        lines += ["", f"## Kept: {';'.join(keep)}" + (f" (never measured here: {', '.join(unknown)})" if unknown else ""),
                  "", f"Worst loss {worst:.3f}, geometric mean {geomean:.4f}.", "",
                  "| record | kept pairs' fastest / record's fastest |", "|---|---|"]
        lines += [f"| {name} | {l:.3f} |" for name, l in sorted(per_record, key=lambda t: -t[1])]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("db")
    parser.add_argument("--device", help="judge this device's records (a database of several devices needs it)")
    parser.add_argument("--k", default="1", help="numbers of vectors judged, e.g. 2,4,8,16 (default 1: the SpMV)")
    parser.add_argument("--keep", help="comma-separated pairs, e.g. 256:1,256:2,256:4,256:8")
    parser.add_argument("--max-loss", type=float, default=1.03)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    if not args.max_loss >= 1:
        parser.error("--max-loss is a factor >= 1")
    keep = [p.strip() for p in args.keep.split(",") if p.strip()] if args.keep else None
    for p in keep or []:
        if not re.fullmatch(r"\d+:\d+", p):
            parser.error(f"--keep: {p!r} is not threads:min_teams_per_sm")
    try:
        ks = tuple(sorted({int(k) for k in args.k.split(",") if k.strip()}))
    except ValueError:
        parser.error(f"--k: {args.k!r} is not a list of numbers of vectors")
    if not ks or min(ks) < 1:
        parser.error(f"--k: {args.k!r} is not a list of numbers of vectors")
    emit(report(records_of_device(load(args.db), args.device), keep, args.max_loss, ks), args.out)


if __name__ == "__main__":
    main()
