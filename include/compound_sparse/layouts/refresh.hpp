#pragma once
// New values for a converted matrix whose pattern has not changed: refresh_values.
//
// A solver that re-assembles its matrix every time step or Newton step keeps the pattern,
// the chosen layout and the schedule's state, and only moves values. The k-th entry of row r
// of the CSR the matrix was built from lives in slot row_slots(r).first + k * step of every
// layout (impl/row_slots.hpp), so the map from source positions to slots needs no table: only
// where each source row starts, which Csr stores (its offsets) and a padded layout keeps after
// its first refresh (SparseMatrix::source_offsets, a scan of its row lengths). One kernel then
// writes every value into its slot on the device (impl/slot_writes.hpp); padding slots are
// left as they are (zero).
//
// The result is, bit for bit, the matrix that the same conversion gives from the same
// pattern with these values: a value is copied component by component, never computed.

#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "../entries/components.hpp"
#include "../error.hpp"
#include "../impl/slot_writes.hpp"
#include "layout_tags.hpp"
#include "sparse_matrix.hpp"

namespace compound_sparse {
namespace impl {

/// Where each row of the source CSR starts (num_rows + 1 offsets) on the matrix's memory
/// space: Csr's own offsets, or for a padded layout the exclusive scan of its row lengths,
/// computed by the first call and kept in the matrix.
template <class Entry, class Outer, class Inner, class MemorySpace>
Kokkos::View<int*, MemorySpace> source_offsets(const SparseMatrix<Entry, Outer, Inner, MemorySpace>& a) {
  if constexpr (std::is_same<Outer, Csr>::value) {
    return a.offsets;
  } else {
    if (a.source_offsets.extent(0) != static_cast<std::size_t>(a.num_rows) + 1) {
      using execution_space = typename MemorySpace::execution_space;
      Kokkos::View<int*, MemorySpace> offsets("compound_sparse::source_offsets",
                                              static_cast<std::size_t>(a.num_rows) + 1);
      const auto lengths = a.row_lengths;
      const int num_rows = a.num_rows;
      // Below 2^31: a padded layout holds fewer than 2^31 slots (layout_refusal).
      Kokkos::parallel_scan(
          "compound_sparse::source_offsets", Kokkos::RangePolicy<execution_space>(0, num_rows + 1),
          KOKKOS_LAMBDA(int r, int& sum, bool final) {
            if (final) offsets(r) = sum;
            if (r < num_rows) sum += lengths(r);
          });
      a.source_offsets = offsets;
    }
    return a.source_offsets;
  }
}

}  // namespace impl

/// Writes new values into the converted matrix `a`, keeping its pattern, padding and
/// schedule state: `values` holds one entry per non-zero of the CSR that `a` was built from,
/// in that CSR's order (row by row, each row's entries in their order), as a rank-1 View on
/// a's memory space. Bit for bit the matrix the conversion gives from those values.
/// Throws InvalidInput if the number of values is not a's number of non-zeros (nothing is
/// written then).
template <class Entry, class Outer, class Inner, class MemorySpace, class Values>
void refresh_values(const SparseMatrix<Entry, Outer, Inner, MemorySpace>& a, const Values& values) {
  static_assert(Values::rank == 1, "refresh_values takes one entry per non-zero: a rank-1 View");
  static_assert(std::is_same<typename Values::non_const_value_type, Entry>::value,
                "refresh_values: the values must be of the matrix's entry type");
  static_assert(std::is_same<typename Values::memory_space, MemorySpace>::value,
                "refresh_values: the values must live in the matrix's memory space (copy them there first, or "
                "pass a std::vector)");
  COMPOUND_SPARSE_REQUIRE(values.extent(0) == a.num_entries, "refresh_values: " << values.extent(0)
                                                                                << " values for a matrix of "
                                                                                << a.num_entries << " non-zeros");
  using execution_space = typename MemorySpace::execution_space;
  const impl::EntryComponents<Values> source{values};
  if constexpr (std::is_same<Outer, Csr>::value) {
    // Csr's slots are the source positions.
    impl::copy_csr_values<execution_space>("compound_sparse::refresh_values", a.values, source, a.num_entries);
  } else {
    impl::write_slot_values("compound_sparse::refresh_values", a, impl::source_offsets(a), source);
  }
  Kokkos::fence();
}

/// refresh_values from host memory: the values are copied to a's memory space first.
template <class Entry, class Outer, class Inner, class MemorySpace>
void refresh_values(const SparseMatrix<Entry, Outer, Inner, MemorySpace>& a, const std::vector<Entry>& values) {
  COMPOUND_SPARSE_REQUIRE(values.size() == a.num_entries, "refresh_values: " << values.size()
                                                                             << " values for a matrix of "
                                                                             << a.num_entries << " non-zeros");
  Kokkos::View<Entry*, MemorySpace> device(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("compound_sparse::refresh_values")), values.size());
  Kokkos::deep_copy(device, Kokkos::View<const Entry*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                values.data(), values.size()));
  refresh_values(a, device);
}

}  // namespace compound_sparse
