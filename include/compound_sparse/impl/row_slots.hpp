#pragma once
// Where the slots of one row are: the single formula, slot(r, k) = first + k*step
// for k < length, behind every outer layout (table in sparse_matrix.hpp). Used by
// the kernels on the device and by the conversions on host mirrors.

#include <Kokkos_Core.hpp>
#include <type_traits>

#include "../layouts/layout_tags.hpp"

namespace compound_sparse {
namespace impl {

struct RowSlots {
  int first;
  int step;
  int length;
};

template <class Outer, class IndexView>
KOKKOS_INLINE_FUNCTION RowSlots row_slots(const IndexView& offsets, const IndexView& row_lengths, int ell_stride,
                                          int row) {
  if constexpr (std::is_same<Outer, Csr>::value) {
    (void)row_lengths;
    (void)ell_stride;
    return {offsets(row), 1, offsets(row + 1) - offsets(row)};
  } else if constexpr (std::is_same<Outer, Ell>::value) {
    (void)offsets;
    return {row, ell_stride, row_lengths(row)};
  } else {
    (void)ell_stride;
    constexpr int c = Outer::slice_size;
    return {offsets(row / c) + row % c, c, row_lengths(row)};
  }
}

/// The column that slot offsets of `row` count from: the slice's base column for
/// the layouts with 16-bit column offsets (has_column_bases_v), else 0.
template <class Outer, class IndexView>
KOKKOS_INLINE_FUNCTION int column_base(const IndexView& column_bases, int row) {
  if constexpr (has_column_bases_v<Outer>) {
    return column_bases(row / Outer::slice_size);
  } else {
    (void)column_bases;
    (void)row;
    return 0;
  }
}

}  // namespace impl
}  // namespace compound_sparse
