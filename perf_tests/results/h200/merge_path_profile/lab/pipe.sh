#!/usr/bin/env bash
# Device calls for the 128-thread launch bounds: `build`, `irr` (the pipeline on the irregular
# family), `rerun` (the bench again on irr's database). Results in $OUT.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
stage=$1
R=/tmp/res_$stage
mkdir -p "$R"
trap 'tar czf "$OUT/res_$stage.tgz" -C /tmp res_$stage; echo "=== end $stage (${SECONDS} s)"' EXIT
export PATH=/usr/local/cuda/bin:$PATH
[ -d third_party_src ] || tar xJf .carry/src.tar.xz
irr=circuit-512k,circuit-1m,rmat-s19,rmat-s20,connection-hubs-256k,connection-hubs-512k,elasticity-rigid-34,elasticity-rigid-44
case $stage in
  build)
    OUT=$R timeout 560 scripts/gpu_perf.sh build 2>&1 | tail -6
    ;;
  buildirr)
    OUT=$R timeout 300 scripts/gpu_perf.sh build 2>&1 | tail -3
    ONLY=$irr SECONDS_LIMIT=$((580 - SECONDS)) OUT=$R scripts/gpu_perf.sh run irr 2>&1 | tail -30
    ;;
  irr)
    ONLY=$irr SECONDS_LIMIT=$((575 - SECONDS)) OUT=$R scripts/gpu_perf.sh run irr 2>&1 | tail -30
    ;;
  rerun)
    mkdir -p /tmp/perf_runs/irr/rerun
    timeout ${BUDGET:-400} build-cuda/perf_tests/bench/compound-bench --zoo /tmp/compound_zoo_irr/index.json \
      --db /tmp/perf_runs/irr/tuning/sm_90.json --precision both --timing queued --out /tmp/perf_runs/irr/rerun \
      > /tmp/perf_runs/irr/rerun/bench.log 2>&1
    echo "bench rc=$?"; tail -20 /tmp/perf_runs/irr/rerun/bench.log | tr '\r' '\n' | grep -v '%'
    mkdir -p "$R/irr" && cp -r /tmp/perf_runs/irr/. "$R/irr/"
    ;;
esac
