#pragma once
// The quaternionic Dirac operator of Crane, Pinkall, Schröder, "Spin
// transformations of discrete surfaces" (SIGGRAPH 2011): the vertex-by-vertex
// matrix E = D - rho of their eigenvalue problem (E lambda = gamma lambda), with
// the sparsity of the mesh Laplacian (a vertex and its neighbours).
// Per triangle of area A with corners i, and e_i the edge opposite corner i as an
// imaginary quaternion (e_i = p_{i+2} - p_{i+1}):
//   E_ij += -e_i e_j / (4A) + rho / 6 (e_j - e_i) + A rho^2 / 9.
// The matrix is quaternion-hermitian, E_ji = conj(E_ij); for rho = 0 its real part
// is the cotangent Laplacian and the constant functions are in its null space.

#include <vector>

#include "../entries/quaternion.hpp"
#include "../layouts/host_csr.hpp"
#include "triangle_mesh.hpp"

namespace compound_sparse {
namespace zoo {

/// E = D - rho on `mesh` (vertices = rows), with `rho` one value per triangle
/// (empty: rho = 0). Triangles of zero area are rejected (use clean_mesh).
HostCsr<Quaternion<double>> dirac_operator(const TriangleMesh& mesh, const std::vector<double>& rho = {});

}  // namespace zoo
}  // namespace compound_sparse
