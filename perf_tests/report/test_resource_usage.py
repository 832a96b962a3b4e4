#!/usr/bin/env python3
"""Tests resource_usage.py on a synthetic `cuobjdump -res-usage` listing (gzip and plain):
entry types and launch bounds from the mangled names, register statistics, stack frames,
non-SpMV kernels ignored, the plain row kernels preferred to Kokkos' copies of the functor, and
a clear error for a file without SpMV kernels."""
import gzip
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
SPMV = ("_ZN6Kokkos4Impl33cuda_parallel_launch_local_memoryINS0_11ParallelForIN15compound_sparse4impl11SpmvFunctor"
        "ILNS3_12ScheduleKindE0E{entry}NS3_3CsrENS3_3AosES9_S9_NS_9CudaSpaceEEENS_10TeamPolicyIJNS_4CudaENS_12"
        "LaunchBoundsILj{threads}ELj{teams}EEEEEESD_EELj{threads}ELj{teams}EEEvT_")


# impl::row_kernel<SpmvFunctor<...>, Threads, MinBlocks>, as nvcc mangles it (sm_90, CUDA 13).
PLAIN = ("_ZN15compound_sparse4impl10row_kernelINS0_11SpmvFunctorILNS_12ScheduleKindE0E{entry}NS_9SlicedEllILi32E"
         "Li32EEENS_3AosES8_S8_N6Kokkos9CudaSpaceELi1EEELj{threads}ELj{teams}EEEvT_")


def kernel(name, registers, stack):
    return [f" Function {name}:",
            f"  REG:{registers} STACK:{stack} SHARED:0 LOCAL:0 CONSTANT[0]:640 TEXTURE:0 SURFACE:0 SAMPLER:0"]


def main():
    quaternion_double = "NS3_10QuaternionIdEE"
    lines = ["", "member libcompound_sparse.a:variants.cpp.o:", "", "Fatbin elf code:", "arch = sm_90"]
    lines += kernel("_ZN6Kokkos4Impl33cuda_parallel_launch_local_memoryINS0_11ParallelForINS0_16ViewValueFunctor", 8, 0)
    for registers, stack in ((52, 0), (56, 0), (56, 0)):
        lines += kernel(SPMV.format(entry=quaternion_double, threads=256, teams=4), registers, stack)
    for registers, stack in ((32, 56), (32, 48)):
        lines += kernel(SPMV.format(entry=quaternion_double, threads=256, teams=8), registers, stack)
    lines += kernel(SPMV.format(entry="NS_7complexIfEE", threads=512, teams=4), 30, 0)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        plain, packed, empty = tmp / "usage.txt", tmp / "usage.txt.gz", tmp / "empty.txt"
        plain.write_text("\n".join(lines) + "\n")
        with gzip.open(packed, "wt") as f:
            f.write("\n".join(lines) + "\n")
        empty.write_text("\n".join(lines[:7]) + "\n")
        script = str(HERE / "resource_usage.py")
        outputs = [subprocess.run([sys.executable, script, str(p)], check=True, capture_output=True, text=True).stdout
                   for p in (plain, packed)]
        assert outputs[0] == outputs[1], "gzip and plain input differ"
        rows = [l for l in outputs[0].splitlines() if l.startswith("| ") and "---" not in l][1:]
        expected = ["| complex_float | 512:4 | 2048 | 32 | 1 | 30 / 30 / 30 | 0 |",
                    "| quaternion_double | 256:4 | 1024 | 64 | 3 | 52 / 56 / 56 | 0 |",
                    "| quaternion_double | 256:8 | 2048 | 32 | 2 | 32 / 32 / 32 | 2 (56 B) |"]
        assert rows == expected, "\n".join(["got:"] + rows + ["expected:"] + expected)
        # A listing with plain row kernels (what CUDA runs) reports those, not Kokkos' copies.
        both = tmp / "both.txt"
        both.write_text("\n".join(lines + kernel(PLAIN.format(entry=quaternion_double, threads=256, teams=4), 64, 36)
                                  + kernel(PLAIN.format(entry=quaternion_double, threads=256, teams=4), 60, 0)) + "\n")
        run = subprocess.run([sys.executable, script, str(both)], check=True, capture_output=True, text=True).stdout
        rows = [l for l in run.splitlines() if l.startswith("| ") and "---" not in l][1:]
        expected = ["| quaternion_double | 256:4 | 1024 | 64 | 2 | 60 / 62 / 64 | 1 (36 B) |"]
        assert rows == expected, "\n".join(["got:"] + rows + ["expected:"] + expected)
        bad = subprocess.run([sys.executable, script, str(empty)], capture_output=True, text=True)
        assert bad.returncode == 1 and "no SpMV kernel" in bad.stderr, (bad.returncode, bad.stderr)
        missing = subprocess.run([sys.executable, script, str(tmp / "nope.gz")], capture_output=True, text=True)
        assert missing.returncode == 1 and "cannot read" in missing.stderr, (missing.returncode, missing.stderr)
    print("resource_usage.py: ok")


if __name__ == "__main__":
    main()
