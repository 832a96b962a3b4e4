#pragma once
// Quadratic (P2) tetrahedral elements: ten nodes per cell, its four corners then its six edges
// in tet_edge_index's order ((0,1) (0,2) (0,3) (1,2) (1,3) (2,3)), and the entries of the
// elasticity element matrix. The gradients of P2 basis functions are linear in the barycentric
// coordinates L, so the stiffness integrand is quadratic and the 4-point rule of degree 2 is
// exact for it:
//
//   corner a:     N_a = L_a (2 L_a - 1),  grad N_a = (4 L_a - 1) grad L_a
//   edge (i, j):  N_ij = 4 L_i L_j,       grad N_ij = 4 (L_i grad L_j + L_j grad L_i)
//
// As p1_elements.hpp, every product is an unfused_multiply, so the host reference and the
// device give the same bits.

#include <Kokkos_Core.hpp>

#include "../entries/block.hpp"
#include "../impl/fused_arithmetic.hpp"
#include "p1_elements.hpp"

namespace compound_sparse {

/// The corners (i, j) of a tetrahedron's local edge k = tet_edge_index(i, j), i < j.
KOKKOS_INLINE_FUNCTION void tet_edge_corners(int k, int& i, int& j) {
  i = k < 3 ? 0 : k < 5 ? 1 : 2;
  j = k < 3 ? k + 1 : k < 5 ? k - 1 : 3;
}

/// The barycentric coordinate of corner c at point q of the 4-point rule of degree 2 (weights
/// 1/4): (5 + 3 sqrt 5)/20 at q's own corner, (5 - sqrt 5)/20 at the others.
KOKKOS_INLINE_FUNCTION double p2_quadrature_coordinate(int q, int c) {
  return q == c ? 0.5854101966249685 : 0.1381966011250105;
}

/// The gradient of P2 node a (0..9) at quadrature point q.
KOKKOS_INLINE_FUNCTION void p2_gradient(const P1Tet& e, int a, int q, double (&g)[3]) {
  using impl::unfused_multiply;
  if (a < 4) {
    const double factor = unfused_multiply(4.0, p2_quadrature_coordinate(q, a)) - 1.0;
    for (int d = 0; d < 3; ++d) g[d] = unfused_multiply(factor, e.grad[a][d]);
    return;
  }
  int i, j;
  tet_edge_corners(a - 4, i, j);
  const double li = p2_quadrature_coordinate(q, i), lj = p2_quadrature_coordinate(q, j);
  for (int d = 0; d < 3; ++d)
    g[d] = unfused_multiply(4.0, unfused_multiply(li, e.grad[j][d]) + unfused_multiply(lj, e.grad[i][d]));
}

/// Block (a, b) of the P2 linear-elasticity element matrix with Lamé parameters lambda, mu:
///   K_ab = V/4 sum_q (lambda g_a g_b^T + mu g_b g_a^T + mu (g_a . g_b) I), g at point q.
/// Computed for a <= b; K_ba is K_ab transposed and a diagonal block exactly symmetric, as
/// p1_elasticity_block.
KOKKOS_INLINE_FUNCTION Block<double, 3> p2_elasticity_block(const P1Tet& e, int a, int b, double lambda, double mu) {
  using impl::unfused_multiply;
  const bool transposed = put_corners_in_order(a, b);
  double sum[3][3] = {};
  for (int q = 0; q < 4; ++q) {
    double ga[3], gb[3];
    p2_gradient(e, a, q, ga);
    p2_gradient(e, b, q, gb);
    const double dot = unfused_multiply(ga[0], gb[0]) + unfused_multiply(ga[1], gb[1]) + unfused_multiply(ga[2], gb[2]);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        sum[i][j] += unfused_multiply(lambda, unfused_multiply(ga[i], gb[j])) +
                     unfused_multiply(mu, unfused_multiply(gb[i], ga[j])) + (i == j ? unfused_multiply(mu, dot) : 0.0);
  }
  const double weight = e.volume / 4;
  Block<double, 3> k;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) k(i, j) = unfused_multiply(weight, sum[i][j]);
  return orient_element_block(k, a == b, transposed);
}

}  // namespace compound_sparse
