// kokkos_kernels_spmv.hpp's products for one scalar type and one rank: CMake compiles this
// file once per (COMPOUND_BENCH_KK_SCALAR, COMPOUND_BENCH_KK_RANK) pair so the eight
// Kokkos Kernels instantiations build in parallel.
#include "kokkos_kernels_spmv.hpp"

// Its rank-2 spmv instantiates the transposed multivector functor too, whose member
// rows_per_team its constructor never sets and its kernel never reads (Kokkos Kernels
// 3.4.01): GCC warns "maybe uninitialized" where the functor is copied. A warning about its
// code, not ours, kept out of the build's output.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <KokkosSparse_spmv.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#if !defined(COMPOUND_BENCH_KK_SCALAR) || !defined(COMPOUND_BENCH_KK_RANK)
#error "COMPOUND_BENCH_KK_SCALAR and COMPOUND_BENCH_KK_RANK are set by src/tools/bench/CMakeLists.txt"
#endif

namespace compound_sparse_bench {

#if COMPOUND_BENCH_KK_RANK == 1
template <class Scalar>
void kokkos_kernels_spmv(const char* mode, Scalar alpha, const KokkosKernelsCrs<Scalar>& a,
                         const KokkosKernelsVector<Scalar>& x, Scalar beta, const KokkosKernelsVector<Scalar>& y) {
  KokkosSparse::spmv(mode, alpha, a, x, beta, y);
}
template void kokkos_kernels_spmv<COMPOUND_BENCH_KK_SCALAR>(const char*, COMPOUND_BENCH_KK_SCALAR,
                                                            const KokkosKernelsCrs<COMPOUND_BENCH_KK_SCALAR>&,
                                                            const KokkosKernelsVector<COMPOUND_BENCH_KK_SCALAR>&,
                                                            COMPOUND_BENCH_KK_SCALAR,
                                                            const KokkosKernelsVector<COMPOUND_BENCH_KK_SCALAR>&);
#elif COMPOUND_BENCH_KK_RANK == 2
template <class Scalar>
void kokkos_kernels_spmm(Scalar alpha, const KokkosKernelsCrs<Scalar>& a, const KokkosKernelsMultiVector<Scalar>& x,
                         Scalar beta, const KokkosKernelsMultiVector<Scalar>& y) {
  KokkosSparse::spmv("N", alpha, a, x, beta, y);
}
template void kokkos_kernels_spmm<COMPOUND_BENCH_KK_SCALAR>(COMPOUND_BENCH_KK_SCALAR,
                                                            const KokkosKernelsCrs<COMPOUND_BENCH_KK_SCALAR>&,
                                                            const KokkosKernelsMultiVector<COMPOUND_BENCH_KK_SCALAR>&,
                                                            COMPOUND_BENCH_KK_SCALAR,
                                                            const KokkosKernelsMultiVector<COMPOUND_BENCH_KK_SCALAR>&);
#else
#error "COMPOUND_BENCH_KK_RANK is 1 (vectors) or 2 (multivectors)"
#endif

}  // namespace compound_sparse_bench
