// Downstream check of the installed package: one SpMV on a small complex
// matrix, compared with the host reference. Exit code 0 when they agree.

#include <compound_sparse.hpp>
#include <cstdio>
#include <vector>

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  // Tridiagonal complex matrix with 100 rows.
  const int n = 100;
  std::vector<cs::CooEntry<C>> coo;
  for (int i = 0; i < n; ++i) {
    coo.push_back({i, i, C(4.0, 0.5)});
    if (i > 0) coo.push_back({i, i - 1, C(-1.0, 0.25)});
    if (i + 1 < n) coo.push_back({i, i + 1, C(-1.0, -0.25)});
  }
  const cs::HostCsr<C> host = cs::csr_from_coo<C>(n, n, coo);
  std::vector<C> x_host(n);
  for (int i = 0; i < n; ++i) x_host[i] = C(1.0 + i, -0.5 * i);

  const auto a = cs::to_device<cs::SlicedEll<32>, cs::Soa>(host);
  const auto x = cs::to_device<cs::Aos>(x_host);
  const auto y = cs::to_device<cs::Aos>(std::vector<C>(n));
  cs::spmv(cs::DynamicWarpSchedule{}, C(1, 0), a, x, C(0, 0), y);
  const std::vector<C> result = cs::to_host(y);
  const auto reference = cs::reference_spmv<double>(C(1, 0), host, x_host, C(0, 0), std::vector<C>(n));

  double max_error = 0;
  for (int i = 0; i < n; ++i) max_error = std::max(max_error, Kokkos::abs(result[i] - reference[i]));
  std::printf("downstream: spmv on %s, max |y - reference| = %.3g\n", cs::default_device_info().backend.c_str(),
              max_error);
  return max_error < 1e-12 ? 0 : 1;
}
