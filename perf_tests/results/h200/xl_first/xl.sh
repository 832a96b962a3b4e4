#!/usr/bin/env bash
# The xl set's complex matrices (issue 15) on one warm machine:
#   xl.sh first   Kokkos + Kokkos Kernels; compound-zoo --scale xl for helmholtz-box-xl and circuit-10m
#                 (two processes) and the tuning zoo's helmholtz-box-k40, while compound-bench builds;
#                 ncu of helmholtz-box-k40 float; compound-bench on the two xl matrices
#   xl.sh rerun   compound-bench on them again
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
stage=${1:?first|rerun}
budget=${BUDGET:-570}
R=/tmp/res
mkdir -p "$R"
trap 'cp -r "$R" "$OUT/"; echo "=== end $stage ($(date +%T), ${SECONDS} s)"' EXIT
deps=$PWD/.carry/deps
prefix=/tmp/kokkos-cuda-sm_90
export PATH=/usr/local/cuda/bin:$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export COMPOUND_SPARSE_COMMIT=$(cat .carry/commit)
[ -d third_party_src ] || tar xJf .carry/src.tar.xz
bounds="128:4;128:16;256:1;256:2;256:4;256:8;512:4"
bench() {  # bench NAME OUTDIR PRECISION
  timeout $((budget - SECONDS)) build-cuda/perf_tests/bench/compound-bench --zoo /tmp/xl_$1/index.json \
    --db tuning/sm_90.json --out "$2/$1-$3" --precision $3 --timing queued 2>&1 | tr '\r' '\n' | grep -v '%' > "$2/$1-$3.log"
  echo "bench $1 $3 rc=${PIPESTATUS[0]} ($(date +%T), ${SECONDS} s)"; tail -3 "$2/$1-$3.log"
  cp -r "$R" "$OUT/" 2>/dev/null
}
case $stage in
  first)
    echo "=== Kokkos + Kokkos Kernels ($(date +%T))"
    scripts/build_kokkos_cuda.sh --arch sm_90 --src third_party_src --prefix "$prefix" --build-dir /tmp/kokkos-build \
      --jobs 16 --kernels-eti none > "$R/kokkos_build.log" 2>&1 || { tail -30 "$R/kokkos_build.log"; exit 1; }
    { nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader; nvcc --version | tail -2
      echo "commit $COMPOUND_SPARSE_COMMIT"; echo "launch bounds $bounds"; } | tee "$R/device.txt"
    cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" -DKokkosKernels_ROOT="$prefix" \
      -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCMAKE_PREFIX_PATH="$deps" -DCOMPOUND_SPARSE_ENABLE_TESTS=OFF \
      "-DCOMPOUND_SPARSE_LAUNCH_BOUNDS=$bounds" > "$R/build.log" 2>&1 || { tail -30 "$R/build.log"; exit 1; }
    ninja -C build-cuda compound-zoo >> "$R/build.log" 2>&1 || { tail -30 "$R/build.log"; exit 1; }
    echo "=== compound-zoo xl ($(date +%T), ${SECONDS} s)"
    pids=()
    for m in helmholtz-box-xl circuit-10m; do
      (start=$SECONDS; build-cuda/perf_tests/zoo/compound-zoo --out /tmp/xl_$m --scale xl --only $m > "$R/zoo_$m.log" 2>&1
       echo "zoo rc=$? in $((SECONDS - start)) s" >> "$R/zoo_$m.log") &
      pids+=($!)
    done
    (build-cuda/perf_tests/zoo/compound-zoo --out /tmp/zoo_k40 --scale tune --only helmholtz-box-k40 --meshes .carry/meshes \
      --mhd1280b third_party_src/testmatrices/mhd1280b.cua > "$R/zoo_k40.log" 2>&1) &
    pids+=($!)
    ninja -C build-cuda compound-bench >> "$R/build.log" 2>&1 || { grep -a error -A3 "$R/build.log" | head -40; exit 1; }
    echo "=== ncu ($(date +%T), ${SECONDS} s)"
    timeout 100 scripts/gpu_profile.sh build-cuda /tmp/zoo_k40/index.json tuning/sm_90.json "$R/ncu" \
      helmholtz-box-k40:float > "$R/ncu.log" 2>&1; echo "ncu rc=$?"
    wait "${pids[@]}"
    for m in helmholtz-box-xl circuit-10m; do grep -a -E "wrote|rc=" "$R/zoo_$m.log"; done
    cp -r "$R" "$OUT/"
    mkdir -p "$R/xl"
    bench circuit-10m "$R/xl" float
    bench helmholtz-box-xl "$R/xl" float
    bench circuit-10m "$R/xl" double
    ;;
  rerun)
    mkdir -p "$R/xl_rerun"
    bench circuit-10m "$R/xl_rerun" float
    bench helmholtz-box-xl "$R/xl_rerun" float
    ;;
esac
