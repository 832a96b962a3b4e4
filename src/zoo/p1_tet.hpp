#pragma once
// Linear (P1) tetrahedral elements, shared by the elasticity and Helmholtz
// assemblies: gradients of the four barycentric basis functions and the volume.

#include <array>
#include <cmath>

#include "compound_sparse/error.hpp"
#include "compound_sparse/zoo/tet_mesh.hpp"

namespace compound_sparse {
namespace zoo {
namespace detail {

struct P1Tet {
  double volume;
  double grad[4][3];  ///< grad[a] = gradient of the basis function of corner a
};

/// Throws for a degenerate tetrahedron (zero volume).
inline P1Tet p1_tet(const TetMesh& mesh, int t) {
  const auto& p = mesh.points;
  const auto& c = mesh.tets[t];
  double j[3][3];  // rows: x_a - x_0 for a = 1, 2, 3
  for (int a = 0; a < 3; ++a)
    for (int k = 0; k < 3; ++k) j[a][k] = p[c[a + 1]][k] - p[c[0]][k];
  const double det = j[0][0] * (j[1][1] * j[2][2] - j[1][2] * j[2][1]) -
                     j[0][1] * (j[1][0] * j[2][2] - j[1][2] * j[2][0]) +
                     j[0][2] * (j[1][0] * j[2][1] - j[1][1] * j[2][0]);
  COMPOUND_SPARSE_REQUIRE(det != 0 && std::isfinite(det), "tetrahedron " << t << " is degenerate");
  P1Tet e;
  e.volume = std::abs(det) / 6;
  // grad(phi_a), a = 1..3, are the columns of J^{-1} (J's rows are the edge vectors):
  // the cross products of the other two edges divided by det.
  for (int a = 0; a < 3; ++a) {
    const auto& u = j[(a + 1) % 3];
    const auto& v = j[(a + 2) % 3];
    e.grad[a + 1][0] = (u[1] * v[2] - u[2] * v[1]) / det;
    e.grad[a + 1][1] = (u[2] * v[0] - u[0] * v[2]) / det;
    e.grad[a + 1][2] = (u[0] * v[1] - u[1] * v[0]) / det;
  }
  for (int k = 0; k < 3; ++k) e.grad[0][k] = -(e.grad[1][k] + e.grad[2][k] + e.grad[3][k]);
  return e;
}

}  // namespace detail
}  // namespace zoo
}  // namespace compound_sparse
