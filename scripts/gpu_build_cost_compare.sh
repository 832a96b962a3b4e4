#!/usr/bin/env bash
# Build time and binary size of the CUDA variant registry, before and after a change,
# measured in one call on the same machine (scripts/gpu_build_cost.sh on each tree):
#
#   scripts/gpu_build_cost_compare.sh KOKKOS_PREFIX BASE_TREE OUT_DIR ENTRY...
#
# BASE_TREE is a copy of the source at the earlier commit (git archive REV | tar -x -C DIR),
# carried to the GPU machine. Writes OUT_DIR/{before,after}/build_cost_ENTRY.txt and
# OUT_DIR/comparison.md (one row per entry type: wall time, summed compile time of the
# variant units, object and archive sizes, kernels).
set -euo pipefail
prefix=${1:?usage: gpu_build_cost_compare.sh KOKKOS_PREFIX BASE_TREE OUT_DIR ENTRY...}
base=${2:?usage: gpu_build_cost_compare.sh KOKKOS_PREFIX BASE_TREE OUT_DIR ENTRY...}
out=${3:?usage: gpu_build_cost_compare.sh KOKKOS_PREFIX BASE_TREE OUT_DIR ENTRY...}
shift 3
[ $# -ge 1 ] || { echo "gpu_build_cost_compare.sh: name at least one entry type" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
for entry in "$@"; do
  (cd "$base" && bash scripts/gpu_build_cost.sh "$prefix" "$entry" "$out/before")
  (cd "$here" && bash scripts/gpu_build_cost.sh "$prefix" "$entry" "$out/after")
done
# One number from a build_cost file: the first match of a sed expression.
value() { sed -n "$2" "$1" | head -1; }
{
  echo "| entry type | tree | library wall time | summed unit compile time | variant objects | libcompound_sparse.a | kernels |"
  echo "|---|---|---|---|---|---|---|"
  for entry in "$@"; do
    for side in before after; do
      f=$out/$side/build_cost_$entry.txt
      echo "| $entry | $side | $(value "$f" 's/.*wall time.*: \(.*\)/\1/p') |" \
           "$(value "$f" 's/.*summed compile time \([0-9.]* s\).*/\1/p') |" \
           "$(value "$f" 's/^variant objects: //p') | $(value "$f" 's/^libcompound_sparse.a: //p') |" \
           "$(value "$f" 's/^kernels in the device code: //p') |"
    done
  done
} | tee "$out/comparison.md"
