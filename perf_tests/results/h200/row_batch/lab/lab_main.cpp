#include <compound_sparse/zoo/circuit.hpp>
#include <compound_sparse/zoo/elasticity.hpp>
#include <compound_sparse/zoo/helmholtz.hpp>
#include <compound_sparse/zoo/tet_mesh.hpp>
#include <cstring>

#include "row_lab.hpp"

/// The circuit matrix with its rows longer than `threshold` emptied: what a row schedule
/// of a hybrid would take.
cs::HostCsr<Kokkos::complex<double>> short_part(const cs::HostCsr<Kokkos::complex<double>>& a, int threshold) {
  cs::HostCsr<Kokkos::complex<double>> s;
  s.num_rows = a.num_rows;
  s.num_cols = a.num_cols;
  s.row_offsets.assign(1, 0);
  for (int r = 0; r < a.num_rows; ++r) {
    const int b = a.row_offsets[r], e = a.row_offsets[r + 1];
    if (e - b <= threshold)
      for (int k = b; k < e; ++k) {
        s.col_indices.push_back(a.col_indices[k]);
        s.values.push_back(a.values[k]);
      }
    s.row_offsets.push_back(static_cast<int>(s.col_indices.size()));
  }
  return s;
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::string only = argc > 1 ? argv[1] : "";
  const auto want = [&](const char* n) { return only.empty() || only.find(n) != std::string::npos; };
  namespace zoo = cs::zoo;
  if (want("helmholtz-box-k20")) {
    const auto m = zoo::helmholtz_matrix(zoo::box_mesh(44, 44, 44), 20.0);
    run_complex_float("helmholtz-box-k20", m);
    run_complex_double("helmholtz-box-k20", m);
  }
  if (want("helmholtz-box-k40")) {
    const auto m = zoo::helmholtz_matrix(zoo::box_mesh(68, 68, 68), 40.0);
    run_complex_float("helmholtz-box-k40", m);
    run_complex_double("helmholtz-box-k40", m);
  }
  if (want("circuit-1m<=256")) {
    const auto m = short_part(zoo::circuit_matrix(1 << 20, 14), 256);
    run_complex_float("circuit-1m<=256", m);
    run_complex_double("circuit-1m<=256", m);
  }
  if (want("elasticity-box-52")) {
    const auto mesh = zoo::box_mesh(52, 52, 52);
    const auto [lambda, mu] = zoo::lame_parameters(1.0, 0.3);
    const auto m = zoo::elasticity_matrix(mesh, lambda, mu);
    run_block_float("elasticity-box-52", m);
    run_block_double("elasticity-box-52", m);
  }
  return 0;
}
