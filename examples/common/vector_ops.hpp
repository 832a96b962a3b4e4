#pragma once
// The vector kernels of the Krylov solvers in the examples — dot products,
// axpby, norms — as plain Kokkos kernels over a CompoundVector's scalar
// components, so they run wherever the vectors live (host or GPU) and work for
// every inner layout.

#include <Kokkos_Core.hpp>
#include <cmath>
#include <compound_sparse.hpp>
#include <vector>

namespace examples {

namespace cs = compound_sparse;

/// A new vector of x's type and size, zero.
template <class Vector>
Vector zeros_like(const Vector& x, const char* label = "v") {
  Vector v;
  v.data = typename Vector::view_type(std::string(label), x.size());
  return v;
}

/// Copies host values into a new vector of type Vector.
template <class Vector>
Vector make_vector(const std::vector<typename Vector::value_type>& host) {
  return cs::to_device<typename Vector::inner_layout, typename Vector::memory_space>(host);
}

/// Σ_i Σ_c x_ic y_ic: the Euclidean inner product of the vectors as real
/// arrays. It is Re(x^H y) for complex values and Re(Σ conj(x_i) y_i) for
/// quaternions, which makes a quaternion-hermitian matrix a symmetric real
/// operator, so real CG applies to it.
template <class Value, class Inner, class MemorySpace>
double real_dot(const cs::CompoundVector<Value, Inner, MemorySpace>& x,
                const cs::CompoundVector<Value, Inner, MemorySpace>& y) {
  using traits = cs::component_traits<Value>;
  const auto xd = x.data;
  const auto yd = y.data;
  double sum = 0;
  Kokkos::parallel_reduce(
      "examples::real_dot", Kokkos::RangePolicy<typename MemorySpace::execution_space>(0, x.size()),
      KOKKOS_LAMBDA(int i, double& s) {
        for (int c = 0; c < traits::size; ++c) s += static_cast<double>(xd(i, c)) * static_cast<double>(yd(i, c));
      },
      sum);
  return sum;
}

template <class Vector>
double norm2(const Vector& x) {
  return std::sqrt(real_dot(x, x));
}

/// x^T y = Σ_i x_i y_i without conjugation: the bilinear form of COCG.
template <class T, class Inner, class MemorySpace>
Kokkos::complex<T> bilinear_dot(const cs::CompoundVector<Kokkos::complex<T>, Inner, MemorySpace>& x,
                                const cs::CompoundVector<Kokkos::complex<T>, Inner, MemorySpace>& y) {
  const auto xd = x.data;
  const auto yd = y.data;
  Kokkos::complex<T> sum(0, 0);
  Kokkos::parallel_reduce(
      "examples::bilinear_dot", Kokkos::RangePolicy<typename MemorySpace::execution_space>(0, x.size()),
      KOKKOS_LAMBDA(int i, Kokkos::complex<T>& s) {
        s += Kokkos::complex<T>(xd(i, 0), xd(i, 1)) * Kokkos::complex<T>(yd(i, 0), yd(i, 1));
      },
      sum);
  return sum;
}

/// y = a x + b y with real a, b: component by component, for every value type.
template <class Value, class Inner, class MemorySpace>
void axpby(cs::scalar_type_t<Value> a, const cs::CompoundVector<Value, Inner, MemorySpace>& x,
           cs::scalar_type_t<Value> b, const cs::CompoundVector<Value, Inner, MemorySpace>& y) {
  using traits = cs::component_traits<Value>;
  const auto xd = x.data;
  const auto yd = y.data;
  Kokkos::parallel_for(
      "examples::axpby", Kokkos::RangePolicy<typename MemorySpace::execution_space>(0, x.size()), KOKKOS_LAMBDA(int i) {
        for (int c = 0; c < traits::size; ++c) yd(i, c) = a * xd(i, c) + b * yd(i, c);
      });
}

/// y = a x + b y with complex a, b on complex vectors.
template <class T, class Inner, class MemorySpace>
void axpby(Kokkos::complex<T> a, const cs::CompoundVector<Kokkos::complex<T>, Inner, MemorySpace>& x,
           Kokkos::complex<T> b, const cs::CompoundVector<Kokkos::complex<T>, Inner, MemorySpace>& y) {
  const auto xd = x.data;
  const auto yd = y.data;
  Kokkos::parallel_for(
      "examples::axpby", Kokkos::RangePolicy<typename MemorySpace::execution_space>(0, x.size()), KOKKOS_LAMBDA(int i) {
        const Kokkos::complex<T> v =
            a * Kokkos::complex<T>(xd(i, 0), xd(i, 1)) + b * Kokkos::complex<T>(yd(i, 0), yd(i, 1));
        yd(i, 0) = v.real();
        yd(i, 1) = v.imag();
      });
}

/// y = x.
template <class Vector>
void copy(const Vector& x, const Vector& y) {
  Kokkos::deep_copy(y.data, x.data);
}

}  // namespace examples
