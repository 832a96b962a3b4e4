#!/usr/bin/env bash
# The performance runs on an offline GPU machine, in stages that a device call can
# chain (the machine keeps /tmp and the build between calls while it stays warm):
#
#   scripts/gpu_perf.sh build            Kokkos + Kokkos Kernels (cuSPARSE TPL, no ETI)
#                                        with CUDA from the carried Debian source, then
#                                        compound-zoo, compound-tune, compound-bench
#   scripts/gpu_perf.sh run NAME         scripts/perf_pipeline.sh on the tuning zoo into
#                                        $OUT/NAME (zoo, tune, leave-one-out, bench);
#                                        TIMING=wall|queued|auto (default auto: queued,
#                                        GPU time, as tuning/sm_90.json was tuned);
#                                        SECONDS_LIMIT=N stops it after N s (what it has
#                                        is copied), RESUME=1 continues such a run;
#                                        ONLY=a,b runs it on those zoo matrices alone
#                                        (their own zoo in /tmp/compound_zoo_NAME);
#                                        PRECISION=LIST (default both) the precisions
#                                        (float, double, mixed, both, all)
#   scripts/gpu_perf.sh profile DB       ncu metrics (scripts/gpu_profile.sh) into $OUT/ncu,
#                                        ours as selected from DB against the baselines
#   scripts/gpu_perf.sh cost ENTRY       build time and binary size of the library for one
#                                        entry type, default launch bounds
#                                        (scripts/gpu_build_cost.sh) into $OUT/build_cost
#
# Every stage builds what it needs and skips what is already built, so `run` alone
# also works on a fresh machine. Carried: third_party_src/{kokkos,kokkos-kernels,
# testmatrices}, .carry/deps (stage_gpu_deps.sh), .carry/meshes (the zoo's surface
# meshes) and .carry/commit (the source commit). Launch bounds: $LAUNCH_BOUNDS, by default
# n_t 256 x n_b 1, 2, 4, 8 and 512:4, 256 to 2048 threads per SM (2048 threads per SM made
# complex matrices 5-38% faster, perf_tests/results/h200/launch_bounds/), and 128:4 and
# 128:16: teams of 128 threads made the merge path 3-4% faster on circuit-1m and rmat-s20
# (perf_tests/results/h200/merge_path_profile/, team_size/). Other n_t = 128 pairs are
# left out to save build time: none was the best in the 54 records of the first H200
# database (six pairs, 128 and 256 x 1, 2, 4), which had no merge path.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu_out}
arch=${ARCH:-sm_90}
deps=$PWD/.carry/deps
prefix=/tmp/kokkos-cuda-$arch
zoo=/tmp/compound_zoo_tune
zoo_args=(--scale tune --meshes .carry/meshes --mhd1280b third_party_src/testmatrices/mhd1280b.cua)
bounds=${LAUNCH_BOUNDS:-128:4;128:16;256:1;256:2;256:4;256:8;512:4}
export PATH=$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export COMPOUND_SPARSE_COMMIT=$(cat .carry/commit 2>/dev/null || echo unknown)
mkdir -p "$out"
stage=${1:-}

build() {
  echo "=== device ($(date +%T))"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader | tee "$out/device.txt"
  nvcc --version | tail -2 | tee -a "$out/device.txt"
  echo "commit $COMPOUND_SPARSE_COMMIT" | tee -a "$out/device.txt"
  echo "=== Kokkos + Kokkos Kernels ($(date +%T))"
  scripts/build_kokkos_cuda.sh --arch "$arch" --src third_party_src --prefix "$prefix" --build-dir /tmp/kokkos-build \
    --jobs "$(nproc)" --kernels-eti none > "$out/kokkos_build.log" 2>&1 || { tail -30 "$out/kokkos_build.log"; return 1; }
  grep -a -E '^\s+\[|cusparse=' "$out/kokkos_build.log"
  echo "=== tools ($(date +%T))"
  # Kokkos Kernels asked for explicitly: scripts/gpu_check.sh configures the same build
  # directory without it, and CMake's cache would keep that.
  cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" -DKokkosKernels_ROOT="$prefix" \
    -DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=ON \
    -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCMAKE_PREFIX_PATH="$deps" -DCOMPOUND_SPARSE_ENABLE_TESTS=OFF \
    "-DCOMPOUND_SPARSE_LAUNCH_BOUNDS=$bounds" > "$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; return 1; }
  grep -a -i "kokkos kernels" "$out/build.log" | head -3
  local start=$SECONDS
  ninja -C build-cuda compound-zoo compound-tune compound-bench >> "$out/build.log" 2>&1 ||
    { grep -a error -A3 "$out/build.log" | head -40; return 1; }
  echo "tools built in $((SECONDS - start)) s"
  # Registers, stack and local memory per compiled kernel, for the occupancy analysis.
  if command -v cuobjdump > /dev/null; then
    cuobjdump -res-usage build-cuda/libcompound_sparse.a 2> /dev/null | gzip -9 > "$out/resource_usage.txt.gz"
  fi
}

case $stage in
  build) build ;;
  run)
    name=${2:?usage: gpu_perf.sh run NAME}
    [ -x build-cuda/perf_tests/bench/compound-bench ] || build || exit 1
    echo "=== pipeline $name ($(date +%T))"
    # The run lives in /tmp (kept while the machine stays warm) and is copied to
    # $OUT at the end, also when SECONDS_LIMIT stops it: a device call is capped
    # at 10 minutes, and the next call with RESUME=1 continues the tuning where
    # it stopped (compound-tune --resume) instead of starting over.
    work=/tmp/perf_runs/$name
    mkdir -p "$work"
    if [ -n "${ONLY:-}" ]; then
      zoo=/tmp/compound_zoo_$name
      zoo_args+=(--only "$ONLY")
    fi
    ZOO_DIR=$zoo REUSE_ZOO=1 timeout "${SECONDS_LIMIT:-100000}" scripts/perf_pipeline.sh build-cuda "$work" \
      "${zoo_args[@]}" --heatmap elasticity-box-large --timing "${TIMING:-auto}" --precision "${PRECISION:-both}"
    status=$?
    mkdir -p "$out/$name" && cp -r "$work/." "$out/$name/"
    [ $status = 124 ] && echo "=== stopped after ${SECONDS_LIMIT} s; RESUME=1 gpu_perf.sh run $name continues"
    exit $status
    ;;
  profile)
    db=${2:?usage: gpu_perf.sh profile DB}
    [ -x build-cuda/perf_tests/bench/compound-bench ] || build || exit 1
    [ -f "$zoo/index.json" ] || build-cuda/perf_tests/zoo/compound-zoo --out "$zoo" "${zoo_args[@]}" \
      > "$out/zoo.log" 2>&1 || { tail "$out/zoo.log"; exit 1; }
    scripts/gpu_profile.sh build-cuda "$zoo/index.json" "$db" "$out/ncu"
    ;;
  cost)
    entry=${2:?usage: gpu_perf.sh cost ENTRY}
    [ -x "$prefix/bin/nvcc_wrapper" ] || build || exit 1
    scripts/gpu_build_cost.sh "$prefix" "$entry" "$out/build_cost"
    ;;
  *)
    echo "usage: gpu_perf.sh build | run NAME | profile DB | cost ENTRY" >&2
    exit 2
    ;;
esac
