#pragma once
// Team kernels launched preferring L1 cache over shared memory, where they use no
// team scratch.
//
// Kokkos 3.4 to 3.6 launch every TeamPolicy kernel preferring shared memory
// (cudaFuncCachePreferShared, Kokkos_Cuda_KernelLaunch.hpp), which on a Hopper
// multiprocessor leaves 28 KB of its 256 KB to L1, however little shared memory the
// kernel uses; its RangePolicy kernels prefer L1. Our row and segmented-sum kernels
// use a few hundred bytes (Kokkos' own team space) and gather x through L1: with
// Kokkos' preference the segmented sum ran 1.1-1.6x slower on the H200 (circuit-1m,
// rmat-s20). team_parallel_for launches like
// Kokkos::parallel_for and then, once per kernel (Kokkos sets its preference at the
// kernel's first launch and never again), prefers L1 for a kernel without team
// scratch, as Kokkos does for RangePolicy; the driver still gives the kernel the
// shared memory its launch needs. Kernels that stage data in scratch (the merge
// path) keep Kokkos' preference. Later Kokkos versions size the carveout
// themselves, and other backends have no such setting: there it is
// Kokkos::parallel_for.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <type_traits>

#include "kokkos_compat.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace compound_sparse {
namespace impl {

/// Whether kernels on ExecutionSpace run on the GPU (CUDA): warps, plain kernels.
template <class ExecutionSpace>
constexpr bool is_gpu_space() {
#ifdef KOKKOS_ENABLE_CUDA
  return std::is_same<ExecutionSpace, Kokkos::Cuda>::value;
#else
  return false;
#endif
}

/// Threads per team for launching `f` with Policy: `wanted` on GPUs; on host
/// backends at most team_size_max threads (1 on Serial).
template <class Policy, class ExecutionSpace, class Functor>
int launch_team_size(const ExecutionSpace& exec, const Functor& f, int wanted) {
  if (is_gpu_space<ExecutionSpace>()) return wanted;
  const int host_max = Policy(exec, 1, Kokkos::AUTO).team_size_max(f, Kokkos::ParallelForTag());
  return std::max(1, std::min(wanted, host_max));
}

#if defined(KOKKOS_ENABLE_CUDA)
/// Prefers L1 over shared memory for `kernel`; whether CUDA took the hint. A
/// refusal leaves the kernel's preference as it was: a hint, never an error.
inline bool prefer_l1(const void* kernel) {
  if (cudaFuncSetCacheConfig(kernel, cudaFuncCachePreferL1) == cudaSuccess) return true;
  (void)cudaGetLastError();  // the refused hint, not a kernel's error
  return false;
}
#endif

#if defined(COMPOUND_SPARSE_KOKKOS_CUDA_KERNEL_OF)
#define COMPOUND_SPARSE_PREFERS_L1 1

/// Prefers L1 for Functor's team kernel where `policy` asks for no team scratch;
/// whether it did (a refusal leaves Kokkos' preference).
template <class Functor, class Policy>
bool prefer_l1_for_team_kernel(const Policy& policy) {
  return policy.scratch_size(0, policy.team_size()) == 0 &&
         prefer_l1(reinterpret_cast<const void*>(kokkos_cuda_kernel_of<Functor, Policy>()));
}
#endif

/// Kokkos::parallel_for(label, policy, f) for a TeamPolicy; on CUDA with Kokkos
/// before 3.7 the kernel prefers L1 where it uses no team scratch (see above).
template <class Policy, class Functor>
void team_parallel_for(const char* label, const Policy& policy, const Functor& f) {
  Kokkos::parallel_for(label, policy, f);
#if defined(COMPOUND_SPARSE_PREFERS_L1)
  if constexpr (std::is_same<typename Policy::execution_space, Kokkos::Cuda>::value) {
    static const bool preferred = prefer_l1_for_team_kernel<Functor>(policy);
    (void)preferred;
  }
#endif
}

}  // namespace impl
}  // namespace compound_sparse
