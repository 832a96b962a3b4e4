#!/usr/bin/env python3
"""scaling.py on synthetic compound-dist-bench runs: efficiencies, the weak pairs, --csv, refusals."""
import csv
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def record(name, seconds, ok=True, halo=0.01):
    return {"name": name, "order": "natural", "precision": "double", "ok": ok, "relative_error": 1e-15,
            "product_seconds": seconds, "exchange_seconds": seconds / 4, "local_seconds": seconds / 2,
            "remote_seconds": seconds / 10, "hidden_fraction": 0.5, "halo_fraction": halo, "exchange": "nccl"}


def run(ranks, records):
    return {"ranks": ranks, "device": {"name": "NVIDIA H200"}, "matrices": records}


def scaling(one, many, *extra):
    """scaling.py on ONE and MANY (a run, or a list of runs on several rank counts)."""
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i, r in enumerate([one] + (many if isinstance(many, list) else [many])):
            paths.append(os.path.join(d, f"{i}.json"))
            with open(paths[-1], "w") as f:
                json.dump(r, f)
        return subprocess.run([sys.executable, os.path.join(HERE, "scaling.py"), *paths, *extra],
                              capture_output=True, text=True)


def main():
    one = run(1, [record("box", 100e-6), record("box2", 200e-6)])
    many = run(2, [record("box", 62.5e-6, halo=0.02), record("box2", 125e-6)])
    r = scaling(one, many, "--weak", "box=box2")
    assert r.returncode == 0, r.stderr
    assert "| box | natural | double | 100.0 | 62.5 | 0.80 | 2.00% | nccl | 15.6 | 53.1 | 50% |" in r.stdout, r.stdout
    assert "| box | box2 | natural | double | 100.0 | 125.0 | 0.80 |" in r.stdout, r.stdout
    # --csv: the same per matrix, order and precision; box2 has no weak pair.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "scaling.csv")
        r = scaling(one, many, "--weak", "box=box2", "--csv", path)
        assert r.returncode == 0, r.stderr
        with open(path) as f:
            rows = list(csv.DictReader(f))
        assert [row["matrix"] for row in rows] == ["box", "box2"], rows
        assert rows[0] == {"matrix": "box", "order": "natural", "precision": "double", "exchange": "nccl",
                           "ranks": "2", "one_rank_us": "100.0", "ranks_us": "62.5", "strong_efficiency": "0.800",
                           "halo_fraction": "0.0200", "exchange_alone_us": "15.6", "without_overlap_us": "53.1",
                           "hidden_fraction": "0.50", "weak_matrix": "box2", "weak_ranks_us": "125.0",
                           "weak_efficiency": "0.800"}, rows[0]
        assert rows[1]["strong_efficiency"] == "0.800" and rows[1]["weak_efficiency"] == "", rows[1]
    # A run that is not ok, one that is not on 1 rank, a missing weak pair: refused with the reason.
    bad = scaling(run(1, [record("box", 100e-6, ok=False)]), many)
    assert bad.returncode == 2 and "did not match the reference" in bad.stderr, bad.stderr
    bad = scaling(many, many)
    assert bad.returncode == 2 and "not 1" in bad.stderr, bad.stderr
    bad = scaling(one, many, "--weak", "box=box3")
    assert bad.returncode == 2 and "box3 is in none of the runs" in bad.stderr, bad.stderr
    # Two rank counts: a table, CSV rows and weak pairs for each (box4 only in the 4-rank run).
    one4 = run(1, [record("box", 100e-6)])
    two = run(2, [record("box", 62.5e-6), record("box2", 125e-6)])
    four = run(4, [record("box", 40e-6), record("box4", 160e-6)])
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "scaling.csv")
        r = scaling(one4, [two, four], "--weak", "box=box2,box=box4", "--csv", path)
        assert r.returncode == 0, r.stderr
        assert "Strong scaling, 1 -> 2 ranks" in r.stdout and "Strong scaling, 1 -> 4 ranks" in r.stdout, r.stdout
        assert "| box | natural | double | 100.0 | 40.0 | 0.62 |" in r.stdout, r.stdout
        assert "| box | box4 | natural | double | 100.0 | 160.0 | 0.62 |" in r.stdout, r.stdout
        with open(path) as f:
            rows = list(csv.DictReader(f))
        assert [(row["ranks"], row["weak_efficiency"]) for row in rows] == [("2", "0.800"), ("4", "0.625")], rows
        bad = scaling(one4, [two, four], "--strong-target", "2=0.9", "--plot", os.path.join(d, "s.png"))
        try:
            import matplotlib  # noqa: F401
            assert bad.returncode == 2 and "no target for 4 ranks" in bad.stderr, bad.stderr
        except ImportError:
            pass
    # --plot: a PNG where matplotlib is there, else a refusal that names the package.
    with tempfile.TemporaryDirectory() as d:
        png = os.path.join(d, "scaling.png")
        r = scaling(one, many, "--weak", "box=box2", "--plot", png)
        try:
            import matplotlib  # noqa: F401
            assert r.returncode == 0, r.stderr
            with open(png, "rb") as f:
                assert f.read(8) == b"\x89PNG\r\n\x1a\n", "not a PNG"
        except ImportError:
            assert r.returncode == 2 and "python3-matplotlib" in r.stderr, r.stderr
    bad = scaling({"matrices": []}, many)
    assert bad.returncode == 2 and "not a compound-dist-bench run" in bad.stderr, bad.stderr
    print("test_scaling: ok")


if __name__ == "__main__":
    main()
