#pragma once
// What the examples that start from device data share: host arrays put where an
// application's kernels would have left them (device Views), and a matrix's raw arrays for
// a bit-for-bit comparison with the host path.

#include <Kokkos_Core.hpp>
#include <string>
#include <vector>

namespace examples {

/// A host vector as a new View of the default memory space.
template <class T>
Kokkos::View<T*, Kokkos::DefaultExecutionSpace::memory_space> device_view(const std::vector<T>& host,
                                                                          const char* label) {
  Kokkos::View<T*, Kokkos::DefaultExecutionSpace::memory_space> view(std::string(label), host.size());
  Kokkos::deep_copy(view, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                              host.data(), host.size()));
  return view;
}

/// A Csr matrix's offsets, columns and values as bytes (on the host).
template <class Matrix>
std::vector<unsigned char> bytes_of(const Matrix& m) {
  std::vector<unsigned char> bytes;
  const auto append = [&](const auto& view) {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
    const auto* first = reinterpret_cast<const unsigned char*>(host.data());
    bytes.insert(bytes.end(), first, first + host.span() * sizeof(typename decltype(host)::value_type));
  };
  append(m.offsets);
  append(m.col_indices);
  append(m.values);
  return bytes;
}

}  // namespace examples
