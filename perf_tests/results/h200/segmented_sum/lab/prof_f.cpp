#include "prof_lab.hpp"
void prof_float(const char* name, const cs::HostCsr<Kokkos::complex<double>>& a, const std::string& mode) {
  prof_matrix(name, "float", narrowed<Kokkos::complex<float>>(a), mode);
}
