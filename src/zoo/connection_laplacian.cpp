#include "compound_sparse/zoo/connection_laplacian.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "portable_random.hpp"

namespace compound_sparse {
namespace zoo {

namespace {

constexpr int kHubs = 4;  // hub h links to n >> (h + 2) vertices

/// The graph's edges, each once as (smaller << 32 | larger), sorted.
std::vector<std::uint64_t> hub_graph(int n, int m, std::mt19937& rng) {
  std::vector<std::uint64_t> edges;
  edges.reserve(static_cast<std::size_t>(m) * n + n / 2);
  const auto add = [&](int a, int b) {
    edges.push_back(static_cast<std::uint64_t>(std::min(a, b)) << 32 | static_cast<std::uint32_t>(std::max(a, b)));
  };
  // Every edge's two ends: drawing from this list picks a vertex in proportion to its degree.
  std::vector<int> ends;
  ends.reserve(2 * static_cast<std::size_t>(m) * n);
  for (int a = 0; a <= m; ++a)
    for (int b = a + 1; b <= m; ++b) add(a, b), ends.push_back(a), ends.push_back(b);
  std::vector<int> targets;
  for (int v = m + 1; v < n; ++v) {
    targets.clear();
    while (static_cast<int>(targets.size()) < m) {
      const int t = ends[detail::uniform_below(rng, static_cast<std::uint32_t>(ends.size()))];
      if (std::find(targets.begin(), targets.end(), t) == targets.end()) targets.push_back(t);
    }
    for (int t : targets) add(t, v), ends.push_back(t), ends.push_back(v);
  }
  std::vector<int> mark(n, -1);
  for (int h = 0; h < kHubs; ++h) {
    for (int linked = 0; linked < n >> (h + 2);) {
      const int v = static_cast<int>(detail::uniform_below(rng, n));
      if (v == h || mark[v] == h) continue;
      mark[v] = h;
      add(h, v);
      ++linked;
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

}  // namespace

HostCsr<Quaternion<double>> hub_connection_laplacian(int n, int m, std::uint32_t seed) {
  using Q = Quaternion<double>;
  COMPOUND_SPARSE_REQUIRE(
      n >= 128 && m >= 1 && m < n / 4,
      "a hub connection Laplacian needs n >= 128 and 1 <= m < n / 4, got n = " << n << ", m = " << m);
  std::mt19937 rng(seed);
  const auto edges = hub_graph(n, m, rng);
  // CSR directly: row r holds its smaller neighbours (edges (c, r), which come in
  // increasing c), the diagonal, then its larger ones (edges (r, c), increasing c).
  std::vector<int> below(n, 0), above(n, 0);
  for (auto e : edges) ++above[e >> 32], ++below[e & 0xffffffffu];
  HostCsr<Q> a;
  a.num_rows = a.num_cols = n;
  a.row_offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  for (int r = 0; r < n; ++r) a.row_offsets[r + 1] = a.row_offsets[r] + below[r] + 1 + above[r];
  a.col_indices.resize(a.row_offsets[n]);
  a.values.resize(a.row_offsets[n]);
  std::vector<int> lower(a.row_offsets.begin(), a.row_offsets.end() - 1), upper(n);
  for (int r = 0; r < n; ++r) upper[r] = a.row_offsets[r] + below[r] + 1;
  std::vector<double> degree(n, 0.0);
  for (auto e : edges) {
    const int i = static_cast<int>(e >> 32), j = static_cast<int>(e & 0xffffffffu);
    const double w = 0.5 + detail::uniform01(rng);
    Q q;
    double norm2;
    do {
      q = {detail::uniform_signed(rng), detail::uniform_signed(rng), detail::uniform_signed(rng),
           detail::uniform_signed(rng)};
      norm2 = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z;
    } while (norm2 > 1 || norm2 < 1e-6);  // uniform in the ball; away from 0 for a stable direction
    const Q wij = (-w / std::sqrt(norm2)) * q;
    a.col_indices[upper[i]] = j;
    a.values[upper[i]++] = wij;
    a.col_indices[lower[j]] = i;
    a.values[lower[j]++] = wij.conjugate();
    degree[i] += w;
    degree[j] += w;
  }
  for (int r = 0; r < n; ++r) {
    a.col_indices[lower[r]] = r;
    a.values[lower[r]] = Q{degree[r], 0, 0, 0};
  }
  return a;
}

}  // namespace zoo
}  // namespace compound_sparse
