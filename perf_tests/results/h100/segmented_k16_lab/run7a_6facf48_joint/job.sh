#!/usr/bin/env bash
# Session 40: the segmented sum's scans skip the levels past the tile's reach (same bits).
# test_segmented_sum on the GPU (and under memcheck), then the seglab (k = 2, 4, 8, 16 and the
# SpMV) on circuit-1m and rmat-s20 float and circuit-1m double with this tree, Nsight Compute
# of circuit-1m float; then the same lab built on HEAD's headers (.carry/old_tree.tgz, 6facf48)
# on the same matrices, and each of circuit-1m float's two labs once more: old/new A/B.
cd "$(dirname "$0")/.."
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "card: $gpu, $(nvidia-smi -L | grep -c '^GPU') GPU(s)"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,memory.total --format=csv > $WORK/device_smi.txt 2>&1
STEPS="build tests seglab sanitizer" TARGETS="compound-zoo test_segmented_sum" ZOO_ONLY=circuit-1m,rmat-s20 \
  SEGLAB_MATRICES="circuit-1m:float rmat-s20:float circuit-1m:double" SEGLAB_NCU=circuit-1m WORK=$WORK \
  bash scripts/gpu_spmm.sh
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
for pair in circuit-1m:float rmat-s20:float circuit-1m:double; do
  name=${pair%%:*} precision=${pair##*:}
  /tmp/seg-lab-old/segmented_spmm_lab $precision $zoo/$name.mtx $WORK/oldlab_${name}_$precision.csv \
    > $WORK/oldlab_${name}_$precision.log 2>&1
  echo "old lab $name $precision rc $? ($(date +%T))"
done
for round in 2; do
  /tmp/seg-lab/segmented_spmm_lab float $zoo/circuit-1m.mtx $WORK/seglab_circuit-1m_float_r$round.csv \
    > $WORK/seglab_circuit-1m_float_r$round.log 2>&1
  echo "new lab circuit-1m float round $round rc $? ($(date +%T))"
  /tmp/seg-lab-old/segmented_spmm_lab float $zoo/circuit-1m.mtx $WORK/oldlab_circuit-1m_float_r$round.csv \
    > $WORK/oldlab_circuit-1m_float_r$round.log 2>&1
  echo "old lab circuit-1m float round $round rc $? ($(date +%T))"
done
echo "=== job done ($(date +%T))"
