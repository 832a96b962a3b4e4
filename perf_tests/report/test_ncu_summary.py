#!/usr/bin/env python3
"""Tests ncu_summary.py on a synthetic Nsight Compute CSV (the shape of `ncu --import R
--csv --page raw --print-units base`): labels, grouping, medians and the ratio to the
compulsory bytes and copy bandwidth of a bench.json; ours launched directly (the segmented
sum's kernels) and a compressed CSV."""
import gzip
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
HEADER = ['"ID"', '"Kernel Name"', '"Block Size"', '"Grid Size"', '"dram__bytes_read.sum"', '"dram__bytes_write.sum"',
          '"dram__throughput.avg.pct_of_peak_sustained_elapsed"', '"gpu__time_duration.sum"',
          '"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"', '"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"',
          '"launch__registers_per_thread"', '"lts__t_sector_hit_rate.pct"',
          '"sm__warps_active.avg.pct_of_peak_sustained_active"', '"l1tex__t_sector_hit_rate.pct"',
          '"lts__t_sectors_srcunit_tex_op_read.sum"', '"lts__throughput.avg.pct_of_peak_sustained_elapsed"',
          '"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"',
          '"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"']
OURS = ("void Kokkos::cuda_parallel_launch_local_memory<Kokkos::ParallelFor<compound_sparse::SpmvFunctor<2, "
        "compound_sparse::Quaternion<double>, compound_sparse::SlicedEll<16>, compound_sparse::Soa, "
        "compound_sparse::Aos, compound_sparse::Aos, Kokkos::CudaSpace>, Kokkos::TeamPolicy<Kokkos::Cuda>>>(T1)")

# The SpMM row kernel, launched directly (ncu's CSV: the kind as a bare number).
SPMM = ("void compound_sparse::impl::row_kernel<compound_sparse::impl::SpmmFunctor<1, Kokkos::complex<double>, "
        "compound_sparse::SlicedEll<32, 16>, compound_sparse::Aos, Kokkos::CudaSpace, 2, 8>, 256u, 8u>(T1)")


def row(i, name, dram_read, ns):
    values = [str(i), name, "(256, 1, 1)", "(528, 1, 1)", f"{dram_read:,}", "1000000", "50", str(ns), "100", "800",
              "40", "25", "45", "60", "1,250,000", "70", "12.5", "1.5"]
    return ",".join(f'"{v}"' for v in values)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        lines = ["==PROF== a message before the table", ",".join(HEADER), ",".join('""' for _ in HEADER),
                 row(0, OURS, 9000000, 10000), row(1, OURS, 9000000, 30000), row(2, OURS, 9000000, 20000),
                 row(3, "void bsrmv_W2orW4_core<double, 2, 3, 0>(cusparseBsrmvParams<T1>)", 30000000, 50000),
                 row(4, OURS.replace("SlicedEll<16>", "SlicedEll<32, 16>").replace("<2,", "<0,"), 7000000, 9000),
                 row(5, "void cusparse::(anonymous namespace)::sell_kernel<float>(int)", 7000000, 8000),
                 row(6, SPMM, 8000000, 25000), row(7, SPMM.replace("SpmmFunctor<1,", "SpmmFunctor<3,"), 8000000, 20000)]
        (tmp / "m-x-double.csv").write_text("\n".join(lines) + "\n")
        # Ours launched directly (segmented sum), as ncu's CSV names it (namespaces dropped),
        # and the bench's bandwidth probe; compressed.
        tiles = "void impl::segmented_sum_tiles<impl::SegmentedSumFunctor<Block<double, 3>, Aos, Aos, Aos, CudaSpace, 1>, 256, 4>(T1)"
        fixup = "void impl::segmented_sum_fixup<impl::SegmentedSumFixup<Block<double, 3>, Aos, CudaSpace>>(T1)"
        probe = ("void Impl::cuda_parallel_launch_local_memory<Impl::ParallelReduce<Impl::CudaFunctorAdapter<<unnamed>::"
                 "read_bandwidth(const TimingOptions &)::[lambda(int) (instance 1)]>>>(T1)")
        seg = ["==PROF== a message", ",".join(HEADER), ",".join('""' for _ in HEADER), row(0, probe, 999000000, 1000),
               row(1, tiles, 1999000000, 1000000), row(2, fixup, 1000000, 100000)]
        with gzip.open(tmp / "rigid-double.csv.gz", "wt") as f:
            f.write("\n".join(seg) + "\n")
        bench = {"copy_bandwidth_bytes_per_s": 4e12,
                 "matrices": [{"name": "m-x", "precision": "double", "compulsory_bytes": 5e6},
                              {"name": "m-x", "precision": "float", "compulsory_bytes": 1e9},
                              {"name": "rigid", "precision": "double", "compulsory_bytes": 1e9}]}
        (tmp / "bench.json").write_text(json.dumps(bench))
        out = subprocess.run([sys.executable, str(HERE / "ncu_summary.py"), str(tmp), str(tmp / "bench.json")],
                             check=True, capture_output=True, text=True).stdout
        checks = ["## m-x-double", "Compulsory bytes: 5.0 MB; copy bandwidth 4000 GB/s",
                  # three launches grouped; median 20 us; (9 + 1) MB / 5 MB = 2.00; 10 MB in 20 us = 500 GB/s,
                  # 0.12 of 4 TB/s; 800 / 100 sectors
                  "| ours dynamic_warp slicedell<16>.soa.aos.aos | (528, 1, 1) × (256, 1, 1) | 3 | 20.00 | 10.0 | 2.00 |"
                  " 500 (0.12) | 50.0 | 45.0 | 8.00 | 25.0 | 40 | 60.0 | 2000 | 70.0 | long_scoreboard 12.5, wait 1.5 |",
                  # the SpMM: its kind, "spmm" and the matrix's two layouts; 32 B x 1.25M sectors in 25 us
                  "| ours dynamic_team spmm slicedell<32,16>.aos | (528, 1, 1) × (256, 1, 1) | 1 | 25.00 |",
                  " | 40 | 60.0 | 1600 | 70.0 |",
                  "| ours sm_range spmm slicedell<32,16>.aos | (528, 1, 1) × (256, 1, 1) | 1 | 20.00 |",
                  "| cusparse bsrmv_W2orW4_core | (528, 1, 1) × (256, 1, 1) | 1 | 50.00 | 31.0 | 6.20 | 620 (0.15) |",
                  # the segmented sum's two kernels with their tile shape and entry; 2000 MB in 1 ms = 0.50 of copy
                  "## rigid-double",
                  "| ours segmented_sum_tiles t256.b4 Block<double,3> | (528, 1, 1) × (256, 1, 1) | 1 | 1000.00 | 2000.0 |"
                  " 2.00 | 2000 (0.50) |",
                  "| ours segmented_sum_fixup Block<double,3> | (528, 1, 1) × (256, 1, 1) | 1 | 100.00 | 2.0 |",
                  "| bench bandwidth probe | (528, 1, 1) × (256, 1, 1) | 1 | 1.00 |",
                  # 16-bit columns keep their column width in the label; cuSPARSE's anonymous namespace is dropped
                  "| ours static slicedell<32,16>.soa.aos.aos | (528, 1, 1) × (256, 1, 1) | 1 | 9.00 |",
                  "| cusparse cusparse::sell_kernel | (528, 1, 1) × (256, 1, 1) | 1 | 8.00 |"]
        for c in checks:
            assert c in out, f"missing: {c}\n---\n{out}"
        # --plot: ours' kernels per product over the roof time, for the profiles the bench covers.
        plotted = subprocess.run([sys.executable, str(HERE / "ncu_summary.py"), str(tmp), str(tmp / "bench.json"),
                                  "--plot", str(tmp / "roof.png")], capture_output=True, text=True,
                                 env={**os.environ, "MPLBACKEND": "Agg"})
        assert plotted.returncode == 0, plotted.stderr
        assert (tmp / "roof.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        sys.path.insert(0, str(HERE))
        import ncu_summary
        rows = {tag: (dict(kinds), roof) for tag, kinds, roof in ncu_summary.product_breakdown(tmp, tmp / "bench.json")}
        # rigid-double: 1 ms of tiles and 0.1 ms of fixup; 1 GB at 4 TB/s takes 250 us. No probe, no index.
        assert rows["rigid-double"] == ({"segmented_sum_tiles": 1000.0, "segmented_sum_fixup": 100.0}, 250.0), rows
        no_bench = subprocess.run([sys.executable, str(HERE / "ncu_summary.py"), str(tmp), "--plot", str(tmp / "x.png")],
                                  capture_output=True, text=True)
        assert no_bench.returncode != 0 and "no profile" in no_bench.stderr, no_bench.stderr
        bad = subprocess.run([sys.executable, str(HERE / "ncu_summary.py")], capture_output=True, text=True)
        assert bad.returncode != 0 and "usage" in bad.stderr, bad.stderr
    print("ncu_summary.py: all checks passed")


if __name__ == "__main__":
    main()
