// How the row schedules hand out rows (impl/row_schedule.hpp), beyond what the
// generated suites check for every variant: SmRange's ranges cover every chunk once,
// the counters each kind resets, and SmRange gives Static's bits, product after
// product (a counter left unreset would skip rows: y keeps its NaNs), for the SpMV and
// the SpMM, on matrices of more chunks than a GPU has multiprocessors (every range
// busy, teams helping other ranges) and of fewer (most ranges empty).
#include <gtest/gtest.h>

#include <algorithm>
#include <compound_sparse.hpp>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "spmv_test_suite.hpp"
#include "test_matrices.hpp"

namespace cs = compound_sparse;
using namespace compound_sparse_test;

TEST(RowSchedule, SmRangesCoverEveryChunkOnceInNearlyEqualRanges) {
  for (const int rows : {0, 1, 5, 64, 131 * 64, 132 * 64 + 1, 328509, 5000000})
    for (const int ranges : {1, 7, 132, cs::max_work_counters}) {
      const auto work = cs::impl::RowWork::make(rows, 64, 8, ranges);
      const std::string context = std::to_string(rows) + " rows, " + std::to_string(ranges) + " ranges";
      EXPECT_EQ(work.range_begin(0), 0) << context;
      EXPECT_EQ(work.range_begin(ranges), work.team_chunks) << context;
      unsigned smallest = ~0u, largest = 0;
      for (int r = 0; r < ranges; ++r) {
        EXPECT_EQ(work.range_begin(r) + static_cast<int>(work.range_chunks(r)), work.range_begin(r + 1)) << context;
        smallest = std::min(smallest, work.range_chunks(r));
        largest = std::max(largest, work.range_chunks(r));
      }
      EXPECT_LE(largest - smallest, 1u) << context;
    }
  // Host teams: team t of a league takes the t-th of league-many ranges.
  const auto work = cs::impl::RowWork::make(1000, 10, 8);
  EXPECT_EQ(work.ranges, 1);
  EXPECT_EQ(work.range_begin(3, 7), 100 * 3 / 7);
}

TEST(RowSchedule, EachKindResetsTheCountersItUses) {
  using K = cs::ScheduleKind;
  const auto work = cs::impl::RowWork::make(100000, 64, 8, 132);
  EXPECT_EQ(work.counters(K::Static, true), 0);
  EXPECT_EQ(work.counters(K::DynamicTeam, true), 1);
  EXPECT_EQ(work.counters(K::DynamicWarp, false), 1);
  EXPECT_EQ(work.counters(K::SmRange, true), 132);
  EXPECT_EQ(work.counters(K::SmRange, false), 0) << "host teams take their ranges without counters";
}

namespace {

using C = Kokkos::complex<double>;

/// Rows of 0 to 20 distinct random columns among the 64 around the diagonal (a mesh's
/// locality, which SmRange is for), in random order.
cs::HostCsr<C> banded_csr(int num_rows, int num_cols, std::mt19937& rng) {
  cs::HostCsr<C> a;
  a.num_rows = num_rows;
  a.num_cols = num_cols;
  int window[64];
  for (int r = 0; r < num_rows; ++r) {
    const int first = std::max(0, std::min(r - 32, num_cols - 64));
    for (int i = 0; i < 64; ++i) window[i] = first + i;
    const int len = std::uniform_int_distribution<int>(0, 20)(rng);
    for (int k = 0; k < len; ++k) {
      std::swap(window[k], window[std::uniform_int_distribution<int>(k, 63)(rng)]);
      a.col_indices.push_back(window[k]);
      a.values.push_back(random_value<C>(rng));
    }
    a.row_offsets.push_back(static_cast<int>(a.col_indices.size()));
  }
  return a;
}

/// Y = A X with beta = 0 on Y full of NaN, by Kind at `lanes`, three products in a row.
template <cs::ScheduleKind Kind>
std::vector<std::vector<C>> three_products(const cs::SparseMatrix<C, cs::SlicedEll<32>, cs::Aos>& a,
                                           const cs::MultiVector<C, cs::Aos>& x, int lanes) {
  cs::Schedule<Kind, 256, 4> schedule;
  schedule.lanes_per_row = lanes;
  std::vector<std::vector<C>> results;
  const std::vector<std::vector<C>> nans(x.count(), std::vector<C>(a.num_rows, nan_value<C>()));
  for (int product = 0; product < 3; ++product) {
    const auto y = cs::to_device<cs::Aos>(nans);
    cs::spmm(schedule, C(1, 0), a, x, C(0, 0), y);
    for (auto& v : cs::to_host(y)) results.push_back(v);
  }
  return results;
}

void expect_sm_range_gives_statics_bits(const std::string& name, const cs::HostCsr<C>& host, int k, std::mt19937& rng) {
  const auto a = cs::to_device<cs::SlicedEll<32>, cs::Aos>(host);
  std::vector<std::vector<C>> x_host(k);
  for (auto& v : x_host) v = random_vector<C>(host.num_cols, rng);
  const auto x = cs::to_device<cs::Aos>(x_host);
  for (const int lanes : {1, 4}) {
    const std::string context = name + ", k = " + std::to_string(k) + ", lanes " + std::to_string(lanes);
    const auto by_static = three_products<cs::ScheduleKind::Static>(a, x, lanes);
    const auto by_range = three_products<cs::ScheduleKind::SmRange>(a, x, lanes);
    ASSERT_EQ(by_range.size(), by_static.size()) << context;
    for (std::size_t j = 0; j < by_range.size(); ++j) {
      expect_matches_reference<C>(context + ", product " + std::to_string(j / k), C(1, 0), host, x_host[j % k], C(0, 0),
                                  std::vector<C>(host.num_rows, C(0, 0)), by_range[j]);
      EXPECT_EQ(0, std::memcmp(by_range[j].data(), by_static[j].data(), by_static[j].size() * sizeof(C)))
          << context << ": vector " << j % k << " of product " << j / k << " differs from Static's";
    }
  }
}

}  // namespace

TEST(RowSchedule, SmRangeGivesStaticsBitsProductAfterProduct) {
  std::mt19937 rng(31);
  // 70,000 rows: 1,094 chunks of 64 (SpMM) or 274 of 256 (SpMV) over a GPU's ranges.
  const auto many = banded_csr(70000, 69000, rng);
  const auto few = random_csr<C>(300, 280, 0, 9, 7, rng);
  for (const int k : {1, 8}) {
    expect_sm_range_gives_statics_bits("70000 rows", many, k, rng);
    expect_sm_range_gives_statics_bits("300 rows with a long row", few, k, rng);
  }
}
