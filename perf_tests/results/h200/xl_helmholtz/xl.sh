#!/usr/bin/env bash
# xl matrices (issue 15) on one warm machine, in device calls:
#   xl.sh setup NAME...            Kokkos + Kokkos Kernels; compound-zoo --scale xl --only NAME (one process
#                                  each, in the background while compound-bench builds); waits for them
#                                  and the tuning zoo (compound-zoo --scale tune)
#   xl.sh bench DIR NAME:PREC...   compound-bench on each pair (tuning/sm_90.json) into /tmp/res/DIR
#   xl.sh zoo DIR                  compound-bench on the tuning zoo (tuning/sm_90.json) into /tmp/res/DIR
# BUDGET (s, default 570) bounds each call; results are copied to $OUT/res after every pair.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
stage=${1:?setup|bench}
shift
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
case $stage in
  setup)
    echo "=== Kokkos + Kokkos Kernels ($(date +%T))"
    scripts/build_kokkos_cuda.sh --arch sm_90 --src third_party_src --prefix "$prefix" --build-dir /tmp/kokkos-build \
      --jobs 16 --kernels-eti none > "$R/kokkos_build.log" 2>&1 || { tail -30 "$R/kokkos_build.log"; exit 1; }
    { nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader; nvcc --version | tail -2
      echo "commit $COMPOUND_SPARSE_COMMIT"; echo "launch bounds $bounds"; } | tee "$R/device.txt"
    cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" -DKokkosKernels_ROOT="$prefix" \
      -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCMAKE_PREFIX_PATH="$deps" -DCOMPOUND_SPARSE_ENABLE_TESTS=OFF -DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=ON \
      "-DCOMPOUND_SPARSE_LAUNCH_BOUNDS=$bounds" > "$R/build.log" 2>&1 || { tail -30 "$R/build.log"; exit 1; }
    ninja -C build-cuda compound-zoo >> "$R/build.log" 2>&1 || { tail -30 "$R/build.log"; exit 1; }
    echo "=== compound-zoo xl ($(date +%T), ${SECONDS} s)"
    pids=()
    for m in "$@"; do
      (start=$SECONDS; build-cuda/perf_tests/zoo/compound-zoo --out /tmp/xl_$m --scale xl --only $m > "$R/zoo_$m.log" 2>&1
       echo "zoo rc=$? in $((SECONDS - start)) s" >> "$R/zoo_$m.log") &
      pids+=($!)
    done
    (build-cuda/perf_tests/zoo/compound-zoo --out /tmp/compound_zoo_tune --scale tune --meshes .carry/meshes \
      --mhd1280b third_party_src/testmatrices/mhd1280b.cua > "$R/zoo.log" 2>&1; echo "zoo rc=$?" >> "$R/zoo.log") &
    pids+=($!)
    ninja -C build-cuda compound-bench >> "$R/build.log" 2>&1 || { grep -a error -A3 "$R/build.log" | head -40; exit 1; }
    echo "=== compound-bench built ($(date +%T), ${SECONDS} s)"
    wait "${pids[@]}"
    for m in "$@"; do grep -a -E "wrote|rc=" "$R/zoo_$m.log"; done
    tail -2 "$R/zoo.log"
    ;;
  zoo)
    dir=$R/${1:?DIR}
    mkdir -p "$dir"
    timeout $((budget - SECONDS)) build-cuda/perf_tests/bench/compound-bench --zoo /tmp/compound_zoo_tune/index.json \
      --db tuning/sm_90.json --out "$dir" --precision both --heatmap elasticity-box-large --timing queued 2>&1 |
      tr '\r' '\n' | grep -v '%' > "$dir/bench.log"
    echo "bench rc=${PIPESTATUS[0]} ($(date +%T), ${SECONDS} s)"; tail -3 "$dir/bench.log"
    ;;
  bench)
    dir=$R/${1:?DIR}
    shift
    mkdir -p "$dir"
    for pair in "$@"; do
      m=${pair%%:*} p=${pair##*:}
      timeout $((budget - SECONDS)) build-cuda/perf_tests/bench/compound-bench --zoo /tmp/xl_$m/index.json \
        --db tuning/sm_90.json --out "$dir/$m-$p" --precision $p --timing queued 2>&1 | tr '\r' '\n' | grep -v '%' \
        > "$dir/$m-$p.log"
      echo "bench $m $p rc=${PIPESTATUS[0]} ($(date +%T), ${SECONDS} s)"; tail -3 "$dir/$m-$p.log"
      cp -r "$R" "$OUT/" 2>/dev/null
    done
    ;;
esac
