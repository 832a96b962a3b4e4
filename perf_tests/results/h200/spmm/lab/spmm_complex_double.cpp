// The lab's measurements of Kokkos::complex<double> (spmm_lab.hpp).
#include "spmm_lab.hpp"

template void spmm_lab::run_entry<Kokkos::complex<double>>(const std::string&, const std::string&,
                                                           const compound_sparse::HostCsr<Kokkos::complex<double>>&,
                                                           const spmm_lab::Options&);
