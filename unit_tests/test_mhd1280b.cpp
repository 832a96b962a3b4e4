// mhd1280b.cua (Anasazi test matrices; extracted by scripts/fetch_trilinos_source.sh):
// registered only when the file is there at configure time (unit_tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <compound_sparse.hpp>
#include <compound_sparse/io/harwell_boeing.hpp>
#include <compound_sparse/io/matrix_market.hpp>
#include <cstring>
#include <sstream>

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;

TEST(HarwellBoeing, Mhd1280b) {
  const auto a = cs::io::read_harwell_boeing<C>(COMPOUND_SPARSE_MHD1280B);
  EXPECT_EQ(a.num_rows, 1280);
  EXPECT_EQ(a.num_cols, 1280);
  EXPECT_EQ(a.num_entries(), 22778u);  // NNZERO in the header; the file has no duplicates
  EXPECT_NO_THROW(cs::validate(a));
  bool any_imaginary = false;
  for (const auto& v : a.values) any_imaginary = any_imaginary || v.imag() != 0;
  EXPECT_TRUE(any_imaginary);
  std::stringstream file;
  cs::io::write_matrix_market(file, a);
  const auto b = cs::io::read_matrix_market<C>(file, "mhd1280b.mtx");
  EXPECT_EQ(a.row_offsets, b.row_offsets);
  EXPECT_EQ(a.col_indices, b.col_indices);
  EXPECT_EQ(std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(C)), 0);
}
