#!/usr/bin/env python3
"""Tests make_report.py on synthetic bench.json files whose speedups, bandwidth fractions and
target verdicts are known by construction (ctest: report.make_report).

Two runs (double as a directory, float as a file), two classes, a failed baseline, a
heat map; plus malformed inputs, which must fail with a clear message. A third run
(StructureTest) has every cuSPARSE form per matrix and matrices of each structure, whose
per-structure geometric means and irregular-family figures are known by construction.
"""
import copy
import gzip
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
# Structures: quat-a irregular, quat-b grid, cplx-big mesh; the float run has none (an
# older bench.json): its matrices are "unknown". No cusparse_forms (older files).
HEATMAP = {"variant_prefix": "sell32.soa.aos.dynamic_warp", "lanes_per_row": 1,
           "cells": [{"threads": t, "teams_per_sm": b, "seconds": 3e-6 * (1 + 0.1 * i + 0.05 * j)}
                     for i, t in enumerate((64, 128, 256, 512)) for j, b in enumerate((1, 2, 4, 8))
                     if (t, b) != (512, 8)]}
DOUBLE = run([
    matrix("quat-a", "quaternion", "double", 9.3e6,
           [res("cusparse", 12e-6, "bsr4x4"), res("kokkos_kernels", None, "crs", "not built"),
            res("ours_default", 9e-6, "csr.aos.aos.static.t128.b4.l1"), res("ours_tuned", 3e-6, TUNED_Q)],
           heatmap=HEATMAP, structure="irregular"),
    matrix("quat-b", "quaternion", "double", 8e6,
           [res("cusparse", 10e-6, "bsr4x4"), res("kokkos_kernels", None, "crs", "not built"),
            res("ours_default", 8e-6, "csr.aos.aos.static.t128.b4.l1"),
            res("ours_tuned", 4e-6, "ell.aos.soa.static.t128.b8.l2")], structure="grid"),
    matrix("cplx-big", "complex", "double", 2e8,
           [res("cusparse", 5e-5, "csr"), res("kokkos_kernels", 8e-5, "crs"),
            res("ours_default", 7e-5, "csr.aos.aos.static.t128.b4.l1"),
            res("ours_tuned", 6e-5, "sell16.soa.soa.dynamic_team.t512.b2.l4")], structure="mesh"),
])
# Float: cuSPARSE fails on quat-a (excluded from target, left out of plot);
# complex 1.2x cuSPARSE (met), 50% of copy bandwidth (missed by 30 points), 80% of
# the read-only bandwidth (2.5 TB/s, measured in this run only).
FLOAT = run([
    matrix("quat-a", "quaternion", "float", 5e6,
           [res("cusparse", None, "bsr4x4", "CUSPARSE_STATUS_NOT_SUPPORTED | bsr"),
            res("ours_default", 5e-6, "csr.aos.aos.static.t128.b4.l1"), res("ours_tuned", 2e-6, TUNED_Q)]),
    matrix("cplx-big", "complex", "float", 1e8,
           [res("cusparse", 6e-5, "csr"), res("ours_default", 7e-5, "csr.aos.aos.static.t128.b4.l1"),
            res("ours_tuned", 5e-5, "csr.soa.aos.dynamic_warp.t256.b4.l1")]),
])
FLOAT["read_bandwidth_bytes_per_s"] = 2.5e12


# StructureTest: one double run, copy bandwidth 1 TB/s, every cuSPARSE form per matrix
# (but mesh-b, recorded the old way), matrices of every structure. By construction:
#   irregular complex (irr-c1, irr-c2): ours_tuned / cuSPARSE 2 and 8 (geomean 4.00),
#     ours_default 1 and 4 (2.00), over Kokkos Kernels 3 and 3 (3.00), ours_tuned at 100%
#     and 50% of copy (71%), cuSPARSE at 50% and 6.25% (18%);
#   irregular quaternion (irr-q): 1.00, 0.50, no Kokkos Kernels, 60% and 60%;
#   irregular, all three: 16^(1/3) = 2.52, 2^(1/3) = 1.26, 3.00 (2 of 3), 67%, 27%.
def form(variant, seconds, error="", note=None):
    f = res("cusparse", seconds, variant, error)
    if note:
        f["note"] = note
    return f


def forms_matrix(name, cls, structure, compulsory, forms, ours, default, kk=None, **extra):
    """A matrix whose "cusparse" result is its fastest form, as compound-bench writes it."""
    best = min((f for f in forms if f["ok"]), key=lambda f: f["seconds"])
    results = [res("cusparse", best["seconds"], best["variant"]), res("ours_tuned", ours, TUNED_Q),
               res("ours_default", default, "csr.aos.aos.static.t128.b4.l1")]
    if kk:
        results.append(res("kokkos_kernels", kk, "crs"))
    extra.setdefault("cusparse_forms", forms)
    return matrix(name, cls, "double", compulsory, results, structure=structure, **extra)


STRUCT = dict(run([
    forms_matrix("irr-c1", "complex", "irregular", 4e6,
                 [form("cusparseSpMV_CSR_default", 10e-6), form("cusparseSpMV_CSR_ALG1_preprocess", 8e-6),
                  form("cusparseSpMV_CSR_ALG2_preprocess", 9e-6)], 4e-6, 8e-6, 12e-6),
    forms_matrix("irr-c2", "complex", "irregular", 1e6,
                 [form("cusparseSpMV_CSR_default", 20e-6),
                  form("cusparseSpMV_CSR_ALG1_preprocess", None, "CUSPARSE_STATUS_NOT_SUPPORTED"),
                  form("cusparseSpMV_CSR_ALG2", 16e-6,
                       note="cusparseSpMV_preprocess: not supported; timed without preprocessing")],
                 2e-6, 4e-6, 6e-6),
    forms_matrix("irr-q", "quaternion", "irregular", 3e6,
                 [form("bsrmv4x4", 6e-6), form("cusparseSpMV_BSR4x4_ALG1_preprocess", None, "not supported"),
                  form("cusparseSpMV_expandedCSR_ALG1_preprocess", 5e-6),
                  form("cusparseSpMV_expandedCSR_ALG2_preprocess", 7e-6)], 5e-6, 10e-6),
    forms_matrix("grid-c", "complex", "grid", 1e6,
                 [form("cusparseSpMV_CSR_default", 3e-6), form("cusparseSpMV_CSR_ALG1_preprocess", 2e-6),
                  form("cusparseSpMV_CSR_ALG2_preprocess", 2.5e-6)], 1e-6, 2e-6, 4e-6),
    forms_matrix("mesh-b", "block3", "mesh", 1e6, [form("bsr3x3", 4e-6)], 2e-6, 4e-6, cusparse_forms=None),
    forms_matrix("unk-q", "quaternion", None, 1e6, [form("bsrmv4x4", 3e-6)], 1.5e-6, 3e-6),
]), copy_bandwidth_bytes_per_s=1e12)
# irr-c1 was rerun for bitwise reproducibility: ALG1 gave other bits on all 5 reruns.
for _f in STRUCT["matrices"][0]["cusparse_forms"]:
    _f["repeats"], _f["repeats_differing"] = 5, 5 if "ALG1" in _f["variant"] else 0
for _r in STRUCT["matrices"][0]["results"]:
    if _r["method"] == "ours_tuned":
        _r["repeats"], _r["repeats_differing"] = 5, 0
for _m in STRUCT["matrices"]:  # the old way: no forms list; no structure in an older index
    for key in ("cusparse_forms", "structure"):
        if _m.get(key) is None:
            _m.pop(key, None)


def run_script(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=300)


class RenderedReport:
    """A report rendered once per test class into cls.tmp (set up by setUpClass, which
    calls render): the script's run in cls.proc, report.md's text in cls.report."""

    @classmethod
    def render(cls, *inputs):
        cls.out = os.path.join(cls.tmp.name, "out")
        cls.proc = run_script(*inputs, "--out", cls.out)
        path = os.path.join(cls.out, "report.md")
        cls.report = open(path, encoding="utf-8").read() if os.path.exists(path) else ""

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def assertIn(self, member, container, msg=None):  # show the report on failure
        super().assertIn(member, container, msg or f"\n--- report.md ---\n{container}")

    def test_runs_cleanly(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)


class ReportTest(RenderedReport, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="make_report_test_")
        root = cls.tmp.name
        os.makedirs(os.path.join(root, "double"))
        # A directory holding bench.json.gz: how older committed runs are kept.
        with gzip.open(os.path.join(root, "double", "bench.json.gz"), "wt") as fh:
            json.dump(DOUBLE, fh)
        cls.float_json = os.path.join(root, "float.json")
        with open(cls.float_json, "w") as fh:
            json.dump(FLOAT, fh)
        cls.render(os.path.join(root, "double"), cls.float_json)


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
        self.assertIn("2000 GB/s (50%; 80% of read)", self.report)  # 100 MB / 50 us, of 4 and 2.5 TB/s
        self.assertIn("- Measured read-only bandwidth (the sum of one large array): 2500 GB/s", self.report)
        self.assertIn("| quat-a | quaternion | irregular | double | 9.3 |", self.report)
        self.assertIn("| cplx-big | complex | unknown | float | 100.0 |", self.report)  # no structure: unknown
        self.assertIn("failed: not built", self.report)
        self.assertIn("failed: CUSPARSE_STATUS_NOT_SUPPORTED \\| bsr", self.report)
        self.assertIn("Left out of the float plot (failed): quat-a: cuSPARSE failed", self.report)

    def test_targets(self):
        for line in (
                "quaternion ≥ 3× the fastest cuSPARSE form, double: geomean 3.16× — **met** (+5% vs 3×); "
                "min 2.50× — **missed** (-17% vs 3×) (quat-b); 2 matrices",
                "complex ≥ 1× the fastest cuSPARSE form, double: geomean 0.83× — **missed** (-17% vs 1×)",
                "complex ≥ 1× the fastest cuSPARSE form, float: geomean 1.20× — **met** (+20% vs 1×); "
                "min 1.20× — **met** (+20% vs 1×) (cplx-big); 1 matrix",
                "quaternion ≥ 3× the fastest cuSPARSE form, float: no usable results "
                "(excluded: quat-a (n/a (cuSPARSE failed)))",
                "of copy bandwidth, double: geomean 83% — **met** (+3 points vs 80%)",
                "of copy bandwidth, float: geomean 50% — **missed** (-30 points vs 80%)",
                "quaternion ≥ 1.5× Kokkos Kernels, double: no Kokkos Kernels results",
                "complex ≥ 1.5× Kokkos Kernels, double: geomean 1.33× — **missed** (-11% vs 1.5×)"):
            self.assertIn(line, self.report)
        self.assertIn("block3 ≥ 1.5× the fastest cuSPARSE form, double: no block3 matrices", self.report)

    def test_old_files_have_one_form_and_unknown_structure(self):
        self.assertIn("Runs from before `cusparse_forms` record one cuSPARSE form per matrix, which is its "
                      "baseline: `csr` (2 matrix runs), `bsr4x4` (3 matrix runs).", self.report)
        # Double has a structure per matrix; float has none, so its only group is "unknown".
        self.assertIn("| irregular | quaternion | 1 | 4.00× | 1.33× | — | 78% | 19% |", self.report)
        self.assertIn("| unknown | complex | 1 | 1.20× | 0.86× | — | 50% | 42% |", self.report)
        self.assertIn("- irregular, double, 1 matrix: ours_tuned geomean 78% of copy bandwidth (min 78%, quat-a); "
                      "cuSPARSE geomean 19% of copy bandwidth (min 19%, quat-a)", self.report)

    def test_pngs(self):
        for name in ("speedup_float.png", "speedup_double.png", "heatmap.png", "speedup_structure_float.png",
                     "speedup_structure_double.png"):
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
        # No README.md beside either run: none is named (it once named a file by the device's slug,
        # perf_tests/results/h100-80gb-hbm3/, a directory that did not exist).
        self.assertNotIn("Analysis: see", report)

    def test_analysis_named_where_it_exists(self):
        # A committed set, DIR/bench.json with DIR/README.md beside it (perf_tests/results/h200/),
        # names its README; a run one level below a README (DIR/run/bench.json) names none.
        run_dir = os.path.join(self.tmp.name, "gpu")
        os.makedirs(os.path.join(run_dir, "run"))
        for d in (run_dir, os.path.join(run_dir, "run")):
            with open(os.path.join(d, "bench.json"), "w") as fh:
                json.dump(DOUBLE, fh)
        with open(os.path.join(run_dir, "README.md"), "w") as fh:
            fh.write("# the set\n")
        out = os.path.join(self.tmp.name, "out_analysis")
        proc = run_script(run_dir, "--out", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        report = open(os.path.join(out, "report.md"), encoding="utf-8").read()
        analysis = os.path.relpath(os.path.join(run_dir, "README.md"))
        self.assertIn(f"Analysis: see {analysis}", report)
        out = os.path.join(self.tmp.name, "out_below")
        proc = run_script(os.path.join(run_dir, "run"), "--out", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("Analysis: see", open(os.path.join(out, "report.md"), encoding="utf-8").read())

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



class StructureTest(RenderedReport, unittest.TestCase):
    """Grouping by structure, the irregular family and the cuSPARSE forms, on STRUCT."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="make_report_structure_")
        cls.bench = os.path.join(cls.tmp.name, "struct.json")
        with open(cls.bench, "w") as fh:
            json.dump(STRUCT, fh)
        cls.render(cls.bench)


    def test_structure_table(self):
        rows = ["| grid | complex | 1 | 2.00× | 1.00× | 4.00× | 100% | 50% |",
                "| mesh | block3 | 1 | 2.00× | 1.00× | — | 50% | 25% |",
                "| irregular | complex | 2 | 4.00× | 2.00× | 3.00× | 71% | 18% |",
                "| irregular | quaternion | 1 | 1.00× | 0.50× | — | 60% | 60% |",
                "| irregular | all | 3 | 2.52× | 1.26× | 3.00× (2 of 3) | 67% | 27% |",
                "| unknown | quaternion | 1 | 2.00× | 1.00× | — | 67% | 33% |"]
        for row in rows:
            self.assertIn(row, self.report)
        # Structures in the zoo's order, "unknown" last; no "all" row for a one-class structure.
        positions = [self.report.index(row) for row in rows]
        self.assertEqual(positions, sorted(positions))
        self.assertNotIn("| grid | all |", self.report)

    def test_irregular_family(self):
        self.assertIn("| irr-c2 | complex | double | 2.00 µs | cusparseSpMV_CSR_ALG2: 16.00 µs | 8.00× | 3.00× | "
                      "500 GB/s (50%) | 62 GB/s (6%) |", self.report)
        self.assertIn("| irr-q | quaternion | double | 5.00 µs | cusparseSpMV_expandedCSR_ALG1_preprocess: 5.00 µs | "
                      "1.00× | n/a (Kokkos Kernels not run) | 600 GB/s (60%) | 600 GB/s (60%) |", self.report)
        self.assertIn("- irregular, double, 3 matrices: ours_tuned geomean 67% of copy bandwidth (min 50%, irr-c2); "
                      "cuSPARSE geomean 27% of copy bandwidth (min 6%, irr-c2); Kokkos Kernels geomean 24% of copy "
                      "bandwidth (min 17%, irr-c2) over 2 of 3", self.report)
        family = self.report[self.report.index("Irregular family"):self.report.index("Best layout per matrix")]
        for other in ("grid-c", "mesh-b", "unk-q"):
            self.assertNotIn(other, family)

    def test_cusparse_forms_tables(self):
        self.assertIn("| Matrix | structure | cusparseSpMV_CSR_default | cusparseSpMV_CSR_ALG1_preprocess | "
                      "cusparseSpMV_CSR_ALG2_preprocess | cusparseSpMV_CSR_ALG2 | baseline |", self.report)
        self.assertIn("| irr-c1 | irregular | 10.00 µs (1.25×) | **8.00 µs** (not reproducible: 5 of 5 reruns "
                      "other bits) | 9.00 µs (1.12×) | — | cusparseSpMV_CSR_ALG1_preprocess |", self.report)
        self.assertIn("Not reproducible bit for bit on some matrix: `cusparseSpMV_CSR_ALG1_preprocess` (its sums change "
                      "order between runs); it stays in the baseline when it is the fastest. Ours (tuned) reproduced its bits "
                      "on 1 of 1 matrix runs.", self.report)
        self.assertIn("| irr-c2 | irregular | 20.00 µs (1.25×) | failed: CUSPARSE_STATUS_NOT_SUPPORTED | — | "
                      "**16.00 µs** (note: cusparseSpMV_preprocess: not supported; timed without preprocessing) | "
                      "cusparseSpMV_CSR_ALG2 |", self.report)
        self.assertIn("| irr-q | irregular | 6.00 µs (1.20×) | failed: not supported | **5.00 µs** | "
                      "7.00 µs (1.40×) | cusparseSpMV_expandedCSR_ALG1_preprocess |", self.report)
        self.assertIn("Runs from before `cusparse_forms` record one cuSPARSE form per matrix, which is its baseline: "
                      "`bsr3x3` (1 matrix run).", self.report)

    def test_speedups_are_against_the_fastest_form(self):
        # irr-c1: 8 us (ALG1 with preprocess) / 4 us, not 10 us (default) / 4 us.
        self.assertIn("| irr-c1 | sell32 | soa | aos | dynamic_warp | 256 | 4 | 1 | 4.00 µs | 2.00× |", self.report)

    def test_structure_plot(self):
        path = os.path.join(self.out, "speedup_structure_double.png")
        self.assertTrue(os.path.exists(path))
        with open(path, "rb") as fh:
            self.assertEqual(fh.read(8), PNG_MAGIC)
        self.assertIn("](speedup_structure_double.png)", self.report)

    def test_cusparse_result_not_the_fastest_form_rejected(self):
        bad = copy.deepcopy(STRUCT)
        bad["matrices"][0]["results"][0]["seconds"] = 10e-6  # the default form, not ALG1's 8 us
        path = os.path.join(self.tmp.name, "bad.json")
        with open(path, "w") as fh:
            json.dump(bad, fh)
        proc = run_script(path, "--out", os.path.join(self.tmp.name, "bad_out"))
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("matrices[0] (irr-c1): the cusparse result is not the fastest cuSPARSE form "
                      "(cusparseSpMV_CSR_ALG1_preprocess: 8.00 µs)", proc.stderr)

    def test_cusparse_best_must_name_the_cusparse_result(self):
        good = copy.deepcopy(STRUCT)
        r = good["matrices"][0]["results"][0]
        good["matrices"][0]["cusparse_best"] = {"variant": r["variant"], "seconds": r["seconds"]}
        bad = copy.deepcopy(good)
        bad["matrices"][0]["cusparse_best"]["variant"] = "cusparseSpMV_SELL32_ALG1_preprocess"
        for name, run, fails in (("good", good, False), ("bad3", bad, True)):
            path = os.path.join(self.tmp.name, name + ".json")
            with open(path, "w") as fh:
                json.dump(run, fh)
            proc = run_script(path, "--out", os.path.join(self.tmp.name, name + "_out"))
            self.assertEqual(proc.returncode != 0, fails, proc.stderr)
        self.assertIn("matrices[0] (irr-c1): cusparse_best (cusparseSpMV_SELL32_ALG1_preprocess) is not the "
                      "cusparse result (" + r["variant"] + ")", proc.stderr)

    def test_missing_form_field_rejected(self):
        bad = copy.deepcopy(STRUCT)
        del bad["matrices"][2]["cusparse_forms"][1]["variant"]
        path = os.path.join(self.tmp.name, "bad2.json")
        with open(path, "w") as fh:
            json.dump(bad, fh)
        proc = run_script(path, "--out", os.path.join(self.tmp.name, "bad_out2"))
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("matrices[2] (irr-q): cusparse_forms[1]: missing key 'variant'", proc.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
