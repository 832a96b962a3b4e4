#pragma once
// What the library needs to know about the device an execution space runs on:
// the multiprocessor count (league sizes) and the compute capability (the key
// of the tuning database). Queried once per process and cached.

#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

namespace compound_sparse {

struct DeviceInfo {
  std::string backend;    ///< Kokkos execution space name, e.g. "Cuda", "Serial"
  std::string name;       ///< device name ("NVIDIA H200") or "host"
  int compute_major = 0;  ///< compute capability (0 on host backends)
  int compute_minor = 0;
  int multiprocessors = 1;  ///< SMs on a GPU; hardware threads on the host
  std::size_t memory_bytes = 0;
  std::size_t l2_cache_bytes = 0;  ///< 0 on host backends
};

/// The device of Kokkos::DefaultExecutionSpace.
const DeviceInfo& default_device_info();

/// Multiprocessors (n_s) of ExecutionSpace: SMs for Cuda, concurrency on host.
template <class ExecutionSpace>
int multiprocessor_count() {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same<ExecutionSpace, Kokkos::Cuda>::value) return default_device_info().multiprocessors;
#endif
  return ExecutionSpace::concurrency() > 0 ? ExecutionSpace::concurrency() : 1;
}

}  // namespace compound_sparse
