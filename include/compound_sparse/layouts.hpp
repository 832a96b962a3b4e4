#pragma once
// Layout tags. A sparse matrix is n rows, each a variable-length list of
// (column, entry); the tags below only choose how those lists sit in memory.
//
// Outer layout (where the (column, entry) slots of each row go):
//   Csr             rows back to back, row_offsets[n+1].
//   Ell             ELLPACK-R: every row padded to the longest row, stored
//                   column-major (slot k of row r at k*stride + r) with the
//                   stride rounded up to a multiple of 32, plus per-row lengths.
//   SlicedEll<C>    rows grouped in slices of C; each slice padded to its own
//                   longest row and stored column-major within the slice;
//                   ceil(n/C)+1 slice offsets, plus per-row lengths.
// Inner layout (how the scalar components of entries / vector elements sit):
//   Aos             components of one value together: [value][component], LayoutRight.
//   Soa             component c of all values together: [value][component], LayoutLeft.

#include <Kokkos_Core.hpp>
#include <string>

namespace compound_sparse {

struct Csr {
  static std::string name() { return "csr"; }
};
struct Ell {
  /// Rows per stride unit: the ELL stride is a multiple of this.
  static constexpr int stride_multiple = 32;
  static std::string name() { return "ell"; }
};
template <int SliceSize>
struct SlicedEll {
  static_assert(SliceSize > 0, "slice size must be positive");
  static constexpr int slice_size = SliceSize;
  static std::string name() { return "sell" + std::to_string(SliceSize); }
};

struct Aos {
  using kokkos_layout = Kokkos::LayoutRight;
  static std::string name() { return "aos"; }
};
struct Soa {
  using kokkos_layout = Kokkos::LayoutLeft;
  static std::string name() { return "soa"; }
};

template <class T>
struct is_sliced_ell : std::false_type {};
template <int C>
struct is_sliced_ell<SlicedEll<C>> : std::true_type {};

}  // namespace compound_sparse
