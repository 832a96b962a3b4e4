#include "sell_lab.hpp"
void sell_float(const std::string& name, const cs::HostCsr<Kokkos::complex<double>>& a, double copy_bw) {
  cs::HostCsr<Kokkos::complex<float>> n;
  n.num_rows = a.num_rows;
  n.num_cols = a.num_cols;
  n.row_offsets = a.row_offsets;
  n.col_indices = a.col_indices;
  for (const auto& v : a.values) n.values.emplace_back(float(v.real()), float(v.imag()));
  lab_matrix<Kokkos::complex<float>>(name, "float", std::move(n), copy_bw);
}
