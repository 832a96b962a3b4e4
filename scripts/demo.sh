#!/usr/bin/env bash
# Installs the dependencies, builds CompoundSparse for the host backend and runs
# the demo: every layout x schedule on a generated complex Helmholtz matrix,
# each checked against the double-precision host reference.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
./build/examples/compound_sparse_demo "$@"
