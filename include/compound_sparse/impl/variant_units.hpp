#pragma once
// How the variant registry of one entry type is assembled from separately compiled
// units (cmake/CompoundSparseVariants.cmake). The layouts of the variant space are
// numbered 0 .. layout_count - 1 over OuterLayouts x InnerLayouts; unit [First, Last)
// instantiates the variants of those layouts in its own translation unit
// (register_variants.hpp, generated variants_<entry>_<First>.cpp), and the registry
// unit calls every unit through the declaration below, so it never instantiates a
// kernel itself.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>

#include "../variants/registry.hpp"
#include "register_vector_layouts.hpp"

namespace compound_sparse {
namespace impl {

/// Number of (outer, inner) matrix layouts.
constexpr std::size_t layout_count = OuterLayouts::size * InnerLayouts::size;

/// Registers every variant of layouts [First, Last) (defined in register_variants.hpp,
/// explicitly instantiated by the generated units).
template <class Entry, std::size_t First, std::size_t Last>
void register_layouts(VariantRegistry<Entry>& registry);

/// The registry of Entry: its vector layouts, compiled here once, and units of UnitSize
/// matrix layouts each, as CMake split them.
template <class Entry, std::size_t UnitSize>
VariantRegistry<Entry> build_registry() {
  static_assert(UnitSize >= 1 && layout_count % UnitSize == 0, "units must split the layouts evenly");
  VariantRegistry<Entry> registry;
  register_vector_layouts(registry);
  for_each_index<0, layout_count / UnitSize>([&](auto unit) {
    constexpr std::size_t first = decltype(unit)::value * UnitSize;
    register_layouts<Entry, first, first + UnitSize>(registry);
  });
  return registry;
}

}  // namespace impl
}  // namespace compound_sparse
