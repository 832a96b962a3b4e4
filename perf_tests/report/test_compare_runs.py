#!/usr/bin/env python3
"""Tests compare_runs.py on two synthetic pipeline runs: one bench result 10% slower,
one database record whose best differs within noise and one where it does not (each record
also holding SpMM measurements at k = 8 under the same variant names, which the comparison of
the SpMV's selection leaves out), and the cuSPARSE forms: each compared on its own, a form in
one run only listed as such; and a bench.json.gz read like a bench.json."""
import gzip
import json
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent


def write_run(root, times, dbs, forms=None):
    root.mkdir()
    (root / "tuning").mkdir()
    bench = {"commit": "abc", "device": {"name": "Test GPU"}, "copy_bandwidth_bytes_per_s": 1e12,
             "matrices": [{"name": name, "precision": "double",
                           "results": [{"method": method, "ok": True, "seconds": s, "variant": "v"}
                                       for method, s in methods.items()]}
                          for name, methods in times.items()]}
    for m in bench["matrices"]:
        if forms and m["name"] in forms:
            m["cusparse_forms"] = [{"method": "cusparse", "variant": v, "ok": s is not None, "seconds": s or 0}
                                   for v, s in forms[m["name"]].items()]
    (root / "bench.json").write_text(json.dumps(bench))
    db = {"matrices": [{"name": name, "best": best,
                        "features": {"entry_type": "complex", "precision": "double"},
                        "measurements": [{"variant": v, "ok": True, "seconds": s} for v, s in seconds.items()] +
                                        [{"variant": v, "ok": True, "seconds": {"x": 80, "y": 40}.get(v, 60) * s, "k": 8}
                                         for v, s in seconds.items()]}
                       for name, (best, seconds) in dbs.items()]}
    (root / "tuning" / "sm_90.json").write_text(json.dumps(db))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        write_run(tmp / "a", {"m1": {"ours_tuned": 10e-6, "cusparse": 20e-6}},
                  {"m1": ("x", {"x": 10e-6, "y": 10.2e-6, "z": 15e-6}),
                   "m2": ("x", {"x": 10e-6, "z": 20e-6})},
                  {"m1": {"ALG1_pre": 20e-6, "ALG2_pre": 25e-6, "BSR": None}})
        write_run(tmp / "b", {"m1": {"ours_tuned": 10.1e-6, "cusparse": 22e-6}},
                  {"m1": ("y", {"x": 10.1e-6, "y": 10e-6, "z": 15e-6}),
                   "m2": ("z", {"x": 10e-6, "z": 9e-6})},
                  {"m1": {"ALG1_pre": 22e-6, "ALG2_pre": 25.5e-6, "BSR": 30e-6}})
        out = subprocess.run([sys.executable, str(HERE / "compare_runs.py"), str(tmp / "a"), str(tmp / "b")],
                             check=True, capture_output=True, text=True).stdout
        checks = [
            "- cusparse: 0 of 1 within ±5%",              # 22 / 20 = 1.10
            "- ours_tuned: 1 of 1 within ±5%",            # 1.01
            "| m1 | double | cusparse | 20.00 | 22.00 | 1.100 ** |",
            "- records in both: 2; the same best variant in 0",
            "within +5% (worst 2.000)",                    # m2: z is 2x x in A
            "| m1 | complex | double | `x` | `y` | 1.020 | 1.010 |",
            "- cusparse_form:ALG1_pre: 0 of 1 within ±5%",  # 22 / 20
            "- cusparse_form:ALG2_pre: 1 of 1 within ±5%",  # 25.5 / 25
            "| m1 | double | cusparse_form:ALG2_pre | 25.00 | 25.50 | 1.020 |",
            "- in one run only: m1/double/cusparse_form:BSR",  # failed in A
        ]
        for c in checks:
            assert c in out, f"missing: {c}\n---\n{out}"
        # A committed run keeps its bench compressed: the same comparison from bench.json.gz.
        bench_b = tmp / "b" / "bench.json"
        with gzip.open(tmp / "b" / "bench.json.gz", "wt") as f:
            f.write(bench_b.read_text())
        bench_b.unlink()
        gz = subprocess.run([sys.executable, str(HERE / "compare_runs.py"), str(tmp / "a"), str(tmp / "b")],
                            check=True, capture_output=True, text=True).stdout
        assert "| m1 | double | cusparse | 20.00 | 22.00 | 1.100 ** |" in gz, gz
        bad = subprocess.run([sys.executable, str(HERE / "compare_runs.py"), str(tmp / "a"), str(tmp / "b"),
                              "--noise", "2"], capture_output=True, text=True)
        assert bad.returncode == 2 and "--noise" in bad.stderr, bad.stderr
    print("compare_runs.py: all checks passed")


if __name__ == "__main__":
    main()
