#!/usr/bin/env bash
# Builds the lab against a Kokkos install: build.sh PREFIX OUTPUT
set -euo pipefail
prefix=$1 out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
lab=$root/.carry/lab
"$prefix/bin/nvcc_wrapper" -O3 -DNDEBUG -std=c++17 -arch=sm_90 -lineinfo --expt-extended-lambda --expt-relaxed-constexpr \
  -I"$root/include" -I"$lab/generated" -I"$prefix/include" -I"$lab" \
  "$lab/lab.cpp" "$root/src/zoo/circuit.cpp" "$root/src/zoo/rmat.cpp" "$root/src/device_info.cpp" "$root/src/warnings.cpp" \
  -o "$out" -L"$prefix/lib" -L"$prefix/lib64" -lkokkoscontainers -lkokkoscore -lcusparse -lcuda -ldl
