// Conversions between host CSR and the device layouts: round trips, slot
// placement, and the memory accounting of the published memory table.
#include <gtest/gtest.h>

#include <compound_sparse.hpp>

#include "test_matrices.hpp"

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;

namespace {
// 5 x 6 with row lengths 2, 0, 5, 1, 3 (11 entries).
cs::HostCsr<C> small_matrix() {
  std::mt19937 rng(7);
  cs::HostCsr<C> a;
  a.num_rows = 5;
  a.num_cols = 6;
  a.row_offsets = {0, 2, 2, 7, 8, 11};
  a.col_indices = {1, 4, 0, 1, 2, 3, 5, 2, 5, 0, 3};
  for (int k = 0; k < 11; ++k) a.values.push_back(compound_sparse_test::random_value<C>(rng));
  return a;
}

template <class Outer, class Inner, class Entry>
void expect_round_trip(const cs::HostCsr<Entry>& a) {
  const auto m = cs::to_device<Outer, Inner>(a);
  const auto back = cs::to_host_csr(m);
  EXPECT_EQ(back.num_rows, a.num_rows);
  EXPECT_EQ(back.num_cols, a.num_cols);
  EXPECT_EQ(back.row_offsets, a.row_offsets) << Outer::name() << "_" << Inner::name();
  EXPECT_EQ(back.col_indices, a.col_indices) << Outer::name() << "_" << Inner::name();
  ASSERT_EQ(back.values.size(), a.values.size());
  EXPECT_EQ(0, std::memcmp(back.values.data(), a.values.data(), a.values.size() * sizeof(Entry)));
  EXPECT_EQ(m.num_entries, a.num_entries());
}
}  // namespace

TEST(Layouts, MemoryAccountingMatchesHandCount) {
  const auto a = small_matrix();
  // CSR: 6 offsets + 11 * (index + 16-byte entry)
  EXPECT_EQ(cs::layout_memory_bytes<cs::Csr>(a), 6u * 4 + 11u * 20);
  // ELL: width 5, stride 32 (5 rounded up to 32): 160 slots + 5 row lengths
  EXPECT_EQ(cs::layout_memory_bytes<cs::Ell>(a), 5u * 4 + 160u * 20);
  // Sliced ELL 16: one slice of width 5 -> 80 slots, 2 slice offsets, 5 lengths
  EXPECT_EQ(cs::layout_memory_bytes<cs::SlicedEll<16>>(a), 7u * 4 + 80u * 20);
  EXPECT_EQ(cs::layout_memory_bytes<cs::SlicedEll<32>>(a), 7u * 4 + 160u * 20);
  // 16-bit columns: the slots of Sliced ELL 32 with 2-byte indices, plus one base column.
  EXPECT_EQ((cs::layout_memory_bytes<cs::SlicedEll<32, 16>>(a)), 8u * 4 + 160u * 18);
  const auto m = cs::to_device<cs::Ell, cs::Soa>(a);
  EXPECT_EQ(m.ell_width, 5);
  EXPECT_EQ(m.ell_stride, 32);
  EXPECT_EQ(cs::memory_bytes(m), 5u * 4 + 160u * 20);
  const auto short_columns = cs::to_device<cs::SlicedEll<32, 16>, cs::Aos>(a);
  EXPECT_EQ(cs::memory_bytes(short_columns), 8u * 4 + 160u * 18);
  static_assert(sizeof(decltype(short_columns.col_indices)::value_type) == 2, "16-bit column offsets");
}

namespace {
// Two slices of 32 rows (the last one short): slice 0 spans columns 0..`span`, slice 1
// lies far to the right (columns 200000..200040) and has an empty row.
cs::HostCsr<C> two_distant_slices(int span) {
  std::mt19937 rng(17);
  cs::HostCsr<C> a;
  a.num_rows = 50;
  a.num_cols = 200041;
  a.row_offsets = {0};
  for (int r = 0; r < a.num_rows; ++r) {
    if (r == 40) {
      a.row_offsets.push_back(static_cast<int>(a.col_indices.size()));
      continue;
    }
    const int first = r < 32 ? r : 200000 + (r - 32);
    a.col_indices.push_back(first);
    if (r == 7) a.col_indices.push_back(span);  // the widest slot of slice 0
    if (r >= 32) a.col_indices.push_back(200040);
    a.row_offsets.push_back(static_cast<int>(a.col_indices.size()));
  }
  for (std::size_t k = 0; k < a.col_indices.size(); ++k) a.values.push_back(compound_sparse_test::random_value<C>(rng));
  return a;
}
}  // namespace

TEST(Layouts, ShortColumnsCountFromEachSlicesSmallestColumn) {
  const auto a = two_distant_slices(65535);  // slice 0: offsets 0..65535, the most 16 bits hold
  EXPECT_EQ((cs::layout_refusal<cs::SlicedEll<32, 16>>(a)), "");
  const auto m = cs::to_device<cs::SlicedEll<32, 16>, cs::Soa>(a);
  auto bases = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.column_bases);
  ASSERT_EQ(bases.extent(0), 2u);
  EXPECT_EQ(bases(0), 0);
  EXPECT_EQ(bases(1), 200000);
  auto cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.col_indices);
  EXPECT_EQ(cols(1 * 32 + 7), 65535);  // row 7's second slot: column 65535 - 0
  auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.offsets);
  EXPECT_EQ(cols(offsets(1) + 1 * 32 + 3), 40);  // row 35's second slot: column 200040 - 200000
  expect_round_trip<cs::SlicedEll<32, 16>, cs::Aos>(a);
  expect_round_trip<cs::SlicedEll<16, 16>, cs::Soa>(a);
}

TEST(Layouts, ShortColumnsRefuseASliceTooWideBeforeAllocating) {
  const auto a = two_distant_slices(65536);  // one column past what 16-bit offsets reach
  const std::string why = cs::layout_refusal<cs::SlicedEll<32, 16>>(a);
  EXPECT_NE(why.find("sell32c16 layout stores 16-bit column offsets"), std::string::npos) << why;
  EXPECT_NE(why.find("spans columns up to 65536 apart (at most 65535)"), std::string::npos) << why;
  try {
    cs::to_device<cs::SlicedEll<32, 16>, cs::Aos>(a);
    ADD_FAILURE() << "no exception";
  } catch (const cs::BudgetExceeded& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("convert.hpp"), std::string::npos) << e.what();  // file and line
  }
  // The same matrix in any other layout, and 32-bit Sliced ELL, is fine.
  EXPECT_EQ(cs::layout_refusal<cs::SlicedEll<32>>(a), "");
  expect_round_trip<cs::SlicedEll<32>, cs::Aos>(a);
}

TEST(Layouts, EllPlacesSlotsColumnMajor) {
  const auto a = small_matrix();
  const auto m = cs::to_device<cs::Ell, cs::Aos>(a);
  auto cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.col_indices);
  // row 2 holds columns 0,1,2,3,5: slot k of row 2 is k*32 + 2
  EXPECT_EQ(cols(0 * 32 + 2), 0);
  EXPECT_EQ(cols(1 * 32 + 2), 1);
  EXPECT_EQ(cols(4 * 32 + 2), 5);
  EXPECT_EQ(cols(1 * 32 + 4), 0);  // row 4 holds columns 5, 0, 3
  EXPECT_EQ(cols(2 * 32 + 4), 3);
}

TEST(Layouts, SlicedEllPadsEachSliceToItsOwnWidth) {
  std::mt19937 rng(3);
  // 40 rows: rows 0..15 have length <= 2, row 20 has every column.
  auto a = compound_sparse_test::random_csr<C>(40, 50, 0, 2, 20, rng);
  const auto m = cs::to_device<cs::SlicedEll<16>, cs::Soa>(a);
  auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.offsets);
  ASSERT_EQ(offsets.extent(0), 4u);  // ceil(40/16) + 1
  int width0 = 0;
  for (int r = 0; r < 16; ++r) width0 = std::max(width0, a.row_length(r));
  EXPECT_EQ(offsets(1) - offsets(0), width0 * 16);
  EXPECT_EQ(offsets(2) - offsets(1), 50 * 16);  // slice 1 holds the full row 20
}

TEST(Layouts, RoundTripEveryLayout) {
  std::mt19937 rng(11);
  for (const auto& a : {small_matrix(), compound_sparse_test::random_csr<C>(129, 70, 0, 9, 5, rng),
                        compound_sparse_test::random_csr<C>(0, 3, 0, 0, -1, rng)}) {
    expect_round_trip<cs::Csr, cs::Aos>(a);
    expect_round_trip<cs::Csr, cs::Soa>(a);
    expect_round_trip<cs::Ell, cs::Aos>(a);
    expect_round_trip<cs::Ell, cs::Soa>(a);
    expect_round_trip<cs::SlicedEll<16>, cs::Aos>(a);
    expect_round_trip<cs::SlicedEll<16>, cs::Soa>(a);
    expect_round_trip<cs::SlicedEll<32>, cs::Aos>(a);
    expect_round_trip<cs::SlicedEll<32>, cs::Soa>(a);
    expect_round_trip<cs::SlicedEll<32, 16>, cs::Aos>(a);
    expect_round_trip<cs::SlicedEll<32, 16>, cs::Soa>(a);
  }
}

TEST(Layouts, QuaternionAndBlockRoundTrip) {
  std::mt19937 rng(5);
  expect_round_trip<cs::SlicedEll<32>, cs::Soa>(
      compound_sparse_test::random_csr<cs::Quaternion<float>>(65, 65, 0, 7, -1, rng));
  expect_round_trip<cs::Ell, cs::Soa>(compound_sparse_test::random_csr<cs::Block<double, 3>>(33, 40, 1, 6, -1, rng));
}

TEST(Layouts, VectorRoundTripAndWrap) {
  std::mt19937 rng(9);
  const auto host = compound_sparse_test::random_vector<cs::Quaternion<double>>(37, rng);
  const auto soa = cs::to_device<cs::Soa>(host);
  EXPECT_EQ(soa.size(), 37);
  const auto back = cs::to_host(soa);
  EXPECT_EQ(0, std::memcmp(back.data(), host.data(), host.size() * sizeof(host[0])));
  // Wrapping shares the View: writes through one are seen by the other.
  auto wrapped = cs::wrap_view<cs::Quaternion<double>, cs::Soa>(soa.data);
  EXPECT_EQ(wrapped.data.data(), soa.data.data());
}
