#!/usr/bin/env bash
# Profile lab, one device call: Kokkos core, the lab, determinism, timing, ncu.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
R=/tmp/prof_res
mkdir -p "$R"
trap 'tar czf "$OUT/prof_seg2.tgz" -C /tmp prof_res; echo "=== end ($(date +%T), ${SECONDS} s)"' EXIT
deps=$PWD/.carry/deps
prefix=/tmp/kokkos-cuda-sm_90
export PATH=/usr/local/cuda/bin:$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -d third_party_src ] || tar xJf .carry/src.tar.xz
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader | tee "$R/device.txt"
nvcc --version | tail -2 | tee -a "$R/device.txt"
ncu --version | tail -1 | tee -a "$R/device.txt"
echo "commit $(cat .carry/commit)" | tee -a "$R/device.txt"
scripts/build_kokkos_cuda.sh --arch sm_90 --src third_party_src --prefix "$prefix" --build-dir /tmp/kokkos-build \
  --jobs 16 --no-kernels > "$R/kokkos_build.log" 2>&1 || { tail -30 "$R/kokkos_build.log"; exit 1; }
echo "=== Kokkos in (${SECONDS} s)"
cmake -S . -B build-lab -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" \
  -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCMAKE_PREFIX_PATH="$deps" -DCOMPOUND_SPARSE_ENABLE_TESTS=OFF \
  -DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=OFF > "$R/lab_configure.log" 2>&1 || { tail -20 "$R/lab_configure.log"; exit 1; }
GENERATED=$PWD/build-lab/generated .carry/prof/build.sh "$prefix" /tmp/prof_lab > "$R/lab_build.log" 2>&1 ||
  { tail -60 "$R/lab_build.log"; exit 1; }
grep -a -h -E "spill|Used" /tmp/prof_lab.prof_*.log | sort | uniq -c | sort -rn | head -40 > "$R/ptxas.txt"
echo "=== lab built (${SECONDS} s)"
timeout 60 /tmp/prof_lab selftest > "$R/selftest.txt" 2>&1; echo "selftest rc=$?"
cat "$R/selftest.txt"
timeout 150 /tmp/prof_lab determinism circuit-1m > "$R/determinism.txt" 2>&1; echo "determinism rc=$?"
cat "$R/determinism.txt"
echo "=== (${SECONDS} s)"
timeout 150 /tmp/prof_lab time > "$R/time.txt" 2>&1; echo "time rc=$?"
cat "$R/time.txt"
echo "=== (${SECONDS} s)"
echo skip ncu
