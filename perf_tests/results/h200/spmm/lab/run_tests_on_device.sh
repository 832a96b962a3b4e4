#!/usr/bin/env bash
# Issue 17: the SpMM suites on the GPU with spmm's tile of 2 to 4 vectors a thread, and
# memcheck. Started by diag_run.sh SCRIPT=spmm_gpu_tests.sh.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
R=/tmp/res
mkdir -p "$R"
exec >> "$R/diag.log" 2>&1
[ -d third_party_src ] || tar xJf .carry/src.tar.xz
[ -d .carry/deps ] || tar xJf .carry/packed/deps.tar.xz -C .carry
deps=$PWD/.carry/deps
prefix=/tmp/kokkos-cuda-sm_90
export PATH=/usr/local/cuda/bin:$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "=== start $(date +%T)"
{ nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader; nvcc --version | tail -2
  echo "commit $(cat .carry/commit)"; nproc; free -g | head -2; } > "$R/device.txt"
if [ ! -e "$R/done.kokkos" ]; then
  scripts/build_kokkos_cuda.sh --arch sm_90 --src third_party_src --prefix "$prefix" --build-dir /tmp/kokkos-build \
    --jobs 16 --no-kernels > "$R/kokkos_build.log" 2>&1 || { tail -30 "$R/kokkos_build.log"; exit 1; }
  touch "$R/done.kokkos"
fi
echo "=== kokkos $(date +%T)"
cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" \
  -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCMAKE_PREFIX_PATH="$deps" \
  -DCOMPOUND_SPARSE_GTEST_SOURCE_DIR="$deps/src/googletest" -DCOMPOUND_SPARSE_ENABLE_TESTS=ON \
  -DCOMPOUND_SPARSE_ENABLE_REPORT_TEST=OFF -DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=OFF \
  "-DCOMPOUND_SPARSE_LAUNCH_BOUNDS=128:4" > "$R/configure.log" 2>&1 || { tail -30 "$R/configure.log"; exit 1; }
start=$SECONDS
tests="test_spmv_complex_float test_spmv_complex_double test_spmv_quaternion_double test_spmv_block3_double test_spmv_user_dual"
ninja -C build-cuda -j 16 $tests > "$R/test_build.log" 2>&1
echo "test build rc=$? in $((SECONDS - start)) s"
grep -a -E " error" -A3 "$R/test_build.log" | head -40
echo "=== tests $(date +%T)"
for t in $tests; do
  build-cuda/unit_tests/$t --gtest_filter='*Spmm*' > "$R/$t.log" 2>&1
  echo "$t rc=$? $(grep -a -E '^\[  (PASSED|FAILED)' "$R/$t.log" | tr '\n' ' ')"
  grep -a "FAILED\|Failure" "$R/$t.log" | head -5
done
compute-sanitizer --tool memcheck --error-exitcode 9 build-cuda/unit_tests/test_spmv_complex_float \
  --gtest_filter='*Spmm*sell32_soa_static*:*Spmm*csr_aos_dynamic_team*' > "$R/sanitizer_memcheck_default.log" 2>&1
echo "memcheck rc=$? $(grep -a -E 'ERROR SUMMARY|PASSED|FAILED' "$R/sanitizer_memcheck_default.log" | tr '\n' ' ')"
echo "=== end $(date +%T)"
touch "$R/done.diag"
