#!/usr/bin/env bash
# Issue 18 on the two-H200 machine (device kind nvidia-h200-x2: Open MPI and NCCL installed),
# in steps (STEPS, default all, in this order: the most wanted results first, since a device
# machine may go back mid-run):
#   build     Kokkos with CUDA, then CompoundSparse with MPI: compound-zoo first, whose xl
#             and xl2 matrices (ZOO_ONLY, ZOO_ONLY2; one process each, all at once, in the
#             background) are generated while test_distributed, the example and
#             compound-dist-bench compile; three launch-bounds pairs to keep it short
#   tests     test_distributed on 1, 2 and 3 ranks (both GPUs through --kokkos-num-devices;
#             3 ranks put two on one GPU: the fallback from NCCL to host-staged MPI)
#   cg        example_distributed_cg at GPU size on 1 and 2 ranks, and on 2 unbound (MPI_BIND)
#   scaling   per matrix, as soon as it is generated: compound-dist-bench on 1 and 2 ranks
#             (xl: strong scaling) and the xl2 matrix on 2 ranks (weak), natural and RCM
#             order, then perf_tests/report/scaling.py on what has run so far
#   rerun     the 1- and 2-rank runs of the xl matrices again (noise of the efficiencies)
#   exchange  2 ranks with --exchange mpi (host-staged) on the xl matrices: NCCL's share
#   memcheck  compute-sanitizer memcheck on test_distributed, one rank
# Needs the carried third_party_src and .carry/deps (scripts/gpu_check.sh). Writes under
# $WORK (default gpu_distributed_out/), for perf_tests/results/h200x2/ (h100x2/ where the kind
# gives H100s, as it did for run 1). Long: start it
# detached (perf_tests/results/h200/transposes/scripts/run_bg.sh).
#
#   STEPS="build tests" WORK=/tmp/out scripts/gpu_distributed.sh
#   On the host (no GPU, a build with MPI in build-dev), the steps after build:
#   STEPS="tests cg scaling" BUILD_DIR=build-dev GPUS=0 ZOO_SCALE=small ZOO_SCALE2=tune \
#     ZOO_ONLY=helmholtz-box-small ZOO_ONLY2=helmholtz-box-k40 CG_SIZE=4 scripts/gpu_distributed.sh
#   The second call of a session (kind nvidia-h200-x2), after run 1: the new product only,
#   STEPS="build tests cg scaling rerun memcheck" (the exchange comparison is in run 1).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${WORK:-gpu_distributed_out}
out=$(mkdir -p "$out" && cd "$out" && pwd)
steps=${STEPS:-build tests cg scaling rerun exchange memcheck}
build=${BUILD_DIR:-build-cuda}
scale=${ZOO_SCALE:-xl}
scale2=${ZOO_SCALE2:-xl2}
IFS=, read -r -a names <<< "${ZOO_ONLY:-helmholtz-box-xl,dirac-torus-xl,elasticity-box-xl}"
IFS=, read -r -a names2 <<< "${ZOO_ONLY2:-helmholtz-box-xl2,dirac-torus-xl2,elasticity-box-xl2}"
[ ${#names[@]} -eq ${#names2[@]} ] || { echo "ZOO_ONLY and ZOO_ONLY2 must pair up (weak scaling)"; exit 2; }
zoo=${ZOO_DIR:-/tmp/compound_zoo_dist}
gpus=${GPUS:-2}
cg_size=${CG_SIZE:-40}
[ -d third_party_src/kokkos ] || [ ! -e .carry/packed/deps.tar.xz ] || tar -xJf .carry/packed/deps.tar.xz
deps=$PWD/.carry/deps
prefix=/tmp/kokkos-cuda-sm_90
export PATH=$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# NVLink multicast stays off on the shared multi-GPU hosts (the device tool's KINDS.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
step() { echo; echo "=== $* ($(date +%T), ${SECONDS} s)"; }
wants() { [[ " $steps " == *" $1 "* ]]; }
# mpiexec -n R PROGRAM ARGS: rank i on GPU i % GPUS (-x: the environment reaches every rank).
# Open MPI binds each of 2 ranks to one core by default; MPI_BIND=none (or socket, ...) changes
# that for every run, BIND for one call.
run_ranks() {
  local devices=() bind=()
  [ "$gpus" -gt 0 ] && devices=("--kokkos-num-devices=$gpus")
  [ -n "${BIND:-${MPI_BIND:-}}" ] && bind=(--bind-to "${BIND:-$MPI_BIND}")
  mpiexec "${bind[@]}" -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH -n "$1" "${@:2}" "${devices[@]}"
}
dist_bench=$build/perf_tests/bench/compound-dist-bench

step device
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
  nvidia-smi topo -m | tee -a "$out/device.txt"
fi
mpiexec --version | head -1 | tee -a "$out/device.txt"
echo "cores $(nproc)" | tee -a "$out/device.txt"
# The device's copy of the tree may carry an older .git: the tools record this commit instead.
export COMPOUND_SPARSE_COMMIT=$(cat .carry/commit 2> /dev/null || git rev-parse --short HEAD)
echo "commit $COMPOUND_SPARSE_COMMIT" | tee -a "$out/device.txt"

# The zoo: one compound-zoo process per matrix into $zoo/NAME/, its exit code in $zoo/NAME.rc
# (scripts/zoo_background.sh).
source scripts/zoo_background.sh
start_zoo() {
  local name
  for name in "${names[@]}"; do zoo_generate "$build/perf_tests/zoo/compound-zoo" "$zoo" "$name" "$scale"; done
  for name in "${names2[@]}"; do zoo_generate "$build/perf_tests/zoo/compound-zoo" "$zoo" "$name" "$scale2"; done
}
wait_zoo() {  # wait_zoo NAME: 0 once it is there, 1 if its generation failed
  [ -e "$zoo/$1.rc" ] || start_zoo
  zoo_wait "$zoo" "$1"
}

if wants build; then
  step kokkos
  [ -x $prefix/bin/nvcc_wrapper ] || scripts/build_kokkos_cuda.sh --arch sm_90 --src third_party_src --prefix $prefix \
    --build-dir /tmp/kokkos-build --jobs "$(nproc)" --no-kernels > "$out/kokkos_build.log" 2>&1 ||
    { tail -30 "$out/kokkos_build.log"; exit 1; }
  step configure
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT=$prefix \
    -DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=OFF -DCMAKE_CXX_COMPILER=$prefix/bin/nvcc_wrapper -DCMAKE_PREFIX_PATH="$deps" \
    -DCOMPOUND_SPARSE_GTEST_SOURCE_DIR="$deps/src/googletest" -DCOMPOUND_SPARSE_ENABLE_TESTS=ON \
    -DCOMPOUND_SPARSE_ENABLE_REPORT_TEST=OFF "-DCOMPOUND_SPARSE_LAUNCH_BOUNDS=128:4;256:2;256:8" \
    "-DCOMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS=128:4" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
  grep -a -E "MPI|NCCL" "$out/configure.log"
  step "build compound-zoo, then the zoo in the background"
  ninja -C "$build" -j "$(nproc)" compound-zoo > "$out/build_zoo.log" 2>&1 ||
    { grep -a error -A3 "$out/build_zoo.log" | head -60; exit 1; }
  start_zoo
  step build
  ninja -C "$build" -j "$(nproc)" test_distributed example_distributed_cg compound-dist-bench \
    > "$out/build.log" 2>&1 || { grep -a error -A3 "$out/build.log" | head -60; exit 1; }
fi

if wants tests; then
  step "tests ($gpus GPUs)"
  for np in 1 2 3; do
    run_ranks $np "$build/unit_tests/test_distributed" --gtest_color=no > "$out/test_distributed_np$np.log" 2>&1
    echo "test_distributed np$np: rc=$? $(grep -a -E '^\[  (PASSED|FAILED)' "$out/test_distributed_np$np.log" | tr '\n' ' ')"
  done
fi

if wants cg; then
  step "distributed CG, size $cg_size"
  for np in 1 2; do
    run_ranks $np "$build/examples/example_distributed_cg" "$cg_size" rcm > "$out/distributed_cg_np$np.log" 2>&1
    echo "np$np rc=$?"
    cat "$out/distributed_cg_np$np.log"
  done
  # Run 1's two-rank product took 4.3x the one-rank one, as a mean over the solve. Suspects: the
  # first product (timed apart since), or each rank bound to one core, shared with NCCL's
  # threads. The same solve with the ranks unbound:
  BIND=none run_ranks 2 "$build/examples/example_distributed_cg" "$cg_size" rcm \
    > "$out/distributed_cg_np2_unbound.log" 2>&1
  echo "np2 unbound rc=$?"
  cat "$out/distributed_cg_np2_unbound.log"
fi

# Each run in $out/scaling/KIND/MATRIX.json (and .log); KIND.json: the kind's runs as one.
bench() {  # bench RANKS MATRIX KIND [ARGS]: one compound-dist-bench run, both orders
  mkdir -p "$out/scaling/$3"
  run_ranks "$1" "$dist_bench" --zoo "$zoo/$2/index.json" --out "$out/scaling/$3/$2.json" --order both "${@:4}" \
    > "$out/scaling/$3/$2.log" 2>&1
  echo "$3 $2: rc=$?"
  grep -a -E "^  (natural|rcm)|rank|error" "$out/scaling/$3/$2.log"
}
merged() {  # merged KIND: the runs of $out/scaling/KIND/ as one run, $out/scaling/KIND.json
  python3 - "$out/scaling" "$1" << 'PY'
import glob, json, os, sys
folder, kind = sys.argv[1:]
runs = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(folder, kind, "*.json")))]
if runs:
    merged = dict(runs[0], command=None, commands=[r["command"] for r in runs],
                  matrices=[m for r in runs for m in r["matrices"]])
    json.dump(merged, open(os.path.join(folder, kind + ".json"), "w"), indent=1)
PY
}
report() {  # scaling.py on what has run: strong, weak where both halves ran, rerun, exchange
  local s=$out/scaling weak=() kind i
  for kind in np1 np2 np2_xl2 np1_rerun np2_rerun np2_mpi; do merged $kind; done
  for i in "${!names[@]}"; do
    [ -e "$s/np1/${names[i]}.json" ] && [ -e "$s/np2_xl2/${names2[i]}.json" ] && weak+=("${names[i]}=${names2[i]}")
  done
  [ -e "$s/np1.json" ] && [ -e "$s/np2.json" ] || return 0
  python3 - "$s" << 'PY'
import json, os, sys
s = sys.argv[1]
many = json.load(open(f"{s}/np2.json"))
if os.path.exists(f"{s}/np2_xl2.json"):
    many["matrices"] += json.load(open(f"{s}/np2_xl2.json"))["matrices"]
json.dump(many, open(f"{s}/np2_all.json", "w"), indent=1)
PY
  python3 perf_tests/report/scaling.py "$s/np1.json" "$s/np2_all.json" --weak "$(IFS=,; echo "${weak[*]}")" \
    --out "$out/scaling.md" > /dev/null
  if [ -e "$s/np1_rerun.json" ] && [ -e "$s/np2_rerun.json" ]; then
    python3 perf_tests/report/scaling.py "$s/np1_rerun.json" "$s/np2_rerun.json" --out "$out/scaling_rerun.md" > /dev/null
  fi
  if [ -e "$s/np2_mpi.json" ]; then
    python3 perf_tests/report/scaling.py "$s/np1.json" "$s/np2_mpi.json" --out "$out/scaling_mpi_exchange.md" > /dev/null
  fi
  cat "$out/scaling.md"
}

if wants scaling; then
  for i in "${!names[@]}"; do
    step "scaling: ${names[i]} on 1 and 2 ranks, ${names2[i]} on 2"
    wait_zoo "${names[i]}" || continue
    bench 1 "${names[i]}" np1
    bench 2 "${names[i]}" np2
    wait_zoo "${names2[i]}" && bench 2 "${names2[i]}" np2_xl2
    rm -rf "${zoo:?}/${names2[i]:?}"  # its disk and page cache, for the next ones
    report
  done
fi

each_xl() {  # each_xl TITLE "RANKS KIND [ARGS]"...: these runs on every xl matrix, then the report
  local title=$1 name run words
  shift
  for name in "${names[@]}"; do
    step "$title: $name"
    wait_zoo "$name" || continue
    for run in "$@"; do
      read -r -a words <<< "$run"
      bench "${words[0]}" "$name" "${words[@]:1}"
    done
    report
  done
}
wants rerun && each_xl "rerun on 1 and 2 ranks" "1 np1_rerun" "2 np2_rerun"
wants exchange && each_xl "host-staged MPI exchange on 2 ranks" "2 np2_mpi --exchange mpi"

if wants memcheck; then
  step "compute-sanitizer memcheck, test_distributed on one rank"
  # Without API errors: NCCL's communicator set-up probes kernel images it was not built for,
  # and each probe (cudaFuncGetAttributes: no kernel image) counts as one (run 1: 84 of them).
  compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 "$build/unit_tests/test_distributed" \
    --gtest_color=no > "$out/memcheck_distributed_np1.log" 2>&1
  echo "memcheck np1: rc=$? $(grep -a 'ERROR SUMMARY' "$out/memcheck_distributed_np1.log")"
fi
wait  # zoo generations still running, if the steps above did not need them
step done
