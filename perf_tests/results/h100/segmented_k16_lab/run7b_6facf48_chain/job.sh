#!/usr/bin/env bash
# Session 40, run 7b: the SpMM's scans back to one vector after the other, with the reach
# (the SpMV keeps its steps' scans at once). The seglab on circuit-1m float with this tree
# (and memcheck), then HEAD's headers (6facf48, .carry/old_tree.tgz) against this tree on
# circuit-1m float and double and rmat-s20 float.
cd "$(dirname "$0")/.."
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "card: $gpu, $(nvidia-smi -L | grep -c '^GPU') GPU(s)"
STEPS="build seglab" TARGETS="compound-zoo" ZOO_ONLY=circuit-1m,rmat-s20 SEGLAB_MATRICES="circuit-1m:float" \
  WORK=$WORK bash scripts/gpu_spmm.sh
echo "=== new tree rc $? ($(date +%T))"
export PATH=$PWD/.carry/deps/bin:$PATH LD_LIBRARY_PATH=$PWD/.carry/deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
prefix=/tmp/kokkos-cuda-sm_90
old=/tmp/old_tree
mkdir -p $old && tar -xzf .carry/old_tree.tgz -C $old
cp perf_tests/results/h100/segmented_k16_lab/segmented_spmm_lab.cpp $old/perf_tests/results/h100/segmented_k16_lab/
cmake -S $old/perf_tests/results/h100/segmented_k16_lab -B /tmp/seg-lab-old -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DKokkos_ROOT=$prefix -DCMAKE_CXX_COMPILER=$prefix/bin/nvcc_wrapper \
  -DCOMPOUND_SPARSE_GENERATED=$PWD/build-cuda/generated > $WORK/oldlab_configure.log 2>&1 &&
  ninja -C /tmp/seg-lab-old > $WORK/oldlab_build.log 2>&1
echo "=== old lab built rc $? ($(date +%T))"
zoo=/tmp/compound_zoo_spmm_tune
lab() {  # lab new|old NAME PRECISION
  local bin=/tmp/seg-lab/segmented_spmm_lab tag=seglab
  [ $1 = old ] && bin=/tmp/seg-lab-old/segmented_spmm_lab tag=oldlab
  $bin $3 $zoo/$2.mtx $WORK/${tag}_$2_$3.csv > $WORK/${tag}_$2_$3.log 2>&1
  echo "$1 lab $2 $3 rc $? ($(date +%T)) $(tail -1 $WORK/${tag}_$2_$3.log)"
}
lab old circuit-1m float
lab new circuit-1m double
lab old circuit-1m double
lab new rmat-s20 float
lab old rmat-s20 float
echo "=== job done ($(date +%T))"
