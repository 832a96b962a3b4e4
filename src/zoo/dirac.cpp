#include "compound_sparse/zoo/dirac.hpp"

#include <cmath>

namespace compound_sparse {
namespace zoo {

HostCsr<Quaternion<double>> dirac_operator(const TriangleMesh& mesh, const std::vector<double>& rho) {
  using Q = Quaternion<double>;
  COMPOUND_SPARSE_REQUIRE(rho.empty() || rho.size() == mesh.triangles.size(),
                          "rho has " << rho.size() << " values for " << mesh.triangles.size() << " triangles");
  const int n = static_cast<int>(mesh.vertices.size());
  std::vector<CooEntry<Q>> coo;
  coo.reserve(mesh.triangles.size() * 9);
  for (std::size_t f = 0; f < mesh.triangles.size(); ++f) {
    const auto& t = mesh.triangles[f];
    for (int c : t) COMPOUND_SPARSE_REQUIRE(c >= 0 && c < n, "triangle " << f << " has vertex " << c << " of " << n);
    Q e[3];
    for (int i = 0; i < 3; ++i) {
      const auto& p = mesh.vertices[t[(i + 2) % 3]];
      const auto& q = mesh.vertices[t[(i + 1) % 3]];
      e[i] = {0, p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    }
    const Q normal = e[0] * e[1];  // imaginary part: e_0 x e_1, twice the area in length
    const double area = 0.5 * std::sqrt(normal.x * normal.x + normal.y * normal.y + normal.z * normal.z);
    COMPOUND_SPARSE_REQUIRE(area > 0, "triangle " << f << " has zero area (clean the mesh first)");
    const double r = rho.empty() ? 0.0 : rho[f];
    const double a = -1.0 / (4 * area), b = r / 6, c = area * r * r / 9;
    // Upper triangle computed, lower one mirrored: E_ji = conj(E_ij) holds bit for bit.
    for (int i = 0; i < 3; ++i)
      for (int j = i; j < 3; ++j) {
        const Q ee = e[i] * e[j];
        Q v{a * ee.w + c, a * ee.x + b * (e[j].x - e[i].x), a * ee.y + b * (e[j].y - e[i].y),
            a * ee.z + b * (e[j].z - e[i].z)};
        if (i == j) v.x = v.y = v.z = 0;  // e_i e_i = -|e_i|^2 is real; drop rounding noise
        coo.push_back({t[i], t[j], v});
        if (i != j) coo.push_back({t[j], t[i], v.conjugate()});
      }
  }
  return csr_from_coo(n, n, std::move(coo));
}

}  // namespace zoo
}  // namespace compound_sparse
