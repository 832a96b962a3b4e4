// SpMV variants with compound_sparse::Quaternion<float> entries against the double host reference.
#include "spmv_test_suite.hpp"

COMPOUND_SPARSE_SPMV_SUITE(SpmvQuaternionFloat, compound_sparse::Quaternion<float>)
