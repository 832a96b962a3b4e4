#pragma once
// The padded layouts (Ell, SlicedEll) built by device kernels from CSR arrays that already
// live in the target memory space: an application's matrix on the GPU needs no copy to the
// host, no single-threaded pass over its non-zeros there, and no copy back.
//
// The result is the same, bit for bit, as to_device of the same matrix given as a HostCsr:
// the same shape (layout_shape), the same budget checks and messages
// (impl::require_layout_fits, without the host copy's), padding slots of column 0 and zero
// values, every row's entries in its order. The work per row, per slice and per non-zero runs
// on the device (the slice offsets by a scan of the widths, in the order layout_shape sums
// them); what comes to the host is a few numbers: the longest row or the slots in all, and for
// 16-bit column offsets the widest span of a slice's columns.
//
// interop/kokkos_views.hpp's matrix_from_csr_views calls it; validate the views first
// (impl::validate_csr_views).

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <type_traits>

#include "../entries/components.hpp"
#include "../impl/schedule_state.hpp"
#include "../impl/slot_writes.hpp"
#include "convert.hpp"
#include "layout_tags.hpp"
#include "sparse_matrix.hpp"

namespace compound_sparse {
namespace impl {

/// One element of a View in any memory space, read on the host.
template <class View>
long long read_element(const View& view, std::size_t i) {
  const auto one = Kokkos::subview(view, std::make_pair(i, i + 1));
  return static_cast<long long>(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), one)(0));
}

// The kernels below are named functors, not KOKKOS_LAMBDAs: the variant registry
// instantiates them in the library's translation units (device builds of every layout for
// TunedSpmv), and nvcc left the host side of such a lambda's wrapper null there (a call to
// address 0 on the first launch), which functors do not have.

/// The longest row (Kokkos::Max).
template <class RowMap>
struct LongestRowLength {
  RowMap row_map;
  KOKKOS_INLINE_FUNCTION void operator()(int r, int& widest) const {
    const int length = static_cast<int>(row_map(r + 1) - row_map(r));
    if (length > widest) widest = length;
  }
};

/// Per slice of Outer: its width, and its smallest and largest column where it has entries.
template <class Outer, class RowMap, class Entries, class PerSlice>
struct SliceExtents {
  int num_rows;
  RowMap row_map;
  Entries columns;
  PerSlice per_slice;
  KOKKOS_INLINE_FUNCTION void operator()(int s) const {
    constexpr int c = Outer::slice_size;
    const int first = s * c, last = first + c < num_rows ? first + c : num_rows;
    int width = 0;
    for (int r = first; r < last; ++r) {
      const int length = static_cast<int>(row_map(r + 1) - row_map(r));
      if (length > width) width = length;
    }
    int low = 0, high = 0;
    if constexpr (has_column_bases_v<Outer>) {
      const auto begin = row_map(first), end = row_map(last);
      if (begin < end) low = high = static_cast<int>(columns(begin));
      for (auto k = begin; k < end; ++k) {
        const int column = static_cast<int>(columns(k));
        if (column < low) low = column;
        if (column > high) high = column;
      }
    }
    per_slice(s, 0) = width;
    per_slice(s, 1) = low;
    per_slice(s, 2) = high;
  }
};

/// The slice offsets (offsets(s + 1) = the slots of slices 0..s, summed as 64-bit numbers;
/// an int overflows only where layout_refusal refuses the layout before it is used) and, for
/// 16-bit column offsets, each slice's column base (0 for a slice without entries).
template <class Outer, class PerSlice, class Offsets>
struct SliceOffsets {
  using value_type = std::uint64_t;
  PerSlice per_slice;
  Offsets offsets;
  Offsets column_bases;
  KOKKOS_INLINE_FUNCTION void operator()(int s, std::uint64_t& slots, bool final) const {
    const int width = per_slice(s, 0);
    slots += static_cast<std::uint64_t>(width) * Outer::slice_size;
    if (!final) return;
    offsets(s + 1) = static_cast<int>(slots);
    if constexpr (has_column_bases_v<Outer>) column_bases(s) = width == 0 ? 0 : per_slice(s, 1);
  }
};

/// The widest span of columns in a slice with entries (Kokkos::Max).
template <class PerSlice>
struct WidestColumnSpan {
  PerSlice per_slice;
  KOKKOS_INLINE_FUNCTION void operator()(int s, std::uint64_t& widest) const {
    if (per_slice(s, 0) == 0) return;
    const std::uint64_t span =
        static_cast<std::uint64_t>(per_slice(s, 2)) - static_cast<std::uint64_t>(per_slice(s, 1));
    if (span > widest) widest = span;
  }
};

/// layout_shape<Outer>'s sizes (its vectors left empty), and the offsets and column bases it
/// would hold, as Views in MemorySpace (empty where Outer has none).
template <class MemorySpace>
struct DeviceLayoutShape {
  LayoutShape shape;
  Kokkos::View<int*, MemorySpace> offsets;
  Kokkos::View<int*, MemorySpace> column_bases;
};

/// DeviceLayoutShape of Outer (Ell or SlicedEll) for the CSR arrays `row_map` (num_rows + 1
/// offsets) and `entries` in ExecutionSpace's memory, by device kernels.
template <class Outer, class ExecutionSpace, class RowMap, class Entries>
DeviceLayoutShape<typename ExecutionSpace::memory_space> layout_shape_on_device(int num_rows, const RowMap& row_map,
                                                                                const Entries& entries) {
  static_assert(!std::is_same<Outer, Csr>::value, "Csr has no padding: its shape is the arrays' sizes");
  using memory_space = typename ExecutionSpace::memory_space;
  DeviceLayoutShape<memory_space> result;
  LayoutShape& shape = result.shape;
  if constexpr (std::is_same<Outer, Ell>::value) {
    int width = 0;
    Kokkos::parallel_reduce("compound_sparse::ell_width", Kokkos::RangePolicy<ExecutionSpace>(0, num_rows),
                            LongestRowLength<RowMap>{row_map}, Kokkos::Max<int>(width));
    if (num_rows == 0) width = 0;  // Max's identity is the lowest int
    shape.ell_width = width;
    shape.ell_stride = static_cast<int>(round_up(static_cast<std::uint64_t>(num_rows), Ell::stride_multiple));
    shape.num_slots = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(shape.ell_stride);
    shape.lengths_size = static_cast<std::uint64_t>(num_rows);
  } else {
    static_assert(is_sliced_ell<Outer>::value, "unknown outer layout");
    constexpr int c = Outer::slice_size;
    const int slices = (num_rows + c - 1) / c;
    using per_slice_view = Kokkos::View<int* [3], Kokkos::LayoutRight, memory_space>;
    per_slice_view per_slice(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::slice_extents"), slices);
    Kokkos::parallel_for("compound_sparse::slice_extents", Kokkos::RangePolicy<ExecutionSpace>(0, slices),
                         SliceExtents<Outer, RowMap, Entries, per_slice_view>{num_rows, row_map, entries, per_slice});
    result.offsets = Kokkos::View<int*, memory_space>("compound_sparse::offsets", static_cast<std::size_t>(slices) + 1);
    if constexpr (has_column_bases_v<Outer>) {
      result.column_bases = Kokkos::View<int*, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::column_bases"), slices);
      shape.column_bases_size = static_cast<std::uint64_t>(slices);
      std::uint64_t widest = 0;
      Kokkos::parallel_reduce("compound_sparse::widest_column_span", Kokkos::RangePolicy<ExecutionSpace>(0, slices),
                              WidestColumnSpan<per_slice_view>{per_slice}, Kokkos::Max<std::uint64_t>(widest));
      shape.largest_column_offset = slices == 0 ? 0 : widest;
    }
    std::uint64_t slots = 0;
    Kokkos::parallel_scan("compound_sparse::slice_offsets", Kokkos::RangePolicy<ExecutionSpace>(0, slices),
                          SliceOffsets<Outer, per_slice_view, Kokkos::View<int*, memory_space>>{
                              per_slice, result.offsets, result.column_bases},
                          slots);
    shape.num_slots = slots;
    shape.offsets_size = static_cast<std::uint64_t>(slices) + 1;
    shape.lengths_size = static_cast<std::uint64_t>(num_rows);
  }
  return result;
}

/// The matrix in layout <Outer, Inner> (Ell or SlicedEll) on the views' memory space, from
/// CSR views there that validate_csr_views accepted; one Entry per non-zero in `values`.
/// Throws BudgetExceeded as to_device does, before the layout is allocated.
template <class Outer, class Inner, class RowMap, class Entries, class Values>
SparseMatrix<typename Values::non_const_value_type, Outer, Inner, typename Values::memory_space>
padded_matrix_from_csr_views(int num_cols, const RowMap& row_map, const Entries& entries, const Values& values,
                             MemoryBudget budget) {
  using entry_type = typename Values::non_const_value_type;
  using memory_space = typename Values::memory_space;
  using execution_space = typename memory_space::execution_space;
  using matrix_type = SparseMatrix<entry_type, Outer, Inner, memory_space>;
  const int num_rows = static_cast<int>(row_map.extent(0)) - 1;
  const std::uint64_t nnz = entries.extent(0);
  const auto device_shape = layout_shape_on_device<Outer, execution_space>(num_rows, row_map, entries);
  const LayoutShape& shape = device_shape.shape;
  require_layout_fits<Outer, entry_type, memory_space>(shape, num_rows, num_cols, nnz, budget, /*host_copy=*/false);

  matrix_type m;
  m.num_rows = num_rows;
  m.num_cols = num_cols;
  m.num_entries = nnz;
  m.num_slots = shape.num_slots;
  m.ell_width = shape.ell_width;
  m.ell_stride = shape.ell_stride;
  const auto alloc = [](const char* label) {
    return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
  };
  m.offsets = device_shape.offsets;
  m.row_lengths = typename matrix_type::index_view(alloc("compound_sparse::row_lengths"), shape.lengths_size);
  m.col_indices = typename matrix_type::column_view(alloc("compound_sparse::col_indices"), shape.num_slots);
  m.column_bases = device_shape.column_bases;
  m.values = typename matrix_type::values_view(alloc("compound_sparse::values"), shape.num_slots);
  // Lengths, columns, values and padding in one pass (impl/slot_writes.hpp).
  using pattern_write = PatternWrite<typename matrix_type::index_view, typename matrix_type::column_view,
                                     typename matrix_type::index_view, Entries>;
  const TiledSlotWrite<Outer, matrix_type, RowMap, EntryComponents<Values>, pattern_write> write{
      num_rows, m.ell_stride, m.ell_width, m.offsets,
      m.values, row_map,      {values},    pattern_write{m.row_lengths, m.col_indices, m.column_bases, entries}};
  run_tiled_slot_write("compound_sparse::padded_fill", write);
  Kokkos::fence();
  make_schedule_state(m);
  return m;
}

/// copy(i) = view(i) as an int: Csr's offsets from a row map of any integer type, and
/// DeviceCsr's copies of other index types (device_csr.hpp).
template <class Copy, class View>
struct CopyAsInt {
  Copy copy;
  View view;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i) const { copy(i) = static_cast<int>(view(i)); }
};

/// Csr's columns from CSR views.
template <class Columns, class Entries>
struct CopyColumns {
  Columns cols;
  Entries entries;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const { cols(k) = static_cast<int>(entries(k)); }
};

/// The matrix in layout <Csr, Inner> on the views' memory space, from CSR views there that
/// validate_csr_views accepted (or that are valid by construction); one Entry per non-zero
/// in `values`. Throws BudgetExceeded as to_device does, before anything is allocated.
template <class Inner, class RowMap, class Entries, class Values>
SparseMatrix<typename Values::non_const_value_type, Csr, Inner, typename Values::memory_space>
csr_matrix_from_csr_views(int num_cols, const RowMap& row_map, const Entries& entries, const Values& values,
                          MemoryBudget budget) {
  using entry_type = typename Values::non_const_value_type;
  using memory_space = typename Values::memory_space;
  using matrix_type = SparseMatrix<entry_type, Csr, Inner, memory_space>;
  using execution_space = typename memory_space::execution_space;
  const int num_rows = static_cast<int>(row_map.extent(0)) - 1;
  const std::size_t nnz = entries.extent(0);
  // The accounting of layout_memory_bytes<Csr>.
  const std::uint64_t bytes = (static_cast<std::uint64_t>(num_rows) + 1) * sizeof(int) +
                              static_cast<std::uint64_t>(nnz) * (sizeof(int) + sizeof(entry_type));
  COMPOUND_SPARSE_REQUIRE_KIND(BudgetExceeded, bytes <= budget.max_bytes,
                               "csr layout of a " << num_rows << " x " << num_cols << " matrix with " << nnz
                                                  << " entries needs " << bytes << " bytes, more than the memory "
                                                  << "budget of " << budget.max_bytes << " bytes");
  matrix_type m;
  m.num_rows = num_rows;
  m.num_cols = num_cols;
  m.num_entries = nnz;
  m.num_slots = nnz;
  const auto alloc = [](const char* label) {
    return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
  };
  m.offsets = typename matrix_type::index_view(alloc("compound_sparse::offsets"), num_rows + 1);
  m.row_lengths = typename matrix_type::index_view(alloc("compound_sparse::row_lengths"), 0);
  m.col_indices = typename matrix_type::index_view(alloc("compound_sparse::col_indices"), nnz);
  m.values = typename matrix_type::values_view(alloc("compound_sparse::values"), nnz);
  Kokkos::parallel_for("compound_sparse::csr_offsets", Kokkos::RangePolicy<execution_space>(0, num_rows + 1),
                       CopyAsInt<typename matrix_type::index_view, RowMap>{m.offsets, row_map});
  Kokkos::parallel_for("compound_sparse::csr_columns", Kokkos::RangePolicy<execution_space>(0, nnz),
                       CopyColumns<typename matrix_type::index_view, Entries>{m.col_indices, entries});
  copy_csr_values<execution_space>("compound_sparse::csr_values", m.values, EntryComponents<Values>{values}, nnz);
  Kokkos::fence();
  make_schedule_state(m);
  return m;
}

/// Stands for a values View of zeros in the builders above: a pattern's matrix before any
/// value exists (coo_assembly.hpp), without allocating a View of zeros as large as its values.
template <class Entry, class MemorySpace>
struct ZeroValues {
  using non_const_value_type = Entry;
  using memory_space = MemorySpace;
  KOKKOS_INLINE_FUNCTION Entry operator()(std::size_t) const {
    Entry zero;
    for (int c = 0; c < component_traits<Entry>::size; ++c) component_traits<Entry>::get(zero, c) = 0;
    return zero;
  }
};

}  // namespace impl
}  // namespace compound_sparse
