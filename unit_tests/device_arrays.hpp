#pragma once
// A matrix's arrays moved between host and device for the tests that compare builds: a
// HostCsr as device CSR views (or as the library's DeviceCsr), and two converted matrices'
// arrays compared bit for bit.

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <compound_sparse/layouts/device_csr.hpp>
#include <compound_sparse/layouts/host_csr.hpp>
#include <cstring>
#include <vector>

namespace compound_sparse_test {

using device_memory_space = Kokkos::DefaultExecutionSpace::memory_space;

/// The CSR arrays of `a` as device Views, with offsets of type Offset (KokkosSparse uses size_t).
template <class Offset, class Entry>
struct DeviceCsr {
  Kokkos::View<Offset*, device_memory_space> row_map;
  Kokkos::View<int*, device_memory_space> entries;
  Kokkos::View<Entry*, device_memory_space> values;
};

template <class Offset, class Entry>
DeviceCsr<Offset, Entry> device_csr(const compound_sparse::HostCsr<Entry>& a) {
  DeviceCsr<Offset, Entry> d{Kokkos::View<Offset*, device_memory_space>("row_map", a.row_offsets.size()),
                             Kokkos::View<int*, device_memory_space>("entries", a.col_indices.size()),
                             Kokkos::View<Entry*, device_memory_space>("values", a.values.size())};
  auto row_map = Kokkos::create_mirror_view(d.row_map);
  auto entries = Kokkos::create_mirror_view(d.entries);
  auto values = Kokkos::create_mirror_view(d.values);
  for (std::size_t i = 0; i < a.row_offsets.size(); ++i) row_map(i) = static_cast<Offset>(a.row_offsets[i]);
  for (std::size_t k = 0; k < a.col_indices.size(); ++k) {
    entries(k) = a.col_indices[k];
    values(k) = a.values[k];
  }
  Kokkos::deep_copy(d.row_map, row_map);
  Kokkos::deep_copy(d.entries, entries);
  Kokkos::deep_copy(d.values, values);
  return d;
}

/// `a` as the library's DeviceCsr: its arrays copied to the device, then make_device_csr.
template <class Entry>
compound_sparse::DeviceCsr<Entry, device_memory_space> on_device(const compound_sparse::HostCsr<Entry>& a) {
  const auto d = device_csr<int>(a);
  return compound_sparse::make_device_csr(a.num_cols, d.row_map, d.entries, d.values);
}

/// A host vector as a new device View.
template <class T>
Kokkos::View<T*, device_memory_space> device_copy(const std::vector<T>& host) {
  Kokkos::View<T*, device_memory_space> d("device_copy", host.size());
  const auto mirror = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < host.size(); ++i) mirror(i) = host[i];
  Kokkos::deep_copy(d, mirror);
  return d;
}

/// Whether two views hold the same bytes (copied to the host where they live elsewhere;
/// compared in place where they are host views already).
template <class A, class B>
bool same_bytes(const A& a, const B& b) {
  const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  const std::size_t bytes = ha.span() * sizeof(typename decltype(ha)::value_type);
  return bytes == hb.span() * sizeof(typename decltype(hb)::value_type) &&
         (bytes == 0 || std::memcmp(ha.data(), hb.data(), bytes) == 0);
}

/// Whether two matrices' arrays (offsets, row lengths, columns, base columns, values) are the
/// same bit for bit; the first that differs is named in `what`.
template <class MatrixA, class MatrixB>
::testing::AssertionResult same_arrays(const MatrixA& a, const MatrixB& b) {
  const char* differs = !same_bytes(a.offsets, b.offsets)             ? "offsets"
                        : !same_bytes(a.row_lengths, b.row_lengths)   ? "row_lengths"
                        : !same_bytes(a.col_indices, b.col_indices)   ? "col_indices"
                        : !same_bytes(a.column_bases, b.column_bases) ? "column_bases"
                        : !same_bytes(a.values, b.values)             ? "values"
                                                                      : nullptr;
  if (differs == nullptr) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "the " << differs << " differ";
}

}  // namespace compound_sparse_test
