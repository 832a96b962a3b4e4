#!/usr/bin/env bash
# One call on an offline GPU machine: build Kokkos with CUDA from the carried
# Debian source, build CompoundSparse and its tests with it, run ctest, run
# compute-sanitizer on a sample of the kernels and the demo at GPU size.
# Needs (carried): third_party_src/{kokkos,kokkos-kernels} (fetch_trilinos_source.sh)
# and .carry/deps (stage_gpu_deps.sh). Writes logs to $OUT (default gpu_out/).
#
#   ARCH=sm_90 [LAUNCH_BOUNDS="256:2;512:4"] scripts/gpu_check.sh [--with-kernels]
#
# LAUNCH_BOUNDS: the launch-bounds pairs to compile; unset, the library's default
# (a build directory that scripts/gpu_perf.sh configured is reset to it).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu_out}
arch=${ARCH:-sm_90}
kernels=--no-kernels
[ "${1:-}" = "--with-kernels" ] && kernels=""
mkdir -p "$out"
deps=$PWD/.carry/deps
prefix=/tmp/kokkos-cuda-$arch
export PATH=$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
step() { echo; echo "=== $* ($(date +%T))"; }

step device
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv | tee "$out/device.txt"
nvcc --version | tail -2 | tee -a "$out/device.txt"
# The device's copy of the tree may carry a stale .git: .carry/commit, written
# before the call (git rev-parse --short HEAD > .carry/commit), names what was sent.
echo "commit $(cat .carry/commit 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)" | tee -a "$out/device.txt"

step "Kokkos ($arch) from Debian's trilinos source"
if ! scripts/build_kokkos_cuda.sh --arch "$arch" --src third_party_src --prefix "$prefix" \
       --build-dir /tmp/kokkos-build --jobs "$(nproc)" $kernels > "$out/kokkos_build.log" 2>&1; then
  tail -40 "$out/kokkos_build.log"; exit 1
fi
tail -4 "$out/kokkos_build.log"

step "CompoundSparse (CUDA)"
bounds_arg=-UCOMPOUND_SPARSE_LAUNCH_BOUNDS
[ -n "${LAUNCH_BOUNDS:-}" ] && bounds_arg="-DCOMPOUND_SPARSE_LAUNCH_BOUNDS=$LAUNCH_BOUNDS"
kk_args=(-DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=OFF)
[ -z "$kernels" ] && kk_args=(-DKokkosKernels_ROOT="$prefix")
cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" \
  -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCMAKE_PREFIX_PATH="$deps" \
  -DCOMPOUND_SPARSE_GTEST_SOURCE_DIR="$deps/src/googletest" -DCOMPOUND_SPARSE_ENABLE_TESTS=ON \
  -DCOMPOUND_SPARSE_ENABLE_REPORT_TEST=OFF "$bounds_arg" "${kk_args[@]}" > "$out/configure.log" 2>&1 ||
  { tail -30 "$out/configure.log"; exit 1; }
grep -a "SpMV variants" "$out/configure.log"
start=$(date +%s)
ninja -C build-cuda -j "$(nproc)" > "$out/build.log" 2>&1 || { grep -a -E "error" -A3 "$out/build.log" | head -60; exit 1; }
echo "build: $(( $(date +%s) - start )) s, $(grep -a -c 'warning' "$out/build.log") warning lines"

step "ctest on the GPU"
ctest --test-dir build-cuda -j 4 --timeout 600 --output-on-failure > "$out/ctest.log" 2>&1
ctest_rc=$?
grep -a -E "tests passed|tests failed|Total Test time|\*\*\*Failed|\*\*\*Exception|Timeout" "$out/ctest.log" | head -30

step "compute-sanitizer memcheck + racecheck (sample of variants)"
# Every STEP-th variant case of a test executable as a gtest filter: a sample that,
# with a step prime to the counts of layouts and kinds, mixes all of them.
sample() {
  "$1" --gtest_list_tests | awk -v step="$2" '/^[^ ]/ { suite = $1 }
    /^  MatchesDoubleReference/ { if (n++ % step == 0) { printf "%s%s%s", sep, suite, $1; sep = ":" } }'
}
for t in complex_double block3_double; do
  exe=build-cuda/unit_tests/test_spmv_$t
  compute-sanitizer --tool memcheck --error-exitcode 3 "$exe" --gtest_filter="$(sample "$exe" 5)" \
    > "$out/memcheck_$t.log" 2>&1
  echo "memcheck $t: rc=$? $(grep -a -E 'ERROR SUMMARY|PASSED|FAILED' "$out/memcheck_$t.log" | tr '\n' ' ')"
done
# The schedules that split rows (issue 14) in full: every entry type's merge_path and
# segmented_sum cases, and the tests of their pieces (rows spanning workers and tiles,
# the diagonal search, the segmented sum's bitmap and lists).
for t in complex_double block3_double quaternion_float; do
  exe=build-cuda/unit_tests/test_spmv_$t
  compute-sanitizer --tool memcheck --error-exitcode 3 "$exe" --gtest_filter='*merge_path*:*segmented_sum*' \
    > "$out/memcheck_split_rows_$t.log" 2>&1
  echo "memcheck merge_path+segmented_sum $t: rc=$? $(grep -a -E 'ERROR SUMMARY|PASSED|FAILED' "$out/memcheck_split_rows_$t.log" | tr '\n' ' ')"
done
for t in merge_path segmented_sum; do
  compute-sanitizer --tool memcheck --error-exitcode 3 build-cuda/unit_tests/test_$t > "$out/memcheck_test_$t.log" 2>&1
  echo "memcheck test_$t: rc=$? $(grep -a -E 'ERROR SUMMARY|PASSED|FAILED' "$out/memcheck_test_$t.log" | tr '\n' ' ')"
done
compute-sanitizer --tool racecheck --error-exitcode 3 build-cuda/unit_tests/test_spmv_complex_float \
  --gtest_filter='*merge_path*:*segmented_sum*' > "$out/racecheck_split_rows.log" 2>&1
echo "racecheck merge_path+segmented_sum: rc=$? $(grep -a -E 'RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED' "$out/racecheck_split_rows.log" | tr '\n' ' ')"
exe=build-cuda/unit_tests/test_spmv_complex_float
compute-sanitizer --tool racecheck --error-exitcode 3 "$exe" --gtest_filter="$(sample "$exe" 13)" \
  > "$out/racecheck.log" 2>&1
echo "racecheck: rc=$? $(grep -a -E 'RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED' "$out/racecheck.log" | tr '\n' ' ')"

step "demo at GPU size (complex Helmholtz 1024^2)"
build-cuda/examples/compound_sparse_demo 1024 2>&1 | tee "$out/demo.log"
exit $ctest_rc
