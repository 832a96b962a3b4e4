#!/usr/bin/env bash
# Session 40: the final tree (the SpMV's scans with the reach, the SpMM's as at 6facf48):
# test_segmented_sum on the GPU, and its SpMM cases (each column's SpMV too) under memcheck.
cd "$(dirname "$0")/.."
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "card: $gpu, $(nvidia-smi -L | grep -c '^GPU') GPU(s)"
STEPS="build tests sanitizer" TARGETS="test_segmented_sum" ZOO_ONLY=circuit-1m WORK=$WORK bash scripts/gpu_spmm.sh
echo "=== job done rc $? ($(date +%T))"
