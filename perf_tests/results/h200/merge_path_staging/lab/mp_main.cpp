#include <compound_sparse/zoo/circuit.hpp>
#include <compound_sparse/zoo/rmat.hpp>

#include "mp_lab.hpp"

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::string only = argc > 1 ? argv[1] : "";
  const auto want = [&](const char* n) { return only.empty() || only.find(n) != std::string::npos; };
  namespace zoo = cs::zoo;
  if (want("circuit-1m")) {  // compound-zoo's recipe: circuit_matrix(1 << 20, kCircuitSeed = 14)
    const auto m = zoo::circuit_matrix(1 << 20, 14);
    run_complex_double("circuit-1m", m);
    run_complex_float("circuit-1m", m);
  }
  if (want("rmat-s20")) {  // rmat_matrix(20, 4, kRmatSeed = 1401)
    const auto m = zoo::rmat_matrix(20, 4, 1401);
    run_complex_double("rmat-s20", m);
    run_complex_float("rmat-s20", m);
  }
  return 0;
}
