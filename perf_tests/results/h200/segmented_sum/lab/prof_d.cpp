#include "prof_lab.hpp"
void prof_double(const char* name, const cs::HostCsr<Kokkos::complex<double>>& a, const std::string& mode) {
  prof_matrix(name, "double", a, mode);
}
