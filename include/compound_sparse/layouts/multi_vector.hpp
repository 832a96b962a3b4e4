#pragma once
// MultiVector: the X and Y of spmm, k vectors of n compound values each, in one of
// two layouts named by the inner-layout tags:
//   Aos  a row's k values together: Kokkos::View<Value**, LayoutRight>, [n][k]
//        (cuSPARSE's row-major dense matrix);
//   Soa  vector by vector: Kokkos::View<Value**, LayoutLeft>, [n][k] (column-major,
//        Kokkos Kernels' multivector, cuSPARSE's column-major dense matrix).
// Either way a value's components sit together, so a vector of an Soa multivector
// is an Aos CompoundVector (vector_of) and a kernel reads a value whole.

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <utility>
#include <vector>

#include "../error.hpp"
#include "compound_vector.hpp"
#include "layout_tags.hpp"

namespace compound_sparse {

template <class Value, class Layout, class MemorySpace = typename Kokkos::DefaultExecutionSpace::memory_space>
struct MultiVector {
  static_assert(is_packed_compound<Value>(),
                "vector element type must be trivially copyable and consist of exactly "
                "component_traits<Value>::size scalars");
  static_assert(std::is_same<Layout, Aos>::value || std::is_same<Layout, Soa>::value,
                "a multivector's layout is Aos (a row's values together) or Soa (vector by vector)");
  using value_type = Value;
  using layout = Layout;
  using memory_space = MemorySpace;
  using view_type = Kokkos::View<Value**, typename Layout::kokkos_layout, MemorySpace>;

  view_type data;

  int size() const { return static_cast<int>(data.extent(0)); }   ///< n, values per vector
  int count() const { return static_cast<int>(data.extent(1)); }  ///< k, vectors
  /// Values between (i, j) and (i + 1, j), and between (i, j) and (i, j + 1).
  std::ptrdiff_t row_stride() const { return static_cast<std::ptrdiff_t>(data.stride(0)); }
  std::ptrdiff_t vector_stride() const { return static_cast<std::ptrdiff_t>(data.stride(1)); }
};

/// A new device multivector from k host vectors of n values each (vectors[j][i] is
/// value i of vector j).
template <class Layout, class MemorySpace = typename Kokkos::DefaultExecutionSpace::memory_space, class Value>
MultiVector<Value, Layout, MemorySpace> to_device(const std::vector<std::vector<Value>>& vectors,
                                                  const std::string& label = "X") {
  using multi_type = MultiVector<Value, Layout, MemorySpace>;
  const std::size_t n = vectors.empty() ? 0 : vectors.front().size();
  for (std::size_t j = 0; j < vectors.size(); ++j)
    COMPOUND_SPARSE_REQUIRE(vectors[j].size() == n, "to_device: vector " << j << " of the multivector has "
                                                                         << vectors[j].size()
                                                                         << " values, vector 0 has " << n);
  multi_type m;
  m.data = typename multi_type::view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n, vectors.size());
  auto mirror = Kokkos::create_mirror_view(m.data);
  for (std::size_t j = 0; j < vectors.size(); ++j)
    for (std::size_t i = 0; i < n; ++i) mirror(i, j) = vectors[j][i];
  Kokkos::deep_copy(m.data, mirror);
  return m;
}

/// The k vectors of a device multivector, copied to the host (result[j][i]).
template <class Value, class Layout, class MemorySpace>
std::vector<std::vector<Value>> to_host(const MultiVector<Value, Layout, MemorySpace>& m) {
  auto mirror = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.data);
  std::vector<std::vector<Value>> vectors(m.count(), std::vector<Value>(m.size()));
  for (int j = 0; j < m.count(); ++j)
    for (int i = 0; i < m.size(); ++i) vectors[j][i] = mirror(i, j);
  return vectors;
}

/// Every component of every value set to `value`, where the multivector lives.
template <class Value, class Layout, class MemorySpace>
void fill_components(const MultiVector<Value, Layout, MemorySpace>& m,
                     typename component_traits<Value>::scalar_type value) {
  Value filled{};
  for (int c = 0; c < component_traits<Value>::size; ++c) component_traits<Value>::get(filled, c) = value;
  Kokkos::deep_copy(m.data, filled);
}

/// The sum over every vector, value and component of (m - reference)^2, computed where
/// m lives (squared_distance of compound_vector.hpp for k vectors): `reference` holds
/// the k vectors one after the other in double, row j * n + i for value i of vector j,
/// [row][component]. A NaN in m makes the sum NaN.
template <class Value, class Layout, class MemorySpace>
double squared_distance(const MultiVector<Value, Layout, MemorySpace>& m,
                        const Kokkos::View<const double**, Kokkos::LayoutRight, MemorySpace>& reference) {
  using traits = component_traits<Value>;
  const std::size_t n = m.data.extent(0);
  const std::size_t k = m.data.extent(1);
  COMPOUND_SPARSE_REQUIRE(reference.extent(0) == n * k && reference.extent(1) == static_cast<std::size_t>(traits::size),
                          "squared_distance: the multivector has " << k << " vectors of " << n << " values of "
                                                                   << traits::size << " components, the reference "
                                                                   << reference.extent(0) << " rows of "
                                                                   << reference.extent(1));
  using execution_space = typename MemorySpace::execution_space;
  const auto data = m.data;
  double sum = 0;
  Kokkos::parallel_reduce(
      "compound_sparse::squared_distance(multivector)", Kokkos::RangePolicy<execution_space>(0, n * k),
      KOKKOS_LAMBDA(const std::size_t row, double& partial) {
        const Value v = data(row % n, row / n);
        for (int c = 0; c < traits::size; ++c) {
          const double d = static_cast<double>(traits::get(v, c)) - reference(row, c);
          partial += d * d;
        }
      },
      sum);
  return sum;
}

namespace impl {
/// The n whole values from `first` on as an Aos CompoundVector that does not own them.
template <class Value, class MemorySpace>
CompoundVector<Value, Aos, MemorySpace> aos_vector_at(Value* first, int n) {
  using vector_type = CompoundVector<Value, Aos, MemorySpace>;
  vector_type v;
  v.data = typename vector_type::view_type(reinterpret_cast<typename vector_type::scalar_type*>(first),
                                           static_cast<std::size_t>(n));
  return v;
}
}  // namespace impl

/// Vector j of an Soa multivector as an Aos CompoundVector, without a copy. The
/// result does not own the memory: it is valid while `m`'s allocation lives.
template <class Value, class MemorySpace>
CompoundVector<Value, Aos, MemorySpace> vector_of(const MultiVector<Value, Soa, MemorySpace>& m, int j) {
  COMPOUND_SPARSE_REQUIRE(j >= 0 && j < m.count(),
                          "vector_of: vector " << j << " of a multivector of " << m.count() << " vectors");
  return impl::aos_vector_at<Value, MemorySpace>(m.data.data() + j * m.vector_stride(), m.size());
}

/// Vectors first .. first + count - 1 of an Soa multivector, as an Soa multivector sharing
/// its memory (a column range of LayoutLeft stays LayoutLeft); valid while `m`'s allocation
/// lives.
template <class Value, class MemorySpace>
MultiVector<Value, Soa, MemorySpace> vectors_of(const MultiVector<Value, Soa, MemorySpace>& m, int first, int count) {
  // count <= m.count() - first, not first + count <= m.count(): the sum wraps for large ints.
  COMPOUND_SPARSE_REQUIRE(first >= 0 && count >= 1 && first <= m.count() && count <= m.count() - first,
                          "vectors_of: " << count << " vectors from vector " << first << " of a multivector of "
                                         << m.count() << " vectors");
  MultiVector<Value, Soa, MemorySpace> part;
  part.data = Kokkos::subview(m.data, Kokkos::ALL, std::make_pair(first, first + count));
  return part;
}

/// The only vector of a multivector of one vector, in either layout (both store it
/// as n whole values in a row), as vector_of.
template <class Value, class Layout, class MemorySpace>
CompoundVector<Value, Aos, MemorySpace> only_vector(const MultiVector<Value, Layout, MemorySpace>& m) {
  COMPOUND_SPARSE_REQUIRE(m.count() == 1, "only_vector: the multivector has " << m.count() << " vectors, not 1");
  return impl::aos_vector_at<Value, MemorySpace>(m.data.data(), m.size());
}

}  // namespace compound_sparse
