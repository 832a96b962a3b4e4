#include "mp_lab.hpp"
void run_complex_float(const char* name, const cs::HostCsr<Kokkos::complex<double>>& a) {
  run_matrix(name, "float", narrowed<Kokkos::complex<float>>(a));
}
