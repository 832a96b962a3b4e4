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
//   SlicedEll<C, 16>  the same with 16-bit column indices: each slice stores its
//                   smallest column (a 32-bit base) and every slot the offset
//                   from it, so a slot takes 2 bytes of index instead of 4
//                   (complex<float>: 10 bytes instead of 12, fewer than any
//                   cuSPARSE format). It holds only matrices whose slices each
//                   span at most 65536 columns (layout_refusal in convert.hpp):
//                   banded and reordered mesh and grid matrices, not random ones.
// Inner layout (how the scalar components of entries / vector elements sit):
//   Aos             components of one value together: [value][component], LayoutRight.
//   Soa             component c of all values together: [value][component], LayoutLeft.

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <type_traits>

namespace compound_sparse {

struct Csr {
  static std::string name() { return "csr"; }
};
struct Ell {
  /// Rows per stride unit: the ELL stride is a multiple of this.
  static constexpr int stride_multiple = 32;
  static std::string name() { return "ell"; }
};
template <int SliceSize, int ColumnBits = 32>
struct SlicedEll {
  static_assert(SliceSize > 0, "slice size must be positive");
  static_assert(ColumnBits == 32 || ColumnBits == 16, "column indices are 32 or 16 bits");
  static constexpr int slice_size = SliceSize;
  static constexpr int column_bits = ColumnBits;
  /// "sell32", or "sell32c16" for 16-bit column indices.
  static std::string name() { return "sell" + std::to_string(SliceSize) + (ColumnBits == 16 ? "c16" : ""); }
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
template <int C, int B>
struct is_sliced_ell<SlicedEll<C, B>> : std::true_type {};

/// The type of a stored column index: int, or std::uint16_t for the layouts with
/// 16-bit offsets from a per-slice base column.
template <class Outer>
struct column_index {
  using type = int;
};
template <int C>
struct column_index<SlicedEll<C, 16>> {
  using type = std::uint16_t;
};
template <class Outer>
using column_index_t = typename column_index<Outer>::type;

/// Whether the layout stores columns as offsets from a base column per slice.
template <class Outer>
inline constexpr bool has_column_bases_v = !std::is_same<column_index_t<Outer>, int>::value;

}  // namespace compound_sparse
