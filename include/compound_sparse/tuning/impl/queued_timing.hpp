#pragma once
// TimingMode::Queued for CUDA (timing.hpp): the GPU's time for a batch of
// back-to-back launches, without the host's launch rate in it.
//
// A kernel that waits on a flag in mapped pinned host memory holds the stream;
// the host queues a start event, the batch and a stop event behind it, then
// releases the flag, so the batch runs with every launch already queued and the
// events time it on the GPU. With wall-clock timing a launch-bound kernel is
// measured at the host's launch rate instead (docs/perf.md).
//
// The waiting kernel gives up after about two seconds of SM clock, and says so
// in a second flag: a launch that synchronises with the device (a blocking copy,
// a fence) while the batch is held would otherwise deadlock. That is reported as
// an Error, never as a time.

#include <Kokkos_Core.hpp>
#include <type_traits>

#include "../../error.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace compound_sparse::impl {

#if defined(KOKKOS_ENABLE_CUDA)

#define COMPOUND_SPARSE_CUDA_CHECK(call)                                                                       \
  do {                                                                                                         \
    const cudaError_t compound_sparse_status_ = (call);                                                        \
    COMPOUND_SPARSE_REQUIRE_KIND(DeviceError, compound_sparse_status_ == cudaSuccess,                          \
                                 "queued timing: " #call ": " << cudaGetErrorString(compound_sparse_status_)); \
  } while (false)

/// Holds the stream until the host sets `flags[0]`; sets `flags[1]` when it gave up.
struct HoldUntilReleased {
  volatile int* flags;   // device view of the mapped pinned pair {release, gave_up}
  long long max_cycles;  // SM clock cycles before giving up

  KOKKOS_INLINE_FUNCTION void operator()(int) const {
#if defined(__CUDA_ARCH__)
    const long long start = clock64();
    while (flags[0] == 0) {
      if (clock64() - start > max_cycles) {
        flags[1] = 1;
        return;
      }
    }
#endif
  }
};

/// Pinned flags and two events, released in the destructor (also on an Error).
class QueuedTimer {
 public:
  QueuedTimer() {
    try {
      void* host = nullptr;
      void* device = nullptr;
      COMPOUND_SPARSE_CUDA_CHECK(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
      host_flags_ = static_cast<volatile int*>(host);
      COMPOUND_SPARSE_CUDA_CHECK(cudaHostGetDevicePointer(&device, host, 0));
      device_flags_ = static_cast<volatile int*>(device);
      COMPOUND_SPARSE_CUDA_CHECK(cudaEventCreate(&start_));
      COMPOUND_SPARSE_CUDA_CHECK(cudaEventCreate(&stop_));
    } catch (...) {
      release();
      throw;
    }
  }
  ~QueuedTimer() { release(); }
  QueuedTimer(const QueuedTimer&) = delete;
  QueuedTimer& operator=(const QueuedTimer&) = delete;

  /// Seconds of GPU time for `batch` calls of launch(index++), queued behind a held kernel.
  template <class Launch>
  double time_batch(const Kokkos::Cuda& exec, Launch& launch, int& index, int batch) {
    host_flags_[0] = 0;  // written before the hold kernel is queued, so it sees them
    host_flags_[1] = 0;
    Kokkos::parallel_for("compound_sparse::hold_stream", Kokkos::RangePolicy<Kokkos::Cuda>(exec, 0, 1),
                         HoldUntilReleased{device_flags_, kMaxCycles});
    const cudaStream_t stream = exec.cuda_stream();
    try {
      COMPOUND_SPARSE_CUDA_CHECK(cudaEventRecord(start_, stream));
      for (int i = 0; i < batch; ++i) launch(index++);
      COMPOUND_SPARSE_CUDA_CHECK(cudaEventRecord(stop_, stream));
    } catch (...) {
      // Let the held kernel finish before the flags are freed under it.
      host_flags_[0] = 1;
      exec.fence();
      throw;
    }
    host_flags_[0] = 1;  // release: the batch now runs back to back
    COMPOUND_SPARSE_CUDA_CHECK(cudaEventSynchronize(stop_));
    COMPOUND_SPARSE_REQUIRE_KIND(DeviceError, host_flags_[1] == 0,
                                 "queued timing: the batch was not held (a launch synchronised with the device while "
                                 "it waited, or queuing "
                                     << batch << " launches took over about two seconds); use TimingMode::Wall for it");
    float ms = 0;
    COMPOUND_SPARSE_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return 1e-3 * ms;
  }

 private:
  void release() noexcept {
    if (start_ != nullptr) cudaEventDestroy(start_);
    if (stop_ != nullptr) cudaEventDestroy(stop_);
    if (host_flags_ != nullptr) cudaFreeHost(const_cast<int*>(host_flags_));
  }

  static constexpr long long kMaxCycles = 4'000'000'000LL;  // ~2 s at 2 GHz
  volatile int* host_flags_ = nullptr;
  volatile int* device_flags_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

#undef COMPOUND_SPARSE_CUDA_CHECK

#endif  // KOKKOS_ENABLE_CUDA

/// Whether TimingMode::Queued works for this execution space.
template <class ExecutionSpace>
constexpr bool queued_timing_available() {
#if defined(KOKKOS_ENABLE_CUDA)
  return std::is_same_v<ExecutionSpace, Kokkos::Cuda>;
#else
  return false;
#endif
}

}  // namespace compound_sparse::impl
