#pragma once
// Kokkos Kernels' device path from a contribution list (COO with repeated positions, in any
// order) to its CrsMatrix, the second baseline of compound-assembly-bench:
//
//   first   the contributions counted per row with atomics, the counts scanned
//           (kk_exclusive_parallel_prefix_sum), the entries scattered with atomic cursors
//           into a CSR that keeps the repeated positions, then
//           KokkosKernels::Impl::sort_and_merge_matrix (sorts each row, sums repeats)
//   step    the pattern kept: values zeroed, then each contribution added by
//           CrsMatrix::sumIntoValues (sorted rows, atomic adds)
//
// Entries as the bench's Kokkos Kernels SpMV baseline keeps them (kokkos_kernels_baseline.hpp):
// complex as Kokkos::complex, blocks and quaternions as their e x e real blocks in a scalar
// CrsMatrix (Kokkos Kernels 3.4 has no block matrix to assemble into). The atomics make the
// order of summation vary between runs, so the result is checked against the host path's
// matrix with a tolerance instead of bit for bit: the same pattern, and every value within
// 1e-12 of its row's largest. Compiled in its own object (kokkos_kernels_coo_path.cpp) for
// the bench's entry types, where Kokkos Kernels was found. (The lists' macros are variadic:
// Block<double, 3> has a comma.)

#include <Kokkos_Core.hpp>
#include <compound_sparse/entries/block.hpp>
#include <compound_sparse/entries/quaternion.hpp>
#include <compound_sparse/layouts/host_csr.hpp>

#include "coo_path_result.hpp"

namespace compound_bench {

/// Kokkos Kernels' path on the contributions (rows, cols, contributions), its first build and
/// one step checked against `reference` (the host path's matrix of the same list); `samples`
/// timed firsts.
template <class Entry>
CooPathResult kokkos_kernels_coo_path(int num_rows, int num_cols, const Kokkos::View<const int*>& rows,
                                      const Kokkos::View<const int*>& cols,
                                      const Kokkos::View<const Entry*>& contributions,
                                      const compound_sparse::HostCsr<Entry>& reference, int samples);

#define COMPOUND_BENCH_KOKKOS_KERNELS_COO_ENTRIES(X) \
  X(Kokkos::complex<double>)                         \
  X(compound_sparse::Block<double, 3>)               \
  X(compound_sparse::Quaternion<double>)
#define COMPOUND_BENCH_DECLARE_KOKKOS_KERNELS_COO(...)                            \
  extern template CooPathResult kokkos_kernels_coo_path<__VA_ARGS__>(             \
      int, int, const Kokkos::View<const int*>&, const Kokkos::View<const int*>&, \
      const Kokkos::View<const __VA_ARGS__*>&, const compound_sparse::HostCsr<__VA_ARGS__>&, int);
COMPOUND_BENCH_KOKKOS_KERNELS_COO_ENTRIES(COMPOUND_BENCH_DECLARE_KOKKOS_KERNELS_COO)
#undef COMPOUND_BENCH_DECLARE_KOKKOS_KERNELS_COO

}  // namespace compound_bench
