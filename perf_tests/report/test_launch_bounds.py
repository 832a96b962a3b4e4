#!/usr/bin/env python3
"""Tests launch_bounds.py (ctest: report.launch_bounds) on a synthetic tuning database whose
losses are known by construction, and on the H200's committed tuner output
(perf_tests/results/h200/tuner_output.json.gz, whose records tuning/sm_90.json ships), whose pruned
set must be the default GPU launch bounds of cmake/CompoundSparseVariantSpace.cmake."""
import json
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCRIPT = HERE / "launch_bounds.py"


def measurement(pair, seconds, ok=True, k=1):
    t, b = pair.split(":")
    return {"variant": f"csr.aos.aos.static.t{t}.b{b}.l1", "seconds": seconds, "ok": ok, "k": k}


def run(*args):
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def main():
    db = {"matrices": [
        # 256:4 is a's fastest, 128:4 b's (by 1.5x); a failed measurement and an SpMM one
        # (k = 4) faster than every other are not counted.
        {"name": "a", "features": {"entry_type": "complex"},
         "measurements": [measurement("256:4", 1.0), measurement("128:4", 1.2), measurement("256:8", 0.1, ok=False),
                          measurement("256:2", 0.05, k=4)]},
        {"name": "b", "features": {"entry_type": "block3"},
         "measurements": [measurement("256:4", 3.0), measurement("128:4", 2.0)]}]}
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "db.json"
        path.write_text(json.dumps(db))
        rc, out = run(str(path), "--keep", "256:4", "--max-loss", "1.3")
        if rc != 0:
            failures.append(f"rc {rc}: {out}")
        # One pair: 128:4 loses 1.2x on a, 256:4 1.5x on b; both pairs lose nothing.
        expect = ["| 128:4 | 1 |", "| 256:4 | 1 |", "| 1 | 128:4 | 1.200 |", "| 2 | 128:4;256:4 | 1.000 | 1.0000 |",
                  "Smallest set within 1.3x of every record's fastest: 128:4 (worst 1.200",
                  "Worst loss 1.500, geometric mean 1.2247.", "| b block3 | 1.500 |", "| a complex | 1.000 |"]
        failures += [f"missing {e!r}" for e in expect if e not in out]
        if "256:8" in out or "256:2" in out:
            failures.append("a failed or k > 1 measurement was counted:\n" + out)
        # --k 4: the SpMM's measurements at k = 4 instead (a's one, at 256:2), a case per record and k.
        rc, out = run(str(path), "--k", "4")
        if rc != 0 or "(1 records, pairs measured: 256:2)" not in out or "| 256:2 | 1 |" not in out:
            failures.append(f"--k 4 did not judge the k = 4 measurement alone: {out}")
        rc, out = run(str(path), "--k", "4", "--keep", "256:2")
        if rc != 0 or "| a complex k=4 | 1.000 |" not in out:
            failures.append(f"--k 4 --keep 256:2 did not name the case by its k: {out}")
        rc, out = run(str(path), "--k", "two")
        if rc == 0 or "is not a list of numbers of vectors" not in out:
            failures.append(f"--k two accepted: {out}")
        rc, out = run(str(path), "--keep", "bogus")
        if rc == 0 or "is not threads:min_teams_per_sm" not in out:
            failures.append(f"--keep bogus accepted: {out}")
        # Two devices' records in one file: refused without --device, each judged alone with it.
        both = dict(db, device={"name": "GPU A"}, matrices=db["matrices"] + [
            dict(db["matrices"][0], device="GPU B",
                 measurements=[measurement("512:4", 1.0), measurement("256:4", 2.0)])])
        mixed = pathlib.Path(tmp) / "mixed.json"
        mixed.write_text(json.dumps(both))
        rc, out = run(str(mixed))
        if rc == 0 or "several devices' records: GPU A (2 records), GPU B (1 records)" not in out:
            failures.append(f"a database of two devices was judged as one: {out}")
        rc, out = run(str(mixed), "--device", "GPU B")
        if rc != 0 or "(1 records, pairs measured: 256:4, 512:4)" not in out or "| 512:4 | 1 |" not in out:
            failures.append(f"--device GPU B did not judge that device's record alone: {out}")
        rc, out = run(str(mixed), "--device", "GPU A")
        if rc != 0 or "(2 records, pairs measured: 128:4, 256:4)" not in out:
            failures.append(f"--device GPU A did not judge the header's device's records: {out}")
        rc, out = run(str(mixed), "--device", "GPU C")
        if rc == 0 or "no record of 'GPU C' (devices: GPU A, GPU B)" not in out:
            failures.append(f"--device of no record accepted: {out}")
        (pathlib.Path(tmp) / "broken.json").write_text("{")
        rc, out = run(str(pathlib.Path(tmp) / "broken.json"))
        if rc == 0 or "cannot read" not in out:
            failures.append(f"a broken database read: {out}")

    # The committed database's pruned set is the default GPU build's: judged on the H200's
    # records, the ones measured with seven pairs (the H100's beside them measured the
    # default build's four only).
    cmake = (ROOT / "cmake" / "CompoundSparseVariantSpace.cmake").read_text()
    default = re.search(r'set\(COMPOUND_SPARSE_DEFAULT_LAUNCH_BOUNDS_GPU "([^"]+)"\)', cmake).group(1)
    output = ROOT / "perf_tests" / "results" / "h200" / "tuner_output.json.gz"
    rc, out = run(str(output), "--device", "NVIDIA H200", "--max-loss", "1.03")
    if f"Smallest set within 1.03x of every record's fastest: {default} " not in out:
        failures.append(f"{output}'s smallest set is not the default GPU bounds {default}:\n{out}")

    for f in failures:
        print("FAILED:", f)
    print("launch_bounds.py:", "FAILED" if failures else "PASSED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
