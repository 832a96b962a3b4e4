#!/usr/bin/env bash
# Builds the Sliced ELL lab against a Kokkos install: sell_build.sh PREFIX OUTPUT
set -euo pipefail
prefix=$1 out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
lab=$root/.carry/prof
gen=${GENERATED:-$root/build-cuda/generated}
flags=(-O3 -DNDEBUG -std=c++17 -arch=sm_90 -lineinfo --expt-extended-lambda --expt-relaxed-constexpr
       -I"$root/include" -I"$gen" -I"$prefix/include" -I"$root/perf_tests/bench" -I"$lab")
objs=()
pids=()
for f in sell_main sell_d sell_f; do
  "$prefix/bin/nvcc_wrapper" "${flags[@]}" -Xptxas=-v -c "$lab/$f.cpp" -o "$out.$f.o" > "$out.$f.log" 2>&1 &
  pids+=($!)
  objs+=("$out.$f.o")
done
for s in zoo/helmholtz zoo/tet_mesh device_info warnings; do
  "$prefix/bin/nvcc_wrapper" "${flags[@]}" -c "$root/src/$s.cpp" -o "$out.${s#zoo/}.o" &
  pids+=($!)
  objs+=("$out.${s#zoo/}.o")
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
[ $rc = 0 ] || { cat "$out".sell_*.log | grep -a -B2 -A8 error | head -80; exit 1; }
"$prefix/bin/nvcc_wrapper" -O3 -arch=sm_90 "${objs[@]}" -o "$out" \
  -L"$prefix/lib" -L"$prefix/lib64" -lkokkoscontainers -lkokkoscore -lcusparse -lcuda -ldl
