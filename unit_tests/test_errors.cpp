// Bad input raises compound_sparse::Error naming what is wrong, never a crash.
#include <gtest/gtest.h>

#include <compound_sparse.hpp>

#include "test_matrices.hpp"

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;

namespace {
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const cs::Error& e) {
    return e.what();
  }
  return "no exception";
}
}  // namespace

TEST(Errors, SpmvRejectsMismatchedVectors) {
  std::mt19937 rng(1);
  const auto a = cs::to_device<cs::Csr, cs::Aos>(compound_sparse_test::random_csr<C>(10, 7, 1, 3, -1, rng));
  const auto x_ok = cs::to_device<cs::Aos>(compound_sparse_test::random_vector<C>(7, rng));
  const auto x_bad = cs::to_device<cs::Aos>(compound_sparse_test::random_vector<C>(8, rng));
  const auto y_ok = cs::to_device<cs::Aos>(compound_sparse_test::random_vector<C>(10, rng));
  const auto y_bad = cs::to_device<cs::Aos>(compound_sparse_test::random_vector<C>(7, rng));
  const C one(1, 0), zero(0, 0);
  EXPECT_NE(error_of([&] {
              cs::spmv(cs::StaticSchedule{}, one, a, x_bad, zero, y_ok);
            }).find("x has 8 elements but A has 7 columns"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              cs::spmv(cs::StaticSchedule{}, one, a, x_ok, zero, y_bad);
            }).find("y has 7 elements but A has 10 rows"),
            std::string::npos);
  cs::StaticSchedule bad_lanes;
  bad_lanes.lanes_per_row = 3;
  EXPECT_NE(error_of([&] { cs::spmv(bad_lanes, one, a, x_ok, zero, y_ok); }).find("lanes_per_row must be"),
            std::string::npos);
  EXPECT_NO_THROW(cs::spmv(cs::StaticSchedule{}, one, a, x_ok, zero, y_ok));
}

TEST(Errors, ConversionRejectsInvalidCsr) {
  cs::HostCsr<C> a;
  a.num_rows = 2;
  a.num_cols = 2;
  a.row_offsets = {0, 1, 2};
  a.col_indices = {0, -1};
  a.values = {C(1, 0), C(1, 0)};
  EXPECT_NE(error_of([&] { cs::to_device<cs::SlicedEll<32>, cs::Soa>(a); }).find("column index -1 in row 1"),
            std::string::npos);
}

TEST(Errors, EllPaddingBeyondBudgetIsRefused) {
  std::mt19937 rng(2);
  // 2000 rows of <= 2 entries and one row of 2000: ELL pads everything to 2000.
  const auto a = compound_sparse_test::random_csr<C>(2000, 2000, 0, 2, 10, rng);
  const cs::MemoryBudget budget{10u << 20};  // 10 MiB
  const std::string message = error_of([&] { cs::to_device<cs::Ell, cs::Aos>(a, budget); });
  EXPECT_NE(message.find("ell layout"), std::string::npos) << message;
  EXPECT_NE(message.find("more than the memory budget of 10485760 bytes"), std::string::npos) << message;
  // CSR of the same matrix fits easily, and so does Sliced ELL (one wide slice).
  EXPECT_NO_THROW((cs::to_device<cs::Csr, cs::Aos>(a, budget)));
  EXPECT_NO_THROW((cs::to_device<cs::SlicedEll<32>, cs::Aos>(a, budget)));
}

TEST(Errors, EllBeyond32BitOffsetsIsRefusedBeforeAllocating) {
  // 100000 rows, one with 50000 entries: 5e9 ELL slots cannot be addressed.
  cs::HostCsr<C> a;
  a.num_rows = 100000;
  a.num_cols = 50000;
  a.row_offsets.assign(a.num_rows + 1, 0);
  for (int c = 0; c < 50000; ++c) {
    a.col_indices.push_back(c);
    a.values.push_back(C(1, 0));
  }
  for (int r = 1; r <= a.num_rows; ++r) a.row_offsets[r] = 50000;
  const std::string message = error_of([&] { cs::to_device<cs::Ell, cs::Soa>(a); });
  EXPECT_NE(message.find("more than 32-bit offsets can address"), std::string::npos) << message;
}
