#!/usr/bin/env bash
# The performance pipeline on whatever backend BUILD was built for:
#   1. compound-zoo      build the matrix zoo
#   2. compound-tune     tune every zoo matrix (both precisions) into a fresh database
#   3. compound-tune --loo   leave-one-out selection quality from that database
#   4. compound-bench    ours (default and tuned, from the database's measurements)
#                        against cuSPARSE / Kokkos Kernels, with a heat map
# Results land in OUT: the database (tuning/sm_XY.json or tuning/host_serial.json),
# selection_quality.{json,md}, bench.json, bench.csv, pipeline.log.
#
#   scripts/perf_pipeline.sh BUILD OUT [--scale small|full|tune] [--heatmap NAME] [--meshes DIR] [--mhd1280b FILE]
#                            [--timing auto|wall|queued] [--only NAME[,NAME...]] [--precision LIST]
#
# --only runs the pipeline on those zoo matrices alone (compound-zoo --only): a check
# of one family, not a result to quote (leave-one-out needs the whole zoo).
#
# --precision (default both: float and double) goes to compound-tune and compound-bench:
# a comma list of float, double and mixed (float storage, double vectors), or both or all.
#
# --timing (default auto: queued on CUDA, wall elsewhere) goes to compound-tune and
# compound-bench: queued times the GPU with the host out of the loop (CUDA only;
# include/compound_sparse/tuning/timing.hpp).
#
# Environment: ZOO_DIR (default /tmp/compound_zoo_SCALE); REUSE_ZOO=1 keeps a zoo of the
# same scale already in ZOO_DIR (its generators are deterministic) instead of rebuilding it;
# RESUME=1 keeps the database of an interrupted run in OUT and tunes only what it lacks.
set -uo pipefail
build=${1:?usage: perf_pipeline.sh BUILD OUT [--scale small|full|tune] [--heatmap NAME]}
out=${2:?usage: perf_pipeline.sh BUILD OUT [--scale small|full|tune] [--heatmap NAME]}
shift 2
scale=small heatmap=elasticity-box-small timing=auto precision=both zoo_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --scale) scale=$2; shift 2 ;;
    --heatmap) heatmap=$2; shift 2 ;;
    --timing) timing=$2; shift 2 ;;
    --precision) precision=$2; shift 2 ;;
    --meshes|--mhd1280b|--only) zoo_args+=("$1" "$2"); shift 2 ;;
    *) echo "perf_pipeline.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
log=$out/pipeline.log
zoo=${ZOO_DIR:-/tmp/compound_zoo_$scale}
tunedb=$out/tuning  # written after every matrix: an interrupted run keeps what it tuned
[ "${RESUME:-0}" = 1 ] || rm -rf "$tunedb"  # RESUME=1: compound-tune skips the matrices already tuned
step() { echo "=== $* ($(date +%T))" | tee -a "$log"; }

step "zoo ($scale)"
if [ "${REUSE_ZOO:-0}" = 1 ] && grep -q "\"scale\": \"$scale\"" "$zoo/index.json" 2>/dev/null; then
  echo "reusing $zoo ($(grep -c '"file"' "$zoo/index.json") matrices)" | tee -a "$log"
else
  "$build/perf_tests/zoo/compound-zoo" --out "$zoo" --scale "$scale" "${zoo_args[@]}" >> "$log" 2>&1 ||
    { tail -20 "$log"; exit 1; }
  tail -1 "$log"
fi

step "tune (reduced search, precision $precision, $timing timing)"
"$build/tuning/compound-tune" --zoo "$zoo/index.json" --search reduced --precision "$precision" --samples 5 --batch 10 \
  --warmup 2 --top 5 --retime-within 1.25 --retime-max 48 --final-samples 50 --final-batch 10 --db-dir "$tunedb" \
  --timing "$timing" 2>&1 |
  tr '\r' '\n' |
  grep -v '^\s*$' | grep -v '%.*ETA' >> "$log"
db=$(ls "$tunedb"/*.json 2>/dev/null | head -n 1)
[ -f "$db" ] || { echo "no database written"; tail -20 "$log"; exit 1; }
echo "database: $(basename "$db"), $(grep -c '"best"' "$db") records" | tee -a "$log"

step "leave-one-out selection quality"
"$build/tuning/compound-tune" --loo "$db" --out "$out/selection_quality" >> "$log" 2>&1 || tail -5 "$log"

step "bench (ours from the database vs baselines)"
"$build/perf_tests/bench/compound-bench" --zoo "$zoo/index.json" --db "$db" --out "$out" --precision "$precision" \
  --heatmap "$heatmap" --timing "$timing" 2>&1 | tr '\r' '\n' | grep -v '%' | tee -a "$log"
step done
