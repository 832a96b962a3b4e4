#!/usr/bin/env bash
# Issue 18 on the two-H200 machine (device kind nvidia-h200-x2: Open MPI and NCCL installed),
# in steps (STEPS, default all, in this order):
#   build     Kokkos with CUDA, then CompoundSparse with MPI (test_distributed, the example,
#             compound-dist-bench, compound-zoo), one launch-bounds pair to keep it short
#   tests     ctest -L mpi (1, 2 and 3 ranks; both GPUs through --kokkos-num-devices)
#   zoo       compound-zoo --scale xl and xl2 for the three grids (ZOO_ONLY, ZOO_ONLY2)
#   scaling   compound-dist-bench on 1 and 2 ranks (xl: strong; xl2 on 2 ranks: weak),
#             natural and RCM order, then perf_tests/report/scaling.py
#   cg        example_distributed_cg at GPU size on 1 and 2 ranks
# Needs the carried third_party_src and .carry/deps (scripts/gpu_check.sh). Writes under
# $WORK (default gpu_distributed_out/), for perf_tests/results/h200x2/. Long: start it
# detached (perf_tests/results/h200/transposes/scripts/run_bg.sh).
#
#   STEPS="build tests" WORK=/tmp/out scripts/gpu_distributed.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=${WORK:-gpu_distributed_out}
steps=${STEPS:-build tests zoo scaling cg}
zoo_only=${ZOO_ONLY:-helmholtz-box-xl,dirac-torus-xl,elasticity-box-xl}
zoo_only2=${ZOO_ONLY2:-helmholtz-box-xl2,dirac-torus-xl2,elasticity-box-xl2}
mkdir -p "$out"
[ -d third_party_src/kokkos ] || tar -xJf .carry/packed/deps.tar.xz
deps=$PWD/.carry/deps
prefix=/tmp/kokkos-cuda-sm_90
export PATH=$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
step() { echo; echo "=== $* ($(date +%T), ${SECONDS} s)"; }
wants() { [[ " $steps " == *" $1 "* ]]; }
run2() { mpiexec -n "$1" "${@:2}" --kokkos-num-devices=2; }  # rank i on GPU i % 2

step device
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
nvidia-smi topo -m | tee -a "$out/device.txt"
mpiexec --version | head -1 | tee -a "$out/device.txt"
# The device's copy of the tree may carry an older .git: the tools record this commit instead.
export COMPOUND_SPARSE_COMMIT=$(cat .carry/commit 2>/dev/null || git rev-parse --short HEAD)
echo "commit $COMPOUND_SPARSE_COMMIT" | tee -a "$out/device.txt"

if wants build; then
  step kokkos
  [ -x $prefix/bin/nvcc_wrapper ] || scripts/build_kokkos_cuda.sh --arch sm_90 --src third_party_src --prefix $prefix \
    --build-dir /tmp/kokkos-build --jobs "$(nproc)" --no-kernels > "$out/kokkos_build.log" 2>&1 ||
    { tail -30 "$out/kokkos_build.log"; exit 1; }
  step configure
  cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT=$prefix \
    -DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=OFF -DCMAKE_CXX_COMPILER=$prefix/bin/nvcc_wrapper -DCMAKE_PREFIX_PATH=$deps \
    -DCOMPOUND_SPARSE_GTEST_SOURCE_DIR=$deps/src/googletest -DCOMPOUND_SPARSE_ENABLE_TESTS=ON \
    -DCOMPOUND_SPARSE_ENABLE_REPORT_TEST=OFF "-DCOMPOUND_SPARSE_LAUNCH_BOUNDS=128:4;256:2;256:8" \
    "-DCOMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS=128:4" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
  grep -a "MPI" "$out/configure.log"
  step build
  ninja -C build-cuda -j "$(nproc)" test_distributed example_distributed_cg compound-dist-bench compound-zoo \
    > "$out/build.log" 2>&1 || { grep -a error -A3 "$out/build.log" | head -60; exit 1; }
fi

if wants tests; then
  step "tests (2 GPUs)"
  for np in 1 2 3; do
    run2 $np build-cuda/unit_tests/test_distributed > "$out/test_distributed_np$np.log" 2>&1
    echo "test_distributed np$np: rc=$? $(grep -a -E '^\[  (PASSED|FAILED)' "$out/test_distributed_np$np.log" | tr '\n' ' ')"
  done
  compute-sanitizer --tool memcheck --error-exitcode 3 build-cuda/unit_tests/test_distributed \
    > "$out/memcheck_distributed_np1.log" 2>&1
  echo "memcheck np1: rc=$? $(grep -a 'ERROR SUMMARY' "$out/memcheck_distributed_np1.log")"
fi

zoo=/tmp/compound_zoo_xl
if wants zoo; then
  step "zoo (xl, xl2)"
  build-cuda/perf_tests/zoo/compound-zoo --out $zoo --scale xl --only "$zoo_only" > "$out/zoo_xl.log" 2>&1 ||
    { tail "$out/zoo_xl.log"; exit 1; }
  build-cuda/perf_tests/zoo/compound-zoo --out ${zoo}2 --scale xl2 --only "$zoo_only2" > "$out/zoo_xl2.log" 2>&1 ||
    { tail "$out/zoo_xl2.log"; exit 1; }
fi

if wants scaling; then
  step "strong and weak scaling"
  run2 1 build-cuda/perf_tests/bench/compound-dist-bench --zoo $zoo/index.json --out "$out/np1.json" --order both
  run2 2 build-cuda/perf_tests/bench/compound-dist-bench --zoo $zoo/index.json --out "$out/np2.json" --order both
  run2 2 build-cuda/perf_tests/bench/compound-dist-bench --zoo ${zoo}2/index.json --out "$out/np2_xl2.json" --order both
  run2 2 build-cuda/perf_tests/bench/compound-dist-bench --zoo $zoo/index.json --out "$out/np2_rerun.json" --order natural
  python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
many = json.load(open(f"{out}/np2.json"))
many["matrices"] += json.load(open(f"{out}/np2_xl2.json"))["matrices"]
json.dump(many, open(f"{out}/np2_all.json", "w"), indent=1)
PY
  python3 perf_tests/report/scaling.py "$out/np1.json" "$out/np2_all.json" \
    --weak helmholtz-box-xl=helmholtz-box-xl2,dirac-torus-xl=dirac-torus-xl2,elasticity-box-xl=elasticity-box-xl2 \
    --out "$out/scaling.md"
fi

if wants cg; then
  step "distributed CG at GPU size"
  for np in 1 2; do
    run2 $np build-cuda/examples/example_distributed_cg 40 rcm 2>&1 | tee "$out/distributed_cg_np$np.log"
  done
fi
step done
