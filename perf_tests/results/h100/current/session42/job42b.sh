#!/usr/bin/env bash
# Session 42, on the machine job42a.sh built on: the rerun at k = 2, 4, 16 (job42a's rerun was k = 1, 8),
# so that every k of h100/current's SpMM ratios has a second run.
cd "$(dirname "$0")/.."
all=$(python3 -c "import json;print(','.join(m['name'] for m in json.load(open('/tmp/compound_zoo_spmm_tune/index.json'))['matrices']))")
echo "zoo: $all"
SEED_DB=.carry/sm_90.json.gz PRECISIONS=float,double BENCH_GPUS=4 BENCH_COSTS=perf_tests/results/h100/current/bench.json.gz \
  ZOO_ONLY=$all STEPS="rerun" KS_RERUN=2,4,16 bash scripts/gpu_spmm.sh > $WORK/main.txt 2>&1
echo "=== rerun k = 2,4,16 rc $? ($(date +%T))"; tail -30 $WORK/main.txt
