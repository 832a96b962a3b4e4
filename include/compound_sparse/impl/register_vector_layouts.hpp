#pragma once
// The vector and multivector layouts of an entry type's variant registry: their
// conversions from host vectors, registered once per entry type by the registry unit
// (build_registry, variant_units.hpp). Each conversion instantiates the layout's copies,
// fills and reductions, which cost an nvcc unit more than a matrix layout's conversion;
// registered with each matrix layout they were compiled once per unit instead of once.

#include <vector>

#include "../layouts/layout_tags.hpp"
#include "../layouts/multi_vector.hpp"
#include "../variants/registry.hpp"

namespace compound_sparse {
namespace impl {

template <class Entry, class MemorySpace, class Inner>
AnyVector<vector_type_t<Entry>, MemorySpace> convert_any_vector(const std::vector<vector_type_t<Entry>>& v) {
  return AnyVector<vector_type_t<Entry>, MemorySpace>(to_device<Inner, MemorySpace>(v));
}

template <class Entry, class MemorySpace, class Layout>
AnyMultiVector<vector_type_t<Entry>, MemorySpace> convert_any_multivector(
    const std::vector<std::vector<vector_type_t<Entry>>>& vectors) {
  return AnyMultiVector<vector_type_t<Entry>, MemorySpace>(to_device<Layout, MemorySpace>(vectors));
}

/// Registers every vector layout of the variant space (InnerLayouts), as vectors and multivectors.
template <class Entry, class MemorySpace>
void register_vector_layouts(VariantRegistry<Entry, MemorySpace>& registry) {
  for_each_type(InnerLayouts{}, [&](auto vec) {
    using Vec = typename decltype(vec)::type;
    registry.add_vector_layout(Vec::name(), &convert_any_vector<Entry, MemorySpace, Vec>,
                               &convert_any_multivector<Entry, MemorySpace, Vec>);
  });
}

}  // namespace impl
}  // namespace compound_sparse
