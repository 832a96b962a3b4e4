#!/usr/bin/env bash
# Session 25, second call: TunedSpmv's transposed copies and the mixed-precision test on the
# GPU, then compound-bench --ops N,T,H on six zoo matrices (float, double) and a rerun of N, H.
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
echo "commit $COMPOUND_SPARSE_COMMIT" | tee -a "$out/device.txt"
step kokkos
[ -x $prefix/bin/nvcc_wrapper ] || scripts/build_kokkos_cuda.sh --arch sm_90 --src third_party_src --prefix $prefix \
  --build-dir /tmp/kokkos-build --jobs 16 --kernels-eti none > "$out/kokkos_build.log" 2>&1 || { tail -30 "$out/kokkos_build.log"; exit 1; }
step configure
bounds="128:4;128:16;256:1;256:2;256:4;256:8;512:4"
cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT=$prefix -DKokkosKernels_ROOT=$prefix \
  -DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=ON -DCMAKE_CXX_COMPILER=$prefix/bin/nvcc_wrapper -DCMAKE_PREFIX_PATH=$deps \
  -DCOMPOUND_SPARSE_GTEST_SOURCE_DIR=$deps/src/googletest -DCOMPOUND_SPARSE_ENABLE_TESTS=ON \
  -DCOMPOUND_SPARSE_ENABLE_REPORT_TEST=OFF "-DCOMPOUND_SPARSE_LAUNCH_BOUNDS=$bounds" > "$out/configure.log" 2>&1 ||
  { tail -30 "$out/configure.log"; exit 1; }
step build
tests="test_tuned_spmv test_mixed_precision"
ninja -C build-cuda -j 16 $tests compound-zoo compound-bench > "$out/build.log" 2>&1 ||
  { grep -a error -A3 "$out/build.log" | head -60; exit 1; }
echo "built at ${SECONDS} s"
step tests
for t in $tests; do
  build-cuda/unit_tests/$t > "$out/$t.log" 2>&1
  echo "$t: rc=$? $(grep -a -E '^\[  (PASSED|FAILED)' "$out/$t.log" | tr '\n' ' ')"
done
compute-sanitizer --tool memcheck --error-exitcode 3 build-cuda/unit_tests/test_tuned_spmv \
  --gtest_filter='*Transpose*' > "$out/memcheck_tuned_transposes.log" 2>&1
echo "memcheck transposes: rc=$? $(grep -a 'ERROR SUMMARY' "$out/memcheck_tuned_transposes.log")"
step zoo
ONLY=helmholtz-box-k40,circuit-1m,dirac-torus-l1,connection-hubs-512k,elasticity-box-52,elasticity-rigid-44
zoo=/tmp/compound_zoo_ops
build-cuda/perf_tests/zoo/compound-zoo --out $zoo --scale tune --only $ONLY \
  --mhd1280b third_party_src/testmatrices/mhd1280b.cua > "$out/zoo.log" 2>&1 || { tail "$out/zoo.log"; exit 1; }
gunzip -c perf_tests/results/h200/mixed_precision/run/tuning/sm_90.json.gz > /tmp/mixed_db.json
step bench
build-cuda/perf_tests/bench/compound-bench --zoo $zoo/index.json --db /tmp/mixed_db.json --out "$out/ops" \
  --precision float,double --ops N,T,H --timing queued 2>&1 | tr '\r' '\n' | grep -v '%'
step rerun
build-cuda/perf_tests/bench/compound-bench --zoo $zoo/index.json --db /tmp/mixed_db.json --out "$out/rerun" \
  --precision float,double --ops N,H --timing queued 2>&1 | tr '\r' '\n' | grep -v '%'
step done
