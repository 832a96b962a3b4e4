#include "sell_lab.hpp"
void sell_double(const std::string& name, const cs::HostCsr<Kokkos::complex<double>>& a, double copy_bw) {
  lab_matrix<Kokkos::complex<double>>(name, "double", a, copy_bw);
}
