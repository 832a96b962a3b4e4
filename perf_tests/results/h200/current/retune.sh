#!/usr/bin/env bash
# The tuning zoo retuned (reduced search with lanes 1, 2, 4, 32), leave-one-out, benched, then
# benched again from the new database (rerun). Build through xl_pipeline.sh (no steps, no xl).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
R=/tmp/res
mkdir -p "$R"
XL=" " STEPS=" " bash .carry/prof/xl_pipeline.sh
exec >> "$R/diag.log" 2>&1
deps=$PWD/.carry/deps
export PATH=/usr/local/cuda/bin:$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
until [ -e /tmp/compound_zoo_tune/index.json ]; do sleep 3; done
if [ ! -e $R/done.tune ]; then
  echo "=== retune start $(date +%T)"
  RESUME=1 ZOO_DIR=/tmp/compound_zoo_tune REUSE_ZOO=1 scripts/perf_pipeline.sh build-cuda $R/q1 --scale tune \
    --heatmap elasticity-box-large --timing queued > $R/perf_pipeline.out 2>&1
  echo "=== retune rc=$? $(date +%T)"; tail -3 $R/perf_pipeline.out
  [ -e $R/q1/bench.json ] && touch $R/done.tune
fi
if [ -e $R/done.tune ] && [ ! -e $R/done.rerun ]; then
  mkdir -p $R/q1/rerun
  build-cuda/perf_tests/bench/compound-bench --zoo /tmp/compound_zoo_tune/index.json --db $R/q1/tuning/sm_90.json \
    --out $R/q1/rerun --precision both --heatmap elasticity-box-large --timing queued 2>&1 | tr '\r' '\n' | grep -v '%' > $R/q1/rerun/bench.log
  echo "=== rerun rc=${PIPESTATUS[0]} $(date +%T)"; tail -2 $R/q1/rerun/bench.log
  [ -e $R/q1/rerun/bench.json ] && touch $R/done.rerun
fi
