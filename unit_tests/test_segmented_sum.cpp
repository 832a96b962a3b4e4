// The segmented-sum schedule's pieces: the bitmap and lists made with the matrix,
// against a walk of the offsets; rows that end exactly at tile ends; rows spanning
// many tiles; and its refusals.
#include <gtest/gtest.h>

#include <compound_sparse.hpp>
#include <vector>

#include "spmv_test_suite.hpp"
#include "test_matrices.hpp"

namespace cs = compound_sparse;
using namespace compound_sparse_test;
using C = Kokkos::complex<double>;

namespace {

std::vector<int> host_copy(const Kokkos::View<int*>& v) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<int>(h.data(), h.data() + h.extent(0));
}

/// A matrix whose rows all hold `length` non-zeros.
cs::HostCsr<C> equal_rows(int rows, int cols, int length, std::mt19937& rng) {
  return random_csr<C>(rows, cols, length, length, -1, rng);
}

}  // namespace

TEST(SegmentedSum, StateMatchesAWalkOfTheOffsets) {
  std::mt19937 rng(5);
  const std::vector<std::pair<std::string, cs::HostCsr<C>>> matrices = {
      {"empty rows", random_csr<C>(257, 193, 0, 12, -1, rng)},
      {"a row of 5000", random_csr<C>(61, 5000, 0, 2, 29, rng)},
      {"rows of 64", equal_rows(40, 100, cs::impl::segmented_tile_entries, rng)},
      {"no entries", random_csr<C>(40, 40, 0, 0, -1, rng)},
      {"power law", power_law_csr<C>(3001, 3001, rng)}};
  for (const auto& [name, host] : matrices) {
    const auto a = cs::to_device<cs::Csr, cs::Aos>(host);
    const auto& s = a.segmented;
    const int nnz = static_cast<int>(host.num_entries());
    const int tile = cs::impl::segmented_tile_entries;
    ASSERT_EQ(s.tiles, (nnz + tile - 1) / tile) << name;
    const auto heads_view = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.heads);
    ASSERT_EQ(heads_view.extent(0), static_cast<std::size_t>(s.tiles) * cs::impl::segmented_steps + 1) << name;
    const auto head = [&](int k) { return (heads_view(k / 32) >> (k % 32)) & 1u; };
    std::vector<int> empty, nonempty, short_splits, long_splits;
    const auto before = host_copy(s.heads_before);
    for (int r = 0; r < host.num_rows; ++r) {
      const int b = host.row_offsets[r], e = host.row_offsets[r + 1];
      for (int k = b; k < e; ++k) EXPECT_EQ(head(k), k == b ? 1u : 0u) << name << " row " << r << " non-zero " << k;
      if (b == e) {
        empty.push_back(r);
        continue;
      }
      nonempty.push_back(r);
      const int span = (e - 1) / tile - b / tile;
      if (span > cs::impl::segmented_long_span)
        long_splits.push_back(r);
      else if (span > 0)
        short_splits.push_back(r);
    }
    EXPECT_EQ(head(nnz), 1u) << name << ": the bit past the last non-zero ends its row";
    for (int t = 0; t < s.tiles; ++t) {
      int count = 0;
      for (int k = 0; k < t * tile; ++k) count += static_cast<int>(head(k));
      EXPECT_EQ(before[t], count) << name << " tile " << t;
    }
    EXPECT_EQ(host_copy(s.empty_rows), empty) << name;
    EXPECT_EQ(s.empty_count, static_cast<int>(empty.size())) << name;
    // The row of the i-th non-empty row is i when no row is empty.
    EXPECT_EQ(host_copy(s.nonempty_rows), empty.empty() ? std::vector<int>{} : nonempty) << name;
    std::vector<int> splits = short_splits;
    splits.insert(splits.end(), long_splits.begin(), long_splits.end());
    EXPECT_EQ(host_copy(s.split_rows), splits) << name;
    EXPECT_EQ(s.short_splits, static_cast<int>(short_splits.size())) << name;
    EXPECT_EQ(s.long_splits, static_cast<int>(long_splits.size())) << name;
    EXPECT_EQ(s.partials.extent(0), 2 * static_cast<std::size_t>(s.tiles)) << name;
  }
  // "a row of 5000" spans 78 tiles: the long path.
  const auto a = cs::to_device<cs::Csr, cs::Aos>(random_csr<C>(61, 5000, 0, 2, 29, rng));
  EXPECT_EQ(a.segmented.long_splits, 1);
}

// Rows that end exactly where tiles end (64 and 128 non-zeros), rows of 63 and 65
// that end just before and after, and one row that fills many whole tiles: every
// case of a tile's first and last row, on both inner layouts.
TEST(SegmentedSum, RowsAtTileEdgesMatchTheReference) {
  std::mt19937 rng(9);
  const int tile = cs::impl::segmented_tile_entries;
  for (int length : {tile, 2 * tile, tile - 1, tile + 1, 17 * tile, 17 * tile + 3}) {
    const auto host = equal_rows(23, 40 * tile, length, rng);
    const auto x_host = random_vector<C>(host.num_cols, rng);
    auto y0 = random_vector<C>(host.num_rows, rng);
    const auto a = cs::to_device<cs::Csr, cs::Soa>(host);
    const auto x = cs::to_device<cs::Aos>(x_host);
    const auto y = cs::to_device<cs::Aos>(y0);
    const C alpha(0.5, -1), beta(2, 0.25);
    cs::spmv(cs::Schedule<cs::ScheduleKind::SegmentedSum, 128, 4>{}, alpha, a, x, beta, y);
    expect_matches_reference<C>("rows of " + std::to_string(length), alpha, host, x_host, beta, y0, cs::to_host(y));
  }
}

TEST(SegmentedSum, RefusesLanesAndOtherLayouts) {
  std::mt19937 rng(1);
  const auto host = random_csr<C>(40, 40, 1, 5, -1, rng);
  const auto a = cs::to_device<cs::Csr, cs::Aos>(host);
  const auto x = cs::to_device<cs::Aos>(std::vector<C>(40, C(1, 0)));
  const auto y = cs::to_device<cs::Aos>(std::vector<C>(40));
  cs::Schedule<cs::ScheduleKind::SegmentedSum, 128, 4> schedule;
  schedule.lanes_per_row = 4;
  try {
    cs::spmv(schedule, C(1, 0), a, x, C(0, 0), y);
    ADD_FAILURE() << "lanes_per_row 4 accepted";
  } catch (const cs::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("segmented_sum does not use lanes"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cs::parse_variant_key("csr.aos.aos.segmented_sum.t128.b4.l2"), cs::Error);
  EXPECT_THROW(cs::parse_variant_key("sell32.aos.aos.segmented_sum.t128.b4.l1"), cs::Error);
  EXPECT_NO_THROW(cs::parse_variant_key("csr.aos.aos.segmented_sum.t128.b4.l1"));
}

TEST(SegmentedSum, RefusesAMatrixWithoutItsState) {
  std::mt19937 rng(2);
  auto a = cs::to_device<cs::Csr, cs::Aos>(random_csr<C>(50, 50, 1, 9, -1, rng));
  a.segmented = {};  // as a matrix assembled by hand would have it
  const auto x = cs::to_device<cs::Aos>(std::vector<C>(50, C(1, 0)));
  const auto y = cs::to_device<cs::Aos>(std::vector<C>(50));
  try {
    cs::spmv(cs::Schedule<cs::ScheduleKind::SegmentedSum, 128, 4>{}, C(1, 0), a, x, C(0, 0), y);
    ADD_FAILURE() << "a matrix without segmented-sum state accepted";
  } catch (const cs::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("no segmented-sum state"), std::string::npos) << e.what();
  }
}
