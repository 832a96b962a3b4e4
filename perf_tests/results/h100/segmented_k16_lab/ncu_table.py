#!/usr/bin/env python3
"""The lab's Nsight Compute run as a table: one row per product of the check run.

    ncu_table.py NCU.csv[.gz] > table.md

NCU.csv: `ncu --csv --page details` of `segmented_spmm_lab PRECISION MATRIX /dev/null check`
(scripts/gpu_spmm.sh's seglab step with SEGLAB_NCU). The lab prints its products in launch
order, and each launches one profiled kernel: the segmented sum's first pass (its fix-ups are not
profiled) or one cuSPARSE SpMM kernel; before each (k, layout) block the library's reference
product launches one more. The rows are named from the lab's lines in the CSV's header part;
a kernel of the wrong family for its name stops the script.
"""
import csv
import gzip
import io
import re
import sys


def table(path):
    """The table's lines (header first) for the lab's Nsight Compute CSV at `path`."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    names = []  # (name, k, layout) in launch order, reference products included
    for line in lines[:start]:
        block = re.match(r"k=(\d+) (aos|soa): the library's product", line)
        if block:
            names.append(("reference", int(block.group(1)), block.group(2)))
            continue
        row = re.match(r"(\S+)\s+k=(\d+)\s+(aos|soa)\s", line)
        if row:
            names.append((row.group(1), int(row.group(2)), row.group(3)))
    kernels = {}
    for r in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        kernel = kernels.setdefault(r["ID"], {"kernel": r["Kernel Name"]})
        kernel[r["Metric Name"]] = r["Metric Value"].replace(",", "")
    # From run 7 on, the lab checks each column of the library's product against the SpMV of
    # that column: those SpMVs' first passes (segmented_sum_tiles of a SegmentedSumFunctor) are
    # profiled too, but are none of the printed products.
    ids = sorted((i for i in kernels if "SegmentedSumFunctor" not in kernels[i]["kernel"]), key=int)
    if len(ids) != len(names):
        raise ValueError(f"{path}: {len(ids)} profiled kernels for {len(names)} products")
    out = ["| k | layout | product | kernel | µs | L1 sectors (M) | L1 hit % | L1 throughput % | L2 hit % | DRAM read (MB) | DRAM % | registers | occupancy % |"]
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (name, k, layout), i in zip(names, ids):
        m = kernels[i]
        seg = "segmented_sum_tiles" in m["kernel"]
        if seg != (name == "reference" or name.startswith("seg.")):
            raise ValueError(f"{path}: kernel {i} ({m['kernel'][:60]}) is not {name}'s")
        group = re.search(r"CudaSpace, (\d+)>, (\d+), (\d+)>", m["kernel"])
        kernel = f"tiles g{group.group(1)} {group.group(2)}:{group.group(3)}" if seg else m["kernel"].split("<")[0].split()[-1]
        out.append(
            f"| {k} | {layout} | {name} | `{kernel}` | {float(m['Duration']) / 1000:.1f} | "
            f"{float(m['l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum']) / 1e6:.1f} | {m['L1/TEX Hit Rate']} | "
            f"{m['L1/TEX Cache Throughput']} | {m['L2 Hit Rate']} | {float(m['dram__bytes_read.sum']) / 1e6:.0f} | "
            f"{m['DRAM Throughput']} | {m['Registers Per Thread']} | {m['Achieved Occupancy']} |"
        )
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    try:
        print("\n".join(table(sys.argv[1])))
    except ValueError as err:
        sys.exit(str(err))
