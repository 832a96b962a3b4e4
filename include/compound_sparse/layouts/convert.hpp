#pragma once
// Conversions between the host CSR exchange format and the device layouts,
// with the memory accounting that guards padded layouts.
//
//   auto a = to_device<Ell, Soa>(host_csr, MemoryBudget{1 << 30});
//   HostCsr<Entry> back = to_host_csr(a);
//
// ELL pads every row to the longest one, so a single long row can multiply the
// memory of a matrix. Before anything is allocated the conversion computes the
// exact size (layout_memory_bytes) and throws BudgetExceeded if it exceeds the
// caller's budget, if the layout cannot hold the matrix (layout_refusal: slots
// beyond 32-bit offsets, or a slice spanning more columns than 16-bit column
// offsets reach), or if it is more than the memory
// the target space has (memory_capacity_bytes: the GPU's memory, or the host's
// physical memory), so that an oversized padding is refused with its size rather
// than failing in the allocator or, on a host that overcommits, being killed
// while the padding is written.

#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "../device_info.hpp"
#include "../error.hpp"
#include "../impl/row_slots.hpp"
#include "../impl/schedule_state.hpp"
#include "host_csr.hpp"
#include "layout_tags.hpp"
#include "sparse_matrix.hpp"

namespace compound_sparse {

/// Upper bound on the device memory a conversion may allocate for one matrix.
struct MemoryBudget {
  std::size_t max_bytes = std::numeric_limits<std::size_t>::max();
};

/// The shape of a layout for a given sparsity pattern: everything needed to
/// size its arrays, computed without allocating them.
struct LayoutShape {
  std::uint64_t num_slots = 0;     ///< stored slots including padding
  std::uint64_t offsets_size = 0;  ///< entries of the offsets array
  std::uint64_t lengths_size = 0;  ///< entries of the row-lengths array
  int ell_width = 0;
  int ell_stride = 0;
  std::uint64_t column_bases_size = 0;  ///< entries of the column-bases array
  /// SlicedEll only; left empty by the device build, which keeps them on the device.
  std::vector<std::uint64_t> slice_offsets;
  /// Layouts with 16-bit column offsets (has_column_bases_v): each slice's smallest
  /// column (empty from the device build, as slice_offsets), and the largest offset from it
  /// over all slices.
  std::vector<int> column_bases;
  std::uint64_t largest_column_offset = 0;
};

namespace impl {
/// create_mirror_view without Kokkos' initialisation of a new host copy: the view
/// itself where it lives in host memory already, else a new host view whose memory the
/// caller writes (the spelling of the library call differs between Kokkos 3 and 4).
template <class View>
typename View::HostMirror uninitialized_host_mirror(const View& view) {
  using mirror_type = typename View::HostMirror;
  if constexpr (std::is_same<typename View::memory_space, typename mirror_type::memory_space>::value)
    return view;
  else
    return mirror_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, view.label()), view.layout());
}

inline std::uint64_t round_up(std::uint64_t value, std::uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}
}  // namespace impl

template <class Outer, class Entry>
LayoutShape layout_shape(const HostCsr<Entry>& a) {
  validate(a);  // the slices index the offsets and columns; every layout query comes through here
  LayoutShape shape;
  const std::uint64_t n = static_cast<std::uint64_t>(a.num_rows);
  if constexpr (std::is_same<Outer, Csr>::value) {
    shape.num_slots = a.num_entries();
    shape.offsets_size = n + 1;
  } else if constexpr (std::is_same<Outer, Ell>::value) {
    int width = 0;
    for (int r = 0; r < a.num_rows; ++r) width = std::max(width, a.row_length(r));
    shape.ell_width = width;
    shape.ell_stride = static_cast<int>(impl::round_up(n, Ell::stride_multiple));
    shape.num_slots = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(shape.ell_stride);
    shape.lengths_size = n;
  } else {
    static_assert(is_sliced_ell<Outer>::value, "unknown outer layout");
    constexpr int c = Outer::slice_size;
    const std::uint64_t slices = (n + c - 1) / c;
    shape.slice_offsets.assign(slices + 1, 0);
    if constexpr (has_column_bases_v<Outer>) {
      shape.column_bases.assign(slices, 0);
      shape.column_bases_size = slices;
    }
    for (std::uint64_t s = 0; s < slices; ++s) {
      int width = 0;
      for (std::uint64_t r = s * c; r < std::min(n, (s + 1) * c); ++r)
        width = std::max(width, a.row_length(static_cast<int>(r)));
      shape.slice_offsets[s + 1] = shape.slice_offsets[s] + static_cast<std::uint64_t>(width) * c;
      if constexpr (has_column_bases_v<Outer>) {
        const std::size_t first = a.row_offsets[s * c], last = a.row_offsets[std::min(n, (s + 1) * c)];
        if (first == last) continue;  // no entries: base 0
        const auto [low, high] = std::minmax_element(a.col_indices.begin() + first, a.col_indices.begin() + last);
        shape.column_bases[s] = *low;
        shape.largest_column_offset =
            std::max(shape.largest_column_offset, static_cast<std::uint64_t>(*high) - static_cast<std::uint64_t>(*low));
      }
    }
    shape.num_slots = shape.slice_offsets.back();
    shape.offsets_size = slices + 1;
    shape.lengths_size = n;
  }
  return shape;
}

/// Stored slots of `Outer` for this matrix (non-zeros plus padding), computed
/// without allocating the layout: the non-zeros for CSR, the longest row times the
/// row count rounded up to Ell::stride_multiple for ELL, each slice's longest row
/// times the slice size summed over the slices for Sliced ELL.
template <class Outer, class Entry>
std::uint64_t layout_num_slots(const HostCsr<Entry>& a) {
  return layout_shape<Outer>(a).num_slots;
}

/// Bytes of memory `MemorySpace` has, or 0 where that is not known: the host's
/// physical memory for Kokkos::HostSpace, the GPU's global memory for the default
/// execution space's device memory space (default_device_info()).
template <class MemorySpace>
std::size_t memory_capacity_bytes() {
  if constexpr (std::is_same<MemorySpace, Kokkos::HostSpace>::value) {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
  } else if constexpr (std::is_same<MemorySpace, typename Kokkos::DefaultExecutionSpace::memory_space>::value) {
    return default_device_info().memory_bytes;
  } else {
    return 0;
  }
}

/// Why `Outer` cannot hold a matrix of this shape, or "" if it can: its slots must
/// fit 32-bit offsets, and for 16-bit column offsets every slice must span at most
/// 65536 columns. Such a refusal is a BudgetExceeded: the input is valid, another
/// layout holds it.
template <class Outer>
std::string layout_refusal(const LayoutShape& shape) {
  std::ostringstream why;
  if (shape.num_slots > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
    why << Outer::name() << " layout needs " << shape.num_slots << " slots, more than 32-bit offsets can address";
  else if (shape.largest_column_offset > std::numeric_limits<column_index_t<Outer>>::max())
    why << Outer::name() << " layout stores 16-bit column offsets from each slice's smallest column, but a slice of "
        << "this matrix spans columns up to " << shape.largest_column_offset << " apart (at most "
        << std::numeric_limits<column_index_t<Outer>>::max() << ")";
  return why.str();
}

/// layout_refusal for this matrix, computed without allocating the layout.
template <class Outer, class Entry>
std::string layout_refusal(const HostCsr<Entry>& a) {
  return layout_refusal<Outer>(layout_shape<Outer>(a));
}

/// Device bytes of `Outer` with `shape` (layout_shape), with the accounting of memory_bytes().
template <class Outer, class Entry>
std::uint64_t layout_memory_bytes(const LayoutShape& s) {
  // num_slots < 2^62 for any int-sized matrix; long double keeps the product exact enough to compare.
  const long double bytes =
      static_cast<long double>(s.offsets_size + s.lengths_size + s.column_bases_size) * sizeof(int) +
      static_cast<long double>(s.num_slots) * (sizeof(column_index_t<Outer>) + sizeof(Entry));
  return bytes >= static_cast<long double>(std::numeric_limits<std::uint64_t>::max())
             ? std::numeric_limits<std::uint64_t>::max()
             : static_cast<std::uint64_t>(bytes);
}

/// Device bytes of `Outer` for this matrix, with the accounting of memory_bytes().
template <class Outer, class Entry>
std::uint64_t layout_memory_bytes(const HostCsr<Entry>& a) {
  return layout_memory_bytes<Outer, Entry>(layout_shape<Outer>(a));
}

namespace impl {
/// Throws BudgetExceeded, before the layout is allocated, where `Outer` with `shape`
/// (layout_shape) needs more than `budget.max_bytes`, cannot hold the matrix
/// (layout_refusal) or needs more than MemorySpace's memory (memory_capacity_bytes); with
/// `host_copy`, also where it needs more than the host's, which holds a copy while
/// converting (to_device from a HostCsr).
template <class Outer, class Entry, class MemorySpace>
void require_layout_fits(const LayoutShape& shape, int num_rows, int num_cols, std::uint64_t num_entries,
                         MemoryBudget budget, bool host_copy) {
  const std::uint64_t bytes = layout_memory_bytes<Outer, Entry>(shape);
  COMPOUND_SPARSE_REQUIRE_KIND(
      BudgetExceeded, bytes <= budget.max_bytes,
      Outer::name() << " layout of a " << num_rows << " x " << num_cols << " matrix with " << num_entries
                    << " entries needs " << bytes << " bytes (" << shape.num_slots - num_entries
                    << " padding slots), more than the memory budget of " << budget.max_bytes << " bytes");
  const std::string refusal = layout_refusal<Outer>(shape);
  COMPOUND_SPARSE_REQUIRE_KIND(BudgetExceeded, refusal.empty(), refusal);
  const auto require_fits = [&](std::size_t capacity, const std::string& where) {
    COMPOUND_SPARSE_REQUIRE_KIND(
        BudgetExceeded, capacity == 0 || bytes <= capacity,
        Outer::name() << " layout of a " << num_rows << " x " << num_cols << " matrix with " << num_entries
                      << " entries needs " << bytes << " bytes (" << shape.num_slots - num_entries << " padding slots, "
                      << static_cast<double>(shape.num_slots) / std::max<std::uint64_t>(1, num_entries)
                      << "x the entries), more than the " << capacity << " bytes of memory of " << where);
  };
  require_fits(memory_capacity_bytes<MemorySpace>(), MemorySpace::name());
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible)
    if (host_copy) require_fits(memory_capacity_bytes<Kokkos::HostSpace>(), "the host (the conversion's copy)");
}
}  // namespace impl

/// Builds the device matrix in layout <Outer, Inner> from a host CSR matrix.
/// Throws compound_sparse::InvalidInput if `a` is inconsistent (see validate), and
/// BudgetExceeded, before allocating, if the layout needs more than `budget.max_bytes`,
/// if its slots do not fit 32-bit offsets, or if it needs more than MemorySpace's
/// memory (memory_capacity_bytes; for a device space also the host's, which holds a
/// copy while converting).
template <class Outer, class Inner, class MemorySpace = typename Kokkos::DefaultExecutionSpace::memory_space,
          class Entry>
SparseMatrix<Entry, Outer, Inner, MemorySpace> to_device(const HostCsr<Entry>& a, MemoryBudget budget = {}) {
  using matrix_type = SparseMatrix<Entry, Outer, Inner, MemorySpace>;
  using traits = component_traits<Entry>;
  const LayoutShape shape = layout_shape<Outer>(a);  // validates `a` first
  impl::require_layout_fits<Outer, Entry, MemorySpace>(shape, a.num_rows, a.num_cols, a.num_entries(), budget,
                                                       /*host_copy=*/true);
  matrix_type m;
  m.num_rows = a.num_rows;
  m.num_cols = a.num_cols;
  m.num_entries = a.num_entries();
  m.num_slots = shape.num_slots;
  m.ell_width = shape.ell_width;
  m.ell_stride = shape.ell_stride;
  const auto alloc = [](const char* label) {
    return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
  };
  m.offsets = typename matrix_type::index_view(alloc("compound_sparse::offsets"), shape.offsets_size);
  m.row_lengths = typename matrix_type::index_view(alloc("compound_sparse::row_lengths"), shape.lengths_size);
  m.col_indices = typename matrix_type::column_view(alloc("compound_sparse::col_indices"), shape.num_slots);
  m.column_bases = typename matrix_type::index_view(alloc("compound_sparse::column_bases"), shape.column_bases.size());
  m.values = typename matrix_type::values_view(alloc("compound_sparse::values"), shape.num_slots);

  // Every slot is written below (CSR) or zeroed first (padded layouts), so the host
  // copies skip Kokkos' initialisation: at 60M non-zeros each pass over them is
  // a second or more of a conversion.
  const auto mirror = [](const auto& view) { return impl::uninitialized_host_mirror(view); };
  auto offsets = mirror(m.offsets);
  auto lengths = mirror(m.row_lengths);
  auto cols = mirror(m.col_indices);
  auto bases = mirror(m.column_bases);
  auto vals = mirror(m.values);
  if (shape.num_slots > static_cast<std::uint64_t>(a.num_entries())) {
    // Padding: column 0 (the slice's base column) and a zero entry, so that no slot
    // holds garbage. The host copies are contiguous: a plain fill of their memory.
    static_assert(std::is_trivially_copyable<column_index_t<Outer>>::value, "column indices are plain integers");
    std::fill(cols.data(), cols.data() + cols.span(), column_index_t<Outer>(0));
    std::fill(vals.data(), vals.data() + vals.span(), scalar_type_t<Entry>(0));
  }

  if constexpr (std::is_same<Outer, Csr>::value) {
    for (int r = 0; r <= a.num_rows; ++r) offsets(r) = a.row_offsets[r];
  } else {
    for (std::size_t s = 0; s < shape.slice_offsets.size(); ++s) offsets(s) = static_cast<int>(shape.slice_offsets[s]);
    for (int r = 0; r < a.num_rows; ++r) lengths(r) = a.row_length(r);
    for (std::size_t s = 0; s < shape.column_bases.size(); ++s) bases(s) = shape.column_bases[s];
  }
  for (int r = 0; r < a.num_rows; ++r) {
    const impl::RowSlots slots = impl::row_slots<Outer>(offsets, lengths, shape.ell_stride, r);
    const int base = impl::column_base<Outer>(bases, r);
    for (int k = 0; k < slots.length; ++k) {
      const int slot = slots.first + k * slots.step;
      const int src = a.row_offsets[r] + k;
      cols(slot) = static_cast<column_index_t<Outer>>(a.col_indices[src] - base);
      for (int c = 0; c < traits::size; ++c) vals(slot, c) = traits::get(a.values[src], c);
    }
  }
  Kokkos::deep_copy(m.offsets, offsets);
  Kokkos::deep_copy(m.row_lengths, lengths);
  Kokkos::deep_copy(m.col_indices, cols);
  Kokkos::deep_copy(m.column_bases, bases);
  Kokkos::deep_copy(m.values, vals);
  impl::make_schedule_state(m);
  return m;
}

/// Copies a device matrix back into host CSR; rows keep their entry order.
template <class Entry, class Outer, class Inner, class MemorySpace>
HostCsr<Entry> to_host_csr(const SparseMatrix<Entry, Outer, Inner, MemorySpace>& m) {
  using traits = component_traits<Entry>;
  auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.offsets);
  auto lengths = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.row_lengths);
  auto cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.col_indices);
  auto bases = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.column_bases);
  auto vals = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.values);

  HostCsr<Entry> a;
  a.num_rows = m.num_rows;
  a.num_cols = m.num_cols;
  a.row_offsets.assign(static_cast<std::size_t>(m.num_rows) + 1, 0);
  a.col_indices.reserve(m.num_entries);
  a.values.reserve(m.num_entries);
  for (int r = 0; r < m.num_rows; ++r) {
    const impl::RowSlots slots = impl::row_slots<Outer>(offsets, lengths, m.ell_stride, r);
    const int base = impl::column_base<Outer>(bases, r);
    for (int k = 0; k < slots.length; ++k) {
      const int slot = slots.first + k * slots.step;
      a.col_indices.push_back(base + static_cast<int>(cols(slot)));
      Entry e;
      for (int c = 0; c < traits::size; ++c) traits::get(e, c) = vals(slot, c);
      a.values.push_back(e);
    }
    a.row_offsets[r + 1] = static_cast<int>(a.col_indices.size());
  }
  return a;
}

}  // namespace compound_sparse
