#pragma once
// Component access: how a compound value decomposes into real scalars.
//
// The inner layouts (AoS / SoA) store every matrix entry and vector element as
// `size` scalars of `scalar_type`. component_traits<T> is the one place that
// says how to read and write component c of a T. It is specialised for the
// built-in scalars, Kokkos::complex, and by quaternion.hpp / block.hpp for the
// library's own types; a user-defined entry type specialises it too (see
// entry_traits.hpp).
//
// Requirements on T: trivially copyable, and laid out as exactly `size`
// consecutive scalars (sizeof(T) == size * sizeof(scalar_type)), so that an
// AoS array of T can be read as whole T values (wide loads on the GPU).

#include <Kokkos_Core.hpp>
#include <type_traits>

namespace compound_sparse {

template <class T, class Enable = void>
struct component_traits;  // not defined: specialise it for your type

/// Real scalars: one component.
template <class T>
struct component_traits<T, std::enable_if_t<std::is_floating_point<T>::value>> {
  using scalar_type = T;
  static constexpr int size = 1;
  KOKKOS_INLINE_FUNCTION static scalar_type& get(T& v, int) { return v; }
  KOKKOS_INLINE_FUNCTION static scalar_type get(const T& v, int) { return v; }
};

/// Kokkos::complex: real part is component 0, imaginary part component 1.
template <class T>
struct component_traits<Kokkos::complex<T>> {
  using scalar_type = T;
  static constexpr int size = 2;
  KOKKOS_INLINE_FUNCTION static scalar_type& get(Kokkos::complex<T>& v, int c) { return c == 0 ? v.real() : v.imag(); }
  KOKKOS_INLINE_FUNCTION static scalar_type get(const Kokkos::complex<T>& v, int c) {
    return c == 0 ? v.real() : v.imag();
  }
};

/// True when every component is zero (beta == 0 means "do not read y", for any coefficient type).
template <class T>
bool is_zero(const T& value) {
  using traits = component_traits<T>;
  for (int c = 0; c < traits::size; ++c)
    if (traits::get(value, c) != 0) return false;
  return true;
}

/// True when T can be stored through the inner layouts (see requirements above).
template <class T>
constexpr bool is_packed_compound() {
  using traits = component_traits<T>;
  return std::is_trivially_copyable<T>::value && sizeof(T) == traits::size * sizeof(typename traits::scalar_type);
}

}  // namespace compound_sparse
