#!/usr/bin/env bash
# On the device, from .carry/lab/ (with lab.cpp, build.sh and generated/ beside it): builds
# Kokkos, then the lab as checked out and with each .carry/lab/*.patch
# applied (one binary per patch, built in parallel), runs them all and writes to $OUT.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH=/usr/local/cuda/bin:$PATH
[ -d third_party_src ] || tar xJf .carry/src.tar.xz
scripts/build_kokkos_cuda.sh --arch sm_90 --src third_party_src --prefix /tmp/kc --build-dir /tmp/kb --jobs 16 --no-kernels >"$OUT/kokkos.log" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv >"$OUT/device.txt"
git rev-parse --short HEAD >"$OUT/commit.txt" 2>/dev/null || cp .carry/commit "$OUT/commit.txt"
names=(base)
.carry/lab/build.sh /tmp/kc /tmp/lab_base >"$OUT/build_base.log" 2>&1 &
for p in .carry/lab/*.patch; do
  n=$(basename "$p" .patch)
  names+=("$n")
  rm -rf "/tmp/tree_$n" && mkdir -p "/tmp/tree_$n/.carry" && cp -r include src "/tmp/tree_$n/" && cp -r .carry/lab "/tmp/tree_$n/.carry/"
  (cd "/tmp/tree_$n" && patch -p1 <"$root/$p" >/dev/null && .carry/lab/build.sh /tmp/kc "/tmp/lab_$n" >"$OUT/build_$n.log" 2>&1) &
done
wait
for n in "${names[@]}"; do
  echo "== $n" | tee -a "$OUT/lab.txt"
  "/tmp/lab_$n" "$@" 2>&1 | grep -v "does not fit" | tee -a "$OUT/lab.txt"
done
