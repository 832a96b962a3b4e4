#!/usr/bin/env bash
# Sets up, builds and runs the whole unit-test suite with ctest (host backend).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 300
