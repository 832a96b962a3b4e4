#include "compound_sparse/device_info.hpp"

#include "compound_sparse/error.hpp"
#include "compound_sparse/impl/kokkos_compat.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

namespace compound_sparse {

namespace {
DeviceInfo query_default_device() {
  DeviceInfo info;
  info.backend = Kokkos::DefaultExecutionSpace::name();
#ifdef KOKKOS_ENABLE_CUDA
  if (std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>::value) {
    cudaDeviceProp prop;
    const cudaError_t status = cudaGetDeviceProperties(&prop, impl::cuda_device_in_use());
    COMPOUND_SPARSE_REQUIRE_KIND(DeviceError, status == cudaSuccess,
                                 "cudaGetDeviceProperties failed: " << cudaGetErrorString(status));
    info.name = prop.name;
    info.compute_major = prop.major;
    info.compute_minor = prop.minor;
    info.multiprocessors = prop.multiProcessorCount;
    info.memory_bytes = prop.totalGlobalMem;
    info.l2_cache_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    return info;
  }
#endif
  info.name = "host";
  info.multiprocessors = Kokkos::DefaultExecutionSpace::concurrency();
  return info;
}
}  // namespace

const DeviceInfo& default_device_info() {
  static const DeviceInfo info = query_default_device();  // thread-safe, once per process
  return info;
}

}  // namespace compound_sparse
