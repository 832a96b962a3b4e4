#pragma once
// A matrix's arrays moved between host and device for the tests that compare builds: a
// HostCsr as device CSR views, and a converted matrix's arrays as raw bytes.

#include <Kokkos_Core.hpp>
#include <compound_sparse/layouts/host_csr.hpp>
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

/// A host vector as a new device View.
template <class T>
Kokkos::View<T*, device_memory_space> device_copy(const std::vector<T>& host) {
  Kokkos::View<T*, device_memory_space> d("device_copy", host.size());
  const auto mirror = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < host.size(); ++i) mirror(i) = host[i];
  Kokkos::deep_copy(d, mirror);
  return d;
}

/// The raw arrays of a matrix on the host, for comparing two builds bit for bit.
template <class Matrix>
std::vector<unsigned char> bytes_of(const Matrix& m) {
  std::vector<unsigned char> bytes;
  const auto append = [&](const auto& view) {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
    const auto* first = reinterpret_cast<const unsigned char*>(host.data());
    bytes.insert(bytes.end(), first, first + host.span() * sizeof(typename decltype(host)::value_type));
  };
  append(m.offsets);
  append(m.row_lengths);
  append(m.col_indices);
  append(m.column_bases);
  append(m.values);
  return bytes;
}

}  // namespace compound_sparse_test
