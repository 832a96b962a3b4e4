#!/usr/bin/env bash
# Stages, from this machine's Debian packages, what an offline GPU machine needs
# to build CompoundSparse and its tests: GoogleTest's source (built there with
# the CUDA toolchain), nlohmann-json's headers and CMake package, and the
# tetgen binary (matrix zoo). The result is one folder to copy along:
#
#   scripts/stage_gpu_deps.sh [DEST]      (default .carry/deps)
#
# On the GPU machine: export PATH=DEST/bin:$PATH LD_LIBRARY_PATH=DEST/lib, and
# cmake -DCMAKE_PREFIX_PATH=DEST \
#   -DCOMPOUND_SPARSE_GTEST_SOURCE_DIR=DEST/src/googletest ...
set -euo pipefail
dest=${1:-.carry/deps}
for f in /usr/src/googletest/CMakeLists.txt /usr/include/nlohmann/json.hpp \
         /usr/share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake; do
  [ -e "$f" ] || { echo "error: $f missing: run scripts/setup.sh first" >&2; exit 1; }
done
rm -rf "$dest"
mkdir -p "$dest/src" "$dest/include" "$dest/share/cmake" "$dest/bin" "$dest/lib"
cp -r /usr/src/googletest "$dest/src/googletest"
cp -r /usr/include/nlohmann "$dest/include/nlohmann"
cp -r /usr/share/cmake/nlohmann_json "$dest/share/cmake/nlohmann_json"
if command -v tetgen >/dev/null; then
  cp "$(command -v tetgen)" "$dest/bin/"
  # Debian's tetgen links libtet, which the GPU machine lacks.
  ldd "$(command -v tetgen)" | awk '/libtet/ {print $3}' | xargs -r cp -L -t "$dest/lib/"
fi
du -sh "$dest"
