#include "compound_sparse/zoo/rmat.hpp"

#include <cmath>
#include <numeric>
#include <random>
#include <utility>

#include "portable_random.hpp"

namespace compound_sparse {
namespace zoo {

HostCsr<Kokkos::complex<double>> rmat_matrix(int scale, int edge_factor, std::uint32_t seed) {
  using C = Kokkos::complex<double>;
  COMPOUND_SPARSE_REQUIRE(
      scale >= 1 && scale <= 30 && edge_factor >= 1 && (static_cast<long long>(edge_factor) << scale) < (1LL << 31),
      "R-MAT needs 1 <= scale <= 30, edge_factor >= 1 and fewer than 2^31 edges, got scale "
          << scale << ", edge factor " << edge_factor);
  const int n = 1 << scale;
  const long long edges = static_cast<long long>(edge_factor) << scale;
  // Quadrant thresholds on one 32-bit draw u: (0,0) below a = 0.57, (0,1) below
  // a + b = 0.76, (1,0) below a + b + c = 0.95, else (1,1).
  constexpr double two32 = 4294967296.0;
  constexpr auto ta = static_cast<std::uint32_t>(0.57 * two32), tab = static_cast<std::uint32_t>(0.76 * two32),
                 tabc = static_cast<std::uint32_t>(0.95 * two32);
  std::mt19937 rng(seed);
  std::vector<CooEntry<C>> coo;
  coo.reserve(static_cast<std::size_t>(edges) + n);
  for (long long e = 0; e < edges; ++e) {
    int r = 0, c = 0;
    for (int level = 0; level < scale; ++level) {
      const std::uint32_t u = static_cast<std::uint32_t>(rng());
      r = 2 * r + (u >= tab);
      c = 2 * c + ((u >= ta && u < tab) || u >= tabc);
    }
    const double re = detail::uniform_signed(rng), im = detail::uniform_signed(rng);
    coo.push_back({r, c, C(re, im)});
  }
  // Relabel the vertices (Fisher-Yates); the diagonal's values are set below.
  std::vector<int> label(n);
  std::iota(label.begin(), label.end(), 0);
  for (int i = n - 1; i > 0; --i) std::swap(label[i], label[detail::uniform_below(rng, i + 1)]);
  for (auto& e : coo) e.row = label[e.row], e.col = label[e.col];
  for (int i = 0; i < n; ++i) coo.push_back({i, i, C(0, 0)});
  auto a = csr_from_coo(n, n, std::move(coo));
  for (int i = 0; i < n; ++i) {
    double sum = 0;
    int diagonal = -1;
    for (int p = a.row_offsets[i]; p < a.row_offsets[i + 1]; ++p) {
      if (a.col_indices[p] == i) {
        diagonal = p;
      } else {
        const double re = a.values[p].real(), im = a.values[p].imag();
        sum += std::sqrt(re * re + im * im);
      }
    }
    a.values[diagonal] = C(1 + sum, 0);
  }
  return a;
}

}  // namespace zoo
}  // namespace compound_sparse
