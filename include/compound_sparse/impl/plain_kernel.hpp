#pragma once
// Plain CUDA kernels for the schedules that use nothing of a Kokkos team but its
// threads: the row kernel (impl/spmv_functor.hpp) and both passes of the
// segmented sum (impl/segmented_sum.hpp).
//
// Launched by Kokkos as team kernels, the same functors ran slower on the H200:
// the segmented sum's first pass by 3-17% (circuit-1m, rmat-s20), the row kernel by
// 3-14% against a plain kernel of the same loop on Sliced ELL (Helmholtz grids, complex
// float and double). On CUDA these kernels are launched here, on the execution space
// instance's stream; host backends keep
// Kokkos' launch.

#include <Kokkos_Core.hpp>

#include "../entries/components.hpp"
#include "../error.hpp"
#include "team_launch.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace compound_sparse {
namespace impl {

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
/// v moved between lanes component by component: shuffle(scalar) is one
/// __shfl_*_sync of the lanes taking part.
template <class Vector, class Shuffle>
__device__ Vector shuffle_components(const Vector& v, const Shuffle& shuffle) {
  using traits = component_traits<Vector>;
  Vector r = v;
  for (int c = 0; c < traits::size; ++c) traits::get(r, c) = shuffle(traits::get(v, c));
  return r;
}
#endif

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
/// Launches Kernel<<<blocks, threads>>>(f) on exec's stream, preferring L1 (set
/// once per kernel, team_launch.hpp); a failed launch is a DeviceError that
/// names `what`.
template <auto Kernel, class Functor>
void launch_plain_kernel(const Kokkos::Cuda& exec, int blocks, int threads, const Functor& f, const char* what) {
  static const bool prefers_l1 = prefer_l1(reinterpret_cast<const void*>(Kernel));
  (void)prefers_l1;
  Kernel<<<blocks, threads, 0, exec.cuda_stream()>>>(f);
  const cudaError_t status = cudaGetLastError();
  COMPOUND_SPARSE_REQUIRE_KIND(DeviceError, status == cudaSuccess,
                               "spmv: launching " << what << " failed: " << cudaGetErrorString(status));
}
#endif

}  // namespace impl
}  // namespace compound_sparse
