#!/usr/bin/env python3
"""ab_table.py: the committed A/B tables come out of the committed lab CSVs, and a pair of CSVs
that do not hold the same products, or a CSV with a WRONG product, is refused."""
import pathlib
import sys
import tempfile

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here))
import ab_table  # noqa: E402

failures = 0
tables = sorted(here.glob("run*/ab_*.md"))
if not tables:
    sys.exit("no committed A/B table found")
for table in tables:
    stem = table.stem[len("ab_"):]
    new, old = table.parent / f"seglab_{stem}.csv", table.parent / f"oldlab_{stem}.csv"
    if ab_table.table(str(new), str(old)) != table.read_text().splitlines():
        print(f"FAIL: {new} and {old} do not give {table}")
        failures += 1

new, old = table.parent / f"seglab_{stem}.csv", table.parent / f"oldlab_{stem}.csv"
lines = new.read_text().splitlines()
mutations = {
    "a product dropped": lines[:-1],  # the new run without its last product
    "a WRONG product": [lines[0], lines[1].replace(",bits,", ",WRONG,").replace(",close,", ",WRONG,")] + lines[2:],
}
with tempfile.TemporaryDirectory() as tmp:
    for name, mutated in mutations.items():
        path = pathlib.Path(tmp) / "new.csv"
        path.write_text("\n".join(mutated) + "\n")
        try:
            ab_table.table(str(path), str(old))
            print(f"FAIL: a CSV with {name} was accepted")
            failures += 1
        except ValueError as err:
            print(f"refused ({name}): {err}")
print("ab_table:", "FAILED" if failures else f"{len(tables)} tables reproduced, both bad CSVs refused")
sys.exit(1 if failures else 0)
