#include "compound_sparse/zoo/rigid_links.hpp"

#include <algorithm>
#include <cmath>

#include "compound_sparse/zoo/elasticity.hpp"

namespace compound_sparse {
namespace zoo {

namespace {

using B = Block<double, 3>;

B scaled_identity(double s) {
  B b{};
  for (int i = 0; i < 3; ++i) b(i, i) = s;
  return b;
}

B transposed(const B& b) {
  B t;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) t(i, j) = b(j, i);
  return t;
}

/// s [r]_x, the matrix of v -> s (r x v).
B cross_matrix(const Point3& r, double s) {
  B b{};
  b(0, 1) = -(s * r[2]), b(0, 2) = s * r[1];
  b(1, 0) = s * r[2], b(1, 2) = -(s * r[0]);
  b(2, 0) = -(s * r[1]), b(2, 1) = s * r[0];
  return b;
}

}  // namespace

HostCsr<B> add_rigid_links(const HostCsr<B>& k, const std::vector<Point3>& points, const std::vector<RigidLink>& links,
                           double penalty) {
  validate(k, "add_rigid_links");
  COMPOUND_SPARSE_REQUIRE(k.num_rows == k.num_cols && points.size() == static_cast<std::size_t>(k.num_rows),
                          "rigid links need a square matrix with a point per block row, got "
                              << k.num_rows << " x " << k.num_cols << " blocks and " << points.size() << " points");
  COMPOUND_SPARSE_REQUIRE(penalty > 0, "the penalty must be positive, got " << penalty);
  const int nodes = k.num_rows, n = nodes + 2 * static_cast<int>(links.size());
  std::vector<CooEntry<B>> coo;
  for (std::size_t l = 0; l < links.size(); ++l) {
    const int m = nodes + 2 * static_cast<int>(l), theta = m + 1;
    const auto& x_m = links[l].master;
    const B plus = scaled_identity(penalty), minus = scaled_identity(-penalty);
    for (int s : links[l].slaves) {
      COMPOUND_SPARSE_REQUIRE(s >= 0 && s < nodes, "rigid link " << l << " has slave " << s << " of " << nodes);
      const Point3 r{points[s][0] - x_m[0], points[s][1] - x_m[1], points[s][2] - x_m[2]};
      const B s_theta = cross_matrix(r, penalty), m_theta = cross_matrix(r, -penalty);
      B theta_theta;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          theta_theta(i, j) =
              penalty * (i == j ? r[(i + 1) % 3] * r[(i + 1) % 3] + r[(i + 2) % 3] * r[(i + 2) % 3] : -(r[i] * r[j]));
      coo.push_back({s, s, plus});
      coo.push_back({s, m, minus});
      coo.push_back({m, s, minus});
      coo.push_back({s, theta, s_theta});
      coo.push_back({theta, s, transposed(s_theta)});
      coo.push_back({m, m, plus});
      coo.push_back({m, theta, m_theta});
      coo.push_back({theta, m, transposed(m_theta)});
      coo.push_back({theta, theta, theta_theta});
    }
  }
  // Summed in slave order, so (j, i) gets the transposes of (i, j)'s terms in the same order: exact symmetry.
  const auto e = csr_from_coo(n, n, std::move(coo));
  HostCsr<B> sum;
  sum.num_rows = sum.num_cols = n;
  sum.row_offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  sum.col_indices.reserve(k.num_entries() + e.num_entries());
  sum.values.reserve(k.num_entries() + e.num_entries());
  for (int r = 0; r < n; ++r) {
    int p = r < nodes ? k.row_offsets[r] : 0, p_end = r < nodes ? k.row_offsets[r + 1] : 0;
    int q = e.row_offsets[r];
    const int q_end = e.row_offsets[r + 1];
    while (p < p_end || q < q_end) {  // merge two sorted rows, adding where both have the column
      const int cp = p < p_end ? k.col_indices[p] : n, cq = q < q_end ? e.col_indices[q] : n;
      sum.col_indices.push_back(std::min(cp, cq));
      sum.values.push_back(cp == cq ? add_components(k.values[p], e.values[q]) : cp < cq ? k.values[p] : e.values[q]);
      p += cp <= cq;
      q += cq <= cp;
    }
    sum.row_offsets[r + 1] = static_cast<int>(sum.col_indices.size());
  }
  return sum;
}

HostCsr<B> rigid_link_elasticity(int n, double cap_fraction) {
  COMPOUND_SPARSE_REQUIRE(n >= 4 && cap_fraction > 0 && cap_fraction < 1,
                          "rigid_link_elasticity needs n >= 4 cubes per side and a cap fraction in (0, 1), got n = "
                              << n << ", " << cap_fraction);
  const auto mesh = box_mesh(n, n, n);
  const auto lame = lame_parameters(1.0, 0.3);
  auto k = elasticity_matrix(mesh, lame.first, lame.second);
  const int side = n + 1;
  const auto node = [side](int i, int j, int layer) { return (layer * side + j) * side + i; };  // x fastest
  std::vector<char> fixed(mesh.points.size(), 0);
  for (int j = 0; j < side; ++j)
    for (int i = 0; i < side; ++i) fixed[node(i, j, 0)] = 1;
  apply_dirichlet(k, fixed);
  double largest = 0;
  for (int r = 0; r < k.num_rows; ++r)
    for (int p = k.row_offsets[r]; p < k.row_offsets[r + 1]; ++p)
      if (k.col_indices[p] == r)
        for (int i = 0; i < 3; ++i) largest = std::max(largest, k.values[p](i, i));

  // At least one layer, and never the clamped one.
  const int cap_layers = std::min(side - 1, std::max(1, static_cast<int>(cap_fraction * side)));
  const int first_cap = side - cap_layers;
  std::vector<RigidLink> links(5);
  links[0].master = {0.5, 0.5, 1.1};
  for (int layer = first_cap; layer < side; ++layer)
    for (int j = 0; j < side; ++j)
      for (int i = 0; i < side; ++i) links[0].slaves.push_back(node(i, j, layer));
  links[1].master = {-0.1, 0.5, 0.5};
  links[2].master = {1.1, 0.5, 0.5};
  links[3].master = {0.5, -0.1, 0.5};
  links[4].master = {0.5, 1.1, 0.5};
  for (int layer = 1; layer < first_cap; ++layer) {
    for (int j = 0; j < side; ++j) {
      links[1].slaves.push_back(node(0, j, layer));
      links[2].slaves.push_back(node(n, j, layer));
    }
    for (int i = 1; i < n; ++i) {
      links[3].slaves.push_back(node(i, 0, layer));
      links[4].slaves.push_back(node(i, n, layer));
    }
  }
  return add_rigid_links(k, mesh.points, links, 1000 * largest);
}

}  // namespace zoo
}  // namespace compound_sparse
