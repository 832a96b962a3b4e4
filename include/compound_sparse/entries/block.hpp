#pragma once
// Dense e×e blocks acting on e-vectors: the entries of BSR matrices from
// vector-valued PDEs (3×3 for 3-D elasticity). Block<T, E> stores its values
// row-major: value(i, j) = v[i * E + j]. alpha and beta are real.

#include <Kokkos_Core.hpp>

#include "components.hpp"
#include "entry_traits.hpp"

namespace compound_sparse {

/// An E-vector, the vector element type of Block<T, E> matrices.
template <class T, int E>
struct BlockVector {
  static_assert(E >= 1, "block size must be positive");
  T v[E];

  KOKKOS_INLINE_FUNCTION T& operator[](int i) { return v[i]; }
  KOKKOS_INLINE_FUNCTION const T& operator[](int i) const { return v[i]; }
};

template <class T, int E>
struct Block {
  static_assert(E >= 1, "block size must be positive");
  T v[E * E];

  KOKKOS_INLINE_FUNCTION T& operator()(int i, int j) { return v[i * E + j]; }
  KOKKOS_INLINE_FUNCTION const T& operator()(int i, int j) const { return v[i * E + j]; }
};

template <class T, int E>
struct component_traits<BlockVector<T, E>> {
  using scalar_type = T;
  static constexpr int size = E;
  KOKKOS_INLINE_FUNCTION static T& get(BlockVector<T, E>& b, int c) { return b.v[c]; }
  KOKKOS_INLINE_FUNCTION static T get(const BlockVector<T, E>& b, int c) { return b.v[c]; }
};

template <class T, int E>
struct component_traits<Block<T, E>> {
  using scalar_type = T;
  static constexpr int size = E * E;
  KOKKOS_INLINE_FUNCTION static T& get(Block<T, E>& b, int c) { return b.v[c]; }
  KOKKOS_INLINE_FUNCTION static T get(const Block<T, E>& b, int c) { return b.v[c]; }
};

template <class T, int E>
struct entry_traits<Block<T, E>> {
  using vector_type = BlockVector<T, E>;
  using coefficient_type = T;
  template <class S>
  using rebind = Block<S, E>;

  KOKKOS_INLINE_FUNCTION static vector_type zero() {
    vector_type z;
    for (int i = 0; i < E; ++i) z.v[i] = T(0);
    return z;
  }
  // Explicit fused multiply-adds, and a scale the compiler cannot fuse with RowResult's add
  // of alpha A x and beta y: every kernel rounds alike (impl/fused_arithmetic.hpp).
  KOKKOS_INLINE_FUNCTION static void multiply_add(vector_type& acc, const Block<T, E>& a, const vector_type& x) {
    for (int i = 0; i < E; ++i)
      for (int j = 0; j < E; ++j) acc.v[i] = impl::fused_multiply_add(a.v[i * E + j], x.v[j], acc.v[i]);
  }
  KOKKOS_INLINE_FUNCTION static vector_type scale(T alpha, const vector_type& u) {
    vector_type r;
    for (int i = 0; i < E; ++i) r.v[i] = impl::unfused_multiply(alpha, u.v[i]);
    return r;
  }
  KOKKOS_INLINE_FUNCTION static vector_type add(const vector_type& u, const vector_type& w) {
    vector_type r;
    for (int i = 0; i < E; ++i) r.v[i] = u.v[i] + w.v[i];
    return r;
  }
};

}  // namespace compound_sparse
