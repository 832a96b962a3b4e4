#!/usr/bin/env bash
# Builds the merge-path staging lab against a Kokkos install: build.sh PREFIX OUTPUT
# (one object per entry type, in parallel; ptxas register/spill report in OUTPUT.ptxas).
set -euo pipefail
prefix=$1 out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
lab=$root/.carry/mplab
gen=${GENERATED:-$root/build-cuda/generated}
flags=(-O3 -DNDEBUG -std=c++17 -arch=sm_90 -lineinfo --expt-extended-lambda --expt-relaxed-constexpr
       -I"$root/include" -I"$gen" -I"$prefix/include" -I"$root/perf_tests/bench" -I"$lab")
objs=()
pids=()
for f in mp_main mp_cf mp_cd; do
  "$prefix/bin/nvcc_wrapper" "${flags[@]}" -Xptxas=-v -c "$lab/$f.cpp" -o "$out.$f.o" > "$out.$f.log" 2>&1 &
  pids+=($!)
  objs+=("$out.$f.o")
done
for s in zoo/circuit zoo/rmat device_info warnings; do
  "$prefix/bin/nvcc_wrapper" "${flags[@]}" -c "$root/src/$s.cpp" -o "$out.${s#zoo/}.o" &
  pids+=($!)
  objs+=("$out.${s#zoo/}.o")
done
for p in "${pids[@]}"; do wait "$p"; done
cat "$out".mp_*.log | grep -a -E "error|spill" | sort | uniq -c | sort -rn | head -20 > "$out.ptxas" || true
"$prefix/bin/nvcc_wrapper" -O3 -arch=sm_90 "${objs[@]}" -o "$out" \
  -L"$prefix/lib" -L"$prefix/lib64" -lkokkoscontainers -lkokkoscore -lcusparse -lcuda -ldl
