#pragma once
// A Kokkos reducer that sums compound vector elements through entry_traits,
// so that vector lanes sharing a row can reduce any entry type (Kokkos::Sum
// would need reduction_identity and operator+= for every user type).

#include <Kokkos_Core.hpp>

#include "../entries/entry_traits.hpp"

namespace compound_sparse {
namespace impl {

template <class Entry, class Space>
struct VectorSum {
  using traits = entry_traits<Entry>;
  using reducer = VectorSum;
  using value_type = typename traits::vector_type;
  using result_view_type = Kokkos::View<value_type, Space, Kokkos::MemoryUnmanaged>;

  KOKKOS_INLINE_FUNCTION explicit VectorSum(value_type& value) : value_(&value) {}

  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const { dest = traits::add(dest, src); }
  KOKKOS_INLINE_FUNCTION void init(value_type& value) const { value = traits::zero(); }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *value_; }
  result_view_type view() const { return result_view_type(value_); }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }

 private:
  value_type* value_;
};

}  // namespace impl
}  // namespace compound_sparse
