// SpMV variants with Kokkos::complex<double> entries against the double host reference.
#include "spmv_test_suite.hpp"

COMPOUND_SPARSE_SPMV_SUITE(SpmvComplexDouble, Kokkos::complex<double>)
