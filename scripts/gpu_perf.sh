#!/usr/bin/env bash
# The performance run on an offline GPU machine, in one call: Kokkos with CUDA
# from the carried Debian source, the tools (zoo, tuner, bench) built with it,
# then scripts/perf_pipeline.sh on the full zoo. Carried: third_party_src/
# {kokkos,kokkos-kernels,testmatrices}, .carry/deps (stage_gpu_deps.sh),
# .carry/meshes (the zoo's surface meshes) and .carry/commit (the source commit).
#
#   ARCH=sm_90 OUT=dir scripts/gpu_perf.sh
#
# Launch bounds: a 2 x 3 grid (n_t 128, 256 x n_b 1, 2, 4), which keeps the
# build of six entry types near three minutes on 16 cores; Kokkos Kernels is
# not built (about six minutes more), so its baseline reports "not found".
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu_out}
arch=${ARCH:-sm_90}
deps=$PWD/.carry/deps
prefix=/tmp/kokkos-cuda-$arch
export PATH=$deps/bin:$PATH LD_LIBRARY_PATH=$deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export COMPOUND_SPARSE_COMMIT=$(cat .carry/commit 2>/dev/null || echo unknown)
mkdir -p "$out"
echo "=== device ($(date +%T))"
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader
scripts/build_kokkos_cuda.sh --arch "$arch" --src third_party_src --prefix "$prefix" --build-dir /tmp/kokkos-build \
  --jobs "$(nproc)" --no-kernels > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "=== build ($(date +%T))"
cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" \
  -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCMAKE_PREFIX_PATH="$deps" -DCOMPOUND_SPARSE_ENABLE_TESTS=OFF \
  -DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=OFF "-DCOMPOUND_SPARSE_LAUNCH_BOUNDS=128:1;128:2;128:4;256:1;256:2;256:4" \
  >> "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
ninja -C build-cuda compound-zoo compound-tune compound-bench >> "$out/build.log" 2>&1 ||
  { grep -a error -A3 "$out/build.log" | head -40; exit 1; }
echo "=== pipeline ($(date +%T))"
scripts/perf_pipeline.sh build-cuda "$out" --scale full --heatmap elasticity-box-large --meshes .carry/meshes \
  --mhd1280b third_party_src/testmatrices/mhd1280b.cua
