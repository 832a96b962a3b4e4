#!/usr/bin/env python3
"""Summarise the Nsight Compute CSVs written by scripts/gpu_profile.sh.

    ncu_summary.py DIR [BENCH.json]

Reads DIR/<matrix>-<precision>.csv (or .csv.gz), and the compulsory bytes and the copy
bandwidth from DIR/bench-<matrix>-<precision>/bench.json (written by gpu_profile.sh) or else
from BENCH.json (a pipeline run's).

Per matrix and precision, one row per kernel (launches of the same kernel with the same
grid are grouped; the medians are shown): duration, DRAM bytes read + written against the
matrix's compulsory bytes (matrix, x and y once: bench.json), those bytes over the kernel's
duration (GB/s, and as a fraction of the bench's copy bandwidth: how close the kernel runs to
the roof for the bytes it does move), DRAM throughput as a share of peak, achieved occupancy
(active warps), global-load sectors per request (4 is a fully coalesced 128-byte request of
4-byte words; a scattered gather of 8- or 16-byte values shows more) and the L2 hit rate.
Markdown on stdout.
"""
import csv
import gzip
import json
import pathlib
import re
import statistics
import sys

METRICS = {
    "gpu__time_duration.sum": "ns",
    "dram__bytes_read.sum": "read",
    "dram__bytes_write.sum": "write",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram%",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "occupancy%",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "sectors",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": "requests",
    "lts__t_sector_hit_rate.pct": "l2hit%",
    "launch__registers_per_thread": "regs",
}


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return float("nan")


def kernel_label(name):
    """A short name: ours (with the functor's schedule kind), Kokkos Kernels, or cuSPARSE's function."""
    # Ours, launched directly (segmented sum: the tile kernel and the carry fixup; the merge-path
    # index is built once per matrix, not per product). ncu's CSV may drop the namespaces.
    segmented = re.search(r"\b(segmented_sum_tiles|segmented_sum_fixup|merge_path_index)\b", name)
    if segmented:
        entry = re.search(r"(Quaternion|Block|complex|Complex)<[^<>]*>", name)
        tile = re.search(r"segmented_sum_tiles<.*>,\s*\(?(?:unsigned int\)\s*)?(\d+)u?,\s*\(?(?:unsigned int\)\s*)?(\d+)u?>", name)
        shape = f" t{tile.group(1)}.b{tile.group(2)}" if tile else ""
        return f"ours {segmented.group(1)}{shape}" + (f" {re.sub(chr(32), '', entry.group(0))}" if entry else "")
    if "read_bandwidth" in name or "copy_bandwidth" in name:
        return "bench bandwidth probe"
    if "SpmvFunctor" in name:
        # SpmvFunctor<(compound_sparse::ScheduleKind)K, Entry, Outer, Inner, XInner, YInner, ...>
        # (ncu's CSV prints the kind as a bare number, its log as a cast.)
        kind = re.search(r"SpmvFunctor<(?:\(compound_sparse::ScheduleKind\))?(\d)", name)
        kind = ["static", "dynamic_team", "dynamic_warp"][int(kind.group(1))] if kind else "?"
        layouts = re.findall(r"compound_sparse::(SlicedEll<\d+\w*(?:,\s*\d+)?>|(?:Csr|Ell|Aos|Soa)\b)", name)
        layouts = [re.sub(r"\s", "", layout) for layout in layouts]
        return f"ours {kind} {'.'.join(layouts[:4]).lower()}"
    if "SPMV" in name:
        return "kokkos_kernels " + re.sub(r"<.*", "", name.split("::")[-1])[:40]
    name = re.sub(r"^void ", "", name).replace("(anonymous namespace)::", "")
    return "cusparse " + re.sub(r"[<(].*", "", name)[:50]


def read_profile(path):
    with (gzip.open(path, "rt", newline="") if path.suffix == ".gz" else open(path, newline="")) as f:
        rows = list(csv.reader(f))
    # ncu --csv --page raw: a header row, a units row, then one row per launch. Lines
    # before the header (ncu messages) are skipped.
    start = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if start is None:
        return []
    header = rows[start]
    launches = []
    for r in rows[start + 2:]:
        if len(r) != len(header):
            continue
        d = dict(zip(header, r))
        launches.append({"name": d["Kernel Name"], "grid": d.get("Grid Size", ""), "block": d.get("Block Size", ""),
                         **{short: number(d.get(m, "nan")) for m, short in METRICS.items()}})
    return launches


def bench_facts(bench_path, name, precision):
    """(compulsory bytes, copy bandwidth in bytes/s) of a matrix and precision in a bench.json."""
    bench = json.loads(pathlib.Path(bench_path).read_text())
    for m in bench.get("matrices", []):
        if m.get("name") == name and m.get("precision") == precision:
            return m.get("compulsory_bytes"), bench.get("copy_bandwidth_bytes_per_s")
    return None, None


def summarise(directory, fallback_bench=None):
    out = ["# Nsight Compute summary\n",
           "Medians over each kernel's launches (check, warm-ups, timed). bytes / compulsory: DRAM bytes "
           "read + written over the compulsory bytes (matrix, x, y once); DRAM GB/s: those bytes over the "
           "kernel's duration, and as a fraction of the copy bandwidth the bench measured in the same "
           "process; sectors / request: global loads.\n"]
    paths = sorted(list(pathlib.Path(directory).glob("*.csv")) + list(pathlib.Path(directory).glob("*.csv.gz")))
    for path in paths:
        launches = read_profile(path)
        tag = path.name.removesuffix(".gz").removesuffix(".csv")
        name, _, precision = tag.rpartition("-")
        bench = pathlib.Path(directory) / f"bench-{tag}" / "bench.json"
        bench = bench if bench.exists() else fallback_bench
        compulsory, copy = bench_facts(bench, name, precision) if bench else (None, None)
        out.append(f"## {tag}\n")
        if compulsory:
            out.append(f"Compulsory bytes: {compulsory / 1e6:.1f} MB" +
                       (f"; copy bandwidth {copy / 1e9:.0f} GB/s" if copy else "") + "\n")
        if not launches:
            out.append("(no kernel launches in the profile)\n")
            continue
        groups = {}
        for launch in launches:
            groups.setdefault((kernel_label(launch["name"]), launch["grid"], launch["block"]), []).append(launch)
        out.append("| kernel | grid × block | launches | µs | DRAM MB | bytes / compulsory | DRAM GB/s (of copy) | "
                   "DRAM % peak | occupancy % | sectors / request | L2 hit % | regs |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for (label, grid, block), ls in groups.items():
            med = {k: statistics.median(x[k] for x in ls) for k in METRICS.values()}
            dram = med["read"] + med["write"]
            ratio = f"{dram / compulsory:.2f}" if compulsory else "-"
            spr = med["sectors"] / med["requests"] if med["requests"] > 0 else float("nan")
            rate = dram / med["ns"] if med["ns"] > 0 else float("nan")  # bytes per ns = GB/s
            rate = f"{rate:.0f}" + (f" ({rate * 1e9 / copy:.2f})" if copy else "")
            out.append(f"| {label} | {grid} × {block} | {len(ls)} | {med['ns'] / 1e3:.2f} | {dram / 1e6:.1f} | {ratio} | "
                       f"{rate} | {med['dram%']:.1f} | {med['occupancy%']:.1f} | {spr:.2f} | {med['l2hit%']:.1f} | "
                       f"{med['regs']:.0f} |")
        out.append("")
    return "\n".join(out)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: ncu_summary.py DIR [BENCH.json]")
    print(summarise(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else None))


if __name__ == "__main__":
    main()
