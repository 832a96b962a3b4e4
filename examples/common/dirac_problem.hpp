#pragma once
// The Dirac examples' problem: E = D - ρ on a torus (Crane, Pinkall, Schröder 2011,
// zoo/dirac.hpp) with a prescribed change of curvature ρ per triangle, and the bound on ||E||
// their residuals are measured against.

#include <algorithm>
#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/zoo/dirac.hpp>
#include <compound_sparse/zoo/triangle_mesh.hpp>
#include <vector>

namespace examples {

/// Curvature change per triangle: smooth in the centroid, without the torus' symmetries.
inline std::vector<double> curvature_change(const compound_sparse::zoo::TriangleMesh& mesh) {
  std::vector<double> rho;
  for (const auto& t : mesh.triangles) {
    double c[3] = {0, 0, 0};
    for (int corner : t)
      for (int d = 0; d < 3; ++d) c[d] += mesh.vertices[corner][d] / 3;
    rho.push_back(2.0 * c[2] + std::sin(3.0 * c[0]) + 0.5 * c[1]);
  }
  return rho;
}

/// E on the 2n x n torus.
inline compound_sparse::HostCsr<compound_sparse::Quaternion<double>> dirac_problem(int n) {
  const compound_sparse::zoo::TriangleMesh mesh = compound_sparse::zoo::torus_mesh(2 * n, n);
  return compound_sparse::zoo::dirac_operator(mesh, curvature_change(mesh));
}

/// ||E|| <= the largest row sum of |e_ij| (the quaternion norm): the residuals' scale.
inline double row_sum_bound(const compound_sparse::HostCsr<compound_sparse::Quaternion<double>>& e) {
  double bound = 0;
  for (int r = 0; r < e.num_rows; ++r) {
    double sum = 0;
    for (int k = e.row_offsets[r]; k < e.row_offsets[r + 1]; ++k) {
      const auto& q = e.values[k];
      sum += std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    }
    bound = std::max(bound, sum);
  }
  return bound;
}

}  // namespace examples
