#!/usr/bin/env bash
# Prepared in session 41 for nvidia-h100-x4: finish perf_tests/results/h100/current/ with
# tuning/sm_90.json's H100 records: (1) the bench of the pairs that run lacks (dirac-bunny,
# elasticity-box, elasticity-box-28, helmholtz-box-k5 both precisions, elasticity-spot-fine
# both: its partial double runs are dropped before the merge), (2) the rerun at k = 1 and 8 of
# the whole zoo, shares dealt by that run's seconds (BENCH_COSTS), (3) the two examples.
cd "$(dirname "$0")/.."
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "card: $gpu, $(nvidia-smi -L | grep -c '^GPU') GPU(s)"
all=circuit-1m,circuit-512k,connection-hubs-256k,connection-hubs-512k,dirac-bunny,dirac-bunny-l1,dirac-bunny-l2,dirac-spot,dirac-spot-l1,dirac-spot-l2,dirac-torus-l1,dirac-woody-l2,elasticity-box,elasticity-box-16,elasticity-box-28,elasticity-box-52,elasticity-box-large,elasticity-cylinder,elasticity-cylinder-large,elasticity-lshape,elasticity-lshape-small,elasticity-rigid-34,elasticity-rigid-44,elasticity-spot,elasticity-spot-fine,elasticity-spot-mid,helmholtz-box-k10,helmholtz-box-k20,helmholtz-box-k3,helmholtz-box-k40,helmholtz-box-k5,helmholtz-cylinder-k15,helmholtz-cylinder-k30,helmholtz-cylinder-k8,mhd1280b,rmat-s19,rmat-s20
export SEED_DB=.carry/sm_90.json.gz PRECISIONS=float,double BENCH_GPUS=4 WORK=$WORK \
  BENCH_COSTS=perf_tests/results/h100/current/bench.json.gz
# One gpu_spmm.sh call, so that the zoo is generated alongside the build (STEPS="build" alone
# would not start it); steps in the script's order: build, examples, rerun.
ZOO_ONLY=$all STEPS="build examples rerun" KS_RERUN=1,8 \
  TARGETS="compound-zoo compound-bench example_helmholtz_multisource example_dirac_eigenvectors" \
  bash scripts/gpu_spmm.sh > $WORK/main.txt 2>&1
echo "=== build, examples, rerun rc $? ($(date +%T))"; grep -a -E '^=== |default GPU build|PASSED|FAILED' $WORK/main.txt; tail -5 $WORK/main.txt
# The rest, one compound-bench per GPU (the zoo's index holds all 37: --matrices picks).
export PATH=$PWD/.carry/deps/bin:$PATH LD_LIBRARY_PATH=$PWD/.carry/deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
i=0
for part in dirac-bunny elasticity-box-28 helmholtz-box-k5,elasticity-box elasticity-spot-fine; do
  CUDA_VISIBLE_DEVICES=$i build-cuda/perf_tests/bench/compound-bench --zoo /tmp/compound_zoo_spmm_tune/index.json \
    --matrices $part --db $WORK/tuning/sm_90.json --precision float,double --k 1,2,4,8,16 --timing queued \
    --out $WORK/bench_rest/gpu$i 2>&1 | tr '\r' '\n' | grep -a -v '%' > $WORK/bench_rest_gpu$i.log &
  i=$((i + 1))
done
wait
echo "=== bench of the rest done ($(date +%T))"; tail -n 2 $WORK/bench_rest_gpu*.log
