#!/usr/bin/env python3
"""Tests vector_buckets.py (ctest: report.vector_buckets) on a synthetic tuning database whose
per-vector ratios are known by construction."""
import json
import pathlib
import subprocess
import sys
import tempfile

SCRIPT = pathlib.Path(__file__).resolve().parent / "vector_buckets.py"


def m(variant, seconds, k=1, ok=True):
    return {"variant": variant, "seconds": seconds, "k": k, "ok": ok}


def run(*args):
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def main():
    db = {"device": {"name": "Test GPU"}, "matrices": [
        # SpMV 10 µs; k = 8 in 40 µs: 5 µs a vector, 2x. A failed k = 8 measurement faster
        # than that is not counted, nor does a faster k = 2 one count at k = 8.
        {"name": "a", "tuning_seconds": 12.0,
         "features": {"entry_type": "complex", "precision": "double", "rows": 10, "nnz": 30},
         "measurements": [m("csr.aos.aos.static.t256.b2.l1", 10e-6), m("ell.aos.aos.static.t256.b2.l1", 12e-6),
                          m("csr.aos.aos.static.t256.b2.l1", 40e-6, k=8), m("ell.aos.soa.static.t256.b8.l1", 1e-6, 8, False),
                          m("ell.aos.soa.static.t256.b8.l1", 15e-6, k=2)]},
        # No passing SpMV: times without ratios.
        {"name": "b", "features": {"entry_type": "block3", "precision": "float", "rows": 5, "nnz": 9},
         "measurements": [m("csr.aos.aos.static.t256.b2.l1", 1e-6, ok=False), m("csr.aos.aos.static.t256.b2.l1", 8e-6, k=8)]}]}
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "db.json"
        path.write_text(json.dumps(db))
        rc, out = run(str(path), "--out", str(pathlib.Path(tmp) / "out.md"))
        expect = ["| a | complex | double | 10 | 30 | 10.0 µs (1.00x) | 15.0 µs (1.33x) | 40.0 µs (2.00x) | 12 |",
                  "| b | block3 | float | 5 | 9 | - | - | 8.0 µs | nan |",
                  "k = 1: 1.00, k = 2: 1.33, k = 8: 2.00.",
                  "- a double: k = 1 csr.aos.aos.static.t256.b2.l1; k = 2 ell.aos.soa.static.t256.b8.l1; "
                  "k = 8 csr.aos.aos.static.t256.b2.l1",
                  "(Test GPU)",
                  # a's k = 2 best is on ell.aos (12 µs at k = 1, second); csr.aos is first. With
                  # N = 1 the SpMM keeps csr.aos only: no k = 2 there (inf), 40/40 at k = 8.
                  "- N = 1: k = 2 inf, k = 8 1.000",
                  "- N = 2: k = 2 1.000, k = 8 1.000"]
        if rc != 0:
            failures.append(f"rc {rc}: {out}")
        for line in expect:
            if line not in out:
                failures.append(f"missing {line!r}")
        if (pathlib.Path(tmp) / "out.md").read_text() != out:
            failures.append("--out differs from standard output")
        if "- none" not in out:  # a's products of more vectors are all cheaper a vector
            failures.append("a record without a slower bucket was listed")
        # c (aos): 10 µs a vector at k = 1, 12 at k = 2 (1.20x), 5 at k = 4, 6 at k = 8 (1.20x
        # k = 4's); its soa products get cheaper with k (not listed).
        slower = pathlib.Path(tmp) / "slower.json"
        slower.write_text(json.dumps({"device": {"name": "Test GPU"}, "matrices": [
            {"name": "c", "features": {"entry_type": "complex", "precision": "float", "rows": 4, "nnz": 8},
             "measurements": [m("csr.aos.aos.static.t256.b2.l1", 10e-6), m("csr.aos.aos.static.t256.b2.l1", 24e-6, k=2),
                              m("csr.aos.aos.static.t256.b2.l1", 20e-6, k=4), m("csr.aos.aos.static.t256.b2.l1", 48e-6, k=8),
                              m("csr.aos.soa.static.t256.b2.l1", 30e-6, k=4), m("csr.aos.soa.static.t256.b2.l1", 40e-6, k=8)]}]}))
        rc, out = run(str(slower))
        if rc != 0 or "- c float aos: k = 2 1.20x (k = 1), k = 8 1.20x (k = 4)" not in out or "c float soa" in out:
            failures.append(f"the slower buckets of c: rc {rc}: {out}")
        # --plot: a PNG of a's line (b, without a passing SpMV, is left out); the report as before.
        png = pathlib.Path(tmp) / "buckets.png"
        rc, out = run(str(path), "--plot", str(png))
        if rc != 0 or not png.exists() or not png.read_bytes().startswith(b"\x89PNG") or png.stat().st_size < 5000:
            failures.append(f"--plot wrote no PNG: rc {rc}: {out}")
        if "k = 1: 1.00, k = 2: 1.33, k = 8: 2.00." not in out:
            failures.append("--plot changed the report")
        only_b = pathlib.Path(tmp) / "only_b.json"
        only_b.write_text(json.dumps({"device": {"name": "Test GPU"}, "matrices": db["matrices"][1:]}))
        rc, out = run(str(only_b), "--plot", str(pathlib.Path(tmp) / "none.png"))
        if rc == 0 or "nothing to plot" not in out or (pathlib.Path(tmp) / "none.png").exists():
            failures.append(f"a database with no ratio to draw was plotted: rc {rc}: {out}")
        # Another device's record of a beside it: refused without --device; with it, that
        # device's records only, titled by it.
        mixed = pathlib.Path(tmp) / "mixed.json"
        other = dict(db["matrices"][0], device="Other GPU",
                     measurements=[m("csr.aos.aos.static.t256.b2.l1", 10e-6), m("csr.aos.aos.static.t256.b2.l1", 20e-6, k=8)])
        mixed.write_text(json.dumps(dict(db, matrices=db["matrices"] + [other])))
        rc, out = run(str(mixed))
        if rc == 0 or "vector_buckets.py: the database holds several devices' records: Other GPU (1 records), Test GPU (2 records)" not in out:
            failures.append(f"a database of two devices was reported as one: rc {rc}: {out}")
        rc, out = run(str(mixed), "--device", "Other GPU")
        if rc != 0 or "# Vector buckets of 1 records (Other GPU)" not in out or "k = 1: 1.00, k = 8: 4.00." not in out:
            failures.append(f"--device Other GPU: rc {rc}: {out}")
        empty = pathlib.Path(tmp) / "empty.json"
        empty.write_text(json.dumps({"matrices": []}))
        rc, out = run(str(empty))
        if rc == 0 or "no record" not in out:
            failures.append(f"an empty database was not refused: rc {rc}: {out}")
        rc, out = run(str(pathlib.Path(tmp) / "missing.json"))
        if rc == 0 or "cannot read" not in out:
            failures.append(f"a missing database was not refused: rc {rc}: {out}")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        print(out)
        return 1
    print("vector_buckets.py: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
