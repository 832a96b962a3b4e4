#!/usr/bin/env python3
"""The lab's products with two trees' headers side by side: µs a vector with the tree under test
(NEW) and with an earlier commit's (OLD), both run in one job on one machine, and their ratio.

    ab_table.py NEW.csv OLD.csv > table.md

NEW.csv, OLD.csv: segmented_spmm_lab's CSVs of one matrix and precision. Rows: the library's own
group at 256:4 (seg.libG.t256.b4) and the SpMV (spmv.*), whose code the trees change, and
cuSPARSE's fastest form for each k and layout, whose code they do not (so its ratio is the
run-to-run noise). Both CSVs must hold the same products, every one as expected (not WRONG).
"""
import csv
import sys


def load(path):
    """{(name, k, layout): seconds} of a lab CSV, in its order; refuses a WRONG product."""
    products = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["verdict"] == "WRONG":
                raise ValueError(f"{path}: {row['name']} k={row['k']} {row['layout']} is WRONG")
            products[(row["name"], int(row["k"]), row["layout"])] = float(row["seconds"])
    return products


def table(new_path, old_path):
    """The table's lines (header first)."""
    new, old = load(new_path), load(old_path)
    if set(new) != set(old):
        missing = sorted(set(new) ^ set(old))
        raise ValueError(f"{new_path} and {old_path} differ in their products: {missing[:3]}")
    lines = ["| k | layout | product | new µs a vector | old µs a vector | new / old |", "|---|---|---|---|---|---|"]

    def line(name, k, layout, new_s, old_s):
        lines.append(f"| {k} | {layout} | {name} | {new_s * 1e6 / k:.2f} | {old_s * 1e6 / k:.2f} | "
                     f"{new_s / old_s:.3f} |")

    blocks = []  # (k, layout) in the lab's order
    for name, k, layout in new:
        if (k, layout) not in blocks:
            blocks.append((k, layout))
    for k, layout in blocks:
        for (name, kk, ll), seconds in new.items():
            if (kk, ll) != (k, layout):
                continue
            if (name.startswith("seg.lib") and name.endswith(".t256.b4") and ".narrow" not in name) or \
                    name.startswith("spmv."):
                line(name, k, layout, seconds, old[(name, k, layout)])
        forms = [name for (name, kk, ll) in new if (kk, ll) == (k, layout) and name.startswith("cusparse.")]
        if forms:
            best_new = min(forms, key=lambda n: new[(n, k, layout)])
            best_old = min(forms, key=lambda n: old[(n, k, layout)])
            line("cuSPARSE's fastest form (" + best_new + ")", k, layout, new[(best_new, k, layout)],
                 old[(best_old, k, layout)])
    return lines


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: ab_table.py NEW.csv OLD.csv > table.md")
    print("\n".join(table(sys.argv[1], sys.argv[2])))
