#!/usr/bin/env bash
# Session 39: the rerun of job39e.sh's xl bench on the same machine (same build, same matrix).
cd "$(dirname "$0")/.."
STEPS=xlbench XL_ONLY=elasticity-box-xl XL_KS=1,8 XL_PRECISIONS=double BENCH_SPMM_LAYOUTS=2 WORK=$WORK/xl_rerun bash scripts/gpu_spmm.sh
echo "=== rerun rc $?"
