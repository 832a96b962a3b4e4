#!/usr/bin/env bash
# Hardware counters (Nsight Compute) of the SpMV kernels of a few zoo matrices: ours
# (tuned from the database, and the default) against cuSPARSE and Kokkos Kernels, to
# explain the perf report's missed targets (docs/perf.md, "Profiling").
#
#   scripts/gpu_profile.sh BUILD ZOO/index.json DB OUT [MATRIX:PRECISION ...]
#   K=8 scripts/gpu_profile.sh ...   (the SpMM of 8 vectors: compound-bench --k 8, ours'
#                                     SpmmFunctor and cuSPARSE's SpMM kernels too)
#   VARIANTS=a,b scripts/gpu_profile.sh ...   (only these of ours, compound-bench --variants:
#                                     a search under ncu profiles every candidate's launches)
#   SECTIONS="WarpStateStats" scripts/gpu_profile.sh ...   (ncu sections besides the metrics: the
#                                     warp stall reasons, which summary.md lists per kernel)
#
# DB "-": no database (ours is searched).
# Runs compound-bench once per matrix and precision with one timed launch (--samples 1
# --batch 1: each method's kernel runs for the check, 5 warm-ups and once timed; wall
# timing, since ncu serialises and replays each launch, which queued timing refuses) under
#   ncu --clock-control none --metrics ... -k regex:<SpMV kernels>
# and writes OUT/<matrix>-<precision>.ncu-rep (the report), .csv (ncu --csv --page raw,
# one row per kernel launch) and OUT/summary.md (per kernel: duration, DRAM bytes read/written against the
# compulsory bytes, DRAM throughput, achieved occupancy, sectors per load request, L1 hit rate,
# L2-to-L1 bandwidth, L2 throughput).
# The clocks are left alone (--clock-control none): the timings match the bench's.
set -uo pipefail
build=${1:?usage: gpu_profile.sh BUILD ZOO/index.json DB OUT [MATRIX:PRECISION ...]}
index=${2:?usage: gpu_profile.sh BUILD ZOO/index.json DB OUT [MATRIX:PRECISION ...]}
db=${3:?usage: gpu_profile.sh BUILD ZOO/index.json DB OUT [MATRIX:PRECISION ...]}
out=${4:?usage: gpu_profile.sh BUILD ZOO/index.json DB OUT [MATRIX:PRECISION ...]}
shift 4
targets=("$@")
k=${K:-1}
[[ $k =~ ^[1-9][0-9]*$ ]] || { echo "gpu_profile.sh: K must be a positive integer, not '$k'" >&2; exit 2; }
db_args=(--db "$db")
[ "$db" = - ] && db_args=()
[ -n "${VARIANTS:-}" ] && db_args+=(--variants "$VARIANTS")
sections=()
for section in ${SECTIONS:-}; do sections+=(--section "$section"); done
[ ${#targets[@]} -gt 0 ] || targets=(dirac-bunny-l2:double helmholtz-box-k40:double helmholtz-box-k40:float
                                     elasticity-box-large:double)
command -v ncu > /dev/null || { echo "gpu_profile.sh: ncu not found" >&2; exit 1; }
mkdir -p "$out"
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
metrics+=,lts__t_sector_hit_rate.pct,launch__registers_per_thread,launch__grid_size,launch__block_size
# Where the gathers of x are served: L1's hit rate, the sectors L1 reads from L2 and L2's throughput
# (the SpMM reads k values per column: issue 17's k = 8 target).
metrics+=,l1tex__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum
metrics+=,lts__throughput.avg.pct_of_peak_sustained_elapsed
# Our kernels (Kokkos functor SpmvFunctor), Kokkos Kernels' (SPMV_Functor) and cuSPARSE's
# (CSR, BSR and Sliced ELL).
kernels='regex:SpmvFunctor|SPMV|[Ss]pmv|csrmv|bsrmv|bsr_|csr_|ELL|[Ss]ell|ell_'
[ "$k" -gt 1 ] && kernels+='|SpmmFunctor|[Ss]pmm|csrmm|bsrmm'
for t in "${targets[@]}"; do
  matrix=${t%%:*} precision=${t##*:}
  echo "=== ncu $matrix $precision ($(date +%T))"
  rep=$out/$matrix-$precision
  ncu --clock-control none --metrics "$metrics" "${sections[@]}" --kernel-name-base demangled -k "$kernels" -o "$rep" -f \
    "$build/perf_tests/bench/compound-bench" --zoo "$index" "${db_args[@]}" --out "$out/bench-$matrix-$precision" \
    --matrices "$matrix" --precision "$precision" --k "$k" --samples 1 --batch 1 --timing wall > "$rep.log" 2>&1 ||
    { echo "ncu failed:"; tail -5 "$rep.log"; continue; }
  ncu --import "$rep.ncu-rep" --csv --page raw --print-units base > "$rep.csv" 2>> "$rep.log" || { echo "ncu --import failed"; continue; }
  echo "$(($(wc -l < "$rep.csv") - 2)) kernel launches profiled"
done
python3 "$(dirname "$0")/../perf_tests/report/ncu_summary.py" "$out" > "$out/summary.md" && cat "$out/summary.md"
