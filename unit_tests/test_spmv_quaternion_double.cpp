// SpMV variants with compound_sparse::Quaternion<double> entries against the double host reference.
#include "spmv_test_suite.hpp"

COMPOUND_SPARSE_SPMV_SUITE(SpmvQuaternionDouble, compound_sparse::Quaternion<double>)
