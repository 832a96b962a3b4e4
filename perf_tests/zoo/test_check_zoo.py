#!/usr/bin/env python3
"""Tests check_zoo.py's structure and irregular-ratio checks on a hand-made zoo: one
complex matrix whose rows hold 3, 1, 1, 1 and 1 entries (max/median 3). It must pass
as written and fail, naming the reason, without a structure, with an unknown one,
with a ratio it does not reach, and when an expected structure has no matrix; and as
binary CSR, it passes and fails on a wrong count or a truncated file.

usage: test_check_zoo.py [VARIANT_SPACE_JSON]
"""
import copy
import json
import pathlib
import struct
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
MTX = """%%MatrixMarket matrix coordinate complex general
5 5 7
1 1 4 0
1 2 -1 0.5
1 5 -1 -0.5
2 2 2 0
3 3 2 0
4 4 2 0
5 5 2 1
"""
# The same matrix in binary CSR (compound_sparse/io/binary_csr.hpp): header, offsets,
# columns, then (re, im) per non-zero.
STAR_CSRB = (b"CSRBIN1\n" + struct.pack("<IIqqq", 2, 8, 5, 5, 7) + struct.pack("<6i", 0, 3, 4, 5, 6, 7) +
             struct.pack("<7i", 0, 1, 4, 1, 2, 3, 4) +
             struct.pack("<14d", 4, 0, -1, 0.5, -1, -0.5, 2, 0, 2, 0, 2, 0, 2, 1))
ENTRY = {"name": "star", "class": "complex", "structure": "irregular", "file": "star.mtx", "field": "complex",
         "symmetry": "general", "rows": 5, "columns": 5, "nonzeros": 7,
         "nonzeros_per_row": {"min": 1, "q1": 1, "median": 1, "q3": 1, "max": 3},
         "bandwidth_per_row": {"min": 0, "q1": 0, "median": 0, "q3": 0, "max": 4}, "source": "by hand"}


def check(directory, entry, *options):
    (directory / "index.json").write_text(json.dumps({"matrices": [entry], "skipped": []}))
    space = ["--variant-space", sys.argv[1]] if len(sys.argv) > 1 else []
    return subprocess.run([sys.executable, str(HERE / "check_zoo.py"), str(directory), "--expect-classes", "complex",
                           *space, *options], capture_output=True, text=True)


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        directory = pathlib.Path(tmp)
        (directory / "star.mtx").write_text(MTX)
        without = copy.deepcopy(ENTRY)
        del without["structure"]
        unknown = dict(ENTRY, structure="lattice")
        cases = [  # (what, entry, options, expected return code, text the output must hold)
            ("as written", ENTRY, ["--expect-structures", "irregular", "--irregular-ratio", "3"], 0, "1 matrices ok"),
            ("no structure", without, [], 1, "structure (missing), expected one of grid, mesh, irregular"),
            ("unknown structure", unknown, [], 1, "structure lattice"),
            ("ratio not reached", ENTRY, ["--irregular-ratio", "3.5"], 1,
             "class complex: no irregular matrix with max/median non-zeros per row >= 3.5 (largest: 3)"),
            ("ratio of a grid", dict(ENTRY, structure="grid"), ["--irregular-ratio", "2"], 1, "largest: 0"),
            ("structure expected", ENTRY, ["--expect-structures", "grid,irregular"], 1, "no matrix of structure grid"),
        ]
        # The same matrix as binary CSR (the xl scale's files), in a directory of its own.
        binary = directory / "binary"
        binary.mkdir()
        (binary / "star.csrb").write_bytes(STAR_CSRB)
        entry = dict(ENTRY, file="star.csrb")
        (directory / "short").mkdir()
        (directory / "short" / "star.csrb").write_bytes(STAR_CSRB[:-8])
        binary_cases = [
            ("binary as written", binary, entry, 0, "(binary CSR: header and size): ok"),
            ("binary, wrong count", binary, dict(entry, nonzeros=8), 1, "nonzeros = 8, the file has 7"),
            ("binary, truncated", directory / "short", entry, 1, "star.csrb: 196 bytes, its header needs 204"),
        ]
        cases += [(what, entry, [], code, text) for what, _, entry, code, text in binary_cases]
        folders = [directory] * (len(cases) - len(binary_cases)) + [folder for _, folder, *_ in binary_cases]
        for (what, entry, options, code, text), folder in zip(cases, folders):
            result = check(folder, entry, *options)
            output = result.stdout + result.stderr
            if result.returncode != code or text not in output:
                failures.append(f"{what}: exit {result.returncode} (expected {code}), output:\n{output}")
    for f in failures:
        print("test_check_zoo: " + f, file=sys.stderr)
    print(f"test_check_zoo: {len(cases) - len(failures)} of {len(cases)} cases ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
