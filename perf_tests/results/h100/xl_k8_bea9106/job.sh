#!/usr/bin/env bash
# Session 39, one GPU. First issue 17's k = 8 target on elasticity-box-xl
# (double, k = 1 and 8, compound-bench's own search), the tune zoo (on an H200) and the xl matrix
# generated during the build; then, on an H200 only, tuning/sm_90.json (the H200's shipped database) gets its k buckets
# (--resume extend; written after every record, so a machine that goes back mid-run loses one
# record at most; the next continues from .carry/sm_90_h200_partial.json when carried).
cd "$(dirname "$0")/.."
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "card: $gpu, $(nvidia-smi -L | grep -c '^GPU') GPU(s)"
seed=tuning/sm_90.json
[ -f .carry/sm_90_h200_partial.json ] && seed=.carry/sm_90_h200_partial.json
names=$(python3 -c 'import json,sys; print(",".join(sorted({m["name"] for m in json.load(open(sys.argv[1]))["matrices"]})))' $seed)
h200=; [[ "$gpu" == *H200* ]] && h200=1
zoo_names=elasticity-box; [ -n "$h200" ] && zoo_names=$names  # the tune zoo only where the tune runs
STEPS="build xlbench" ZOO_ONLY=$zoo_names XL_ONLY=elasticity-box-xl XL_KS=1,8 XL_PRECISIONS=double BENCH_SPMM_LAYOUTS=2 \
  TARGETS="compound-zoo compound-tune compound-bench" WORK=$WORK/xl bash scripts/gpu_spmm.sh
echo "=== build and xlbench rc $? ($(date +%T))"
[ -n "$h200" ] || exit 0
STEPS=tune PRECISIONS=float,double KS=1,2,4,8,16 SPMM_LAYOUTS=2 TUNE_RESUME=extend SEED_DB=$seed ZOO_ONLY=seed \
  WORK=$WORK bash scripts/gpu_spmm.sh
echo "=== job done rc $? ($(date +%T))"
