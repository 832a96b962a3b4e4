#!/usr/bin/env python3
"""Tests merge_bench.py: two runs of one build merge into one file that make_report.py reads
(a .json.gz and a directory as inputs, and a merged file merged again), and runs that were
not measured alike, a matrix measured twice and unreadable input are refused with the reason
and exit status 2."""
import gzip
import json
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
MERGE = HERE / "merge_bench.py"


def run_bench(names, copy=4.0e12, commit="abc", device="Test GPU"):
    return {"schema": 1, "commit": commit, "command": "compound-bench " + ",".join(names), "search": "reduced",
            "date": "2026-11-24T00:00:00Z", "timing": {"warmup": 5, "batch": 10, "samples": 50, "mode": "queued"},
            "entry_classes": ["complex"], "outer_layouts": ["csr"],
            "device": {"name": device, "compute_capability": "9.0", "backend": "Cuda"},
            "copy_bandwidth_bytes_per_s": copy, "read_bandwidth_bytes_per_s": 3.7e12,
            "matrices": [{"name": n, "precision": "float", "class": "complex", "results": []} for n in names],
            "skipped": [{"name": "huge", "precision": "double", "reason": "too big"}] if "b" in names else []}


def merge(out, *inputs):
    return subprocess.run([sys.executable, str(MERGE), str(out), *map(str, inputs)], capture_output=True, text=True)


def expect_refused(result, words):
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    for w in words:
        assert w in result.stderr, (w, result.stderr)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "a.json").write_text(json.dumps(run_bench(["m1", "m2"])))
        (tmp / "run_b").mkdir()
        with gzip.open(tmp / "run_b" / "bench.json.gz", "wt") as f:
            json.dump(run_bench(["b"], copy=4.1e12), f)
        result = merge(tmp / "merged.json", tmp / "a.json", tmp / "run_b")
        assert result.returncode == 0, result.stderr
        assert "3 matrix runs from 2 files" in result.stdout and "4000-4100 GB/s" in result.stdout, result.stdout
        merged = json.loads((tmp / "merged.json").read_text())
        assert [m["name"] for m in merged["matrices"]] == ["m1", "m2", "b"]
        assert merged["copy_bandwidth_bytes_per_s"] == 4.0e12  # the first run's
        assert [r["copy_bandwidth_bytes_per_s"] for r in merged["merged_from"]] == [4.0e12, 4.1e12]
        assert merged["merged_from"][1]["file"].endswith("bench.json.gz")
        assert merged["skipped"] == [{"name": "huge", "precision": "double", "reason": "too big"}]
        assert merged["commit"] == "abc" and merged["device"]["name"] == "Test GPU"
        # A matrix's search list: one line a measurement, the rest as json.dump(indent=1).
        searched = run_bench(["s"], commit="abc")
        searched["matrices"][0]["search"] = [{"variant": "csr.aos.aos.static.t256.b4.l1", "seconds": 1.5e-05},
                                             {"variant": "ell.aos.aos.static.t256.b4.l2", "seconds": 2e-05}]
        (tmp / "s.json").write_text(json.dumps(searched))
        result = merge(tmp / "s_merged.json", tmp / "s.json")
        assert result.returncode == 0, result.stderr
        text = (tmp / "s_merged.json").read_text()
        assert json.loads(text)["matrices"] == searched["matrices"]
        assert '\n    {"variant":"csr.aos.aos.static.t256.b4.l1","seconds":1.5e-05},\n' in text, text
        assert '\n "commit": "abc",\n' in text, text

        # Not measured alike: another commit, another device, other timing.
        (tmp / "c.json").write_text(json.dumps(run_bench(["c"], commit="def")))
        expect_refused(merge(tmp / "x.json", tmp / "a.json", tmp / "c.json"), ["'commit'", "not measured alike"])
        # ... unless both commits are allowed; then the merged commit names both.
        result = merge(tmp / "ac.json", tmp / "a.json", tmp / "c.json", "--allow-commits", "abc,def")
        assert result.returncode == 0, result.stderr
        assert json.loads((tmp / "ac.json").read_text())["commit"] == "abc+def"
        expect_refused(merge(tmp / "x.json", tmp / "a.json", tmp / "c.json", "--allow-commits", "abc"),
                       ["commit 'def' is not one of --allow-commits abc"])
        # A merged file as a run: each of its commits must be allowed, its provenance is kept.
        (tmp / "g2.json").write_text(json.dumps(run_bench(["g2"], commit="ghi", copy=4.2e12)))
        result = merge(tmp / "acg.json", tmp / "ac.json", tmp / "g2.json", "--allow-commits", "abc,def,ghi")
        assert result.returncode == 0, result.stderr
        acg = json.loads((tmp / "acg.json").read_text())
        assert acg["commit"] == "abc+def+ghi" and [m["name"] for m in acg["matrices"]] == ["m1", "m2", "c", "g2"]
        assert [r["commit"] for r in acg["merged_from"]] == ["abc", "def", "ghi"]
        assert acg["merged_from"][0]["file"].endswith("a.json") and acg["copy_bandwidth_bytes_per_s"] == 4.0e12
        expect_refused(merge(tmp / "x.json", tmp / "ac.json", tmp / "g2.json", "--allow-commits", "abc,ghi"),
                       ["commit 'def' is not one of --allow-commits abc,ghi"])
        (tmp / "d.json").write_text(json.dumps(run_bench(["d"], device="Other GPU")))
        expect_refused(merge(tmp / "x.json", tmp / "a.json", tmp / "d.json"), ["device name", "Other GPU"])
        other = run_bench(["e"])
        other["timing"]["samples"] = 5
        (tmp / "e.json").write_text(json.dumps(other))
        expect_refused(merge(tmp / "x.json", tmp / "a.json", tmp / "e.json"), ["'timing'"])
        # The same matrix and precision twice.
        (tmp / "f.json").write_text(json.dumps(run_bench(["m2"])))
        expect_refused(merge(tmp / "x.json", tmp / "a.json", tmp / "f.json"), ["m2 (float)", "which result"])
        # Unreadable input: truncated JSON, a directory without a bench, not a bench.
        (tmp / "g.json").write_text('{"matrices": [')
        expect_refused(merge(tmp / "x.json", tmp / "g.json"), ["cannot read"])
        (tmp / "empty").mkdir()
        expect_refused(merge(tmp / "x.json", tmp / "empty"), ["no bench.json"])
        (tmp / "h.json").write_text('[1, 2]')
        expect_refused(merge(tmp / "x.json", tmp / "h.json"), ["not a compound-bench result"])
        assert not (tmp / "x.json").exists()
        # Usage: too few arguments is exit 2, --help exit 0.
        assert subprocess.run([sys.executable, str(MERGE)], capture_output=True).returncode == 2
        helped = subprocess.run([sys.executable, str(MERGE), "--help"], capture_output=True, text=True)
        assert helped.returncode == 0 and "merge_bench.py OUT.json" in helped.stdout, helped
    print("test_merge_bench.py: ok")


if __name__ == "__main__":
    main()
