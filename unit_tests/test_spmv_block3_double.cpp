// SpMV variants with compound_sparse::Block<double, 3> entries against the double host reference.
#include "spmv_test_suite.hpp"

COMPOUND_SPARSE_SPMV_SUITE(SpmvBlock3Double, compound_sparse::Block<double, 3>)
