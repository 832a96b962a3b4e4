#pragma once
// Quaternion<T> = w + x i + y j + z k with the Hamilton product
// (i² = j² = k² = ijk = -1). As a matrix entry it acts on quaternion vector
// elements by left multiplication: (A x)_r = Σ_c A_rc · x_c. alpha and beta are
// real, because only real scalars commute with quaternions.

#include <Kokkos_Core.hpp>

#include "components.hpp"
#include "entry_traits.hpp"

namespace compound_sparse {

template <class T>
struct alignas(4 * sizeof(T) >= 16 ? 16 : 4 * sizeof(T)) Quaternion {
  T w, x, y, z;

  KOKKOS_INLINE_FUNCTION friend Quaternion operator+(const Quaternion& a, const Quaternion& b) {
    return {a.w + b.w, a.x + b.x, a.y + b.y, a.z + b.z};
  }
  KOKKOS_INLINE_FUNCTION friend Quaternion operator*(const Quaternion& a, const Quaternion& b) {
    return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
  }
  KOKKOS_INLINE_FUNCTION friend Quaternion operator*(T s, const Quaternion& q) {
    return {s * q.w, s * q.x, s * q.y, s * q.z};
  }
  KOKKOS_INLINE_FUNCTION friend bool operator==(const Quaternion& a, const Quaternion& b) {
    return a.w == b.w && a.x == b.x && a.y == b.y && a.z == b.z;
  }
  KOKKOS_INLINE_FUNCTION Quaternion conjugate() const { return {w, -x, -y, -z}; }
};

template <class T>
struct component_traits<Quaternion<T>> {
  using scalar_type = T;
  static constexpr int size = 4;
  KOKKOS_INLINE_FUNCTION static T& get(Quaternion<T>& q, int c) {
    return c == 0 ? q.w : c == 1 ? q.x : c == 2 ? q.y : q.z;
  }
  KOKKOS_INLINE_FUNCTION static T get(const Quaternion<T>& q, int c) {
    return c == 0 ? q.w : c == 1 ? q.x : c == 2 ? q.y : q.z;
  }
};

template <class T>
struct entry_traits<Quaternion<T>> {
  using vector_type = Quaternion<T>;
  using coefficient_type = T;
  template <class S>
  using rebind = Quaternion<S>;

  KOKKOS_INLINE_FUNCTION static vector_type zero() { return {T(0), T(0), T(0), T(0)}; }
  // The Hamilton product's sixteen terms as explicit fused multiply-adds into acc, and a
  // scale the compiler cannot fuse: every kernel rounds alike (impl/fused_arithmetic.hpp).
  KOKKOS_INLINE_FUNCTION static void multiply_add(vector_type& acc, const Quaternion<T>& a, const vector_type& b) {
    acc.w = add_products(acc.w, a.w, b.w, -a.x, b.x, -a.y, b.y, -a.z, b.z);
    acc.x = add_products(acc.x, a.w, b.x, a.x, b.w, a.y, b.z, -a.z, b.y);
    acc.y = add_products(acc.y, a.w, b.y, -a.x, b.z, a.y, b.w, a.z, b.x);
    acc.z = add_products(acc.z, a.w, b.z, a.x, b.y, -a.y, b.x, a.z, b.w);
  }
  KOKKOS_INLINE_FUNCTION static vector_type scale(T alpha, const vector_type& v) {
    return {impl::unfused_multiply(alpha, v.w), impl::unfused_multiply(alpha, v.x), impl::unfused_multiply(alpha, v.y),
            impl::unfused_multiply(alpha, v.z)};
  }
  KOKKOS_INLINE_FUNCTION static vector_type add(const vector_type& u, const vector_type& v) { return u + v; }

 private:
  /// acc + p0 q0 + p1 q1 + p2 q2 + p3 q3, the last product added first.
  KOKKOS_INLINE_FUNCTION static T add_products(T acc, T p0, T q0, T p1, T q1, T p2, T q2, T p3, T q3) {
    using impl::fused_multiply_add;
    return fused_multiply_add(p0, q0,
                              fused_multiply_add(p1, q1, fused_multiply_add(p2, q2, fused_multiply_add(p3, q3, acc))));
  }
};

}  // namespace compound_sparse
