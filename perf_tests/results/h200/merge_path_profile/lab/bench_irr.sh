#!/usr/bin/env bash
# After `gpu_perf.sh build`: the irregular family's zoo and compound-bench on the committed
# database of merge_path_staging/irregular, both precisions, queued timing. Results in $OUT.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
deps=$PWD/.carry/deps
export PATH=$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=/tmp/bench_irr
mkdir -p "$R/bench"
trap 'tar czf "$OUT/bench_irr.tgz" -C /tmp bench_irr; echo "=== end (${SECONDS} s)"' EXIT
irr=circuit-512k,circuit-1m,rmat-s19,rmat-s20,connection-hubs-256k,connection-hubs-512k,elasticity-rigid-34,elasticity-rigid-44
zcat perf_tests/results/h200/merge_path_staging/irregular/sm_90.json.gz > "$R/sm_90.json"

build-cuda/perf_tests/zoo/compound-zoo --out /tmp/zoo_irr --scale tune --meshes .carry/meshes \
  --mhd1280b third_party_src/testmatrices/mhd1280b.cua --only "$irr" > "$R/zoo.log" 2>&1 || { tail "$R/zoo.log"; exit 1; }
echo "=== zoo (${SECONDS} s)"
timeout $((570 - SECONDS)) build-cuda/perf_tests/bench/compound-bench --zoo /tmp/zoo_irr/index.json --db "$R/sm_90.json" \
  --precision both --timing queued --out "$R/bench" > "$R/bench/bench.log" 2>&1
echo "bench rc=$?"
tail -22 "$R/bench/bench.log" | tr '\r' '\n' | grep -v '%'
