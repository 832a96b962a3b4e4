#pragma once
// CompoundVector: the x and y of spmv, n compound values (complex, quaternion,
// e-vectors, ...) stored on a memory space in the Aos or Soa inner layout.
// It is a thin wrapper around a Kokkos View [value][component], so an
// application can hand in its own View without a copy (see wrap_view).

#include <Kokkos_Core.hpp>
#include <vector>

#include "../entries/components.hpp"
#include "../error.hpp"
#include "layout_tags.hpp"

namespace compound_sparse {

template <class Value, class Inner, class MemorySpace = typename Kokkos::DefaultExecutionSpace::memory_space>
struct CompoundVector {
  static_assert(is_packed_compound<Value>(),
                "vector element type must be trivially copyable and consist of exactly "
                "component_traits<Value>::size scalars");
  using value_type = Value;
  using inner_layout = Inner;
  using memory_space = MemorySpace;
  using scalar_type = typename component_traits<Value>::scalar_type;
  static constexpr int components = component_traits<Value>::size;
  using view_type = Kokkos::View<scalar_type* [components], typename Inner::kokkos_layout, MemorySpace>;

  view_type data;

  int size() const { return static_cast<int>(data.extent(0)); }
};

/// Copies host values into a new device vector.
template <class Inner, class MemorySpace = typename Kokkos::DefaultExecutionSpace::memory_space, class Value>
CompoundVector<Value, Inner, MemorySpace> to_device(const std::vector<Value>& host, const std::string& label = "x") {
  using vector_type = CompoundVector<Value, Inner, MemorySpace>;
  using traits = component_traits<Value>;
  vector_type v;
  v.data = typename vector_type::view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), host.size());
  auto mirror = Kokkos::create_mirror_view(v.data);
  for (std::size_t i = 0; i < host.size(); ++i)
    for (int c = 0; c < traits::size; ++c) mirror(i, c) = traits::get(host[i], c);
  Kokkos::deep_copy(v.data, mirror);
  return v;
}

/// Copies a device vector back to the host.
template <class Value, class Inner, class MemorySpace>
std::vector<Value> to_host(const CompoundVector<Value, Inner, MemorySpace>& v) {
  using traits = component_traits<Value>;
  using view_type = typename CompoundVector<Value, Inner, MemorySpace>::view_type;
  // A row range of a Soa View (LayoutLeft) has a gap between its components: Kokkos copies
  // such a View only within its memory space, so it is packed there first.
  view_type packed = v.data;
  if (!v.data.span_is_contiguous()) {
    packed = view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "to_host packed"), v.data.extent(0));
    Kokkos::deep_copy(packed, v.data);
  }
  auto mirror = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), packed);
  std::vector<Value> host(v.data.extent(0));
  for (std::size_t i = 0; i < host.size(); ++i)
    for (int c = 0; c < traits::size; ++c) traits::get(host[i], c) = mirror(i, c);
  return host;
}

/// Sets every component of `v` to `value`, on v's memory space (no host copy).
template <class Value, class Inner, class MemorySpace>
void fill_components(const CompoundVector<Value, Inner, MemorySpace>& v,
                     typename CompoundVector<Value, Inner, MemorySpace>::scalar_type value) {
  Kokkos::deep_copy(v.data, value);
}

/// The sum over every value and component of (v - reference)^2, computed where v
/// lives: `reference` holds the same values in double, [value][component] on v's
/// memory space. A NaN in v makes the sum NaN. What the tuner's result check needs
/// without copying each candidate's y to the host (at 4.2M rows of complex<float> that
/// copy and the host loop took 0.28 s a candidate, far more than its timing on a GPU).
template <class Value, class Inner, class MemorySpace>
double squared_distance(const CompoundVector<Value, Inner, MemorySpace>& v,
                        const Kokkos::View<const double**, Kokkos::LayoutRight, MemorySpace>& reference) {
  using vector_type = CompoundVector<Value, Inner, MemorySpace>;
  COMPOUND_SPARSE_REQUIRE(reference.extent(0) == v.data.extent(0) &&
                              reference.extent(1) == static_cast<std::size_t>(vector_type::components),
                          "squared_distance: the vector has "
                              << v.data.extent(0) << " values of " << vector_type::components
                              << " components, the reference " << reference.extent(0) << " of " << reference.extent(1));
  using execution_space = typename MemorySpace::execution_space;
  const auto data = v.data;
  double sum = 0;
  Kokkos::parallel_reduce(
      "compound_sparse::squared_distance", Kokkos::RangePolicy<execution_space>(0, data.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i, double& partial) {
        for (int c = 0; c < vector_type::components; ++c) {
          const double d = static_cast<double>(data(i, c)) - reference(i, c);
          partial += d * d;
        }
      },
      sum);
  return sum;
}

/// Wraps an existing View [value][component] without copying. The View must
/// have the vector's exact type: scalar* [components] in the Kokkos layout of
/// Inner (LayoutRight for Aos, LayoutLeft for Soa).
template <class Value, class Inner, class View>
CompoundVector<Value, Inner, typename View::memory_space> wrap_view(const View& view) {
  using vector_type = CompoundVector<Value, Inner, typename View::memory_space>;
  static_assert(std::is_same<View, typename vector_type::view_type>::value,
                "wrap_view: the View must be scalar* [components] in the inner layout's Kokkos layout");
  vector_type v;
  v.data = view;
  return v;
}

}  // namespace compound_sparse
