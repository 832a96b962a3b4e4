#pragma once
// Linear (P1) tetrahedral elements of a zoo mesh, shared by the elasticity and Helmholtz
// assemblies: the cell's geometry by fem/p1_elements.hpp, the functions the device assembly
// runs, so that the host reference and the device agree bit for bit.

#include <cmath>

#include "compound_sparse/error.hpp"
#include "compound_sparse/fem/p1_elements.hpp"
#include "compound_sparse/zoo/tet_mesh.hpp"

namespace compound_sparse {
namespace zoo {
namespace detail {

/// Throws for a degenerate tetrahedron (zero volume).
inline P1Tet p1_tet(const TetMesh& mesh, int t) {
  double x[4][3];
  for (int a = 0; a < 4; ++a)
    for (int k = 0; k < 3; ++k) x[a][k] = mesh.points[mesh.tets[t][a]][k];
  P1Tet e;
  const double det = compound_sparse::p1_tet(x, e);
  COMPOUND_SPARSE_REQUIRE(det != 0 && std::isfinite(det), "tetrahedron " << t << " is degenerate");
  return e;
}

}  // namespace detail
}  // namespace zoo
}  // namespace compound_sparse
