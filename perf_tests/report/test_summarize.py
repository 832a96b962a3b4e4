#!/usr/bin/env python3
"""Tests summarize.py (ctest: report.summarize) on a synthetic compound-bench run and its rerun,
whose ratios are known by construction: summary.csv's rows, the headline tables, the rerun
agreement, the plots, the slim copy (no search lists; make_report.py, spmm.py and this script
read it as the full file) and the refusals."""
import csv
import gzip
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
SCRIPT = HERE / "summarize.py"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def res(method, seconds, k, variant="v", error="failed"):
    """One result; seconds=None makes a failed one."""
    return {"method": method, "variant": variant, "k": k, "ok": seconds is not None, "seconds": seconds or 0,
            "seconds_per_vector": (seconds or 0) / k, "relative_error": 1e-15 if seconds else 0,
            "error": "" if seconds else error}


def record(name, cls, precision, k, ours, cusparse, kk, forms=None, op="N", with_k=True):
    form = "cusparseSpMV_CSR_ALG1_preprocess" if k == 1 else "cusparseSpMM_CSR_row_CSR_ALG3"
    if forms:  # cuSPARSE's result is its fastest form
        form = min((f for f in forms if f["ok"]), key=lambda f: f["seconds"])["variant"]
    m = {"name": name, "class": cls, "structure": "grid", "precision": precision, "op": op, "rows": 100,
         "cols": 100, "nnz": 700, "compulsory_bytes": 1e6 * k, "memory_bytes": {"csr": 1000},
         "results": [res("ours_default", 2 * ours, k, "csr.aos.aos.static.t128.b4.l1"),
                     res("ours_tuned", ours, k, "sell32.aos.aos.static.t128.b4.l1"),
                     res("cusparse", cusparse, k, form, "cuSPARSE needs the CUDA backend"),
                     res("kokkos_kernels", kk, k, "crs", "Kokkos Kernels\n  failed")],
         "cusparse_forms": forms if forms is not None else
         ([{"variant": form, "ok": True, "seconds": cusparse, "k": k}] if cusparse else []),
         "cusparse_best": {"variant": form if cusparse else "none", "seconds": cusparse or 0},
         "search": [{"variant": f"v{i}", "seconds": 1e-3, "ok": True} for i in range(50)]}
    if with_k:
        m["k"] = k
    return m


def bench(matrices):
    return {"schema": 1, "command": "compound-bench --k 1,4", "commit": "abc", "date": "2026-11-26T00:00:00Z",
            "search": "reduced", "timing": {"warmup": 5, "batch": 10, "samples": 50, "mode": "queued"},
            "entry_classes": ["complex", "quaternion"], "outer_layouts": ["csr", "sell32"],
            "device": {"name": "Test GPU", "compute_capability": "9.0", "backend": "Cuda",
                       "cuda_runtime": "13.0", "driver": "CUDA 13.0"},
            "copy_bandwidth_bytes_per_s": 4e12, "read_bandwidth_bytes_per_s": 3.7e12, "matrices": matrices,
            "skipped": []}


def quat_forms(real, cplx):
    return [{"variant": "bsrmv4x4", "ok": True, "seconds": real, "k": 1},
            {"variant": "cusparseSpMV_expandedCSR_ALG1_preprocess", "ok": False, "seconds": 0, "k": 1},
            {"variant": "bsrmv2x2complex", "ok": True, "seconds": cplx, "k": 1}]


# c1, c2 (complex double): cuSPARSE 2x and 0.5x ours at k = 1 (geometric mean 1.00, min 0.50),
# 4x and 1x at k = 4 (2.00, min 1.00); Kokkos Kernels 3x on c1 at k = 1, failed on c2. q1 (quaternion
# float, k = 1, a record without "k"): its fastest form the 2x2 complex one (1.5x ours), the real
# 4x4 form 3x ours. An op T record: its own row, out of the tables.
RUN = bench([
    record("c1", "complex", "double", 1, 10e-6, 20e-6, 30e-6),
    record("c2", "complex", "double", 1, 20e-6, 10e-6, None),
    record("c1", "complex", "double", 4, 10e-6, 40e-6, 40e-6),
    record("c2", "complex", "double", 4, 20e-6, 20e-6, 40e-6),
    record("q1", "quaternion", "float", 1, 4e-6, 6e-6, 8e-6, forms=quat_forms(12e-6, 6e-6), with_k=False),
    record("c1", "complex", "double", 1, 1.0, 2.0, 3.0, op="T"),
])
# The rerun: c1 k = 1 ours 1.10x slower (outside 5%), c2 k = 4 cuSPARSE 1.02x; q1 missing.
RERUN = bench([
    record("c1", "complex", "double", 1, 11e-6, 20e-6, 30e-6),
    record("c2", "complex", "double", 1, 20e-6, 10e-6, None),
    record("c1", "complex", "double", 4, 10e-6, 40e-6, 40e-6),
    record("c2", "complex", "double", 4, 20e-6, 20.4e-6, 40e-6),
    record("c1", "complex", "double", 1, 1.0, 2.0, 3.0, op="T"),
])


def write_bench_csv(matrices, path):
    """compound-bench's bench.csv of these records (its columns; a cusparse_form row after each)."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["matrix", "class", "structure", "precision", "op", "k", "rows", "nnz", "method", "variant",
                    "ok", "seconds", "effective_gb_per_s", "fraction_of_copy", "speedup_vs_cusparse",
                    "fraction_of_read", "seconds_per_vector"])
        for m in matrices:
            for r in m["results"] + [dict(f, method="cusparse_form", seconds=1.0) for f in m["cusparse_forms"]]:
                w.writerow([m["name"], m["class"], m["structure"], m["precision"], m["op"], m["k"], 100, 700,
                            r["method"], r["variant"], int(r["ok"]), r["seconds"], 1, 1, 1, 1, r["seconds"]])


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


def check(condition, what, text=""):
    assert condition, f"{what}\n---\n{text}"


def test_csv_and_tables(tmp):
    (tmp / "bench.json").write_text(json.dumps(RUN))
    # The rerun in two parts: k = 1 in a directory holding bench.json.gz, k = 4 as a bench.csv.
    (tmp / "rerun").mkdir()
    with gzip.open(tmp / "rerun" / "bench.json.gz", "wt") as f:
        json.dump(bench([m for m in RERUN["matrices"] if m["k"] == 1]), f)
    write_bench_csv([m for m in RERUN["matrices"] if m["k"] == 4], tmp / "rerun_k4.csv")
    result = run(tmp / "bench.json", "--rerun", tmp / "rerun", "--rerun", tmp / "rerun_k4.csv",
                 "--csv", tmp / "summary.csv", "--markdown", tmp / "tables.md")
    check(result.returncode == 0, "summarize.py failed", result.stderr)
    rows = list(csv.DictReader(open(tmp / "summary.csv", encoding="utf-8")))
    check(len(rows) == 6, "one row per matrix, precision, op and k", rows)
    first = rows[0]
    expected = {"matrix": "c1", "class": "complex", "structure": "grid", "precision": "double", "op": "N", "k": "1",
                "nnz": "700", "ours_tuned_us": "10.000", "ours_default_us": "20.000", "cusparse_us": "20.000",
                "kokkos_kernels_us": "30.000", "speedup_vs_cusparse": "2.000", "speedup_vs_kokkos_kernels": "3.000",
                "speedup_default_vs_cusparse": "1.000", "ours_tuned_variant": "sell32.aos.aos.static.t128.b4.l1",
                "cusparse_form": "cusparseSpMV_CSR_ALG1_preprocess", "rerun_ours_tuned_us": "11.000",
                "rerun_cusparse_us": "20.000", "rerun_kokkos_kernels_us": "30.000", "failed": ""}
    check(first == expected, "the first row", first)
    c2 = rows[1]
    check(c2["kokkos_kernels_us"] == "" and c2["speedup_vs_kokkos_kernels"] == ""
          and c2["failed"] == "kokkos_kernels: Kokkos Kernels failed" and c2["speedup_vs_cusparse"] == "0.500",
          "a failed baseline: empty cells, its error in one line", c2)
    q1 = rows[4]
    check(q1["k"] == "1" and q1["cusparse_form"] == "bsrmv2x2complex"
          and q1["rerun_ours_tuned_us"] == "", "a record without k; not in the rerun", q1)
    check(rows[5]["op"] == "T" and rows[5]["ours_tuned_us"] == "1000000.000", "the op T row", rows[5])

    md = (tmp / "tables.md").read_text(encoding="utf-8")
    for line in [
        "Ours tuned against cuSPARSE's fastest form (Test GPU; products with A)",
        "| class | precision | matrices | k = 1 | k = 4 |",
        "| quaternion | float | 1 | 1.50× (min 1.50) | – |",
        "| complex | double | 2 | 1.00× (min 0.50) | 2.00× (min 1.00) |",
        # Kokkos Kernels: c1 3x at k = 1, c2 failed; at k = 4 4x and 2x.
        "| complex | double | 2 | 3.00× (min 3.00) (1 of 2) | 2.83× (min 2.00) |",
        "| float | 1 | 3.00× (min 3.00) | 1.50× (min 1.50) |",
        "| rerun / run | k = 1 | k = 4 |",
        "| ours_tuned | 1 of 2 (1.000–1.100) | 2 of 2 (1.000–1.000) |",
        "| cusparse | 2 of 2 (1.000–1.000) | 2 of 2 (1.000–1.020) |",
        "| kokkos_kernels | 1 of 1 (1.000–1.000) | 2 of 2 (1.000–1.000) |",
        # The speedup over cuSPARSE, rerun's over run's: c1 k = 1 1/1.1, c2 k = 4 1.02.
        "| speedup over cuSPARSE | 1 of 2 (0.909–1.000) | 2 of 2 (1.000–1.020) |",
        "Not in the rerun: q1 (float, op N, k = 1).",
    ]:
        check(line in md, f"missing: {line}", md)
    check("| quaternion | float | 1 | 2.00× (min 2.00) | – |" in md, "Kokkos Kernels, quaternion", md)
    check("1000000" not in md and "of 3" not in md, "the op T record entered the tables", md)
    # Without an output option: the tables on stdout, no rerun section.
    result = run(tmp / "bench.json")
    check(result.returncode == 0 and result.stdout.startswith("Ours tuned against") and "Rerun" not in result.stdout,
          "stdout", result.stdout + result.stderr)


def test_plots_and_slim(tmp):
    (tmp / "bench.json").write_text(json.dumps(RUN))
    result = run(tmp / "bench.json", "--plot", tmp / "speedup.png", "--plot-k", tmp / "by_k.png",
                 "--slim", tmp / "slim.json.gz")
    check(result.returncode == 0, "plots and slim", result.stderr)
    for name in ("speedup.png", "by_k.png"):
        data = (tmp / name).read_bytes()
        check(data[:8] == PNG_MAGIC and len(data) > 10_000, f"{name} is not a PNG plot")
    slim = json.load(gzip.open(tmp / "slim.json.gz", "rt"))
    check(all("search" not in m for m in slim["matrices"]), "search lists left in the slim copy")
    full = json.loads((tmp / "bench.json").read_text())
    for m in full["matrices"]:
        del m["search"]
    check(slim == full, "the slim copy lost more than the search lists")
    check((tmp / "slim.json.gz").stat().st_size < (tmp / "bench.json").stat().st_size / 5, "slim is not smaller")
    # The slim copy reads as the full file does.
    a = run(tmp / "bench.json", "--csv", tmp / "a.csv")
    b = run(tmp / "slim.json.gz", "--csv", tmp / "b.csv")
    check(a.returncode == b.returncode == 0 and (tmp / "a.csv").read_text() == (tmp / "b.csv").read_text(),
          "summary of the slim copy differs", a.stderr + b.stderr)
    for script, args in (("spmm.py", []), ("make_report.py", ["--out", str(tmp / "report")])):
        result = subprocess.run([sys.executable, str(HERE / script), str(tmp / "slim.json.gz"), *args],
                                capture_output=True, text=True, env=dict(os.environ, MPLBACKEND="Agg"))
        check(result.returncode == 0, f"{script} on the slim copy", result.stdout + result.stderr)
    # A run of one k: no plot by k, said on stderr.
    one = bench([record("c1", "complex", "double", 1, 10e-6, 20e-6, 30e-6)])
    (tmp / "one.json").write_text(json.dumps(one))
    result = run(tmp / "one.json", "--plot-k", tmp / "none.png")
    check(result.returncode == 0 and not (tmp / "none.png").exists() and "one k only" in result.stderr,
          "plot by k of one k", result.stderr)


def test_refusals(tmp):
    twice = tmp / "twice.json"
    twice.write_text(json.dumps(bench([record("c1", "complex", "double", 4, 1e-6, 1e-6, 1e-6)] * 2)))
    result = run(twice)
    check(result.returncode == 2 and "c1 (double, op N, k = 4) is in the file twice" in result.stderr, "twice",
          result.stderr)
    (tmp / "run.json").write_text(json.dumps(RUN))
    write_bench_csv(RUN["matrices"][:1], tmp / "part.csv")
    result = run(tmp / "run.json", "--rerun", tmp / "part.csv", "--rerun", tmp / "part.csv")
    check(result.returncode == 2 and "c1 (double, op N, k = 1) is in the reruns twice" in result.stderr,
          "a pair in two reruns", result.stderr)
    (tmp / "other.csv").write_text("a,b\n1,2\n")
    result = run(tmp / "run.json", "--rerun", tmp / "other.csv")
    check(result.returncode == 2 and "not a compound-bench bench.csv" in result.stderr, "not a bench.csv",
          result.stderr)
    (tmp / "bad.json").write_text('{"matrices": [')
    result = run(tmp / "bad.json")
    check(result.returncode == 2 and "cannot read" in result.stderr, "truncated JSON", result.stderr)
    (tmp / "list.json").write_text("[1]")
    result = run(tmp / "list.json")
    check(result.returncode == 2 and "not a compound-bench result" in result.stderr, "not a bench", result.stderr)
    (tmp / "norec.json").write_text(json.dumps({"matrices": [{"name": "x"}]}))
    result = run(tmp / "norec.json")
    check(result.returncode == 2 and "matrices[0]: not a matrix record" in result.stderr, "no results",
          result.stderr)
    (tmp / "empty").mkdir()
    result = run(tmp / "empty")
    check(result.returncode == 2 and "no bench.json or bench.json.gz" in result.stderr, "empty dir", result.stderr)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for test in (test_csv_and_tables, test_plots_and_slim, test_refusals):
            (tmp / test.__name__).mkdir()
            test(tmp / test.__name__)
    print("test_summarize.py: all checks passed")


if __name__ == "__main__":
    main()
