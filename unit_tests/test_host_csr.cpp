// Host CSR validation and COO assembly.
#include <gtest/gtest.h>

#include <compound_sparse.hpp>

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;

TEST(HostCsr, CooSumsDuplicatesAndSortsColumns) {
  std::vector<cs::CooEntry<C>> coo = {{2, 1, C(1, 0)}, {0, 3, C(0, 1)},  {2, 1, C(2, 5)},
                                      {0, 0, C(4, 4)}, {2, 0, C(-1, 0)}, {2, 1, C(0, -1)}};
  const auto a = cs::csr_from_coo(3, 4, coo);
  EXPECT_EQ(a.num_rows, 3);
  EXPECT_EQ(a.num_cols, 4);
  EXPECT_EQ(a.row_offsets, (std::vector<int>{0, 2, 2, 4}));
  EXPECT_EQ(a.col_indices, (std::vector<int>{0, 3, 0, 1}));
  EXPECT_EQ(a.values[3], C(3, 4));  // 1 + (2+5i) + (-i)
  EXPECT_EQ(a.values[0], C(4, 4));
  EXPECT_NO_THROW(cs::validate(a));
}

TEST(HostCsr, CooRejectsOutOfRangeEntries) {
  std::vector<cs::CooEntry<C>> coo = {{0, 0, C(1, 0)}, {1, 5, C(1, 0)}};
  try {
    cs::csr_from_coo(2, 5, coo);
    FAIL() << "expected an exception";
  } catch (const cs::Error& e) {
    EXPECT_NE(std::string(e.what()).find("(1, 5) is outside the 2 x 5 matrix"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("host_csr.hpp"), std::string::npos) << "location missing: " << e.what();
  }
  EXPECT_THROW(cs::csr_from_coo(2, 5, std::vector<cs::CooEntry<C>>{{-1, 0, C()}}), cs::Error);
}

TEST(HostCsr, ValidateNamesTheProblem) {
  cs::HostCsr<C> a;
  a.num_rows = 2;
  a.num_cols = 3;
  a.row_offsets = {0, 1, 2};
  a.col_indices = {0, 3};
  a.values = {C(1, 0), C(2, 0)};
  EXPECT_THROW(
      {
        try {
          cs::validate(a);
        } catch (const cs::Error& e) {
          EXPECT_NE(std::string(e.what()).find("column index 3 in row 1"), std::string::npos) << e.what();
          throw;
        }
      },
      cs::Error);
  a.col_indices = {0, 2};
  EXPECT_NO_THROW(cs::validate(a));
  a.row_offsets = {0, 2, 1};
  EXPECT_THROW(cs::validate(a), cs::Error);  // decreasing offsets
  a.row_offsets = {0, 1};
  EXPECT_THROW(cs::validate(a), cs::Error);  // wrong length
  a.row_offsets = {0, 1, 2};
  a.values.pop_back();
  EXPECT_THROW(cs::validate(a), cs::Error);  // values and columns differ
}
