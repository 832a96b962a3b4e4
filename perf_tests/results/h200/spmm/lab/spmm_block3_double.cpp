// The lab's measurements of compound_sparse::Block<double, 3> (spmm_lab.hpp).
#include "spmm_lab.hpp"

template void spmm_lab::run_entry<compound_sparse::Block<double, 3>>(
    const std::string&, const std::string&, const compound_sparse::HostCsr<compound_sparse::Block<double, 3>>&,
    const spmm_lab::Options&);
