#!/usr/bin/env bash
# Configures and builds CompoundSparse for the host backend (Debian's Serial Kokkos) into build/
# with CMakePresets.json's host preset (Release, Ninja), using every core. Extra arguments go to
# cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset host "$@" > build.configure.log 2>&1 || { cat build.configure.log; exit 1; }
cmake --build build -j "$(nproc)"
