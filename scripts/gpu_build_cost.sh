#!/usr/bin/env bash
# Build time and binary size of the CUDA variant registry for one entry type:
#
#   scripts/gpu_build_cost.sh KOKKOS_PREFIX ENTRY OUT_DIR [BOUNDS]
#
# Configures a build with COMPOUND_SPARSE_VARIANT_ENTRIES=ENTRY (and launch bounds
# BOUNDS, by default the library's CUDA default grid), builds only the library with
# all cores, and writes OUT_DIR/build_cost_ENTRY.txt: wall time, the summed compile
# time of the variant translation units (what one core would take), object and
# archive sizes, and the number of kernels in the device code. Also writes
# OUT_DIR/resource_usage_ENTRY.txt.gz (cuobjdump -res-usage: registers, stack and
# local memory per kernel). Needs nvcc, cuobjdump, cmake and ninja on PATH.
set -euo pipefail
prefix=${1:?usage: gpu_build_cost.sh KOKKOS_PREFIX ENTRY OUT_DIR [BOUNDS]}
entry=${2:?usage: gpu_build_cost.sh KOKKOS_PREFIX ENTRY OUT_DIR [BOUNDS]}
out=${3:?usage: gpu_build_cost.sh KOKKOS_PREFIX ENTRY OUT_DIR [BOUNDS]}
bounds=${4:-}
dir=/tmp/build-cost-$entry
mkdir -p "$out"
report=$out/build_cost_$entry.txt

rm -rf "$dir"
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" \
  -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCOMPOUND_SPARSE_ENABLE_TESTS=OFF \
  -DCOMPOUND_SPARSE_ENABLE_EXAMPLES=OFF -DCOMPOUND_SPARSE_ENABLE_PERF_TESTS=OFF \
  -DCOMPOUND_SPARSE_WITH_KOKKOS_KERNELS=OFF "-DCOMPOUND_SPARSE_VARIANT_ENTRIES=$entry" \
  ${bounds:+"-DCOMPOUND_SPARSE_LAUNCH_BOUNDS=$bounds"} > "$dir.configure.log" 2>&1 ||
  { tail -20 "$dir.configure.log"; exit 1; }
start=$(date +%s%N)
ninja -C "$dir" -j "$(nproc)" compound_sparse > "$dir.build.log" 2>&1 || { grep -a -A3 error "$dir.build.log" | head -30; exit 1; }
wall_ms=$((($(date +%s%N) - start) / 1000000))

lib=$(find "$dir" -name libcompound_sparse.a | head -1)
cuobjdump -res-usage "$lib" 2> /dev/null | gzip -9 > "$out/resource_usage_$entry.txt.gz"
{
  echo "entry type: $entry"
  grep -a "SpMV variants" "$dir.configure.log" | sed 's/^-- //'
  echo "device: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nvcc --version | tail -1)"
  echo "cores: $(nproc)"
  echo "library build wall time (ninja -j$(nproc)): $((wall_ms / 1000)).$((wall_ms % 1000 / 100)) s"
  # .ninja_log: start and end in ms per output; the variant units are the generated sources.
  awk -F'\t' '$4 ~ /variants_.*\.o$/ { n++; s += ($2 - $1) / 1000; if (($2 - $1) / 1000 > m) m = ($2 - $1) / 1000 }
    END { printf "variant translation units: %d, summed compile time %.1f s, longest %.1f s\n", n, s, m }' "$dir/.ninja_log"
  find "$dir" -name 'variants_*.o' -printf '%s\n' |
    awk '{ s += $1 } END { printf "variant objects: %.1f MB\n", s / 1e6 }'
  stat -c %s "$lib" | awk '{ printf "libcompound_sparse.a: %.1f MB\n", $1 / 1e6 }'
  echo "kernels in the device code: $(zcat "$out/resource_usage_$entry.txt.gz" | grep -c 'Function')"
} | tee "$report"
