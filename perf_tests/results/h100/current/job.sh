#!/usr/bin/env bash
# Session 41, for a machine of several H100s (nvidia-h100-x4): a complete CC 9.0 database tuned
# with HEAD's kernels (k = 1, 2, 4, 8, 16; the 37 matrices of tuning/sm_90.json's records, both
# precisions), one compound-tune per GPU; then the bench from it (one compound-bench per GPU,
# merged) at every k, a rerun at k = 1 and 8, the kernel tests (built against the core objects
# for the first time on CUDA), and the two examples at GPU size with the new database.
cd "$(dirname "$0")/.."
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "card: $gpu, $(nvidia-smi -L | grep -c '^GPU') GPU(s)"
export ZOO_ONLY=circuit-1m,circuit-512k,connection-hubs-256k,connection-hubs-512k,dirac-bunny,dirac-bunny-l1,dirac-bunny-l2,dirac-spot,dirac-spot-l1,dirac-spot-l2,dirac-torus-l1,dirac-woody-l2,elasticity-box,elasticity-box-16,elasticity-box-28,elasticity-box-52,elasticity-box-large,elasticity-cylinder,elasticity-cylinder-large,elasticity-lshape,elasticity-lshape-small,elasticity-rigid-34,elasticity-rigid-44,elasticity-spot,elasticity-spot-fine,elasticity-spot-mid,helmholtz-box-k10,helmholtz-box-k20,helmholtz-box-k3,helmholtz-box-k40,helmholtz-box-k5,helmholtz-cylinder-k15,helmholtz-cylinder-k30,helmholtz-cylinder-k8,mhd1280b,rmat-s19,rmat-s20
export KS=1,2,4,8,16 KS_RERUN=1,8 SPMM_LAYOUTS=2 PRECISIONS=float,double BENCH_GPUS=4 WORK=$WORK
STEPS="build tests tune bench rerun" \
  TARGETS="compound-zoo compound-tune compound-bench example_helmholtz_multisource example_dirac_eigenvectors test_segmented_sum test_merge_path test_row_batch test_transpose test_layouts test_entry_types test_host_csr test_io test_interop test_example_eigen test_partition" \
  bash scripts/gpu_spmm.sh
echo "=== main steps rc $? ($(date +%T))"
STEPS="examples" bash scripts/gpu_spmm.sh > $WORK/examples.txt 2>&1
echo "=== examples rc $? ($(date +%T))"
tail -5 $WORK/example_*.log
