// SpMV variants with Kokkos::complex<float> entries against the double host reference.
#include "spmv_test_suite.hpp"

COMPOUND_SPARSE_SPMV_SUITE(SpmvComplexFloat, Kokkos::complex<float>)
