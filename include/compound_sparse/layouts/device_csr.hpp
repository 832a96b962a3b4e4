#pragma once
// DeviceCsr: a matrix an application holds as CSR Views on the device, read only, in the
// form the run-time paths take it (the variant registry, quick tuning, TunedSpmv), as
// HostCsr is for host data. make_device_csr checks and validates the Views once; each
// layout is then built from them by device kernels (device_build.hpp), and its size and
// refusal are found there too, so that choosing a layout moves a few numbers to the host
// and never the matrix.
//
//   auto a = cs::make_device_csr(num_cols, row_map, entries, values);  // Views on the GPU
//   cs::TunedSpmv<C> op(a);                                            // selected, built there

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <type_traits>

#include "../interop/kokkos_views.hpp"
#include "convert.hpp"
#include "device_build.hpp"
#include "layout_tags.hpp"

namespace compound_sparse {

template <class Entry, class MemorySpace>
struct DeviceCsr {
  using entry_type = Entry;
  using memory_space = MemorySpace;
  int num_rows = 0;
  int num_cols = 0;
  Kokkos::View<const int*, MemorySpace> row_map;  ///< num_rows + 1 offsets
  Kokkos::View<const int*, MemorySpace> entries;  ///< the column of each non-zero
  Kokkos::View<const Entry*, MemorySpace> values;
  std::size_t num_entries() const { return entries.extent(0); }
};

namespace impl {
/// `view` as a View<const int*>: the same memory where it holds int, else a copy made on
/// the device (a Kokkos Kernels matrix may use other ordinals or offsets).
template <class View>
Kokkos::View<const int*, typename View::memory_space> int_view(const View& view, const char* label) {
  using memory_space = typename View::memory_space;
  if constexpr (std::is_same<typename View::non_const_value_type, int>::value &&
                std::is_convertible<View, Kokkos::View<const int*, memory_space>>::value) {
    return view;
  } else {
    using copy_view = Kokkos::View<int*, memory_space>;
    copy_view copy(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), view.extent(0));
    Kokkos::parallel_for(label, Kokkos::RangePolicy<typename memory_space::execution_space>(0, view.extent(0)),
                         CopyAsInt<copy_view, View>{copy, view});
    Kokkos::fence();
    return copy;
  }
}
}  // namespace impl

/// The DeviceCsr of CSR Views (num_rows + 1 offsets, a column per non-zero, one Entry per
/// non-zero) on one memory space, after validate_csr_views' checks: throws InvalidInput
/// naming the first bad row, BudgetExceeded where the sizes do not fit 32-bit indices.
template <class RowMap, class Entries, class Values>
DeviceCsr<typename Values::non_const_value_type, typename Values::memory_space> make_device_csr(int num_cols,
                                                                                                const RowMap& row_map,
                                                                                                const Entries& entries,
                                                                                                const Values& values) {
  impl::check_csr_view_types<RowMap, Entries, Values>();
  impl::validate_csr_views(num_cols, row_map, entries, values);
  DeviceCsr<typename Values::non_const_value_type, typename Values::memory_space> a;
  a.num_rows = static_cast<int>(row_map.extent(0)) - 1;
  a.num_cols = num_cols;
  a.row_map = impl::int_view(row_map, "compound_sparse::row_map");
  a.entries = impl::int_view(entries, "compound_sparse::entries");
  a.values = values;
  return a;
}

/// layout_shape<Outer> of the matrix, computed on the device.
template <class Outer, class Entry, class MemorySpace>
LayoutShape layout_shape(const DeviceCsr<Entry, MemorySpace>& a) {
  if constexpr (std::is_same<Outer, Csr>::value) {
    LayoutShape shape;
    shape.num_slots = a.num_entries();
    shape.offsets_size = static_cast<std::uint64_t>(a.num_rows) + 1;
    return shape;
  } else {
    return impl::layout_shape_on_device<Outer, typename MemorySpace::execution_space>(a.num_rows, a.row_map, a.entries)
        .shape;
  }
}

/// layout_num_slots, layout_memory_bytes and layout_refusal of the matrix, from its shape.
template <class Outer, class Entry, class MemorySpace>
std::uint64_t layout_num_slots(const DeviceCsr<Entry, MemorySpace>& a) {
  return layout_shape<Outer>(a).num_slots;
}
template <class Outer, class Entry, class MemorySpace>
std::uint64_t layout_memory_bytes(const DeviceCsr<Entry, MemorySpace>& a) {
  return layout_memory_bytes<Outer, Entry>(layout_shape<Outer>(a));
}
template <class Outer, class Entry, class MemorySpace>
std::string layout_refusal(const DeviceCsr<Entry, MemorySpace>& a) {
  return layout_refusal<Outer>(layout_shape<Outer>(a));
}

/// The matrix in layout <Outer, Inner>, built by device kernels: bit for bit
/// to_device<Outer, Inner> of the same matrix as a HostCsr, and throwing as it does.
template <class Outer, class Inner, class Entry, class MemorySpace>
SparseMatrix<Entry, Outer, Inner, MemorySpace> to_layout(const DeviceCsr<Entry, MemorySpace>& a,
                                                         MemoryBudget budget = {}) {
  if constexpr (std::is_same<Outer, Csr>::value)
    return impl::csr_matrix_from_csr_views<Inner>(a.num_cols, a.row_map, a.entries, a.values, budget);
  else
    return impl::padded_matrix_from_csr_views<Outer, Inner>(a.num_cols, a.row_map, a.entries, a.values, budget);
}

}  // namespace compound_sparse
