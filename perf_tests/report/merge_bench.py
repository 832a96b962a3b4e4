#!/usr/bin/env python3
"""Merge compound-bench runs of one build on one device into one bench.json, for a set of
matrices too large for one process in one sitting (the xl set beside the tuning zoo: a
device session's calls are limited to ten minutes each).

    merge_bench.py OUT.json RUN [RUN ...] [--allow-commits A,B]

Each RUN is a bench.json (or .json.gz, or a directory holding one). The runs must agree on
the source commit, the device (name, compute capability), the timing settings, the search,
and the compiled entry classes and layouts: otherwise their ratios were not measured
alike, and the merge stops with the reason (exit 2). A matrix and precision measured in
two runs is refused too (which would be the result?); an SpMM record (compound-bench --k,
"k" > 1) is its own pair, as a product with A^T or A^H is. --allow-commits accepts runs of the
listed commits, for a change that does not touch what is timed (say, how the search drops
slow candidates); the merged "commit" then names them all, joined by "+".

A RUN may itself be a merged file (a pair added later to a merged run): each of its
commits must then be allowed, and its "merged_from" entries are carried over.

The merged file holds every run's matrices and skipped entries in the order given. Each
matrix keeps its own ratios: ours and every baseline of it were timed in the same process.
The copy and read bandwidths (the roofs the report's "% of copy" divides by) are the
first run's; every run's, with its file and command, is listed under "merged_from", so the
spread between processes is on record (the report's % of copy is one roof for all).
"""
import gzip
import json
import pathlib
import sys

# What must be the same in every run for their results to sit in one table.
MUST_AGREE = ("search", "timing", "entry_classes", "outer_layouts")
DEVICE_MUST_AGREE = ("name", "compute_capability", "backend")


def fail(message):
    print(f"merge_bench.py: {message}", file=sys.stderr)
    sys.exit(2)


def load(path):
    path = pathlib.Path(path)
    if path.is_dir():
        candidates = [path / "bench.json", path / "bench.json.gz"]
        found = [c for c in candidates if c.exists()]
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


def merge(runs, allowed_commits=()):
    """runs: [(path, bench)] -> the merged bench dict; allowed_commits: commits that may differ."""
    first_path, first = runs[0]
    merged = {k: v for k, v in first.items() if k not in ("matrices", "skipped")}
    merged["matrices"] = []
    merged["skipped"] = []
    merged["merged_from"] = []
    seen = {}
    commits = []
    for path, bench in runs:
        commit = bench.get("commit")
        # A merged file names its runs' commits joined by "+": each must be allowed.
        parts = str(commit).split("+") if "merged_from" in bench else [commit]
        if allowed_commits:
            for part in parts:
                if part not in allowed_commits:
                    fail(f"{path}: commit '{part}' is not one of --allow-commits {','.join(allowed_commits)}")
        elif commit != first.get("commit"):
            fail(f"{path}: 'commit' is {json.dumps(commit)}, but {first_path} has "
                 f"{json.dumps(first.get('commit'))}: not measured alike (--allow-commits if the change is not "
                 "in what is timed)")
        commits.extend(part for part in parts if part not in commits)
        for key in MUST_AGREE:
            if bench.get(key) != first.get(key):
                fail(f"{path}: '{key}' is {json.dumps(bench.get(key))}, but {first_path} has "
                     f"{json.dumps(first.get(key))}: not measured alike")
        device, first_device = bench.get("device", {}), first.get("device", {})
        for key in DEVICE_MUST_AGREE:
            if device.get(key) != first_device.get(key):
                fail(f"{path}: device {key} '{device.get(key)}', but {first_path} has '{first_device.get(key)}'")
        for m in bench["matrices"]:
            pair = (m.get("name"), m.get("precision"), m.get("op", "N"), m.get("k", 1))
            if pair in seen:
                shown = pair[0] + ("" if pair[2] == "N" else "^" + pair[2]) + ("" if pair[3] == 1 else f" k={pair[3]}")
                fail(f"{path}: {shown} ({pair[1]}) is also in {seen[pair]}: which result would count?")
            seen[pair] = path
            merged["matrices"].append(m)
        merged["skipped"].extend(bench.get("skipped", []))
        if "merged_from" in bench:
            # Merged before: keep the provenance of each process it came from.
            merged["merged_from"].extend(bench["merged_from"])
            continue
        merged["merged_from"].append({
            "file": str(path),
            "commit": commit,
            "command": bench.get("command"),
            "date": bench.get("date"),
            "copy_bandwidth_bytes_per_s": bench.get("copy_bandwidth_bytes_per_s"),
            "read_bandwidth_bytes_per_s": bench.get("read_bandwidth_bytes_per_s"),
            "matrices": len(bench["matrices"]),
        })
    merged["commit"] = "+".join(str(c) for c in commits)
    return merged


def bench_text(value, depth=0, one_line_elements=False):
    """JSON as json.dump(indent=1) writes it, except that each element of a "search" list (a
    matrix's every measured variant: 13 of the 15 MB of the H200's merged run) takes one line,
    so that the file is a fifth smaller and a rerun diffs by variant."""
    pad = " " * (depth + 1)
    if isinstance(value, dict) and value:
        items = [f"{pad}{json.dumps(k)}: {bench_text(v, depth + 1, k == 'search')}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * depth + "}" + ("" if depth else "\n")
    if isinstance(value, list) and value:
        items = [pad + (json.dumps(v, separators=(",", ":")) if one_line_elements else bench_text(v, depth + 1))
                 for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * depth + "]"
    return json.dumps(value)


def main(argv):
    allowed = ()
    if "--allow-commits" in argv:
        i = argv.index("--allow-commits")
        if i + 1 >= len(argv):
            fail("--allow-commits needs a list of commits")
        allowed = tuple(c for c in argv[i + 1].split(",") if c)
        argv = argv[:i] + argv[i + 2:]
    asked = len(argv) >= 2 and argv[1] in ("-h", "--help")
    if asked or len(argv) < 3:
        print(__doc__.strip(), file=sys.stdout if asked else sys.stderr)
        sys.exit(0 if asked else 2)
    out = pathlib.Path(argv[1])
    merged = merge([load(p) for p in argv[2:]], allowed)
    out.parent.mkdir(parents=True, exist_ok=True)
    with (gzip.open(out, "wt") if out.suffix == ".gz" else open(out, "w")) as f:
        f.write(bench_text(merged))
    rates = [r["copy_bandwidth_bytes_per_s"] for r in merged["merged_from"] if r["copy_bandwidth_bytes_per_s"]]
    spread = f", copy bandwidth {min(rates) / 1e9:.0f}-{max(rates) / 1e9:.0f} GB/s" if rates else ""
    print(f"merge_bench.py: {len(merged['matrices'])} matrix runs from {len(merged['merged_from'])} files "
          f"into {out}{spread}")


if __name__ == "__main__":
    main(sys.argv)
