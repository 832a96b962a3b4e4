#pragma once
// Interop with an application's own Kokkos Views, for codes that already hold
// their matrix and vectors on the device:
//
//   matrices  matrix_from_csr_views<Outer, Inner>(num_cols, row_map, entries, values)
//             builds any layout from CSR views on the device, no host round trip
//             (the same bits as to_device); csr_views(A) hands a Csr matrix back
//             as CSR views.
//   vectors   wrap_values / wrap_scalars / wrap_components make a CompoundVector
//             that shares the application's memory (no copy) where the layout
//             allows; values_view hands an Aos vector back as View<Value*>;
//             copy_values copies where the layouts differ.
//
// Kokkos Kernels' matrices: kokkos_kernels.hpp (built on this header).

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../error.hpp"
#include "../layouts/compound_vector.hpp"
#include "../layouts/convert.hpp"
#include "../layouts/device_build.hpp"
#include "../layouts/host_csr.hpp"
#include "../layouts/layout_tags.hpp"
#include "../layouts/sparse_matrix.hpp"

namespace compound_sparse {

/// A CSR matrix as three Views on one memory space, values as whole entries:
/// the form of KokkosSparse::CrsMatrix and of most hand-written Kokkos codes.
template <class Entry, class MemorySpace>
struct CsrViews {
  int num_rows = 0;
  int num_cols = 0;
  Kokkos::View<int*, MemorySpace> row_map;  ///< num_rows + 1 offsets
  Kokkos::View<int*, MemorySpace> entries;  ///< column index of each non-zero
  Kokkos::View<Entry*, MemorySpace> values;
};

namespace impl {

template <class RowMap, class Entries, class Values>
void check_csr_view_types() {
  static_assert(RowMap::rank == 1 && Entries::rank == 1 && Values::rank == 1,
                "CSR views must be rank 1: row_map, entries (column indices) and values (one entry each)");
  static_assert(std::is_integral<typename RowMap::non_const_value_type>::value &&
                    std::is_integral<typename Entries::non_const_value_type>::value,
                "row_map and entries must hold integers");
  static_assert(std::is_same<typename RowMap::memory_space, typename Values::memory_space>::value &&
                    std::is_same<typename Entries::memory_space, typename Values::memory_space>::value,
                "row_map, entries and values must live in one memory space");
}

/// The same checks as validate(HostCsr), run where the views live; throws
/// compound_sparse::Error naming the first inconsistent row.
template <class RowMap, class Entries, class Values>
void validate_csr_views(int num_cols, const RowMap& row_map, const Entries& entries, const Values& values) {
  using execution_space = typename Values::memory_space::execution_space;
  COMPOUND_SPARSE_REQUIRE(num_cols >= 0, "num_cols " << num_cols << " is negative");
  COMPOUND_SPARSE_REQUIRE(row_map.extent(0) >= 1, "row_map is empty; it needs num_rows + 1 offsets");
  COMPOUND_SPARSE_REQUIRE_KIND(BudgetExceeded,
                               row_map.extent(0) - 1 <= static_cast<std::size_t>(std::numeric_limits<int>::max()) &&
                                   entries.extent(0) <= static_cast<std::size_t>(std::numeric_limits<int>::max()),
                               "CSR views with " << row_map.extent(0) - 1 << " rows and " << entries.extent(0)
                                                 << " non-zeros do not fit 32-bit indices");
  COMPOUND_SPARSE_REQUIRE(values.extent(0) == entries.extent(0),
                          "values has " << values.extent(0) << " entries but entries has " << entries.extent(0));
  const int num_rows = static_cast<int>(row_map.extent(0)) - 1;
  const long long first = read_element(row_map, 0);
  const long long last = read_element(row_map, num_rows);
  COMPOUND_SPARSE_REQUIRE(first == 0, "row_map(0) is " << first << ", expected 0");
  COMPOUND_SPARSE_REQUIRE(last >= 0 && static_cast<std::size_t>(last) == entries.extent(0),
                          "row_map(num_rows) is " << last << " but there are " << entries.extent(0) << " entries");
  int first_bad_row = num_rows;  // Min's identity (INT_MAX) when every row is fine
  Kokkos::parallel_reduce(
      "compound_sparse::validate_csr_views", Kokkos::RangePolicy<execution_space>(0, num_rows),
      KOKKOS_LAMBDA(int r, int& first_bad) {
        const long long begin = static_cast<long long>(row_map(r));
        const long long end = static_cast<long long>(row_map(r + 1));
        bool bad = begin > end;
        for (long long k = begin; !bad && k < end; ++k) {
          const long long c = static_cast<long long>(entries(k));
          bad = c < 0 || c >= num_cols;
        }
        if (bad && r < first_bad) first_bad = r;
      },
      Kokkos::Min<int>(first_bad_row));
  COMPOUND_SPARSE_REQUIRE(first_bad_row >= num_rows,
                          "CSR views: row " << first_bad_row << " has decreasing offsets or a column index outside [0, "
                                            << num_cols << ")");
}

}  // namespace impl

/// Copies CSR views (any memory space, any integer types, values one Entry per
/// non-zero) into the host exchange format; validates like validate().
template <class RowMap, class Entries, class Values>
HostCsr<typename Values::non_const_value_type> host_csr_from_views(int num_cols, const RowMap& row_map,
                                                                   const Entries& entries, const Values& values) {
  impl::check_csr_view_types<RowMap, Entries, Values>();
  impl::validate_csr_views(num_cols, row_map, entries, values);
  const auto h_row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map);
  const auto h_entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), entries);
  const auto h_values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), values);
  HostCsr<typename Values::non_const_value_type> a;
  a.num_rows = static_cast<int>(row_map.extent(0)) - 1;
  a.num_cols = num_cols;
  a.row_offsets.resize(row_map.extent(0));
  for (std::size_t r = 0; r < row_map.extent(0); ++r) a.row_offsets[r] = static_cast<int>(h_row_map(r));
  a.col_indices.resize(entries.extent(0));
  a.values.resize(values.extent(0));
  for (std::size_t k = 0; k < entries.extent(0); ++k) {
    a.col_indices[k] = static_cast<int>(h_entries(k));
    a.values[k] = h_values(k);
  }
  return a;
}

/// Builds a matrix in layout <Outer, Inner> on the views' memory space from CSR
/// views there, by device kernels with no host round trip (the padded layouts:
/// layouts/device_build.hpp): the same arrays, bit for bit, as to_device of the same
/// matrix as a HostCsr. Throws like to_device.
template <class Outer, class Inner, class RowMap, class Entries, class Values>
SparseMatrix<typename Values::non_const_value_type, Outer, Inner, typename Values::memory_space> matrix_from_csr_views(
    int num_cols, const RowMap& row_map, const Entries& entries, const Values& values, MemoryBudget budget = {}) {
  impl::check_csr_view_types<RowMap, Entries, Values>();
  impl::validate_csr_views(num_cols, row_map, entries, values);
  if constexpr (!std::is_same<Outer, Csr>::value) {
    return impl::padded_matrix_from_csr_views<Outer, Inner>(num_cols, row_map, entries, values, budget);
  } else {
    return impl::csr_matrix_from_csr_views<Inner>(num_cols, row_map, entries, values, budget);
  }
}

namespace impl {
inline void require_same_length(std::size_t view, std::size_t vector) {
  COMPOUND_SPARSE_REQUIRE(view == vector, "copy_values: the View has " << view << " values, the vector " << vector);
}
template <class MemorySpace, class Kernel>
void for_each_value(std::size_t n, const Kernel& kernel) {
  Kokkos::parallel_for("compound_sparse::copy_values",
                       Kokkos::RangePolicy<typename MemorySpace::execution_space>(0, static_cast<int>(n)), kernel);
}
}  // namespace impl

/// Copies the values of a vector into a View of whole values, or back; for the
/// layouts that wrap_values cannot share (Soa). Sizes must match.
template <class Value, class Inner, class MemorySpace, class View>
void copy_values(const CompoundVector<Value, Inner, MemorySpace>& from, const View& to) {
  static_assert(std::is_same<typename View::value_type, Value>::value, "copy_values: the View must hold Value");
  impl::require_same_length(to.extent(0), from.data.extent(0));
  using traits = component_traits<Value>;
  const auto data = from.data;
  impl::for_each_value<MemorySpace>(
      to.extent(0), KOKKOS_LAMBDA(int i) {
        Value v;
        for (int c = 0; c < traits::size; ++c) traits::get(v, c) = data(i, c);
        to(i) = v;
      });
}
template <class View, class Value, class Inner, class MemorySpace>
void copy_values(const View& from, const CompoundVector<Value, Inner, MemorySpace>& to) {
  static_assert(std::is_same<typename View::non_const_value_type, Value>::value,
                "copy_values: the View must hold Value");
  impl::require_same_length(from.extent(0), to.data.extent(0));
  using traits = component_traits<Value>;
  const auto data = to.data;
  impl::for_each_value<MemorySpace>(
      from.extent(0), KOKKOS_LAMBDA(int i) {
        const Value v = from(i);
        for (int c = 0; c < traits::size; ++c) data(i, c) = traits::get(v, c);
      });
}

/// Hands a Csr matrix back as CSR views: row_map and entries are the matrix's
/// own arrays (shared, not copied; do not modify them), values are copied into
/// whole entries because the matrix stores them by component.
template <class Entry, class Inner, class MemorySpace>
CsrViews<Entry, MemorySpace> csr_views(const SparseMatrix<Entry, Csr, Inner, MemorySpace>& a) {
  CsrViews<Entry, MemorySpace> v;
  v.num_rows = a.num_rows;
  v.num_cols = a.num_cols;
  v.row_map = a.offsets;
  v.entries = a.col_indices;
  v.values =
      Kokkos::View<Entry*, MemorySpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "values"), a.num_entries);
  // A matrix's values array is a vector of its entries as far as layout goes.
  CompoundVector<Entry, Inner, MemorySpace> entries_as_vector;
  entries_as_vector.data = a.values;
  copy_values(entries_as_vector, v.values);
  Kokkos::fence();
  return v;
}

/// A vector sharing the memory of `values` (one Value per element, contiguous):
/// no copy, Aos layout. The result does not keep the memory alive: `values`
/// (or another View of it) must outlive it.
template <class View>
CompoundVector<typename View::value_type, Aos, typename View::memory_space> wrap_values(const View& values) {
  using value_type = typename View::value_type;
  using vector_type = CompoundVector<value_type, Aos, typename View::memory_space>;
  static_assert(View::rank == 1, "wrap_values: the View must be rank 1");
  COMPOUND_SPARSE_REQUIRE(values.span_is_contiguous() && (values.extent(0) < 2 || values.stride(0) == 1),
                          "wrap_values: the View is not contiguous; copy it with copy_values");
  vector_type v;
  v.data = typename vector_type::view_type(reinterpret_cast<typename vector_type::scalar_type*>(values.data()),
                                           values.extent(0));
  return v;
}

/// A vector of Value sharing the memory of a contiguous View of scalars that
/// holds the components value by value (x0 y0 z0 x1 y1 z1 ... for 3-vectors, as
/// a point-wise FEM code stores them). No copy, Aos layout; `scalars` must outlive it.
template <class Value, class View>
CompoundVector<Value, Aos, typename View::memory_space> wrap_scalars(const View& scalars) {
  using vector_type = CompoundVector<Value, Aos, typename View::memory_space>;
  static_assert(View::rank == 1, "wrap_scalars: the View must be rank 1");
  static_assert(std::is_same<typename View::value_type, typename vector_type::scalar_type>::value,
                "wrap_scalars: the View must hold Value's scalar type");
  COMPOUND_SPARSE_REQUIRE(scalars.span_is_contiguous() && (scalars.extent(0) < 2 || scalars.stride(0) == 1),
                          "wrap_scalars: the View is not contiguous");
  COMPOUND_SPARSE_REQUIRE(scalars.extent(0) % vector_type::components == 0,
                          "wrap_scalars: " << scalars.extent(0) << " scalars are not a whole number of "
                                           << vector_type::components << "-component values");
  vector_type v;
  v.data = typename vector_type::view_type(scalars.data(), scalars.extent(0) / vector_type::components);
  return v;
}

/// A vector sharing a rank-2 View [value][component] with a run-time second
/// extent (double**), in the Kokkos layout of Inner: no copy, and the vector
/// keeps the memory alive like any View copy. Throws if extent(1) is not the
/// number of components.
template <class Value, class Inner, class View>
CompoundVector<Value, Inner, typename View::memory_space> wrap_components(const View& components) {
  using vector_type = CompoundVector<Value, Inner, typename View::memory_space>;
  static_assert(View::rank == 2, "wrap_components: the View must be rank 2, [value][component]");
  static_assert(std::is_same<typename View::array_layout, typename Inner::kokkos_layout>::value,
                "wrap_components: the View's layout must be Inner's (LayoutRight for Aos, LayoutLeft for Soa)");
  COMPOUND_SPARSE_REQUIRE(components.extent(1) == static_cast<std::size_t>(vector_type::components),
                          "wrap_components: extent(1) is " << components.extent(1) << ", the value has "
                                                           << vector_type::components << " components");
  vector_type v;
  v.data = components;
  return v;
}

/// The values of an Aos vector as a View of whole values, sharing its memory
/// (no copy): what KokkosBlas, KokkosSparse or a user kernel takes. Unmanaged:
/// the vector (or another View of its data) must outlive it.
template <class Value, class MemorySpace>
Kokkos::View<Value*, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> values_view(
    const CompoundVector<Value, Aos, MemorySpace>& v) {
  return Kokkos::View<Value*, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
      reinterpret_cast<Value*>(v.data.data()), v.data.extent(0));
}

}  // namespace compound_sparse
