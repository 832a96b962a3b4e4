// The lab's measurements of Kokkos::complex<float> (spmm_lab.hpp).
#include "spmm_lab.hpp"

template void spmm_lab::run_entry<Kokkos::complex<float>>(const std::string&, const std::string&,
                                                          const compound_sparse::HostCsr<Kokkos::complex<float>>&,
                                                          const spmm_lab::Options&);
