#!/usr/bin/env python3
"""scan_levels.py: tiles of rows of one length run the levels their reach asks for (rows of 2,
3, 5, 9 and 17 non-zeros reach 1, 2, 4, 8 and 16 lanes: 1 to 5 levels), a tile inside one long
row runs all five, one of single non-zeros none, and a Matrix Market file is read by rows."""
import pathlib
import sys
import tempfile

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here))
import scan_levels  # noqa: E402

failures = 0


def expect(what, got, want):
    global failures
    if list(got) != list(want):
        print(f"FAIL: {what}: {list(got)} != {list(want)}")
        failures += 1


# 64 rows of each length from entry 0 fill whole tiles of that length only when 64 is a
# multiple of the length; the first tile of each block is enough.
for length, levels in [(1, 0), (2, 1), (3, 2), (5, 3), (9, 4), (17, 5), (33, 5)]:
    expect(f"rows of {length}", scan_levels.levels_per_tile([length] * 64)[:1], [levels])
expect("one row of 200", scan_levels.levels_per_tile([200]), [5, 5, 5, 5])
# The lanes past the end: 40 non-zeros in rows of 2 leave lanes 8-31 of the second step as one
# row (reach 23: 5 levels) on the GPU; 32 leave the whole second step (reach 31: 5 levels).
expect("40 non-zeros in rows of 2 and the lanes past them", scan_levels.levels_per_tile([2] * 20), [5])
expect("32 non-zeros in rows of 2 and a second step past them", scan_levels.levels_per_tile([2] * 16), [5])
expect("64 non-zeros in rows of 2: no lane past the end", scan_levels.levels_per_tile([2] * 32), [1])
expect("empty rows between rows of 2", scan_levels.levels_per_tile([2, 0, 0, 2] * 16), [1])
expect("no non-zeros", scan_levels.levels_per_tile([0, 0]), [])
with tempfile.TemporaryDirectory() as tmp:
    path = pathlib.Path(tmp) / "m.mtx"
    # rows 1 and 3 of two non-zeros each, written out of order; row 2 empty
    path.write_text("%%MatrixMarket matrix coordinate real general\n% c\n3 3 4\n3 1 1\n1 1 1\n3 3 1\n1 2 1\n")
    expect("row lengths of a file", scan_levels.row_lengths_of(str(path)), [2, 0, 2])
print("scan_levels:", "FAILED" if failures else "every case as expected")
sys.exit(1 if failures else 0)
