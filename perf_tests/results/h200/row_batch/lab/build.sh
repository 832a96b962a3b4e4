#!/usr/bin/env bash
# Builds the row-kernel batch lab against a Kokkos install: build.sh PREFIX OUTPUT
# (one object per entry type, in parallel; ptxas register/spill report in OUTPUT.ptxas).
set -euo pipefail
prefix=$1 out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
lab=$root/.carry/lab
gen=${GENERATED:-$root/build-cuda/generated}
flags=(-O3 -DNDEBUG -std=c++17 -arch=sm_90 -lineinfo --expt-extended-lambda --expt-relaxed-constexpr
       -I"$root/include" -I"$gen" -I"$prefix/include" -I"$root/perf_tests/bench" -I"$lab")
objs=()
pids=()
for f in lab_main lab_cf lab_cd lab_bf lab_bd; do
  "$prefix/bin/nvcc_wrapper" "${flags[@]}" -Xptxas=-v -c "$lab/$f.cpp" -o "$out.$f.o" > "$out.$f.log" 2>&1 &
  pids+=($!)
  objs+=("$out.$f.o")
done
for s in zoo/circuit zoo/helmholtz zoo/elasticity zoo/tet_mesh device_info warnings; do
  "$prefix/bin/nvcc_wrapper" "${flags[@]}" -c "$root/src/$s.cpp" -o "$out.${s#zoo/}.o" &
  pids+=($!)
  objs+=("$out.${s#zoo/}.o")
done
for p in "${pids[@]}"; do wait "$p"; done
cat "$out".lab_*.log | grep -a -E "error|spill" | sort | uniq -c | sort -rn | head -20 > "$out.ptxas" || true
"$prefix/bin/nvcc_wrapper" -O3 -arch=sm_90 "${objs[@]}" -o "$out" \
  -L"$prefix/lib" -L"$prefix/lib64" -lkokkoscontainers -lkokkoscore -lcusparse -lcuda -ldl
