#include "compound_sparse/zoo/circuit.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "portable_random.hpp"

namespace compound_sparse {
namespace zoo {

namespace {

constexpr int kNets = 8;
// Net k reaches min(n / 4, kNetReach[k] sqrt(n)) nodes: supply nets grow with the
// circuit, but slower than it (larger designs split them into domains).
constexpr int kNetReach[kNets] = {48, 32, 24, 16, 12, 8, 6, 4};
constexpr int kMinDegree = 3, kMaxDegree = 2000;
constexpr int kWindow = 16;  // a local neighbour lies within this distance

/// Off-diagonal counts d in [kMinDegree, max_degree] with weights d^-3.5, drawn by
/// inverting the cumulative weights (a table: no pow, whose last bit varies by libm).
class PowerLawDegree {
 public:
  explicit PowerLawDegree(int max_degree) {
    double sum = 0;
    for (int d = kMinDegree; d <= max_degree; ++d) {
      const double dd = d;
      sum += 1 / (dd * dd * dd * std::sqrt(dd));
      cumulative_.push_back(sum);
    }
  }
  int operator()(std::mt19937& rng) const {
    const double u = detail::uniform01(rng) * cumulative_.back();
    const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
    return kMinDegree + static_cast<int>(std::min<std::size_t>(it - cumulative_.begin(), cumulative_.size() - 1));
  }

 private:
  std::vector<double> cumulative_;
};

}  // namespace

HostCsr<Kokkos::complex<double>> circuit_matrix(int n, std::uint32_t seed) {
  using C = Kokkos::complex<double>;
  COMPOUND_SPARSE_REQUIRE(n >= 1024, "a circuit matrix needs n >= 1024 nodes, got " << n);
  std::mt19937 rng(seed);

  // The nets and the nodes attached to each (distinct, never another net).
  std::vector<int> net_of(n, -1);
  int net_row[kNets];
  for (int k = 0; k < kNets; ++k) {
    net_row[k] = static_cast<int>((2 * k + 1) * static_cast<long long>(n) / 16);
    net_of[net_row[k]] = k;
  }
  std::vector<std::vector<int>> attached(kNets);
  std::vector<int> mark(n, -1);
  std::vector<int> nets_per_node(n, 0);
  const double root_n = std::sqrt(static_cast<double>(n));
  for (int k = 0; k < kNets; ++k) {
    const int reach = std::min(n / 4, static_cast<int>(kNetReach[k] * root_n));
    while (static_cast<int>(attached[k].size()) < reach) {
      const int c = static_cast<int>(detail::uniform_below(rng, n));
      if (net_of[c] >= 0 || mark[c] == k) continue;
      mark[c] = k;
      attached[k].push_back(c);
      ++nets_per_node[c];
    }
    std::sort(attached[k].begin(), attached[k].end());
  }
  // Each node's nets, in net order: offsets into node_nets.
  std::vector<int> node_net_offsets(n + 1, 0);
  for (int i = 0; i < n; ++i) node_net_offsets[i + 1] = node_net_offsets[i] + nets_per_node[i];
  std::vector<int> node_nets(node_net_offsets[n]), filled(node_net_offsets.begin(), node_net_offsets.end() - 1);
  for (int k = 0; k < kNets; ++k)
    for (int c : attached[k]) node_nets[filled[c]++] = net_row[k];

  const PowerLawDegree degree(std::min(kMaxDegree, n / 8));
  HostCsr<C> a;
  a.num_rows = a.num_cols = n;
  a.row_offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  std::vector<int> cols;
  for (int i = 0; i < n; ++i) {
    cols.assign(1, i);
    if (net_of[i] >= 0) {
      const auto& nodes = attached[net_of[i]];
      cols.insert(cols.end(), nodes.begin(), nodes.end());
    } else {
      cols.insert(cols.end(), node_nets.begin() + node_net_offsets[i], node_nets.begin() + node_net_offsets[i + 1]);
      const std::size_t length = 1 + std::max<std::size_t>(degree(rng), cols.size() - 1);
      while (cols.size() < length) {
        int c;
        if (detail::uniform01(rng) < 0.75) {
          const int o = static_cast<int>(detail::uniform_below(rng, 2 * kWindow));
          c = i + (o < kWindow ? -(o + 1) : o - kWindow + 1);
          if (c < 0 || c >= n) continue;
        } else {
          c = static_cast<int>(detail::uniform_below(rng, n));
        }
        if (std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
      }
    }
    std::sort(cols.begin(), cols.end());
    // Values in column order, the diagonal last: it depends on the row's sum.
    double sum = 0;
    std::size_t diagonal = 0;
    for (int c : cols) {
      if (c == i) {
        diagonal = a.values.size();
        a.values.push_back(C(0, 0));
      } else {
        const double re = detail::uniform_signed(rng), im = detail::uniform_signed(rng);
        sum += std::sqrt(re * re + im * im);
        a.values.push_back(C(re, im));
      }
      a.col_indices.push_back(c);
    }
    a.values[diagonal] = C(1 + sum, sum * (detail::uniform01(rng) - 0.5));
    a.row_offsets[i + 1] = static_cast<int>(a.col_indices.size());
  }
  return a;
}

}  // namespace zoo
}  // namespace compound_sparse
