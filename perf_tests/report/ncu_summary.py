#!/usr/bin/env python3
"""Summarise the Nsight Compute CSVs written by the campaign driver's profile stage
(scripts/campaign.sh --stages profile, docs/perf.md: WORK/profile/k<K>/).

    ncu_summary.py DIR [BENCH.json] [--plot FILE.png]

Reads DIR/<matrix>-<precision>.csv (or .csv.gz), and the compulsory bytes and the copy
bandwidth from DIR/bench-<matrix>-<precision>/bench.json (the bench the profile stage ran
under ncu) or else from BENCH.json (a campaign's bench run).

Per matrix and precision, one row per kernel (launches of the same kernel with the same
grid are grouped; the medians are shown): duration, DRAM bytes read + written against the
matrix's compulsory bytes (matrix, x and y once: bench.json), those bytes over the kernel's
duration (GB/s, and as a fraction of the bench's copy bandwidth: how close the kernel runs to
the roof for the bytes it does move), DRAM throughput as a share of peak, achieved occupancy
(active warps), global-load sectors per request (4 is a fully coalesced 128-byte request of
4-byte words; a scattered gather of 8- or 16-byte values shows more) and the L2 hit rate.
Markdown on stdout. --plot FILE.png draws instead, per profile, ours' kernels' times per
product (stacked) over the time the compulsory bytes take at the copy bandwidth.
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
    # Where x's gathers are served (the SpMM's k values per column): L1 hits, and the bytes
    # L1 asks of L2 (sectors of 32 bytes) against L2's peak (profiles before session 31 lack them).
    "l1tex__t_sector_hit_rate.pct": "l1hit%",
    "lts__t_sectors_srcunit_tex_op_read.sum": "l2_to_l1_sectors",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed": "l2%",
}

# Warp stall reasons (ncu --section WarpStateStats, which the profile stage collects): the average warps
# stalled for each reason per issued instruction, e.g.
# smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio -> long_scoreboard.
STALL = re.compile(r"issue_stalled_([a-z_]+?)_per_issue_active\.ratio$")


def top_stalls(launches, count=3):
    """The `count` largest stall reasons over the launches (medians), as 'reason value, ...'; '-'
    where the profile has none."""
    reasons = {reason for launch in launches for reason in launch["stalls"]}
    medians = {reason: statistics.median(launch["stalls"].get(reason, 0.0) for launch in launches) for reason in reasons}
    ranked = sorted(medians.items(), key=lambda item: -item[1])[:count]
    return ", ".join(f"{reason} {value:.1f}" for reason, value in ranked) if ranked else "-"


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return float("nan")


def kernel_label(name):
    """A short name: ours (with the functor's schedule kind), Kokkos Kernels, or cuSPARSE's function."""
    # Ours, launched directly (segmented sum: the tile kernel and the carry fixup; the merge-path
    # index is built once per matrix, not per product). ncu's CSV may drop the namespaces.
    segmented = re.search(r"\b(segmented_sum_tiles|segmented_sum_fixup|segmented_sum_chunk_totals|merge_path_index)\b",
                          name)
    if segmented:
        entry = re.search(r"(Quaternion|Block|complex|Complex)<[^<>]*>", name)
        tile = re.search(r"segmented_sum_tiles<.*>,\s*\(?(?:unsigned int\)\s*)?(\d+)u?,\s*\(?(?:unsigned int\)\s*)?(\d+)u?>", name)
        shape = f" t{tile.group(1)}.b{tile.group(2)}" if tile else ""
        return f"ours {segmented.group(1)}{shape}" + (f" {re.sub(chr(32), '', entry.group(0))}" if entry else "")
    if "read_bandwidth" in name or "copy_bandwidth" in name:
        return "bench bandwidth probe"
    functor = re.search(r"(Spmv|Spmm)Functor<(?:\(compound_sparse::ScheduleKind\))?(\d)", name)
    if functor:
        # SpmvFunctor<(compound_sparse::ScheduleKind)K, Entry, Outer, Inner, XInner, YInner, ...>, or
        # SpmmFunctor<K, Entry, Outer, Inner, ...> (the SpMM; its multivectors' layouts are run-time
        # strides). ncu's CSV prints the kind as a bare number, its log as a cast.
        # The row kinds, declared first; sm_range, a fourth kind in the profiles of commit 0c530ba,
        # was pruned after them (docs/tuning.md).
        kinds = ["static", "dynamic_team", "dynamic_warp", "sm_range"]
        kind = int(functor.group(2))
        kind = kinds[kind] if kind < len(kinds) else f"kind{kind}"
        layouts = re.findall(r"compound_sparse::(SlicedEll<\d+\w*(?:,\s*\d+)?>|(?:Csr|Ell|Aos|Soa)\b)", name)
        layouts = [re.sub(r"\s", "", layout) for layout in layouts]
        spmm = " spmm" if functor.group(1) == "Spmm" else ""
        return f"ours {kind}{spmm} {'.'.join(layouts[:2 if spmm else 4]).lower()}"
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
                         **{short: number(d.get(m, "nan")) for m, short in METRICS.items()},
                         "stalls": {STALL.search(m).group(1): number(v) for m, v in d.items() if STALL.search(m)}})
    return launches


def bench_facts(bench_path, name, precision):
    """(compulsory bytes, copy bandwidth in bytes/s) of a matrix and precision in a bench.json."""
    path = pathlib.Path(bench_path)
    bench = json.loads(gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_text())
    best = None
    for m in bench.get("matrices", []):
        # The record of the fewest vectors: the SpMV's where there is one (an SpMM record,
        # compound-bench --k, counts k vectors' bytes), else that of the profile's own k
        # (the profile stage with --k 8 runs the bench at k = 8 only).
        if m.get("name") == name and m.get("precision") == precision:
            if best is None or m.get("k", 1) < best.get("k", 1):
                best = m
    return (best.get("compulsory_bytes"), bench.get("copy_bandwidth_bytes_per_s")) if best else (None, None)


def profiles(directory, fallback_bench=None):
    """(CSV path, tag "<matrix>-<precision>", compulsory bytes, copy bandwidth) of each profile
    in DIR, in name order; the bench facts from DIR/bench-<tag>/bench.json, else from the
    fallback bench, else None."""
    directory = pathlib.Path(directory)
    for path in sorted(list(directory.glob("*.csv")) + list(directory.glob("*.csv.gz"))):
        tag = path.name.removesuffix(".gz").removesuffix(".csv")
        name, _, precision = tag.rpartition("-")
        bench = directory / f"bench-{tag}" / "bench.json"
        bench = bench if bench.exists() else bench.with_suffix(".json.gz")  # as committed
        bench = bench if bench.exists() else fallback_bench
        yield (path, tag, *(bench_facts(bench, name, precision) if bench else (None, None)))


def summarise(directory, fallback_bench=None):
    out = ["# Nsight Compute summary\n",
           "Medians over each kernel's launches (check, warm-ups, timed). bytes / compulsory: DRAM bytes "
           "read + written over the compulsory bytes (matrix, x, y once); DRAM GB/s: those bytes over the "
           "kernel's duration, and as a fraction of the copy bandwidth the bench measured in the same "
           "process; sectors / request: global loads; L2→L1 GB/s: the bytes L1 read from L2 over the kernel's "
           "duration (the SpMM's gathers of x), and L2 % peak: L2's throughput; top stalls: the three largest "
           "warp stall reasons, in warps stalled per issued instruction (profiles with ncu's WarpStateStats "
           "section).\n"]
    for path, tag, compulsory, copy in profiles(directory, fallback_bench):
        launches = read_profile(path)
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
                   "DRAM % peak | occupancy % | sectors / request | L2 hit % | regs | L1 hit % | L2→L1 GB/s | L2 % peak | "
                   "top stalls (warps per issue) |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for (label, grid, block), ls in groups.items():
            med = {k: statistics.median(x[k] for x in ls) for k in METRICS.values()}
            dram = med["read"] + med["write"]
            ratio = f"{dram / compulsory:.2f}" if compulsory else "-"
            spr = med["sectors"] / med["requests"] if med["requests"] > 0 else float("nan")
            rate = dram / med["ns"] if med["ns"] > 0 else float("nan")  # bytes per ns = GB/s
            rate = f"{rate:.0f}" + (f" ({rate * 1e9 / copy:.2f})" if copy else "")
            l2_to_l1 = f"{32 * med['l2_to_l1_sectors'] / med['ns']:.0f}" if med["ns"] > 0 else "nan"
            out.append(f"| {label} | {grid} × {block} | {len(ls)} | {med['ns'] / 1e3:.2f} | {dram / 1e6:.1f} | {ratio} | "
                       f"{rate} | {med['dram%']:.1f} | {med['occupancy%']:.1f} | {spr:.2f} | {med['l2hit%']:.1f} | "
                       f"{med['regs']:.0f} | {med['l1hit%']:.1f} | {l2_to_l1} | {med['l2%']:.1f} | {top_stalls(ls)} |")
        out.append("")
    return "\n".join(out)


def product_breakdown(directory, fallback_bench=None):
    """Per profile: [(kernel kind, median µs)] of ours per product (the merge-path index, made
    once per matrix, and the bench's probe left out), and the time the compulsory bytes take at
    the copy bandwidth (µs), where the bench gives both."""
    rows = []
    for path, tag, compulsory, copy in profiles(directory, fallback_bench):
        if not compulsory or not copy:
            continue
        kinds = {}
        for launch in read_profile(path):
            label = kernel_label(launch["name"])
            if not label.startswith("ours ") or "merge_path_index" in label:
                continue
            kind = label.split()[1]  # segmented_sum_tiles, segmented_sum_fixup, or a row kernel's schedule
            kinds.setdefault(kind, []).append(launch["ns"] / 1e3)
        if kinds:
            rows.append((tag, [(k, statistics.median(v)) for k, v in kinds.items()], compulsory / copy * 1e6))
    return rows


def plot(directory, fallback_bench, out):
    """Horizontal bars, one per profile: ours' kernels' times over the time at the copy roof."""
    rows = product_breakdown(directory, fallback_bench)
    if not rows:
        sys.exit("ncu_summary.py: no profile with its compulsory bytes and copy bandwidth to plot")
    try:
        import matplotlib
    except ImportError:
        sys.exit("ncu_summary.py: --plot needs matplotlib (Debian python3-matplotlib, scripts/setup.sh)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colours = {"segmented_sum_tiles": "#4c72b0", "segmented_sum_fixup": "#dd8452",
               "segmented_sum_chunk_totals": "#c44e52"}
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(rows) + 1.5))
    seen = set()
    for i, (tag, kinds, roof) in enumerate(rows):
        left = 0.0
        for kind, us in kinds:
            width = us / roof
            ax.barh(i, width, left=left, color=colours.get(kind, "#55a868"),
                    label=None if kind in seen else kind.replace("segmented_sum_", "segmented sum: "))
            seen.add(kind)
            left += width
        ax.text(left + 0.03, i, f"{1 / left:.2f} of copy", va="center", fontsize=8)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.axvline(1.25, color="black", linewidth=1, linestyle="--")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([tag for tag, _, _ in rows])
    ax.invert_yaxis()
    ax.set_xlabel("kernel time / time of the compulsory bytes at the copy bandwidth\n"
                  "(solid line: the copy roof; dashed: 80% of copy)")
    ax.set_xlim(0, max(sum(us for _, us in kinds) / roof for _, kinds, roof in rows) * 1.25)
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title("Where the product's time goes (Nsight Compute, medians per kernel)")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"ncu_summary.py: wrote {out}")


def main():
    args = sys.argv[1:]
    plot_to = None
    if "--plot" in args:
        i = args.index("--plot")
        if i + 1 >= len(args):
            sys.exit("usage: ncu_summary.py DIR [BENCH.json] [--plot FILE.png]")
        plot_to = args[i + 1]
        args = args[:i] + args[i + 2:]
    if len(args) not in (1, 2):
        sys.exit("usage: ncu_summary.py DIR [BENCH.json] [--plot FILE.png]")
    fallback = args[1] if len(args) == 2 else None
    if plot_to:
        plot(args[0], fallback, plot_to)
    else:
        print(summarise(args[0], fallback))


if __name__ == "__main__":
    main()
