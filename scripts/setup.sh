#!/usr/bin/env bash
# Installs CompoundSparse's build dependencies from Debian packages (bookworm):
# Kokkos and Kokkos Kernels 3.4.01 (Serial backend), nlohmann-json, GoogleTest,
# CMake and Ninja, python3 (zoo index checker), python3-matplotlib (benchmark report
# plots, docs/perf.md), tetgen (tetrahedral meshes for the matrix zoo, docs/zoo.md) and
# Open MPI (the distributed SpMV's host tests with 1, 2 and 3 ranks, docs/scaling.md).
# Idempotent: packages already present are not reinstalled.
set -euo pipefail

packages=(cmake ninja-build g++ libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev
          nlohmann-json3-dev libgtest-dev python3 python3-matplotlib tetgen libopenmpi-dev openmpi-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "setup: dependencies present"
