#!/usr/bin/env bash
# One device session in chained calls on one warm machine (2026-11-23, third session):
#   session.sh first    Kokkos (+ Kokkos Kernels in the background); the row-kernel batch
#                       lab (.carry/lab/row_lab.hpp) as soon as Kokkos is in; the tools
#                       (compound-zoo/-tune/-bench) with the checked-out kernel
#   session.sh complex  the pipeline (gpu_perf.sh run c1) on the complex class of the tuning zoo
#   session.sh rerun    the bench again on c1's database into c1/rerun
# Everything goes to /tmp/res, tarred into $OUT/res_STAGE.tgz on exit.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
stage=${1:?first|complex|rerun}
R=/tmp/res
mkdir -p "$R"
trap 'tar czf "$OUT/res_$stage.tgz" -C /tmp res; echo "=== end $stage ($(date +%T), ${SECONDS} s)"' EXIT
deps=$PWD/.carry/deps
prefix=/tmp/kokkos-cuda-sm_90
export PATH=/usr/local/cuda/bin:$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export COMPOUND_SPARSE_COMMIT=$(cat .carry/commit)
[ -d third_party_src ] || tar xJf .carry/src.tar.xz
complex=mhd1280b,helmholtz-box-k3,helmholtz-box-k5,helmholtz-cylinder-k8,helmholtz-box-k10,helmholtz-cylinder-k15,helmholtz-box-k20,helmholtz-cylinder-k30,helmholtz-box-k40,circuit-512k,circuit-1m,rmat-s19,rmat-s20

case $stage in
  first)
    nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader | tee "$R/device.txt"
    nvcc --version | tail -2 | tee -a "$R/device.txt"
    echo "commit $COMPOUND_SPARSE_COMMIT" | tee -a "$R/device.txt"
    echo "=== Kokkos + Kokkos Kernels ($(date +%T))"
    (scripts/build_kokkos_cuda.sh --arch sm_90 --src third_party_src --prefix "$prefix" --build-dir /tmp/kokkos-build \
      --jobs 16 --kernels-eti none > "$R/kokkos_build.log" 2>&1; echo "kokkos rc=$?" >> "$R/kokkos_build.log") &
    kokkos_pid=$!
    until grep -q '^kokkos=ok' "$prefix/.build_kokkos_cuda.stamp" 2> /dev/null; do
      kill -0 $kokkos_pid 2> /dev/null || { tail -30 "$R/kokkos_build.log"; exit 1; }
      sleep 2
    done
    echo "=== Kokkos core in ($(date +%T), ${SECONDS} s); lab build"
    cmake -S . -B build-lab -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" \
      -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCMAKE_PREFIX_PATH="$deps" -DCOMPOUND_SPARSE_ENABLE_TESTS=OFF \
      -DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=OFF > "$R/lab_configure.log" 2>&1 || { tail -20 "$R/lab_configure.log"; exit 1; }
    GENERATED=$PWD/build-lab/generated .carry/lab/build.sh "$prefix" /tmp/row_lab > "$R/lab_build.log" 2>&1 ||
      { grep -a -B2 -A6 error "$R/lab_build.log" /tmp/row_lab.*.log | head -60; exit 1; }
    cp /tmp/row_lab.ptxas "$R/lab_ptxas.txt"
    echo "=== lab ($(date +%T), ${SECONDS} s)"
    timeout 200 /tmp/row_lab > "$R/lab.txt" 2>&1
    echo "lab rc=$?"
    grep -a -E "^==|cusparse" "$R/lab.txt" | grep -v -E "CSR_default|legacy" | head -40
    wait $kokkos_pid
    tail -2 "$R/kokkos_build.log"
    echo "=== tools ($(date +%T), ${SECONDS} s)"
    OUT=$R timeout $((590 - SECONDS)) scripts/gpu_perf.sh build 2>&1 | tail -5
    ;;
  complex)
    ONLY=$complex SECONDS_LIMIT=${BUDGET:-560} OUT=$R scripts/gpu_perf.sh run c1 2>&1 | tail -25
    ;;
  rerun)
    mkdir -p /tmp/perf_runs/c1/rerun
    timeout ${BUDGET:-560} build-cuda/perf_tests/bench/compound-bench --zoo /tmp/compound_zoo_c1/index.json \
      --db /tmp/perf_runs/c1/tuning/sm_90.json --precision both --timing queued --out /tmp/perf_runs/c1/rerun \
      > /tmp/perf_runs/c1/rerun/bench.log 2>&1
    echo "bench rc=$?"
    mkdir -p "$R/c1" && cp -r /tmp/perf_runs/c1/. "$R/c1/"
    ;;
esac
