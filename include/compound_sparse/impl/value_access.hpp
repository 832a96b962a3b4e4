#pragma once
// Reading and writing one compound value of a [value][component] view in either
// inner layout: the only place the kernels see the inner layouts.

#include <Kokkos_Core.hpp>
#include <type_traits>

#include "../entries/components.hpp"
#include "../layouts/layout_tags.hpp"

namespace compound_sparse {
namespace impl {

/// Loads element i of a [value][component] view. For AoS the components are
/// contiguous and the pointer is aligned (Kokkos allocations are), so the value
/// is read whole: one or two wide loads instead of one per component.
template <class Value, class Inner, class View>
KOKKOS_INLINE_FUNCTION Value load_value(const View& view, int i) {
  if constexpr (std::is_same<Inner, Aos>::value) {
    return reinterpret_cast<const Value*>(view.data())[i];
  } else {
    using traits = component_traits<Value>;
    Value v;
    for (int c = 0; c < traits::size; ++c) traits::get(v, c) = view(i, c);
    return v;
  }
}

template <class Value, class Inner, class View>
KOKKOS_INLINE_FUNCTION void store_value(const View& view, int i, const Value& v) {
  if constexpr (std::is_same<Inner, Aos>::value) {
    reinterpret_cast<Value*>(view.data())[i] = v;
  } else {
    using traits = component_traits<Value>;
    for (int c = 0; c < traits::size; ++c) view(i, c) = traits::get(v, c);
  }
}

}  // namespace impl
}  // namespace compound_sparse
