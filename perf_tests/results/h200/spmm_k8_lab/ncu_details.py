#!/usr/bin/env python3
"""One line per kernel of the k = 8 lab under Nsight Compute (gpu_spmm.sh, K8LAB_NCU=1).

    python3 ncu_details.py k8lab_ncu_MATRIX.csv[.gz] [k8lab_MATRIX.csv] > table.md

The first CSV is `ncu --csv --page details` of `coop_spmm ENTRY FILE /dev/null check` (each
product once, in the order the lab reports them, after the reference product); lines that are
not ncu's (the lab's own output) are skipped. The second, the lab's own CSV of a run on the
same matrix, names the kernels as the lab does (lanes are a run-time value: the kernel's name
alone does not tell `.l2` from `.l1`).
"""
import csv
import gzip
import re
import sys

COLUMNS = [  # (metric name in the details page, column heading)
    ("Duration", "µs"),
    ("Registers Per Thread", "registers"),
    ("Local Memory Spilling Requests", "spill requests"),
    ("Achieved Occupancy", "occupancy %"),
    ("L1/TEX Hit Rate", "L1 hit %"),
    ("L2 Hit Rate", "L2 hit %"),
    ("DRAM Throughput", "DRAM % of peak"),
    ("L1/TEX Cache Throughput", "L1 % of peak"),
    ("L2 Cache Throughput", "L2 % of peak"),
    ("Warp Cycles Per Issued Instruction", "cycles / issue"),
    ("Function Cache Configuration", "cache preference"),
]


def short_name(kernel):
    """row_kernel<SpmmFunctor<..., V, B[, true]>, T, M>, coop_kernel<Entry, T, M, G, XAhead[, TileSteps]>,
    coop_deep_kernel<Entry, T, M, G, D[, Interleave]> or own_kernel<Entry, T, M, G, D[, Interleave]>."""
    m = re.search(r"(coop_deep|own)_kernel<([^,]+(?:<[^>]*>)?), (\d+)u?, (\d+)u?, (\d+), (\d+)(?:, (\w+))?>", kernel)
    if m:
        kind = "coop" if m.group(1) == "coop_deep" else "own"
        interleaved = ".il" if m.group(7) in ("1", "true") else ""
        return f"{kind}.g{m.group(5)}{interleaved}.d{m.group(6)}.t{m.group(3)}.b{m.group(4)}"
    m = re.search(r"coop_kernel<([^,]+(?:<[^>]*>)?), (\d+)u?, (\d+)u?, (\d+), (\w+)(?:, (\d+))?>", kernel)
    if m:
        ahead = ".xahead" if m.group(5) in ("1", "true") else ""
        tiles = f".tile{m.group(6)}" if m.group(6) and m.group(6) != "1" else ""
        return f"coop.g{m.group(4)}{ahead}{tiles}.t{m.group(2)}.b{m.group(3)}"
    m = re.search(r"SpmmFunctor<.*, (\d+), (\d+)(, (?:true|false|1|0))?>, (\d+)u?, (\d+)u?>", kernel)
    if m:
        shared = ".shared" if m.group(3) and m.group(3).strip(", ") in ("true", "1") else ""
        return f"library.t{m.group(4)}.b{m.group(5)}.v{m.group(1)}.batch{m.group(2)}{shared}"
    return kernel[:60]


def lab_names(path):
    """The lab's names of its products, in order, from its CSV (name,seconds,...)."""
    with open(path, newline="") as f:
        return [r[0] for r in csv.reader(f) if r and r[0] != "name" and not r[0].startswith("spmv.")]


def main(path, names_from=None):
    names = ["reference (library.t256.b8.v2.batch1)"] + lab_names(names_from) if names_from else None
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        rows = [r for r in csv.reader(f) if len(r) > 10]
    header, rows = rows[0], rows[1:]
    at = {name: i for i, name in enumerate(header)}
    kernels = {}
    for r in rows:
        key = (int(r[at["ID"]]), r[at["Kernel Name"]])
        kernels.setdefault(key, {})[r[at["Metric Name"]]] = r[at["Metric Value"]]
    print("| id | kernel | " + " | ".join(h for _, h in COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 2) + "|")
    for (kernel_id, name), metrics in sorted(kernels.items()):
        values = []
        for metric, _ in COLUMNS:
            v = metrics.get(metric, "")
            if metric == "Duration" and v:
                v = f"{float(v.replace(',', '')) / 1000:.0f}"  # ncu reports ns here
            values.append(v)
        label = names[kernel_id] if names and kernel_id < len(names) else short_name(name)
        print(f"| {kernel_id} | `{label}` | " + " | ".join(values) + " |")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(*sys.argv[1:])
