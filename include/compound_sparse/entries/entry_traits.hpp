#pragma once
// The entry-type concept: what the SpMV kernels need to know about a matrix entry.
//
// A matrix entry type `Entry` acts on vector elements of type `vector_type`
// (for complex and quaternion entries they are the same type; a dense e×e block
// acts on e-vectors). To plug in your own entry type, specialise
//
//   template <> struct compound_sparse::entry_traits<MyEntry> {
//     using vector_type      = ...;  // element type of x and y
//     using coefficient_type = ...;  // type of alpha and beta
//     template <class S> using rebind = ...;  // MyEntry over scalar S (used for
//                                              // the double-precision reference)
//     KOKKOS_INLINE_FUNCTION static vector_type zero();
//     // acc += a * x
//     KOKKOS_INLINE_FUNCTION static void multiply_add(vector_type& acc, const MyEntry& a,
//                                                     const vector_type& x);
//     // returns alpha * v
//     KOKKOS_INLINE_FUNCTION static vector_type scale(const coefficient_type& alpha,
//                                                     const vector_type& v);
//     // returns u + v
//     KOKKOS_INLINE_FUNCTION static vector_type add(const vector_type& u, const vector_type& v);
//   };
//
// and component_traits (components.hpp) for MyEntry, its vector_type and its
// coefficient_type. unit_tests/test_user_entry.cpp defines dual numbers this way.

#include <Kokkos_Core.hpp>

#include "../impl/fused_arithmetic.hpp"
#include "components.hpp"

namespace compound_sparse {

template <class Entry>
struct entry_traits;  // not defined: specialise it for your entry type

/// Complex entries: y and x are complex, alpha/beta are complex.
template <class T>
struct entry_traits<Kokkos::complex<T>> {
  using vector_type = Kokkos::complex<T>;
  using coefficient_type = Kokkos::complex<T>;
  template <class S>
  using rebind = Kokkos::complex<S>;

  KOKKOS_INLINE_FUNCTION static vector_type zero() { return vector_type(T(0), T(0)); }
  // Four explicit fused multiply-adds, and a scale whose products the compiler cannot fuse
  // with the add after it: every kernel then rounds alike (impl/fused_arithmetic.hpp).
  KOKKOS_INLINE_FUNCTION static void multiply_add(vector_type& acc, const Kokkos::complex<T>& a, const vector_type& x) {
    acc.real() =
        impl::fused_multiply_add(a.real(), x.real(), impl::fused_multiply_add(-a.imag(), x.imag(), acc.real()));
    acc.imag() = impl::fused_multiply_add(a.real(), x.imag(), impl::fused_multiply_add(a.imag(), x.real(), acc.imag()));
  }
  KOKKOS_INLINE_FUNCTION static vector_type scale(const coefficient_type& alpha, const vector_type& v) {
    return vector_type(
        impl::fused_multiply_add(alpha.real(), v.real(), -impl::unfused_multiply(alpha.imag(), v.imag())),
        impl::fused_multiply_add(alpha.real(), v.imag(), impl::unfused_multiply(alpha.imag(), v.real())));
  }
  KOKKOS_INLINE_FUNCTION static vector_type add(const vector_type& u, const vector_type& v) { return u + v; }
};

/// Shorthands used throughout the library.
template <class Entry>
using vector_type_t = typename entry_traits<Entry>::vector_type;
template <class Entry>
using coefficient_type_t = typename entry_traits<Entry>::coefficient_type;
template <class Entry>
using scalar_type_t = typename component_traits<Entry>::scalar_type;

}  // namespace compound_sparse
