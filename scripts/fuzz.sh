#!/usr/bin/env bash
# Builds the libFuzzer target for the file parsers (perf_tests/zoo/fuzz_parsers.cpp)
# with clang in its own build directory and runs it for SECONDS (default 60) on a
# scratch copy of the committed corpus, with the dictionary. Exits non-zero when the
# fuzzer finds a crash, a sanitizer report, an exception other than
# compound_sparse::Error, a hang (an input over 10 s) or an input that needs over
# 2 GB of memory; the offending input is kept and its path printed.
#
#   scripts/fuzz.sh [SECONDS]
#
# Environment: FUZZ_BUILD_DIR (default build-fuzz), FUZZ_CXX (default clang++-14 or
# clang++; not CXX, which often names the compiler of the normal build), FUZZ_JOBS (build jobs, default: all cores), FUZZ_KEEP=1 keeps the
# scratch directory (corpus grown by the run) even after a clean run.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [SECONDS]  (a positive integer, default 60)" >&2; exit 2; }
build=${FUZZ_BUILD_DIR:-build-fuzz}
cxx=${FUZZ_CXX:-$(command -v clang++-14 || command -v clang++ || true)}
[[ -n $cxx ]] || { echo "fuzz.sh: no clang++ found (Debian: apt-get install clang)" >&2; exit 2; }

# Only the fuzz target: no tests, examples or perf tools (they would double the build).
if [[ ! -f $build/build.ninja ]]; then
  mkdir -p "$build"
  cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCOMPOUND_SPARSE_ENABLE_FUZZERS=ON -DCOMPOUND_SPARSE_ENABLE_TESTS=OFF -DCOMPOUND_SPARSE_ENABLE_EXAMPLES=OFF \
    -DCOMPOUND_SPARSE_ENABLE_PERF_TESTS=ON > "$build/configure.log" 2>&1 ||
    { cat "$build/configure.log"; exit 1; }
fi
ninja -C "$build" -j "${FUZZ_JOBS:-$(nproc)}" fuzz_parsers >&2

# libFuzzer adds what it finds to its corpus directory: never the committed one.
work=$(mktemp -d "${TMPDIR:-/tmp}/compound-fuzz.XXXXXX")
mkdir -p "$work/corpus" "$work/artifacts"
cp perf_tests/zoo/fuzz_corpus/* "$work/corpus/"
status=0
"$build/perf_tests/zoo/fuzz_parsers" "$work/corpus" -dict=perf_tests/zoo/fuzz_parsers.dict \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" > "$work/fuzz.log" 2>&1 || status=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log" | tail -n 1)
if [[ $status -ne 0 ]]; then
  tail -n 60 "$work/fuzz.log" >&2
  echo "fuzz.sh: FAILED (exit $status) after ${runs:-?} executions; inputs: $work/artifacts/, log: $work/fuzz.log" >&2
  exit 1
fi
echo "fuzz.sh: ${seconds} s, ${runs:-?} executions, no failure ($(ls "$work/corpus" | wc -l) corpus inputs)"
if [[ ${FUZZ_KEEP:-0} == 1 ]]; then echo "fuzz.sh: kept $work"; else rm -rf "$work"; fi
