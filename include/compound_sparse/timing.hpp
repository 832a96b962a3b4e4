#pragma once
// Timing of device work, shared by the tuner and the perf suite so that both
// measure the same way: warm-up launches first, then `samples` batches of
// `batch` launches, each batch between two fences, and the median over batches
// of the time per launch. Batching keeps fence and launch gaps small against the
// kernels; the median discards outliers. `launch(i)` gets a running index so the
// caller can rotate between several input sets when one set would fit in cache.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <vector>

#include "error.hpp"

namespace compound_sparse {

struct TimingOptions {
  int warmup = 5;    ///< launches before timing (module load, caches, clocks)
  int batch = 10;    ///< launches per timed batch
  int samples = 50;  ///< timed batches; the median is reported
};

struct TimingResult {
  double median_seconds = 0;  ///< per launch
  double min_seconds = 0;
  double max_seconds = 0;
  int launches = 0;  ///< timed launches in total
};

template <class ExecutionSpace = Kokkos::DefaultExecutionSpace, class Launch>
TimingResult time_launches(Launch&& launch, const TimingOptions& options = {},
                           const ExecutionSpace& exec = ExecutionSpace()) {
  COMPOUND_SPARSE_REQUIRE(options.batch >= 1 && options.samples >= 1 && options.warmup >= 0,
                          "timing: batch and samples must be positive, warmup non-negative");
  int index = 0;
  for (int i = 0; i < options.warmup; ++i) launch(index++);
  exec.fence();
  std::vector<double> per_launch(options.samples);
  for (int s = 0; s < options.samples; ++s) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < options.batch; ++i) launch(index++);
    exec.fence();
    per_launch[s] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / options.batch;
  }
  std::sort(per_launch.begin(), per_launch.end());
  TimingResult result;
  const int n = options.samples;
  result.median_seconds = n % 2 ? per_launch[n / 2] : 0.5 * (per_launch[n / 2 - 1] + per_launch[n / 2]);
  result.min_seconds = per_launch.front();
  result.max_seconds = per_launch.back();
  result.launches = options.batch * options.samples;
  return result;
}

}  // namespace compound_sparse
