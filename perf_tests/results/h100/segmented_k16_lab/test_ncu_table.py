#!/usr/bin/env python3
"""ncu_table.py: the committed tables come out of the committed Nsight Compute CSVs, and a CSV
whose kernels do not match the lab's products (one dropped, or a cuSPARSE kernel where a
segmented-sum product was printed) is refused."""
import gzip
import pathlib
import sys
import tempfile

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here))
import ncu_table  # noqa: E402

failures = 0
runs = sorted(here.glob("run*/seglab_ncu_*.csv.gz"))
if not runs:
    sys.exit("no committed Nsight Compute CSV found")
for csv_path in runs:
    table = csv_path.parent / ("ncu_" + csv_path.name[len("seglab_ncu_"):-len(".csv.gz")] + ".md")
    if ncu_table.table(str(csv_path)) != table.read_text().splitlines():
        print(f"FAIL: {csv_path} does not give {table}")
        failures += 1

lines = gzip.open(runs[0], "rt").read().splitlines()
start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
last_id = lines[-1].split('","')[0].strip('"')
mutations = {
    # the last profiled kernel dropped: one product fewer than the lab printed
    "dropped": lines[:start + 1] + [l for l in lines[start + 1:] if not l.startswith(f'"{last_id}"')],
    # the first product's kernel named as cuSPARSE's
    "wrong family": [l.replace("segmented_sum_tiles", "cusparse::csrmm_alg1_kernel", 1) if l.startswith('"0"') else l
                     for l in lines],
}
# The SpMVs of the per-column check (run 7 on): a kernel of the SpMV's functor (the first
# product's rows, renamed) after the last product leaves the table as it was.
spmv_rows = [l.replace('"0"', f'"{int(last_id) + 1}"', 1).replace("SegmentedSumSpmmTiles", "SegmentedSumFunctor")
             for l in lines[start + 1:] if l.startswith('"0"') and "SegmentedSumSpmmTiles" in l]
with tempfile.TemporaryDirectory() as tmp:
    path = pathlib.Path(tmp) / "with_spmv.csv"
    path.write_text("\n".join(lines + spmv_rows) + "\n")
    if not spmv_rows or ncu_table.table(str(path)) != ncu_table.table(str(runs[0])):
        print("FAIL: a kernel of the SpMV's functor changed the table")
        failures += 1
    for name, mutated in mutations.items():
        path = pathlib.Path(tmp) / f"{name.replace(' ', '_')}.csv"
        path.write_text("\n".join(mutated) + "\n")
        try:
            ncu_table.table(str(path))
            print(f"FAIL: a CSV with its {name} kernel was accepted")
            failures += 1
        except ValueError as err:
            print(f"refused ({name}): {err}")
print("ncu_table:", "FAILED" if failures else f"{len(runs)} tables reproduced, both bad CSVs refused")
sys.exit(1 if failures else 0)
