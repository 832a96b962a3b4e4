// The lab's measurements of compound_sparse::Quaternion<float> (spmm_lab.hpp).
#include "spmm_lab.hpp"

template void spmm_lab::run_entry<compound_sparse::Quaternion<float>>(
    const std::string&, const std::string&, const compound_sparse::HostCsr<compound_sparse::Quaternion<float>>&,
    const spmm_lab::Options&);
