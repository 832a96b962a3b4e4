#!/usr/bin/env bash
# One device session in three calls on one warm machine (session of 2026-11-23, second):
#   chain.sh first    Kokkos + Kokkos Kernels; compound-zoo and the tuning zoo in the
#                     background; the merge-path lab as checked out and with each
#                     .carry/lab/*.patch; the fastest patch (geometric mean of the best
#                     time per matrix and precision, at least 3% under the base, every
#                     result checked) is applied; compound-tune + compound-bench; then
#                     the pipeline (gpu_perf.sh run q1) until the call's time is used.
#   chain.sh resume   the pipeline on (tuning resumes, leave-one-out, bench)
#   chain.sh rerun    the bench again into q1/rerun
# Everything goes to /tmp/res, tarred into $OUT/res_STAGE.tgz on exit.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
stage=${1:?first|resume|rerun}
budget=${BUDGET:-570}
R=/tmp/res
mkdir -p "$R"
trap 'tar czf "$OUT/res_$stage.tgz" -C /tmp res; echo "=== end $stage ($(date +%T), ${SECONDS} s)"' EXIT
deps=$PWD/.carry/deps
prefix=/tmp/kokkos-cuda-sm_90
export PATH=/usr/local/cuda/bin:$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -d third_party_src ] || tar xJf .carry/src.tar.xz
# The device's tree is resent with every call: put the chosen patch back.
if [ -s "$R/chosen.txt" ] && [ "$(cat "$R/chosen.txt")" != base ]; then
  patch -p1 --forward < ".carry/lab/$(cat "$R/chosen.txt").patch" > /dev/null || true
fi
zoo_args=(--scale tune --meshes .carry/meshes --mhd1280b third_party_src/testmatrices/mhd1280b.cua)

case $stage in
  first)
    echo "=== Kokkos + Kokkos Kernels ($(date +%T))"
    scripts/build_kokkos_cuda.sh --arch sm_90 --src third_party_src --prefix "$prefix" --build-dir /tmp/kokkos-build \
      --jobs 16 --kernels-eti none > "$R/kokkos_build.log" 2>&1 || { tail -30 "$R/kokkos_build.log"; exit 1; }
    nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader | tee "$R/device.txt"
    nvcc --version | tail -2 | tee -a "$R/device.txt"
    echo "commit $(cat .carry/commit)" | tee -a "$R/device.txt"
    echo "=== configure, compound-zoo, zoo in the background; lab builds ($(date +%T), ${SECONDS} s)"
    cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" -DKokkosKernels_ROOT="$prefix" \
      -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCMAKE_PREFIX_PATH="$deps" -DCOMPOUND_SPARSE_ENABLE_TESTS=OFF \
      "-DCOMPOUND_SPARSE_LAUNCH_BOUNDS=256:1;256:2;256:4;256:8;512:4" > "$R/build.log" 2>&1 || { tail -30 "$R/build.log"; exit 1; }
    names=(base)
    .carry/lab/build.sh "$prefix" /tmp/lab_base > "$R/build_lab_base.log" 2>&1 &
    for p in .carry/lab/*.patch; do
      n=$(basename "$p" .patch)
      names+=("$n")
      rm -rf "/tmp/tree_$n" && mkdir -p "/tmp/tree_$n/.carry" && cp -r include src "/tmp/tree_$n/" && cp -r .carry/lab "/tmp/tree_$n/.carry/"
      (cd "/tmp/tree_$n" && patch -p1 < "$root/$p" > /dev/null && .carry/lab/build.sh "$prefix" "/tmp/lab_$n" > "$R/build_lab_$n.log" 2>&1) &
    done
    ninja -C build-cuda compound-zoo >> "$R/build.log" 2>&1 || { tail -30 "$R/build.log"; exit 1; }
    (build-cuda/perf_tests/zoo/compound-zoo --out /tmp/compound_zoo_tune "${zoo_args[@]}" > "$R/zoo.log" 2>&1; echo "zoo rc=$?" >> "$R/zoo.log") &
    zoo_pid=$!
    wait $(jobs -p | grep -v "^$zoo_pid$")
    echo "=== lab runs ($(date +%T), ${SECONDS} s)"
    for n in "${names[@]}"; do
      echo "== $n" >> "$R/lab.txt"
      if [ -x "/tmp/lab_$n" ]; then "/tmp/lab_$n" 2>&1 | grep -v "does not fit" >> "$R/lab.txt"; else echo "build failed" >> "$R/lab.txt"; fi
    done
    grep -E "^==|cusparse ALG1|library" "$R/lab.txt"
    awk '/^== / { n = $2; next }
      /does not fit|cusparse/ { next }
      / us / { for (i = 1; i <= NF; i++) if ($i == "us") t = $(i - 1)
               k = n " " $1 " " $2; if (!(k in best) || t + 0 < best[k]) best[k] = t + 0
               if (/WRONG/) bad[n] = 1 }
      END { for (k in best) { split(k, a, " "); if (a[1] == "base") continue
              b = "base " a[2] " " a[3]; if (b in best) { s[a[1]] += log(best[k] / best[b]); c[a[1]]++ } }
            choice = "base"; g0 = log(0.97)
            for (n in s) { g = s[n] / c[n]
              printf "%s: geometric-mean time ratio to base %.3f over %d cases%s\n", n, exp(g), c[n], (n in bad) ? " (WRONG results)" : "" > "/dev/stderr"
              if (!(n in bad) && c[n] == 4 && g < g0) { g0 = g; choice = n } }
            print choice }' "$R/lab.txt" > "$R/chosen.txt" 2> "$R/pick.txt"
    cat "$R/pick.txt"
    echo "chosen: $(cat "$R/chosen.txt")"
    if [ "$(cat "$R/chosen.txt")" != base ]; then
      patch -p1 < ".carry/lab/$(cat "$R/chosen.txt").patch" || exit 1
    fi
    echo "=== tools ($(date +%T), ${SECONDS} s)"
    ninja -C build-cuda compound-tune compound-bench >> "$R/build.log" 2>&1 || { grep -a error -A3 "$R/build.log" | head -40; exit 1; }
    wait $zoo_pid
    tail -2 "$R/zoo.log"
    echo "=== pipeline ($(date +%T), ${SECONDS} s)"
    left=$((budget - SECONDS))
    [ $left -gt 60 ] && OUT=$R SECONDS_LIMIT=$left TIMING=queued scripts/gpu_perf.sh run q1
    ;;
  resume)
    OUT=$R RESUME=1 SECONDS_LIMIT=$((budget - SECONDS)) TIMING=queued scripts/gpu_perf.sh run q1
    ;;
  rerun)
    mkdir -p /tmp/perf_runs/q1/rerun
    timeout $((budget - SECONDS)) build-cuda/perf_tests/bench/compound-bench --zoo /tmp/compound_zoo_tune/index.json \
      --db /tmp/perf_runs/q1/tuning/sm_90.json --out /tmp/perf_runs/q1/rerun --precision both \
      --heatmap elasticity-box-large --timing queued 2>&1 | tr '\r' '\n' | grep -v '%' | tee /tmp/perf_runs/q1/rerun/bench.log
    mkdir -p "$R/q1" && cp -r /tmp/perf_runs/q1/. "$R/q1/"
    ;;
esac
