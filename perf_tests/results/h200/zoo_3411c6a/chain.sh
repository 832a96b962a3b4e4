#!/usr/bin/env bash
# The tuning-zoo pipeline in device calls on one warm machine:
#   chain.sh first    Kokkos + Kokkos Kernels; compound-zoo, the tuning zoo generated in the
#                     background while compound-tune/compound-bench build; then the pipeline
#                     (gpu_perf.sh run q1) until the call's time is used.
#   chain.sh resume   the pipeline on (tuning resumes, leave-one-out, bench)
#   chain.sh rerun    the bench again into q1/rerun
# Everything goes to /tmp/res, tarred into $OUT/res_STAGE.tgz on exit.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
stage=${1:?first|resume|rerun}
budget=${BUDGET:-570}
R=/tmp/res
mkdir -p "$R"
trap 'tar czf "$OUT/res_$stage.tgz" -C /tmp res; echo "=== end $stage ($(date +%T), ${SECONDS} s)"' EXIT
deps=$PWD/.carry/deps
prefix=/tmp/kokkos-cuda-sm_90
export PATH=/usr/local/cuda/bin:$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export COMPOUND_SPARSE_COMMIT=$(cat .carry/commit)
[ -d third_party_src ] || tar xJf .carry/src.tar.xz
zoo_args=(--scale tune --meshes .carry/meshes --mhd1280b third_party_src/testmatrices/mhd1280b.cua)
bounds="128:4;128:16;256:1;256:2;256:4;256:8;512:4"

case $stage in
  first)
    echo "=== Kokkos + Kokkos Kernels ($(date +%T))"
    scripts/build_kokkos_cuda.sh --arch sm_90 --src third_party_src --prefix "$prefix" --build-dir /tmp/kokkos-build \
      --jobs 16 --kernels-eti none > "$R/kokkos_build.log" 2>&1 || { tail -30 "$R/kokkos_build.log"; exit 1; }
    nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader | tee "$R/device.txt"
    nvcc --version | tail -2 | tee -a "$R/device.txt"
    echo "commit $COMPOUND_SPARSE_COMMIT" | tee -a "$R/device.txt"
    echo "launch bounds $bounds" | tee -a "$R/device.txt"
    echo "=== configure, compound-zoo ($(date +%T), ${SECONDS} s)"
    cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" -DKokkosKernels_ROOT="$prefix" \
      -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCMAKE_PREFIX_PATH="$deps" -DCOMPOUND_SPARSE_ENABLE_TESTS=OFF -DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=ON \
      "-DCOMPOUND_SPARSE_LAUNCH_BOUNDS=$bounds" > "$R/build.log" 2>&1 || { tail -30 "$R/build.log"; exit 1; }
    ninja -C build-cuda compound-zoo >> "$R/build.log" 2>&1 || { tail -30 "$R/build.log"; exit 1; }
    (build-cuda/perf_tests/zoo/compound-zoo --out /tmp/compound_zoo_tune "${zoo_args[@]}" > "$R/zoo.log" 2>&1; echo "zoo rc=$?" >> "$R/zoo.log") &
    zoo_pid=$!
    echo "=== tools ($(date +%T), ${SECONDS} s)"
    ninja -C build-cuda compound-tune compound-bench >> "$R/build.log" 2>&1 || { grep -a error -A3 "$R/build.log" | head -40; exit 1; }
    wait $zoo_pid
    tail -2 "$R/zoo.log"
    echo "=== pipeline ($(date +%T), ${SECONDS} s)"
    left=$((budget - SECONDS))
    [ $left -gt 60 ] && OUT=$R SECONDS_LIMIT=$left TIMING=queued LAUNCH_BOUNDS="$bounds" scripts/gpu_perf.sh run q1 2>&1 | tail -15
    ;;
  resume)
    OUT=$R RESUME=1 SECONDS_LIMIT=$((budget - SECONDS)) TIMING=queued LAUNCH_BOUNDS="$bounds" scripts/gpu_perf.sh run q1 2>&1 | tail -25
    ;;
  rerun)
    mkdir -p /tmp/perf_runs/q1/rerun
    timeout $((budget - SECONDS)) build-cuda/perf_tests/bench/compound-bench --zoo /tmp/compound_zoo_tune/index.json \
      --db /tmp/perf_runs/q1/tuning/sm_90.json --out /tmp/perf_runs/q1/rerun --precision both \
      --heatmap elasticity-box-large --timing queued 2>&1 | tr '\r' '\n' | grep -v '%' > /tmp/perf_runs/q1/rerun/bench.log
    echo "bench rc=$?"; tail -5 /tmp/perf_runs/q1/rerun/bench.log
    mkdir -p "$R/q1" && cp -r /tmp/perf_runs/q1/. "$R/q1/"
    ;;
esac
