#!/usr/bin/env bash
# Session 25: mixed precision on the H200. Build Kokkos (+ Kernels), the library with the
# perf launch bounds, the mixed and transpose tests and the tools; run the tests with
# memcheck; then the pipeline on six zoo matrices in float, double and mixed.
set -uo pipefail
out=$WORK
[ -d third_party_src/kokkos ] || tar -xJf .carry/packed/deps.tar.xz
deps=$PWD/.carry/deps
prefix=/tmp/kokkos-cuda-sm_90
export PATH=$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export COMPOUND_SPARSE_COMMIT=$(cat .carry/commit)
step() { echo; echo "=== $* ($(date +%T), ${SECONDS} s)"; }
step device
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader | tee "$out/device.txt"
nvcc --version | tail -2 | tee -a "$out/device.txt"
echo "commit $COMPOUND_SPARSE_COMMIT" | tee -a "$out/device.txt"
step kokkos
scripts/build_kokkos_cuda.sh --arch sm_90 --src third_party_src --prefix $prefix --build-dir /tmp/kokkos-build \
  --jobs 16 --kernels-eti none > "$out/kokkos_build.log" 2>&1 || { tail -30 "$out/kokkos_build.log"; exit 1; }
step configure
bounds="128:4;128:16;256:1;256:2;256:4;256:8;512:4"
cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT=$prefix -DKokkosKernels_ROOT=$prefix \
  -DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=ON -DCMAKE_CXX_COMPILER=$prefix/bin/nvcc_wrapper -DCMAKE_PREFIX_PATH=$deps \
  -DCOMPOUND_SPARSE_GTEST_SOURCE_DIR=$deps/src/googletest -DCOMPOUND_SPARSE_ENABLE_TESTS=ON \
  -DCOMPOUND_SPARSE_ENABLE_REPORT_TEST=OFF "-DCOMPOUND_SPARSE_LAUNCH_BOUNDS=$bounds" > "$out/configure.log" 2>&1 ||
  { tail -30 "$out/configure.log"; exit 1; }
step build
tests="test_spmv_complex_mixed test_spmv_quaternion_mixed test_spmv_block3_mixed test_mixed_precision test_transpose"
ninja -C build-cuda -j 16 $tests compound-zoo compound-tune compound-bench > "$out/build.log" 2>&1 ||
  { grep -a error -A3 "$out/build.log" | head -60; exit 1; }
echo "built at ${SECONDS} s; $(grep -a -c warning "$out/build.log") warning lines"
step tests
for t in $tests; do
  build-cuda/unit_tests/$t > "$out/$t.log" 2>&1
  echo "$t: rc=$? $(grep -a -E '^\[  (PASSED|FAILED)' "$out/$t.log" | tr '\n' ' ')"
done
step memcheck
compute-sanitizer --tool memcheck --error-exitcode 3 build-cuda/unit_tests/test_mixed_precision > "$out/memcheck_mixed.log" 2>&1
echo "memcheck test_mixed_precision: rc=$? $(grep -a -E 'ERROR SUMMARY' "$out/memcheck_mixed.log")"
step pipeline
ONLY=helmholtz-box-k40,circuit-1m,dirac-torus-l1,connection-hubs-512k,elasticity-box-52,elasticity-rigid-44
zoo=/tmp/compound_zoo_mixed
ZOO_DIR=$zoo scripts/perf_pipeline.sh build-cuda "$out/pipeline" --scale tune --only "$ONLY" \
  --mhd1280b third_party_src/testmatrices/mhd1280b.cua --heatmap none --precision all --timing queued
step rerun
build-cuda/perf_tests/bench/compound-bench --zoo $zoo/index.json --db "$(ls $out/pipeline/tuning/*.json | head -1)" \
  --out "$out/rerun" --precision all --timing queued 2>&1 | tr '\r' '\n' | grep -v '%' | tail -30
step done
