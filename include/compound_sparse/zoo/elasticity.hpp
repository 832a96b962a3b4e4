#pragma once
// Linear elasticity with linear (P1) tetrahedra, assembled into a BSR matrix of
// 3x3 blocks: block (a, b) couples the displacements of nodes a and b,
//   K_ab = sum over tets of V (lambda g_a g_b^T + mu g_b g_a^T + mu (g_a . g_b) I),
// g_a the gradient of node a's basis function, lambda and mu the Lamé parameters.
// K is symmetric (K_ba = K_ab^T, bit for bit) and, before boundary conditions,
// has the six rigid-body motions in its null space.

#include <array>
#include <utility>
#include <vector>

#include "../entries/block.hpp"
#include "../layouts/host_csr.hpp"
#include "tet_mesh.hpp"

namespace compound_sparse {
namespace zoo {

/// Lamé parameters (lambda, mu) from Young's modulus and Poisson's ratio.
std::pair<double, double> lame_parameters(double young, double poisson);

/// The stiffness matrix, one block row per mesh point: csr_from_coo of
/// elasticity_contributions.
HostCsr<Block<double, 3>> elasticity_matrix(const TetMesh& mesh, double lambda, double mu);

/// The element stiffness blocks as contributions (row, column, block) with repeated
/// positions: 16 per tetrahedron, tetrahedron t's at [16 t, 16 t + 16). What an
/// assembly (CooAssembly, csr_from_coo) sums into the stiffness matrix.
std::vector<CooEntry<Block<double, 3>>> elasticity_contributions(const TetMesh& mesh, double lambda, double mu);

/// The same with Lamé parameters per tetrahedron (lambda[t], mu[t]: a modulus that varies in
/// space or changes from step to step), as P1Elasticity assembles on the device. Throws
/// InvalidInput unless both have one value per tetrahedron.
std::vector<CooEntry<Block<double, 3>>> elasticity_contributions(const TetMesh& mesh, const std::vector<double>& lambda,
                                                                 const std::vector<double>& mu);

/// The mesh's edges as vertex pairs (v, w), v < w, in increasing order: the P2 elements' edge
/// nodes, edge e being node num_points + e (the numbering fem/mesh_edges.hpp gives on the device).
std::vector<std::array<int, 2>> mesh_edges(const TetMesh& mesh);

/// Quadratic (P2) elasticity: nodes the points, then the edges (mesh_edges); 100 blocks per
/// tetrahedron, its ten nodes (corners, then edges in tet_edge_index's order) pairwise, from
/// fem/p2_elements.hpp's element matrix. csr_from_coo of them is the stiffness matrix.
std::vector<CooEntry<Block<double, 3>>> p2_elasticity_contributions(const TetMesh& mesh, double lambda, double mu);

/// The same with Lamé parameters per tetrahedron, as P2Elasticity assembles on the device.
/// Throws InvalidInput unless both have one value per tetrahedron.
std::vector<CooEntry<Block<double, 3>>> p2_elasticity_contributions(const TetMesh& mesh,
                                                                    const std::vector<double>& lambda,
                                                                    const std::vector<double>& mu);

/// Clamps the nodes with fixed[node] != 0 (homogeneous Dirichlet conditions) the
/// symmetric way: their block rows and columns become zero, their diagonal blocks
/// the identity. The sparsity pattern is kept, so the matrix stays symmetric.
void apply_dirichlet(HostCsr<Block<double, 3>>& k, const std::vector<char>& fixed);

}  // namespace zoo
}  // namespace compound_sparse
