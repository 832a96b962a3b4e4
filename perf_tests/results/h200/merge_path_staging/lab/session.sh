#!/usr/bin/env bash
# Merge-path staging lab, one device call: Kokkos core, the lab (mp_lab.hpp), its output.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
R=/tmp/res
mkdir -p "$R"
trap 'tar czf "$OUT/res_lab.tgz" -C /tmp res; echo "=== end ($(date +%T), ${SECONDS} s)"' EXIT
deps=$PWD/.carry/deps
prefix=/tmp/kokkos-cuda-sm_90
export PATH=/usr/local/cuda/bin:$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -d third_party_src ] || tar xJf .carry/src.tar.xz
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader | tee "$R/device.txt"
nvcc --version | tail -2 | tee -a "$R/device.txt"
echo "commit $(cat .carry/commit)" | tee -a "$R/device.txt"
scripts/build_kokkos_cuda.sh --arch sm_90 --src third_party_src --prefix "$prefix" --build-dir /tmp/kokkos-build \
  --jobs 16 --no-kernels > "$R/kokkos_build.log" 2>&1 || { tail -30 "$R/kokkos_build.log"; exit 1; }
echo "=== Kokkos in (${SECONDS} s)"
cmake -S . -B build-lab -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" \
  -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCMAKE_PREFIX_PATH="$deps" -DCOMPOUND_SPARSE_ENABLE_TESTS=OFF \
  -DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=OFF > "$R/lab_configure.log" 2>&1 || { tail -20 "$R/lab_configure.log"; exit 1; }
GENERATED=$PWD/build-lab/generated .carry/mplab/build.sh "$prefix" /tmp/mp_lab > "$R/lab_build.log" 2>&1 ||
  { grep -a -B2 -A6 error "$R/lab_build.log" /tmp/mp_lab.*.log | head -60; exit 1; }
cp /tmp/mp_lab.ptxas "$R/lab_ptxas.txt"
cat /tmp/mp_lab.mp_c*.log > "$R/lab_ptxas_full.log"
echo "=== lab (${SECONDS} s)"
timeout $((560 - SECONDS)) /tmp/mp_lab > "$R/lab.txt" 2>&1
echo "lab rc=$?"
grep -a -E "^==|cusparse" "$R/lab.txt" | grep -v -E "legacy" | head -30
