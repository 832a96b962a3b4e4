#pragma once
// CSR Views on the device from a COO list, for the paths that take a DeviceCsr (TunedSpmv,
// DistributedSpmv) when an application's matrix is a list of (row, column, value) triples
// with repeated positions in any order, as assembly leaves it:
//
//   auto a = cs::device_csr_from_coo(num_rows, num_cols, rows, cols, values);  // Views on the GPU
//   cs::TunedSpmv<C> op(a);
//
// The pattern is CooAssembly's (coo_assembly.hpp: rows bucketed, each sorted by column and
// index in the list, repeated positions merged) and each non-zero's contributions are summed
// first to last, so the result is bit for bit csr_from_coo of the same triples on the host,
// whatever order the device's threads ran in. A matrix assembled every step with the same
// positions is better served by CooAssembly, which keeps the pattern; this builds it once.

#include <Kokkos_Core.hpp>
#include <limits>
#include <string>
#include <type_traits>

#include "../error.hpp"
#include "coo_assembly.hpp"
#include "device_csr.hpp"

namespace compound_sparse {

/// The DeviceCsr of num_rows x num_cols whose non-zeros are the contributions' positions
/// (rows(i), cols(i)), each the sum of its contributions' values(i) in list order: rank-1
/// Views of integers and of the entry type on one memory space. Throws InvalidInput for a
/// negative size, Views of different lengths, 2^31 or more contributions, or a position
/// outside the matrix (naming the first such contribution, its index and its position).
template <class Rows, class Cols, class Values>
DeviceCsr<typename Values::non_const_value_type, typename Values::memory_space> device_csr_from_coo(
    int num_rows, int num_cols, const Rows& rows, const Cols& cols, const Values& values) {
  using entry_type = typename Values::non_const_value_type;
  using memory_space = typename Values::memory_space;
  using execution_space = typename memory_space::execution_space;
  static_assert(Rows::rank == 1 && Cols::rank == 1 && Values::rank == 1,
                "device_csr_from_coo: rows, cols and values are rank-1 Views");
  static_assert(std::is_integral<typename Rows::non_const_value_type>::value &&
                    std::is_integral<typename Cols::non_const_value_type>::value,
                "device_csr_from_coo: rows and cols hold integers");
  static_assert(std::is_same<typename Rows::memory_space, memory_space>::value &&
                    std::is_same<typename Cols::memory_space, memory_space>::value,
                "device_csr_from_coo: rows, cols and values live in one memory space");
  COMPOUND_SPARSE_REQUIRE(num_rows >= 0 && num_cols >= 0,
                          "device_csr_from_coo: matrix size " << num_rows << " x " << num_cols << " is negative");
  COMPOUND_SPARSE_REQUIRE(rows.extent(0) == cols.extent(0) && rows.extent(0) == values.extent(0),
                          "device_csr_from_coo: " << rows.extent(0) << " rows, " << cols.extent(0) << " columns and "
                                                  << values.extent(0) << " values");
  COMPOUND_SPARSE_REQUIRE(
      rows.extent(0) < static_cast<std::size_t>(std::numeric_limits<int>::max()),
      "device_csr_from_coo: " << rows.extent(0) << " contributions; at most 2^31 - 2 fit its 32-bit indices");
  impl::require_contributions_inside<execution_space>(num_rows, num_cols, rows, cols, "device_csr_from_coo");
  const auto pattern = impl::coo_pattern<execution_space>(num_rows, rows, cols);
  using index_view = Kokkos::View<int*, memory_space>;
  const impl::SummedContributions<index_view, Values> sums{pattern.first_contribution, pattern.contributions, values};
  const Kokkos::View<entry_type*, memory_space> summed(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("compound_sparse::coo_values")),
      pattern.entries.extent(0));
  Kokkos::parallel_for(
      "compound_sparse::coo_sum", Kokkos::RangePolicy<execution_space>(0, pattern.entries.extent(0)),
      KOKKOS_LAMBDA(std::size_t p) { summed(p) = sums.entry(p); });
  Kokkos::fence();
  DeviceCsr<entry_type, memory_space> a;
  a.num_rows = num_rows;
  a.num_cols = num_cols;
  a.row_map = pattern.row_map;
  a.entries = pattern.entries;
  a.values = summed;
  return a;
}

namespace impl {

/// Whether every row's columns increase strictly (no repeats, no disorder): computed where
/// the matrix lives.
template <class Entry, class MemorySpace>
bool rows_increase_strictly(const DeviceCsr<Entry, MemorySpace>& a) {
  const auto row_map = a.row_map;
  const auto entries = a.entries;
  int bad_rows = 0;
  Kokkos::parallel_reduce(
      "compound_sparse::rows_increase_strictly",
      Kokkos::RangePolicy<typename MemorySpace::execution_space>(0, a.num_rows),
      KOKKOS_LAMBDA(int r, int& bad) {
        for (int k = row_map(r) + 1; k < row_map(r + 1); ++k)
          if (entries(k - 1) >= entries(k)) {
            ++bad;
            return;
          }
      },
      bad_rows);
  return bad_rows == 0;
}

/// `a` with each row's columns sorted and repeated columns summed in their order: what
/// rows_sorted_and_summed (reordering.hpp) gives on the host, as device_csr_from_coo of the
/// non-zeros listed row by row.
template <class Entry, class MemorySpace>
DeviceCsr<Entry, MemorySpace> rows_sorted_and_summed(const DeviceCsr<Entry, MemorySpace>& a) {
  const auto row_map = a.row_map;
  const Kokkos::View<int*, MemorySpace> row_of(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("compound_sparse::row_of")), a.num_entries());
  Kokkos::parallel_for(
      "compound_sparse::row_of", Kokkos::RangePolicy<typename MemorySpace::execution_space>(0, a.num_rows),
      KOKKOS_LAMBDA(int r) {
        for (int k = row_map(r); k < row_map(r + 1); ++k) row_of(k) = r;
      });
  return device_csr_from_coo(a.num_rows, a.num_cols, row_of, a.entries, a.values);
}

}  // namespace impl
}  // namespace compound_sparse
