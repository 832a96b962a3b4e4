#!/usr/bin/env bash
# Session 42 (nvidia-h100-x1): the k = 8 lab on dirac-torus-xl in its own numbering and in reverse
# Cuthill-McKee order (compound-zoo --only dirac-torus-xl-rcm, cb704ef): does the library's k = 8
# product per vector reach 3x its SpMV when x's gathers are near (the lab's ceiling: 3.25x)?
cd "$(dirname "$0")/.."
K8LAB_MEMCHECK=0 STEPS="build k8lab" TARGETS="compound-zoo" ZOO_SCALE=xl ZOO_ONLY=dirac-torus-xl,dirac-torus-xl-rcm \
  K8LAB_MATRICES="dirac-torus-xl-rcm:quaternion dirac-torus-xl:quaternion" bash scripts/gpu_spmm.sh > $WORK/main.txt 2>&1
echo "=== rc $? ($(date +%T))"; grep -a -E '^=== |default GPU build|us a|rows,' $WORK/main.txt
