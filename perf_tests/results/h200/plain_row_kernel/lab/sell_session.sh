#!/usr/bin/env bash
# Sliced ELL lab, one device call: Kokkos core, the lab, the timings. sell_session.sh [ONLY] [PRECISIONS]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
R=$OUT/sell
mkdir -p "$R"
trap 'echo "=== end ($(date +%T), ${SECONDS} s)"' EXIT
[ -d .carry/deps ] || tar xJf .carry/packed/deps.tar.xz -C .carry
deps=$PWD/.carry/deps
prefix=/tmp/kokkos-cuda-sm_90
export PATH=/usr/local/cuda/bin:$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -d third_party_src ] || tar xJf .carry/src.tar.xz
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader | tee "$R/device.txt"
echo "commit $(cat .carry/commit)" | tee -a "$R/device.txt"
if [ ! -x /tmp/sell_lab ]; then
  [ -f "$prefix/lib/libkokkoscore.a" ] || [ -f "$prefix/lib64/libkokkoscore.a" ] ||
    scripts/build_kokkos_cuda.sh --arch sm_90 --src third_party_src --prefix "$prefix" --build-dir /tmp/kokkos-build \
      --jobs 16 --no-kernels > "$R/kokkos_build.log" 2>&1 || { tail -30 "$R/kokkos_build.log"; exit 1; }
  echo "=== Kokkos in (${SECONDS} s)"
  cmake -S . -B build-lab -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" \
    -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCMAKE_PREFIX_PATH="$deps" -DCOMPOUND_SPARSE_ENABLE_TESTS=OFF \
    -DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=OFF > "$R/lab_configure.log" 2>&1 || { tail -20 "$R/lab_configure.log"; exit 1; }
  GENERATED=$PWD/build-lab/generated .carry/prof/sell_build.sh "$prefix" /tmp/sell_lab > "$R/lab_build.log" 2>&1 ||
    { tail -60 "$R/lab_build.log"; exit 1; }
  echo "=== lab built (${SECONDS} s)"
fi
timeout "${LAB_TIMEOUT:-300}" /tmp/sell_lab "${1:-}" "${2:-float,double}" > "$R/lab${3:-}.txt" 2>&1; echo "lab rc=$?"
cat "$R/lab${3:-}.txt"
