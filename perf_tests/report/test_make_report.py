#!/usr/bin/env python3
"""Tests make_report.py on synthetic bench.json files whose speedups, bandwidth fractions and
target verdicts are known by construction (ctest: report.make_report).

Two runs (double as a directory, float as a file), two classes, a failed baseline, a
heat map; plus malformed inputs, which must fail with a clear message.
"""
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "make_report.py")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
TUNED_Q = "sell32.soa.aos.dynamic_warp.t256.b4.l1"


def res(method, seconds, variant="v", error=""):
    """One result entry; seconds=None makes a failed one."""
    return {"method": method, "variant": variant, "ok": seconds is not None, "seconds": seconds or 0,
            "relative_error": 1e-16 if seconds else 0, "error": error}


def matrix(name, cls, precision, compulsory, results, **extra):
    m = {"name": name, "class": cls, "precision": precision, "rows": 1000, "cols": 1000, "nnz": 7000,
         "compulsory_bytes": compulsory, "memory_bytes": {"csr": 1e7, "ell": 3.27e7, "sell16": 1.1e7, "sell32": 4.15e8},
         "results": results, "search": []}
    m.update(extra)
    return m


def run(matrices, device="NVIDIA H200"):
    return {"schema": 1, "command": "compound-bench --zoo zoo/full --out x", "commit": "abc1234",
            "date": "2026-11-21T15:00:00Z",
            "device": {"name": device, "backend": "Cuda", "compute_capability": "9.0", "multiprocessors": 132,
                       "l2_cache_bytes": 62914560, "memory_bytes": 150000000000, "cuda_runtime": "13.0",
                       "driver": "580.159.04"},
            "copy_bandwidth_bytes_per_s": 4e12, "timing": {"warmup": 5, "batch": 10, "samples": 50},
            "search": "reduced", "matrices": matrices,
            # The variant space's lists, as compound-bench writes them (declaration order).
            "entry_classes": ["complex", "quaternion", "block3"], "outer_layouts": ["csr", "sell32", "sell16", "ell"]}


# Double: quaternion speedups 4.0 and 2.5 (geomean 3.16: met; min 2.5: missed by 17%);
# complex 0.83x cuSPARSE (missed), 83% of copy bandwidth (met), 1.33x Kokkos Kernels (missed).
HEATMAP = {"variant_prefix": "sell32.soa.aos.dynamic_warp", "lanes_per_row": 1,
           "cells": [{"threads": t, "teams_per_sm": b, "seconds": 3e-6 * (1 + 0.1 * i + 0.05 * j)}
                     for i, t in enumerate((64, 128, 256, 512)) for j, b in enumerate((1, 2, 4, 8))
                     if (t, b) != (512, 8)]}
DOUBLE = run([
    matrix("quat-a", "quaternion", "double", 9.3e6,
           [res("cusparse", 12e-6, "bsr4x4"), res("kokkos_kernels", None, "crs", "not built"),
            res("ours_default", 9e-6, "csr.aos.aos.static.t128.b4.l1"), res("ours_tuned", 3e-6, TUNED_Q)],
           heatmap=HEATMAP),
    matrix("quat-b", "quaternion", "double", 8e6,
           [res("cusparse", 10e-6, "bsr4x4"), res("kokkos_kernels", None, "crs", "not built"),
            res("ours_default", 8e-6, "csr.aos.aos.static.t128.b4.l1"),
            res("ours_tuned", 4e-6, "ell.aos.soa.static.t128.b8.l2")]),
    matrix("cplx-big", "complex", "double", 2e8,
           [res("cusparse", 5e-5, "csr"), res("kokkos_kernels", 8e-5, "crs"),
            res("ours_default", 7e-5, "csr.aos.aos.static.t128.b4.l1"),
            res("ours_tuned", 6e-5, "sell16.soa.soa.dynamic_team.t512.b2.l4")]),
])
# Float: cuSPARSE fails on quat-a (excluded from target, left out of plot);
# complex 1.2x cuSPARSE (met), 50% of copy bandwidth (missed by 30 points).
FLOAT = run([
    matrix("quat-a", "quaternion", "float", 5e6,
           [res("cusparse", None, "bsr4x4", "CUSPARSE_STATUS_NOT_SUPPORTED | bsr"),
            res("ours_default", 5e-6, "csr.aos.aos.static.t128.b4.l1"), res("ours_tuned", 2e-6, TUNED_Q)]),
    matrix("cplx-big", "complex", "float", 1e8,
           [res("cusparse", 6e-5, "csr"), res("ours_default", 7e-5, "csr.aos.aos.static.t128.b4.l1"),
            res("ours_tuned", 5e-5, "csr.soa.aos.dynamic_warp.t256.b4.l1")]),
])


def run_script(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=300)


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="make_report_test_")
        root = cls.tmp.name
        os.makedirs(os.path.join(root, "double"))
        with open(os.path.join(root, "double", "bench.json"), "w") as fh:
            json.dump(DOUBLE, fh)
        cls.float_json = os.path.join(root, "float.json")
        with open(cls.float_json, "w") as fh:
            json.dump(FLOAT, fh)
        cls.out = os.path.join(root, "out")
        cls.proc = run_script(os.path.join(root, "double"), cls.float_json, "--out", cls.out)
        path = os.path.join(cls.out, "report.md")
        cls.report = open(path, encoding="utf-8").read() if os.path.exists(path) else ""

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def assertIn(self, member, container, msg=None):  # show the report on failure
        super().assertIn(member, container, msg or f"\n--- report.md ---\n{container}")

    def test_runs_cleanly(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)

    def test_header_from_metadata(self):
        for text in ("NVIDIA H200", "driver 580.159.04", "CUDA runtime 13.0", "`abc1234`", "2026-11-21T15:00:00Z",
                     "compound-bench --zoo zoo/full", "warmup 5, batch 10, samples 50", "4000 GB/s"):
            self.assertIn(text, self.report)

    def test_best_layout_table(self):
        self.assertIn("| quat-a | sell32 | soa | aos | dynamic_warp | 256 | 4 | 1 | 3.00 µs | 4.00× | 3.00× |",
                      self.report)
        self.assertIn("| quat-a | sell32 | soa | aos | dynamic_warp | 256 | 4 | 1 | 2.00 µs | "
                      "n/a (cuSPARSE failed) | 2.50× |", self.report)
        self.assertIn("**quaternion, float**", self.report)
        self.assertIn("**complex, double**", self.report)

    def test_memory_table(self):
        # Columns in the run's outer-layout order, relative to its first (default) layout.
        self.assertIn("| Matrix | class | precision | csr MB | csr | sell32 | sell16 | ell |", self.report)
        self.assertIn("| quat-a | quaternion | double | 10.00 | 1.00 | 41.5 | 1.10 | 3.27 |", self.report)

    def test_bandwidth_and_failures(self):
        self.assertIn("3100 GB/s (78%)", self.report)  # 9.3 MB / 3 us, of 4 TB/s
        self.assertIn("failed: not built", self.report)
        self.assertIn("failed: CUSPARSE_STATUS_NOT_SUPPORTED \\| bsr", self.report)
        self.assertIn("Left out of the float plot (failed): quat-a: cuSPARSE failed", self.report)

    def test_targets(self):
        for line in (
                "quaternion ≥ 3× cuSPARSE (expanded 4×4 BSR), double: geomean 3.16× — **met** (+5% vs 3×); "
                "min 2.50× — **missed** (-17% vs 3×) (quat-b); 2 matrices",
                "complex ≥ 1× cuSPARSE CSR, double: geomean 0.83× — **missed** (-17% vs 1×)",
                "complex ≥ 1× cuSPARSE CSR, float: geomean 1.20× — **met** (+20% vs 1×); "
                "min 1.20× — **met** (+20% vs 1×) (cplx-big); 1 matrix",
                "quaternion ≥ 3× cuSPARSE (expanded 4×4 BSR), float: no usable results "
                "(excluded: quat-a (n/a (cuSPARSE failed)))",
                "of copy bandwidth, double: geomean 83% — **met** (+3 points vs 80%)",
                "of copy bandwidth, float: geomean 50% — **missed** (-30 points vs 80%)",
                "quaternion ≥ 1.5× Kokkos Kernels, double: no Kokkos Kernels results",
                "complex ≥ 1.5× Kokkos Kernels, double: geomean 1.33× — **missed** (-11% vs 1.5×)",
                "Analysis: see perf_tests/results/h200/ANALYSIS.md"):
            self.assertIn(line, self.report)
        self.assertIn("block3 ≥ 1.5× cuSPARSE BSR, double: no block3 matrices", self.report)

    def test_pngs(self):
        for name in ("speedup_float.png", "speedup_double.png", "heatmap.png"):
            path = os.path.join(self.out, name)
            self.assertTrue(os.path.exists(path), name)
            self.assertGreater(os.path.getsize(path), 10_000, name)
            with open(path, "rb") as fh:
                self.assertEqual(fh.read(8), PNG_MAGIC, name)
            self.assertIn(f"]({name})", self.report)

    def test_two_devices_get_separate_files(self):
        other = copy.deepcopy(DOUBLE)
        other["device"]["name"] = "NVIDIA H100 80GB HBM3"
        path = os.path.join(self.tmp.name, "h100.json")
        with open(path, "w") as fh:
            json.dump(other, fh)
        out = os.path.join(self.tmp.name, "out2")
        proc = run_script(self.float_json, path, "--out", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for name in ("speedup_float_h200.png", "speedup_double_h100-80gb-hbm3.png", "heatmap_h100-80gb-hbm3.png"):
            self.assertTrue(os.path.exists(os.path.join(out, name)), name)
        report = open(os.path.join(out, "report.md"), encoding="utf-8").read()
        self.assertIn("Analysis: see perf_tests/results/h100-80gb-hbm3/ANALYSIS.md", report)

    def check_rejected(self, text, expected):
        path = os.path.join(self.tmp.name, "bad.json")
        with open(path, "w") as fh:
            fh.write(text)
        proc = run_script(path, "--out", os.path.join(self.tmp.name, "bad_out"))
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn(expected, proc.stderr)
        self.assertIn("bad.json", proc.stderr)

    def test_missing_matrices_rejected(self):
        bad = copy.deepcopy(DOUBLE)
        del bad["matrices"]
        self.check_rejected(json.dumps(bad), "missing key 'matrices'")

    def test_wrong_schema_rejected(self):
        self.check_rejected(json.dumps(dict(DOUBLE, schema=2)), "schema is 2, this script reads schema 1")

    def test_missing_result_field_rejected(self):
        bad = copy.deepcopy(DOUBLE)
        del bad["matrices"][1]["results"][0]["seconds"]
        self.check_rejected(json.dumps(bad), "matrices[1] (quat-b): results[0]: missing key 'seconds'")

    def test_invalid_json_rejected(self):
        self.check_rejected('{"schema": 1, "matrices": [', "not valid JSON")


if __name__ == "__main__":
    unittest.main(verbosity=2)
