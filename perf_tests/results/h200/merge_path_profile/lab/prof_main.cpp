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
