#pragma once
// Timing of device work, shared by the tuner and the perf suite so that both
// measure the same way: warm-up launches first, then `samples` batches of
// `batch` launches, and the median over batches of the time per launch.
// Batching keeps fence and launch gaps small against the kernels; the median
// discards outliers. `launch(i)` gets a running index so the caller can rotate
// between several input sets when one set would fit in cache. A caller may stop
// after the first timed batch (`stop_after_first`): measure_variants drops a
// candidate that is clearly slower than the best one so far that way.
//
// Two ways to time a batch (TimingMode):
// - Wall (default): the host's clock between two fences. What a caller that
//   launches and waits sees; for kernels shorter than a launch (about 5 us with
//   Kokkos on an H200) it measures the host's launch rate, not the kernel.
// - Queued (CUDA only): the batch is queued behind a kernel that holds the
//   stream until the host has queued it all, and CUDA events time it on the
//   GPU (impl/queued_timing.hpp): back-to-back kernel time, as in a solver whose
//   host runs ahead. Launches must run on `exec`'s stream (work on another
//   stream is neither held nor timed) and must not synchronise with the device
//   (that is detected and reported as an Error).

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

#include "../error.hpp"
#include "impl/queued_timing.hpp"

namespace compound_sparse {

enum class TimingMode {
  Wall,    ///< host clock between fences, launch overhead included
  Queued,  ///< GPU time of a batch queued ahead of the device (CUDA)
};

struct TimingOptions {
  int warmup = 5;    ///< launches before timing (module load, caches, clocks)
  int batch = 10;    ///< launches per timed batch
  int samples = 50;  ///< timed batches; the median is reported
  TimingMode mode = TimingMode::Wall;
};

/// "wall" / "queued" (tool options, JSON).
inline const char* to_string(TimingMode mode) {
  return mode == TimingMode::Queued ? "queued" : "wall";
}

/// Queued where ExecutionSpace can take it (CUDA), else Wall: the mode that measures
/// the kernels rather than the host's launch rate wherever it can. The tools' default
/// (--timing auto), so that a database tuned on a GPU ranks variants by their GPU time,
/// including those shorter than a launch.
template <class ExecutionSpace = Kokkos::DefaultExecutionSpace>
constexpr TimingMode preferred_timing_mode() {
  return impl::queued_timing_available<ExecutionSpace>() ? TimingMode::Queued : TimingMode::Wall;
}

/// Throws NotCompiled naming `what` (an option, a function) when `mode` cannot time
/// work on ExecutionSpace: queued timing is CUDA only.
template <class ExecutionSpace>
void require_timing_mode(TimingMode mode, const char* what) {
  COMPOUND_SPARSE_REQUIRE_KIND(
      NotCompiled, mode == TimingMode::Wall || impl::queued_timing_available<ExecutionSpace>(),
      what << " needs the CUDA backend (this build runs on " << ExecutionSpace::name() << "); use wall timing");
}

struct TimingResult {
  double median_seconds = 0;  ///< per launch
  double min_seconds = 0;
  double max_seconds = 0;
  int launches = 0;  ///< timed launches in total
  int samples = 0;   ///< timed batches behind the statistics: options.samples, or 1 when stopped after the first
};

/// Warm-up, then options.samples timed batches. `stop_after_first`, when given, is
/// called with the first batch's time per launch; when it returns true the timing
/// ends there and the result is that one sample (samples = 1, median = min = max).
template <class ExecutionSpace = Kokkos::DefaultExecutionSpace, class Launch>
TimingResult time_launches(Launch&& launch, const TimingOptions& options = {},
                           const ExecutionSpace& exec = ExecutionSpace(),
                           const std::function<bool(double seconds_per_launch)>& stop_after_first = {}) {
  COMPOUND_SPARSE_REQUIRE(options.batch >= 1 && options.samples >= 1 && options.warmup >= 0,
                          "timing: batch and samples must be positive, warmup non-negative");
  require_timing_mode<ExecutionSpace>(options.mode, "timing: queued timing");
  int index = 0;
  for (int i = 0; i < options.warmup; ++i) launch(index++);
  exec.fence();
  std::vector<double> per_launch(options.samples);
  int taken = options.samples;
  // After the first sample: whether the caller stops here.
  const auto stop_at = [&](int s) {
    if (s == 0 && stop_after_first && stop_after_first(per_launch[0])) {
      taken = 1;
      return true;
    }
    return false;
  };
  if constexpr (impl::queued_timing_available<ExecutionSpace>()) {
#if defined(KOKKOS_ENABLE_CUDA)
    if (options.mode == TimingMode::Queued) {
      impl::QueuedTimer timer;
      for (int s = 0; s < options.samples; ++s) {
        per_launch[s] = timer.time_batch(exec, launch, index, options.batch) / options.batch;
        if (stop_at(s)) break;
      }
    }
#endif
  }
  if (options.mode == TimingMode::Wall) {
    for (int s = 0; s < options.samples; ++s) {
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < options.batch; ++i) launch(index++);
      exec.fence();
      per_launch[s] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / options.batch;
      if (stop_at(s)) break;
    }
  }
  per_launch.resize(taken);
  std::sort(per_launch.begin(), per_launch.end());
  TimingResult result;
  const int n = taken;
  result.median_seconds = n % 2 ? per_launch[n / 2] : 0.5 * (per_launch[n / 2 - 1] + per_launch[n / 2]);
  result.min_seconds = per_launch.front();
  result.max_seconds = per_launch.back();
  result.launches = options.batch * n;
  result.samples = n;
  return result;
}

}  // namespace compound_sparse
