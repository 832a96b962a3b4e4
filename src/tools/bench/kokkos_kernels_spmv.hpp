#pragma once
// KokkosSparse::spmv on the bench's Kokkos Kernels matrices, compiled once per scalar type
// and rank in kokkos_kernels_spmv.cpp (CMake builds one object each, in parallel) and only
// declared here. Kokkos Kernels' spmv is a header template that instantiates every kernel
// of its dispatch (modes N, T, H and, for multivectors, its unrolled column counts): included
// by each of compound-bench's per-precision units it was most of their compile time (on
// the host 94 of a unit's 114 s), and with nvcc their last-finishing objects.

#include <KokkosSparse_CrsMatrix.hpp>
#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>

namespace compound_sparse_bench {

/// The bench's Kokkos Kernels matrix of scalar type Scalar. Unsigned offsets: Kokkos
/// Kernels' own kernel, not its cuSPARSE TPL, which only takes int or size_t offsets.
template <class Scalar>
using KokkosKernelsCrs =
    KokkosSparse::CrsMatrix<Scalar, int, Kokkos::DefaultExecutionSpace::device_type, void, unsigned>;
/// A vector over device memory the bench owns (its rotation copies).
template <class Scalar>
using KokkosKernelsVector = Kokkos::View<Scalar*, Kokkos::MemoryUnmanaged>;
/// k such vectors, column after column (Kokkos Kernels' multivector).
template <class Scalar>
using KokkosKernelsMultiVector = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::MemoryUnmanaged>;

/// y = alpha op(A) x + beta y, op from `mode` ("N", "T" or "H"): KokkosSparse::spmv.
template <class Scalar>
void kokkos_kernels_spmv(const char* mode, Scalar alpha, const KokkosKernelsCrs<Scalar>& a,
                         const KokkosKernelsVector<Scalar>& x, Scalar beta, const KokkosKernelsVector<Scalar>& y);

/// Y = alpha A X + beta Y on k vectors: KokkosSparse::spmv's multivector form.
template <class Scalar>
void kokkos_kernels_spmm(Scalar alpha, const KokkosKernelsCrs<Scalar>& a, const KokkosKernelsMultiVector<Scalar>& x,
                         Scalar beta, const KokkosKernelsMultiVector<Scalar>& y);

// The scalar types of kokkos_kernels_spmv.cpp's objects (src/tools/bench/CMakeLists.txt):
// the real expansions' and the complex matrices' of both precisions.
#define COMPOUND_BENCH_KOKKOS_KERNELS_SCALARS(X) \
  X(float)                                       \
  X(double)                                      \
  X(Kokkos::complex<float>)                      \
  X(Kokkos::complex<double>)
#define COMPOUND_BENCH_DECLARE_KOKKOS_KERNELS(Scalar)                                                    \
  extern template void kokkos_kernels_spmv<Scalar>(const char*, Scalar, const KokkosKernelsCrs<Scalar>&, \
                                                   const KokkosKernelsVector<Scalar>&, Scalar,           \
                                                   const KokkosKernelsVector<Scalar>&);                  \
  extern template void kokkos_kernels_spmm<Scalar>(Scalar, const KokkosKernelsCrs<Scalar>&,              \
                                                   const KokkosKernelsMultiVector<Scalar>&, Scalar,      \
                                                   const KokkosKernelsMultiVector<Scalar>&);
COMPOUND_BENCH_KOKKOS_KERNELS_SCALARS(COMPOUND_BENCH_DECLARE_KOKKOS_KERNELS)
#undef COMPOUND_BENCH_DECLARE_KOKKOS_KERNELS

}  // namespace compound_sparse_bench
