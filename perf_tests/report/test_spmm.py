#!/usr/bin/env python3
"""Tests spmm.py on a synthetic compound-bench run with --k 1,2,4 whose ratios are known by
construction (ctest: report.spmm), and that the SpMM records (k > 1) stay out of the SpMV
summaries: make_report.py, transposes.py, mixed_precision.py, merge_bench.py and
compare_runs.py key on k or keep to k = 1 (a record without "k" is k = 1)."""
import gzip
import json
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
SPMM = HERE / "spmm.py"


def res(method, seconds, k, variant="v", error=""):
    """One result; seconds=None makes a failed one."""
    return {"method": method, "variant": variant, "k": k, "ok": seconds is not None, "seconds": seconds or 0,
            "seconds_per_vector": (seconds or 0) / k, "relative_error": 1e-15 if seconds else 0, "error": error}


def record(name, cls, precision, k, ours, cusparse, kk, op="N", with_k=True):
    m = {"name": name, "class": cls, "structure": "grid", "precision": precision, "op": op, "rows": 100, "cols": 100,
         "nnz": 700, "compulsory_bytes": 1e6 * k,
         "results": [res("ours_default", ours, k, "csr.aos.aos.static.t128.b4.l1"),
                     res("ours_tuned", ours, k, "sell32.aos.aos.static.t128.b4.l1"),
                     res("cusparse", cusparse, k, "cusparseSpMM_CSR_row_CSR_ALG3" if k > 1 else "csr",
                         "cuSPARSE needs the CUDA backend"),
                     res("kokkos_kernels", kk, k, "crs_mv" if k > 1 else "crs", "Kokkos Kernels | failed")],
         "cusparse_forms": []}
    if with_k:
        m["k"] = k
    else:
        for r in m["results"]:
            del r["k"]
    return m


def bench(matrices):
    return {"schema": 1, "command": "compound-bench --k 1,2,4", "commit": "abc", "date": "2026-11-26T00:00:00Z",
            "search": "reduced", "timing": {"warmup": 5, "batch": 10, "samples": 50, "mode": "queued"},
            "entry_classes": ["complex", "quaternion"], "outer_layouts": ["csr", "sell32"],
            "device": {"name": "Test GPU", "compute_capability": "9.0", "backend": "Cuda"},
            "copy_bandwidth_bytes_per_s": 4e12, "read_bandwidth_bytes_per_s": 3.7e12, "matrices": matrices,
            "skipped": []}


# cplx (complex double): ours 10 us at k = 1, 16 us at k = 2 (8 per vector: 1.25x one SpMV),
# 24 us at k = 4 (6 per vector: 1.67x); cuSPARSE 2.5x ours at every k; Kokkos Kernels 1.5x at
# k = 1, failed at k = 2, 2x at k = 4. cplx2 (complex double): 20 / 40 / 40 us (gains 1, 1,
# 2), cuSPARSE 1x at k = 4. quat (quaternion float): an older record without "k" (k = 1) and
# k = 4; cuSPARSE fails at k = 4 (host). An op T record is ignored.
RUN = bench([
    record("cplx", "complex", "double", 1, 10e-6, 25e-6, 15e-6),
    record("cplx", "complex", "double", 2, 16e-6, 40e-6, None),
    record("cplx", "complex", "double", 4, 24e-6, 60e-6, 48e-6),
    record("cplx2", "complex", "double", 1, 20e-6, 20e-6, 20e-6),
    record("cplx2", "complex", "double", 2, 40e-6, 40e-6, 40e-6),
    record("cplx2", "complex", "double", 4, 40e-6, 40e-6, 80e-6),
    record("quat", "quaternion", "float", 1, 8e-6, 16e-6, 24e-6, with_k=False),
    record("quat", "quaternion", "float", 4, 16e-6, None, 64e-6),
    record("quat", "quaternion", "float", 1, 1.0, 1.0, 1.0, op="T"),
])


def spmm(*args):
    return subprocess.run([sys.executable, str(SPMM), *map(str, args)], capture_output=True, text=True)


def check(condition, what, text):
    assert condition, f"{what}\n---\n{text}"


def test_report(tmp):
    path = tmp / "bench.json"
    path.write_text(json.dumps(RUN))
    result = spmm(path)
    check(result.returncode == 0, "spmm.py failed", result.stderr)
    out = result.stdout
    for line in [
        "# SpMM: k vectors per product — Test GPU",
        "## cplx (complex, double)",
        "| 1 | 10.00 | `sell32.aos.aos.static.t128.b4.l1` | 1.00 | 25.00 (`csr`) | 2.50 | 15.00 | 1.50 |",
        "| 2 | 8.00 | `sell32.aos.aos.static.t128.b4.l1` | 1.25 | 20.00 (`cusparseSpMM_CSR_row_CSR_ALG3`) | 2.50 | "
        "n/a (Kokkos Kernels \\| failed) | – |",
        "| 4 | 6.00 | `sell32.aos.aos.static.t128.b4.l1` | 1.67 | 15.00 (`cusparseSpMM_CSR_row_CSR_ALG3`) | 2.50 | "
        "12.00 | 2.00 |",
        "## quat (quaternion, float)",
        "| 1 | 8.00 | `sell32.aos.aos.static.t128.b4.l1` | 1.00 | 16.00 (`csr`) | 2.00 | 24.00 | 3.00 |",
        "| 4 | 4.00 | `sell32.aos.aos.static.t128.b4.l1` | 2.00 | n/a (cuSPARSE needs the CUDA backend) | – | 16.00 "
        "| 4.00 |",
        # Geometric means: cplx and cplx2 at k = 4: gains 1.667 and 2 (1.83), vs cuSPARSE 2.5 and 1
        # (1.58), vs KK 2 and 2 (2.00); at k = 2 KK ran on cplx2 only.
        "| complex | double | 4 | 2 | 1.83 | 1.58 | 2.00 |",
        "| complex | double | 2 | 2 | 1.12 | 1.58 | 1.00 (1 of 2) |",
        "| quaternion | float | 4 | 1 | 2.00 | – | 4.00 |",
    ]:
        check(line in out, f"missing: {line}", out)
    check("1000000.00" not in out, "the op T record was read", out)
    # --out, and a directory holding bench.json.gz.
    (tmp / "run").mkdir()
    with gzip.open(tmp / "run" / "bench.json.gz", "wt") as f:
        json.dump(RUN, f)
    result = spmm(tmp / "run", "--out", tmp / "spmm.md")
    check(result.returncode == 0 and (tmp / "spmm.md").read_text() == out, "--out or .gz differ", result.stderr)


def test_no_spmm_and_bad_input(tmp):
    path = tmp / "spmv_only.json"
    path.write_text(json.dumps(bench([record("cplx", "complex", "double", 1, 10e-6, 25e-6, 15e-6)])))
    result = spmm(path)
    check(result.returncode == 0 and "No SpMM results" in result.stdout, "a run without k > 1", result.stdout)
    twice = tmp / "twice.json"
    twice.write_text(json.dumps(bench([record("cplx", "complex", "double", 4, 1e-6, 1e-6, 1e-6)] * 2)))
    result = spmm(twice)
    check(result.returncode == 2 and "cplx (double) k = 4 is in the file twice" in result.stderr, "twice",
          result.stderr)
    (tmp / "bad.json").write_text('{"matrices": [')
    result = spmm(tmp / "bad.json")
    check(result.returncode == 2 and "cannot read" in result.stderr, "truncated JSON", result.stderr)
    (tmp / "list.json").write_text("[1]")
    result = spmm(tmp / "list.json")
    check(result.returncode == 2 and "not a compound-bench result" in result.stderr, "not a bench", result.stderr)


def test_spmv_summaries_keep_to_k1(tmp):
    """The SpMV's reports read the k = 1 records only; merge_bench.py and compare_runs.py key on k."""
    sys.path.insert(0, str(HERE))
    import make_report  # noqa: E402  (the script's own module)

    path = tmp / "mixed_k.json"
    run = bench([record("cplx", "complex", "double", 1, 10e-6, 25e-6, 15e-6),
                 record("cplx", "complex", "double", 4, 24e-6, 60e-6, 48e-6)])
    path.write_text(json.dumps(run))
    runs = make_report.load_runs([str(path)])  # would refuse "cplx (double)" twice
    check([m.get("k", 1) for m in runs[0]["matrices"]] == [1], "make_report kept an SpMM record",
          runs[0]["matrices"])
    for script in ("transposes.py", "mixed_precision.py"):
        pair = [record("q", "quaternion", p, k, t, 2 * t, 3 * t, op=op) for p in ("float", "mixed", "double")
                for op in ("N", "H") for k, t in ((1, 10e-6), (4, 1.0))]
        (tmp / "ops.json").write_text(json.dumps(bench(pair)))
        result = subprocess.run([sys.executable, str(HERE / script), str(tmp / "ops.json")], capture_output=True,
                                text=True)
        check(result.returncode == 0 and "10.00" in result.stdout and "1000000.00" not in result.stdout,
              f"{script} read an SpMM record", result.stdout + result.stderr)
    # merge_bench.py: k = 1 and k = 4 of one matrix are two records; k = 4 twice is refused.
    (tmp / "k1.json").write_text(json.dumps(bench([record("cplx", "complex", "double", 1, 1e-6, 1e-6, 1e-6)])))
    (tmp / "k4.json").write_text(json.dumps(bench([record("cplx", "complex", "double", 4, 1e-6, 1e-6, 1e-6)])))
    merge = [sys.executable, str(HERE / "merge_bench.py"), str(tmp / "merged.json")]
    result = subprocess.run(merge + [str(tmp / "k1.json"), str(tmp / "k4.json")], capture_output=True, text=True)
    check(result.returncode == 0, "merge of k = 1 and k = 4", result.stderr)
    result = subprocess.run(merge + [str(tmp / "k4.json"), str(tmp / "k4.json")], capture_output=True, text=True)
    check(result.returncode == 2 and "cplx k=4 (double)" in result.stderr, "k = 4 twice", result.stderr)
    # compare_runs.py: the SpMM record is its own row, "name k=K".
    for name, scale in (("a", 1.0), ("b", 1.1)):
        (tmp / name).mkdir()
        (tmp / name / "bench.json").write_text(json.dumps(bench(
            [record("cplx", "complex", "double", 1, 10e-6, 20e-6, 30e-6),
             record("cplx", "complex", "double", 4, 20e-6 * scale, 40e-6, 60e-6)])))
    result = subprocess.run([sys.executable, str(HERE / "compare_runs.py"), str(tmp / "a"), str(tmp / "b")],
                            capture_output=True, text=True)
    check(result.returncode == 0 and "| cplx k=4 | double | ours_tuned | 20.00 | 22.00 | 1.100 ** |" in result.stdout
          and "| cplx | double | ours_tuned | 10.00 | 10.00 | 1.000 |" in result.stdout, "compare_runs.py",
          result.stdout + result.stderr)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for test in (test_report, test_no_spmm_and_bad_input, test_spmv_summaries_keep_to_k1):
            (tmp / test.__name__).mkdir()
            test(tmp / test.__name__)
    print("test_spmm.py: all checks passed")


if __name__ == "__main__":
    main()
