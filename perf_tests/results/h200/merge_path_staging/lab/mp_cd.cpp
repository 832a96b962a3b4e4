#include "mp_lab.hpp"
void run_complex_double(const char* name, const cs::HostCsr<Kokkos::complex<double>>& a) {
  run_matrix(name, "double", a);
}
