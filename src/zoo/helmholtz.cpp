#include "compound_sparse/zoo/helmholtz.hpp"

#include <cmath>

#include "p1_tet.hpp"

namespace compound_sparse {
namespace zoo {

HostCsr<Kokkos::complex<double>> helmholtz_matrix(const TetMesh& mesh, double wavenumber) {
  const int n = static_cast<int>(mesh.points.size());
  return csr_from_coo(n, n, helmholtz_contributions(mesh, wavenumber));
}

std::vector<CooEntry<Kokkos::complex<double>>> helmholtz_contributions(const TetMesh& mesh, double wavenumber) {
  using C = Kokkos::complex<double>;
  const double k2 = wavenumber * wavenumber;
  std::vector<CooEntry<C>> coo;
  coo.reserve(mesh.tets.size() * 16);
  for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
    const auto e = detail::p1_tet(mesh, t);
    const auto& c = mesh.tets[t];
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) coo.push_back({c[a], c[b], C(p1_helmholtz_entry(e, a, b, k2), 0)});
  }
  // Impedance term on boundary triangles: P1 mass matrix area/12 (1 + delta_ab).
  for (const auto& f : boundary_faces(mesh)) {
    double x[3][3];
    for (int a = 0; a < 3; ++a)
      for (int i = 0; i < 3; ++i) x[a][i] = mesh.points[f[a]][i];
    const double area = p1_triangle_area(x);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) coo.push_back({f[a], f[b], C(0, p1_impedance_entry(area, a, b, wavenumber))});
  }
  return coo;
}

}  // namespace zoo
}  // namespace compound_sparse
