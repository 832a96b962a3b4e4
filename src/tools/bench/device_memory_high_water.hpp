#pragma once
// The high-water mark of device memory that Kokkos allocates, through Kokkos Tools' allocation
// callbacks: compound-assembly-bench's peak memory of a build or an assembly (the Views it
// makes, the library's and its own), without a profiling library. Allocations outside Kokkos
// (a vendor library's own workspace) are not seen.

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>

namespace compound_bench {

/// While one exists, counts the bytes Kokkos holds in the default execution space's memory
/// space (CudaSpace on CUDA; on the host backend, host memory). One at a time: the callbacks
/// are process-wide.
class DeviceMemoryHighWater {
 public:
  DeviceMemoryHighWater() {
    current_ = 0;
    peak_ = 0;
    Kokkos::Tools::Experimental::set_allocate_data_callback(&on_allocate);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(&on_deallocate);
  }
  ~DeviceMemoryHighWater() {
    Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(nullptr);
  }
  DeviceMemoryHighWater(const DeviceMemoryHighWater&) = delete;
  DeviceMemoryHighWater& operator=(const DeviceMemoryHighWater&) = delete;

  /// The most bytes held at once since construction, over what was held before it (the
  /// tracker cannot see allocations made before it existed, so it counts from zero).
  std::int64_t peak_bytes() const { return peak_; }
  /// Bytes allocated since construction and not yet freed.
  std::int64_t current_bytes() const { return current_; }

 private:
  static bool on_device(const Kokkos::Tools::SpaceHandle& space) {
    return std::strcmp(space.name, Kokkos::DefaultExecutionSpace::memory_space::name()) == 0;
  }
  static void on_allocate(const Kokkos::Tools::SpaceHandle space, const char*, const void*, const std::uint64_t size) {
    if (!on_device(space)) return;
    current_ += static_cast<std::int64_t>(size);
    if (current_ > peak_) peak_ = current_;
  }
  static void on_deallocate(const Kokkos::Tools::SpaceHandle space, const char*, const void*,
                            const std::uint64_t size) {
    if (on_device(space)) current_ -= static_cast<std::int64_t>(size);
  }
  static inline std::int64_t current_ = 0;
  static inline std::int64_t peak_ = 0;
};

}  // namespace compound_bench
