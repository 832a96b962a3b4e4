// examples/quick_start.cpp: y = A x for a small complex matrix, in the layout and schedule
// the library picks for it on the default device.
#include <compound_sparse.hpp>
#include <cstdio>

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const int n = 1000;
  std::vector<cs::CooEntry<C>> coo;  // (row, column, value), any order
  for (int i = 0; i < n; ++i) {
    coo.push_back({i, i, C(4, 1)});
    if (i > 0) coo.push_back({i, i - 1, C(-1, 0)});
    if (i + 1 < n) coo.push_back({i, i + 1, C(-1, 0)});
  }
  cs::HostCsr<C> host = cs::csr_from_coo<C>(n, n, coo);  // duplicates are summed
  cs::TunedSpmv<C> op(host);                             // picks layout and schedule, copies A there
  auto x = op.make_vector(std::vector<C>(n, C(1, 0)));   // vectors in the layout it picked
  auto y = op.make_vector(std::vector<C>(n));
  op.apply(C(1, 0), x, C(0, 0), y);  // y = 1 A x + 0 y
  std::vector<C> result = y.to_host();
  std::printf("variant %s\n", op.variant().name().c_str());  // op.explanation() says why
  std::printf("y[0] = %g%+gi, y[1] = %g%+gi\n", result[0].real(), result[0].imag(), result[1].real(), result[1].imag());
  return result[1] == C(2, 1) ? 0 : 1;  // row 1: -1 + (4 + i) - 1
}
