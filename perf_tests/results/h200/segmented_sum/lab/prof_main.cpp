#include <compound_sparse/zoo/circuit.hpp>
#include <compound_sparse/zoo/rmat.hpp>

#include "prof_lab.hpp"

void prof_double(const char* name, const cs::HostCsr<Kokkos::complex<double>>& a, const std::string& mode);
void prof_float(const char* name, const cs::HostCsr<Kokkos::complex<double>>& a, const std::string& mode);

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::string mode = argc > 1 ? argv[1] : "time";
  const std::string only = argc > 2 ? argv[2] : "";
  const auto want = [&](const char* n) { return only.empty() || only.find(n) != std::string::npos; };
  namespace zoo = cs::zoo;
  if (mode == "selftest") {  // random matrices with the cases the kernel must get right
    std::mt19937 rng(3);
    const auto random_matrix = [&](int n, int cols, const std::vector<int>& lengths) {
      cs::HostCsr<Kokkos::complex<double>> m;
      m.num_rows = n;
      m.num_cols = cols;
      m.row_offsets.assign(1, 0);
      std::uniform_real_distribution<double> u(-1, 1);
      for (int r = 0; r < n; ++r) {
        for (int e = 0; e < lengths[r]; ++e) {
          m.col_indices.push_back(static_cast<int>(rng() % cols));
          m.values.emplace_back(u(rng), u(rng));
        }
        m.row_offsets.push_back(static_cast<int>(m.col_indices.size()));
      }
      return m;
    };
    const auto lengths_of = [&](int n, int max_len, int empty_percent) {
      std::vector<int> l(n);
      for (auto& v : l) v = static_cast<int>(rng() % 100) < empty_percent ? 0 : 1 + static_cast<int>(rng() % max_len);
      return l;
    };
    prof_double("1x1", random_matrix(1, 1, {1}), "check");
    prof_double("1x1-empty", random_matrix(1, 1, {0}), "check");
    prof_double("37x50", random_matrix(37, 50, lengths_of(37, 9, 20)), "check");
    prof_double("1000-empty30", random_matrix(1000, 700, lengths_of(1000, 40, 30)), "check");
    auto huge = lengths_of(5000, 6, 10);
    huge[17] = 20000;
    huge[4000] = 3000;
    prof_double("huge-rows", random_matrix(5000, 5000, huge), "check");
    prof_double("tile-aligned", random_matrix(300, 300, std::vector<int>(300, 256)), "check");
    prof_double("tile-aligned-4097", random_matrix(64, 5000, std::vector<int>(64, 4097)), "check");
    std::vector<int> mostly_empty(3000, 0);
    mostly_empty[2999] = 5;
    mostly_empty[100] = 1;
    prof_double("mostly-empty", random_matrix(3000, 10, mostly_empty), "check");
    prof_float("1000-empty30", random_matrix(1000, 700, lengths_of(1000, 40, 30)), "check");
    return 0;
  }
  if (want("circuit-1m")) {  // compound-zoo's recipe: circuit_matrix(1 << 20, kCircuitSeed = 14)
    const auto m = zoo::circuit_matrix(1 << 20, 14);
    prof_double("circuit-1m", m, mode);
    prof_float("circuit-1m", m, mode);
    if (mode == "time") {
      const auto s = in_order_columns(m);
      prof_double("circuit-1m/inorder", s, mode);
      prof_float("circuit-1m/inorder", s, mode);
    }
  }
  if (want("rmat-s20")) {  // rmat_matrix(20, 4, kRmatSeed = 1401)
    const auto m = zoo::rmat_matrix(20, 4, 1401);
    prof_double("rmat-s20", m, mode);
    prof_float("rmat-s20", m, mode);
    if (mode == "time") {
      const auto s = in_order_columns(m);
      prof_double("rmat-s20/inorder", s, mode);
      prof_float("rmat-s20/inorder", s, mode);
    }
  }
  return 0;
}
