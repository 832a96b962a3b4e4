#include "compound_sparse/zoo/elasticity.hpp"

#include <algorithm>

#include "compound_sparse/fem/p2_elements.hpp"
#include "p1_tet.hpp"

namespace compound_sparse {
namespace zoo {

std::pair<double, double> lame_parameters(double young, double poisson) {
  COMPOUND_SPARSE_REQUIRE(young > 0 && poisson > -1 && poisson < 0.5,
                          "need E > 0 and -1 < nu < 1/2, got E = " << young << ", nu = " << poisson);
  return {young * poisson / ((1 + poisson) * (1 - 2 * poisson)), young / (2 * (1 + poisson))};
}

HostCsr<Block<double, 3>> elasticity_matrix(const TetMesh& mesh, double lambda, double mu) {
  const int n = static_cast<int>(mesh.points.size());
  return csr_from_coo(n, n, elasticity_contributions(mesh, lambda, mu));
}

std::vector<CooEntry<Block<double, 3>>> elasticity_contributions(const TetMesh& mesh, double lambda, double mu) {
  return elasticity_contributions(mesh, std::vector<double>(mesh.tets.size(), lambda),
                                  std::vector<double>(mesh.tets.size(), mu));
}

std::vector<CooEntry<Block<double, 3>>> elasticity_contributions(const TetMesh& mesh, const std::vector<double>& lambda,
                                                                 const std::vector<double>& mu) {
  COMPOUND_SPARSE_REQUIRE(lambda.size() == mesh.tets.size() && mu.size() == mesh.tets.size(),
                          "elasticity_contributions: " << lambda.size() << " lambdas and " << mu.size() << " mus for "
                                                       << mesh.tets.size() << " tetrahedra");
  using B = Block<double, 3>;
  std::vector<CooEntry<B>> coo;
  coo.reserve(mesh.tets.size() * 16);
  for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
    const auto e = detail::p1_tet(mesh, t);
    const auto& c = mesh.tets[t];
    // Blocks (b, a) are blocks (a, b) transposed bit for bit (p1_elasticity_block).
    for (int a = 0; a < 4; ++a)
      for (int b = a; b < 4; ++b) {
        coo.push_back({c[a], c[b], p1_elasticity_block(e, a, b, lambda[t], mu[t])});
        if (a != b) coo.push_back({c[b], c[a], p1_elasticity_block(e, b, a, lambda[t], mu[t])});
      }
  }
  return coo;
}

std::vector<std::array<int, 2>> mesh_edges(const TetMesh& mesh) {
  std::vector<std::array<int, 2>> edges;
  edges.reserve(6 * mesh.tets.size());
  for (const auto& t : mesh.tets)
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) edges.push_back({std::min(t[a], t[b]), std::max(t[a], t[b])});
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

std::vector<CooEntry<Block<double, 3>>> p2_elasticity_contributions(const TetMesh& mesh, double lambda, double mu) {
  return p2_elasticity_contributions(mesh, std::vector<double>(mesh.tets.size(), lambda),
                                     std::vector<double>(mesh.tets.size(), mu));
}

std::vector<CooEntry<Block<double, 3>>> p2_elasticity_contributions(const TetMesh& mesh,
                                                                    const std::vector<double>& lambda,
                                                                    const std::vector<double>& mu) {
  COMPOUND_SPARSE_REQUIRE(lambda.size() == mesh.tets.size() && mu.size() == mesh.tets.size(),
                          "p2_elasticity_contributions: " << lambda.size() << " lambdas and " << mu.size()
                                                          << " mus for " << mesh.tets.size() << " tetrahedra");
  const auto edges = mesh_edges(mesh);
  const int num_points = static_cast<int>(mesh.points.size());
  std::vector<CooEntry<Block<double, 3>>> coo;
  coo.reserve(mesh.tets.size() * 100);
  for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
    const auto e = detail::p1_tet(mesh, t);
    const auto& c = mesh.tets[t];
    int nodes[10];
    for (int a = 0; a < 4; ++a) nodes[a] = c[a];
    for (int k = 0; k < 6; ++k) {
      int i, j;
      tet_edge_corners(k, i, j);
      const std::array<int, 2> edge{std::min(c[i], c[j]), std::max(c[i], c[j])};
      nodes[4 + k] = num_points + static_cast<int>(std::lower_bound(edges.begin(), edges.end(), edge) - edges.begin());
    }
    for (int a = 0; a < 10; ++a)
      for (int b = 0; b < 10; ++b) coo.push_back({nodes[a], nodes[b], p2_elasticity_block(e, a, b, lambda[t], mu[t])});
  }
  return coo;
}

void apply_dirichlet(HostCsr<Block<double, 3>>& k, const std::vector<char>& fixed) {
  validate(k, "apply_dirichlet");
  COMPOUND_SPARSE_REQUIRE(fixed.size() == static_cast<std::size_t>(k.num_rows),
                          "fixed has " << fixed.size() << " flags for " << k.num_rows << " block rows");
  for (int r = 0; r < k.num_rows; ++r)
    for (int p = k.row_offsets[r]; p < k.row_offsets[r + 1]; ++p) {
      const int c = k.col_indices[p];
      if (!fixed[r] && !fixed[c]) continue;
      for (auto& v : k.values[p].v) v = 0;
      if (r == c)
        for (int i = 0; i < 3; ++i) k.values[p](i, i) = 1;
    }
}

}  // namespace zoo
}  // namespace compound_sparse
