// The lab's measurements of compound_sparse::Quaternion<double> (spmm_lab.hpp).
#include "spmm_lab.hpp"

template void spmm_lab::run_entry<compound_sparse::Quaternion<double>>(
    const std::string&, const std::string&, const compound_sparse::HostCsr<compound_sparse::Quaternion<double>>&,
    const spmm_lab::Options&);
