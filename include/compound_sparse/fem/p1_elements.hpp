#pragma once
// Linear (P1) tetrahedral elements: the geometry of one cell (its volume and the gradients of
// its four barycentric basis functions) and the entries of the element matrices that the zoo's
// elasticity and Helmholtz problems sum. The same functions run in the host reference
// (zoo::elasticity_contributions, zoo::helmholtz_contributions) and in the device assembly
// (lagrange_assembly.hpp), so the two agree bit for bit as long as no compiler changes the rounding:
// every product is an unfused_multiply (impl/fused_arithmetic.hpp), because nvcc would
// otherwise contract `a * b + c` into one fused multiply-add that the host does not do.

#include <Kokkos_Core.hpp>
#include <cmath>

#include "../entries/block.hpp"
#include "../impl/fused_arithmetic.hpp"

namespace compound_sparse {

/// One P1 tetrahedron's geometry.
struct P1Tet {
  double volume;      ///< positive for either orientation
  double grad[4][3];  ///< grad[a]: the gradient of corner a's basis function
};

/// grad[0] from grad[1..3]: the basis functions sum to one, so their gradients to zero.
KOKKOS_INLINE_FUNCTION void p1_set_first_gradient(P1Tet& e) {
  for (int k = 0; k < 3; ++k) e.grad[0][k] = -(e.grad[1][k] + e.grad[2][k] + e.grad[3][k]);
}

/// The geometry of the tetrahedron with corners x[0..3]; returns the determinant of its edge
/// vectors x[a] - x[0] (0 or not finite for a cell without volume, whose gradients are then
/// meaningless).
KOKKOS_INLINE_FUNCTION double p1_tet(const double (&x)[4][3], P1Tet& e) {
  using impl::unfused_multiply;
  double j[3][3];  // rows: x_a - x_0 for a = 1, 2, 3
  for (int a = 0; a < 3; ++a)
    for (int k = 0; k < 3; ++k) j[a][k] = x[a + 1][k] - x[0][k];
  const double det =
      unfused_multiply(j[0][0], unfused_multiply(j[1][1], j[2][2]) - unfused_multiply(j[1][2], j[2][1])) -
      unfused_multiply(j[0][1], unfused_multiply(j[1][0], j[2][2]) - unfused_multiply(j[1][2], j[2][0])) +
      unfused_multiply(j[0][2], unfused_multiply(j[1][0], j[2][1]) - unfused_multiply(j[1][1], j[2][0]));
  e.volume = (det < 0 ? -det : det) / 6;
  // grad(phi_a), a = 1..3, are the columns of J^{-1} (J's rows are the edge vectors): the cross
  // products of the other two edges divided by det.
  for (int a = 0; a < 3; ++a) {
    const double* u = j[(a + 1) % 3];
    const double* v = j[(a + 2) % 3];
    e.grad[a + 1][0] = (unfused_multiply(u[1], v[2]) - unfused_multiply(u[2], v[1])) / det;
    e.grad[a + 1][1] = (unfused_multiply(u[2], v[0]) - unfused_multiply(u[0], v[2])) / det;
    e.grad[a + 1][2] = (unfused_multiply(u[0], v[1]) - unfused_multiply(u[1], v[0])) / det;
  }
  p1_set_first_gradient(e);
  return det;
}

/// A P1Tet as the assemblies that keep every cell's geometry store it: its volume and the
/// gradients of corners 1-3. Corner 0's gradient is their negated sum, recomputed on load by
/// p1_tet's own expression, so the loaded geometry has the same bits; a fifth less to keep and
/// to read for a row gather, which loads a cell's geometry whole.
struct P1StoredTet {
  double volume;
  double grad[3][3];  ///< grad[a]: the gradient of corner a + 1's basis function
};

/// What a P1StoredTet keeps of e.
KOKKOS_INLINE_FUNCTION P1StoredTet p1_stored(const P1Tet& e) {
  P1StoredTet s;
  s.volume = e.volume;
  for (int a = 0; a < 3; ++a)
    for (int k = 0; k < 3; ++k) s.grad[a][k] = e.grad[a + 1][k];
  return s;
}

/// The P1Tet that s was stored from, bit for bit.
KOKKOS_INLINE_FUNCTION P1Tet p1_loaded(const P1StoredTet& s) {
  P1Tet e;
  e.volume = s.volume;
  for (int a = 0; a < 3; ++a)
    for (int k = 0; k < 3; ++k) e.grad[a + 1][k] = s.grad[a][k];
  p1_set_first_gradient(e);
  return e;
}

/// g_a . g_b.
KOKKOS_INLINE_FUNCTION double p1_gradient_dot(const P1Tet& e, int a, int b) {
  using impl::unfused_multiply;
  const double* ga = e.grad[a];
  const double* gb = e.grad[b];
  return unfused_multiply(ga[0], gb[0]) + unfused_multiply(ga[1], gb[1]) + unfused_multiply(ga[2], gb[2]);
}

/// Swaps corners a and b into a <= b; true if it swapped, when the block wanted is the
/// transpose of the one computed (orient_element_block).
KOKKOS_INLINE_FUNCTION bool put_corners_in_order(int& a, int& b) {
  if (a <= b) return false;
  const int t = a;
  a = b;
  b = t;
  return true;
}

/// An element block K_ab computed for a <= b, made what the element matrix holds: on the
/// diagonal (a == b) exactly symmetric, its lower triangle the upper one; K_ba (transposed) its
/// transpose. So the assembled matrix is symmetric bit for bit.
KOKKOS_INLINE_FUNCTION Block<double, 3> orient_element_block(Block<double, 3> k, bool diagonal, bool transposed) {
  if (diagonal || transposed)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < i; ++j) {
        const double upper = k(j, i);
        k(j, i) = diagonal ? upper : k(i, j);
        k(i, j) = upper;
      }
  return k;
}

/// Block (a, b) of the P1 linear-elasticity element matrix with Lamé parameters lambda, mu:
///   K_ab = V (lambda g_a g_b^T + mu g_b g_a^T + mu (g_a . g_b) I).
/// Computed for a <= b; K_ba is K_ab transposed and a diagonal block is made exactly
/// symmetric, so the assembled matrix is symmetric bit for bit.
KOKKOS_INLINE_FUNCTION Block<double, 3> p1_elasticity_block(const P1Tet& e, int a, int b, double lambda, double mu) {
  using impl::unfused_multiply;
  const bool transposed = put_corners_in_order(a, b);
  const double* ga = e.grad[a];
  const double* gb = e.grad[b];
  const double dot = p1_gradient_dot(e, a, b);
  Block<double, 3> k;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      k(i, j) = unfused_multiply(e.volume, unfused_multiply(lambda, unfused_multiply(ga[i], gb[j])) +
                                               unfused_multiply(mu, unfused_multiply(gb[i], ga[j])) +
                                               (i == j ? unfused_multiply(mu, dot) : 0.0));
  return orient_element_block(k, a == b, transposed);
}

/// Entry (a, b) of the P1 Helmholtz element matrix for wavenumber k (k2 = k * k): the
/// stiffness V g_a . g_b minus k2 times the mass V/20 (1 + delta_ab). Real; symmetric in a, b.
KOKKOS_INLINE_FUNCTION double p1_helmholtz_entry(const P1Tet& e, int a, int b, double k2) {
  using impl::unfused_multiply;
  const double stiffness = unfused_multiply(e.volume, p1_gradient_dot(e, a, b));
  const double mass = unfused_multiply(e.volume / 20, a == b ? 2.0 : 1.0);
  return stiffness - unfused_multiply(k2, mass);
}

/// The area of the triangle with corners x[0..2] (from the cross product of x[1] - x[0] and
/// x[2] - x[0]: which corner comes first changes the last bits).
KOKKOS_INLINE_FUNCTION double p1_triangle_area(const double (&x)[3][3]) {
  using impl::unfused_multiply;
  double u[3], v[3];
  for (int i = 0; i < 3; ++i) {
    u[i] = x[1][i] - x[0][i];
    v[i] = x[2][i] - x[0][i];
  }
  const double nx = unfused_multiply(u[1], v[2]) - unfused_multiply(u[2], v[1]);
  const double ny = unfused_multiply(u[2], v[0]) - unfused_multiply(u[0], v[2]);
  const double nz = unfused_multiply(u[0], v[1]) - unfused_multiply(u[1], v[0]);
  const double squared = unfused_multiply(nx, nx) + unfused_multiply(ny, ny) + unfused_multiply(nz, nz);
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return 0.5 * ::sqrt(squared);  // correctly rounded, as std::sqrt
#else
  return 0.5 * std::sqrt(squared);
#endif
}

/// Entry (a, b) of the P1 impedance (absorbing) boundary term of the Helmholtz operator on a
/// boundary triangle of area `area`: -i k area/12 (1 + delta_ab), its imaginary part.
KOKKOS_INLINE_FUNCTION double p1_impedance_entry(double area, int a, int b, double wavenumber) {
  using impl::unfused_multiply;
  return unfused_multiply(unfused_multiply(-wavenumber, area) / 12, a == b ? 2.0 : 1.0);
}

}  // namespace compound_sparse
