#pragma once
// Every use of a Kokkos internal, or of an API whose form depends on the Kokkos version, is
// here, one item each, with what it is for and what each version offers. The library is built
// and tested against Kokkos 3.4.01 (Debian bookworm's), 4.6.01 and the develop branch's mdspan
// View (docs/building.md); the rest of the code uses Kokkos' public API only.
//
// 1. kokkos_cuda_kernel_of<Functor, Policy>(): the CUDA kernel Kokkos launches for
//    parallel_for(policy, Functor), so that team_launch.hpp can set its cache preference.
//    Kokkos 3.4-3.6 launch every TeamPolicy kernel preferring shared memory and give no public
//    way to change that; the kernel is reached through Kokkos::Impl's launch machinery, which
//    exists in that form in those versions only. Kokkos 3.7 and later size the carveout
//    themselves, and the item is compiled for Kokkos before 3.7 with CUDA only.
//
// 2. ArraySumJoin<T>: the join of an array reduction (value_type T[]) that sums value_count
//    values. Kokkos 3.4-3.6 call join(volatile T*, const volatile T*) only; Kokkos 4 calls
//    join(T*, const T*) and refuses a reduction that has only the volatile form. A reduction
//    that derives from ArraySumJoin has both, so each version finds the one it calls.
//
// 3. cuda_device_in_use(): the CUDA device whose properties the tuning database is keyed by.
//    Kokkos 3.4 lets a process make a Kokkos::Cuda instance before Kokkos::initialize, which
//    the database tools that never start Kokkos (compound-tune --merge, --ship) did; Kokkos 4
//    aborts there ("device not initialized"). Before initialisation the CUDA runtime's current
//    device stands in, the one Kokkos would take by default.
//
// 4. atomic_increment(p): *p += 1 atomically, for counting. Kokkos 4 deprecates
//    Kokkos::atomic_increment (for atomic_inc, which Kokkos 3.4 lacks); atomic_add of one is in
//    every version.

#include <Kokkos_Core.hpp>

namespace compound_sparse {
namespace impl {

#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION < 30700
#define COMPOUND_SPARSE_KOKKOS_CUDA_KERNEL_OF 1

/// Item 1: the CUDA kernel Kokkos 3.4-3.6 launch for parallel_for(policy, Functor).
template <class Functor, class Policy>
auto kokkos_cuda_kernel_of() {
  using driver = Kokkos::Impl::ParallelFor<Functor, Policy, Kokkos::Cuda>;
  using kernel =
      Kokkos::Impl::CudaParallelLaunchKernelFunc<driver, typename Policy::launch_bounds,
                                                 Kokkos::Impl::DeduceCudaLaunchMechanism<driver>::launch_mechanism>;
  return kernel::get_kernel_func();
}
#endif

/// Item 2: an array reduction's join that sums value_count values of T, in both forms.
template <class T>
struct ArraySumJoin {
  unsigned value_count = 0;
  KOKKOS_INLINE_FUNCTION void join(T* into, const T* from) const {
    for (unsigned j = 0; j < value_count; ++j) into[j] += from[j];
  }
  KOKKOS_INLINE_FUNCTION void join(volatile T* into, const volatile T* from) const {
    for (unsigned j = 0; j < value_count; ++j) into[j] += from[j];
  }
};

/// Item 4: *p += 1, atomically.
template <class T>
KOKKOS_INLINE_FUNCTION void atomic_increment(T* p) {
  Kokkos::atomic_add(p, T(1));
}

#ifdef KOKKOS_ENABLE_CUDA
/// Item 3: Kokkos' CUDA device once Kokkos is initialised, the runtime's current one before.
inline int cuda_device_in_use() {
  if (Kokkos::is_initialized()) return Kokkos::Cuda().cuda_device();
  int device = 0;
  return cudaGetDevice(&device) == cudaSuccess ? device : 0;
}
#endif

}  // namespace impl
}  // namespace compound_sparse
