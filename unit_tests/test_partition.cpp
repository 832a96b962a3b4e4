// Partitioning for the distributed product (distributed/partition.hpp): row blocks
// balanced by non-zeros, owners, reverse Cuthill-McKee and the permuted matrix, halo sizes.
// No MPI needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <compound_sparse.hpp>
#include <compound_sparse/distributed/partition.hpp>
#include <cstring>
#include <numeric>

#include "error_helpers.hpp"
#include "test_matrices.hpp"
#include "tuning_test_helpers.hpp"

namespace cs = compound_sparse;
using namespace compound_sparse_test;
using C = Kokkos::complex<double>;

namespace {
/// max |i - j| over the non-zeros.
template <class Entry>
int bandwidth(const cs::HostCsr<Entry>& a) {
  int b = 0;
  for (int r = 0; r < a.num_rows; ++r)
    for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k) b = std::max(b, std::abs(a.col_indices[k] - r));
  return b;
}
}  // namespace

TEST(Partition, BlocksBalanceNonZerosAndEveryRowHasOneOwner) {
  std::mt19937 rng(1);
  const auto a = random_csr<C>(1000, 1000, 0, 20, 7, rng);  // one row of 1000 non-zeros
  for (const int parts : {1, 2, 3, 7}) {
    const auto p = cs::balanced_row_partition(a, parts);
    ASSERT_EQ(p.parts(), parts);
    EXPECT_EQ(p.begin(0), 0);
    EXPECT_EQ(p.rows(), a.num_rows);
    const double share = (double(a.num_entries()) + a.num_rows) / parts;
    for (int q = 0; q < parts; ++q) {
      ASSERT_LE(p.begin(q), p.end(q));
      double weight = 0;
      for (int r = p.begin(q); r < p.end(q); ++r) {
        weight += a.row_length(r) + 1;
        EXPECT_EQ(p.owner(r), q);
      }
      // Within one row (the longest) of an even share.
      EXPECT_LE(weight, share + a.num_cols + 1) << parts << " parts, part " << q;
    }
  }
  EXPECT_THROW(cs::balanced_row_partition(a, 0), cs::InvalidInput);
  EXPECT_THROW(cs::balanced_row_partition(a, 2).owner(1000), cs::InvalidInput);
  // More parts than rows: the last ones are empty, and owners skip them.
  const auto tiny = random_csr<C>(2, 2, 1, 2, -1, rng);
  const auto p = cs::balanced_row_partition(tiny, 4);
  EXPECT_EQ(p.rows(), 2);
  EXPECT_EQ(p.size(0) + p.size(1) + p.size(2) + p.size(3), 2);
  for (const int row : {0, 1}) {
    const int q = p.owner(row);
    EXPECT_TRUE(p.begin(q) <= row && row < p.end(q)) << "row " << row << " given to part " << q;
  }
}

TEST(Partition, ReverseCuthillMckeeUndoesAShuffle) {
  // A band of width 5 with its rows and columns shuffled: RCM finds a band again.
  const auto band = banded<C>(400, 5);
  std::vector<int> shuffle(400);
  std::iota(shuffle.begin(), shuffle.end(), 0);
  std::mt19937 rng(2);
  std::shuffle(shuffle.begin(), shuffle.end(), rng);
  const auto shuffled = cs::permuted(band, shuffle);
  EXPECT_GT(bandwidth(shuffled), 100);
  const auto order = cs::reverse_cuthill_mckee(shuffled);
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 400; ++i) ASSERT_EQ(sorted[i], i) << "not a permutation";
  const auto reordered = cs::permuted(shuffled, order);
  EXPECT_LE(bandwidth(reordered), 4) << "RCM left bandwidth " << bandwidth(reordered);
  // The halos shrink with it.
  const auto parts = cs::balanced_row_partition(reordered, 4);
  const auto before = cs::halo_sizes(shuffled, cs::balanced_row_partition(shuffled, 4));
  const auto after = cs::halo_sizes(reordered, parts);
  EXPECT_LT(std::accumulate(after.begin(), after.end(), 0LL), std::accumulate(before.begin(), before.end(), 0LL) / 10);
  // P A Pᵀ x' = (A x)' for x' = x permuted: the product commutes with the reordering.
  const auto x = random_vector<C>(400, rng);
  const auto y = cs::reference_spmv<double>(C(1, 0), shuffled, x, C(0, 0), std::vector<C>(400));
  const auto y_reordered =
      cs::reference_spmv<double>(C(1, 0), reordered, cs::permuted_vector(x, order), C(0, 0), std::vector<C>(400));
  const auto back = cs::unpermuted_vector(y_reordered, order);
  for (int i = 0; i < 400; ++i) EXPECT_NEAR(Kokkos::abs(back[i] - y[i]), 0.0, 1e-12) << i;
  // Bad orders and shapes are refused.
  EXPECT_THROW(cs::permuted(band, std::vector<int>(400, 0)), cs::InvalidInput);
  EXPECT_THROW(cs::permuted(band, std::vector<int>(3, 0)), cs::InvalidInput);
  EXPECT_THROW(cs::reverse_cuthill_mckee(random_csr<C>(4, 5, 1, 2, -1, rng)), cs::InvalidInput);
}

TEST(Partition, PermutedSortsEachRowAndSumsRepeats) {
  // Rows in any column order with repeated columns: P A Pᵀ is the matrix csr_from_coo
  // builds from the moved triples (rows sorted, repeats summed in their order).
  std::mt19937 rng(4);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 60);
    cs::HostCsr<C> a;
    a.num_rows = a.num_cols = n;
    for (int r = 0; r < n; ++r) {
      const int length = static_cast<int>(rng() % 7);
      for (int j = 0; j < length; ++j) {
        a.col_indices.push_back(static_cast<int>(rng() % std::min(n, 4)) * (n / std::min(n, 4)));  // repeats
        a.values.push_back(random_value<C>(rng));
      }
      a.row_offsets.push_back(static_cast<int>(a.col_indices.size()));
    }
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<int> position(n);
    for (int i = 0; i < n; ++i) position[order[i]] = i;
    std::vector<cs::CooEntry<C>> moved;
    for (int r = 0; r < n; ++r)
      for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
        moved.push_back({position[r], position[a.col_indices[k]], a.values[k]});
    const auto want = cs::csr_from_coo<C>(n, n, moved);
    const auto got = cs::permuted(a, order);
    ASSERT_EQ(got.row_offsets, want.row_offsets) << "trial " << trial;
    ASSERT_EQ(got.col_indices, want.col_indices) << "trial " << trial;
    ASSERT_EQ(std::memcmp(got.values.data(), want.values.data(), want.values.size() * sizeof(C)), 0)
        << "trial " << trial;
  }
}

TEST(Partition, HaloSizesCountDistinctRemoteColumns) {
  // 6 x 6: rows 0-2 to part 0, 3-5 to part 1. Part 0 reads columns 3, 4 (twice) and 5;
  // part 1 reads column 0.
  std::vector<cs::CooEntry<C>> coo = {{0, 0, C(1, 0)}, {0, 3, C(1, 0)}, {1, 4, C(1, 0)}, {2, 4, C(1, 0)},
                                      {2, 5, C(1, 0)}, {3, 3, C(1, 0)}, {4, 0, C(1, 0)}, {5, 5, C(1, 0)}};
  const auto a = cs::csr_from_coo<C>(6, 6, coo);
  cs::RowPartition p;
  p.starts = {0, 3, 6};
  EXPECT_EQ(cs::halo_sizes(a, p), (std::vector<std::int64_t>{3, 1}));
  p.starts = {0, 6};
  EXPECT_EQ(cs::halo_sizes(a, p), (std::vector<std::int64_t>{0}));
  p.starts = {0, 5};
  EXPECT_THROW(cs::halo_sizes(a, p), cs::InvalidInput);
}

namespace {
template <class F>
std::string invalid_input_of(F&& f) {
  return error_of_kind<cs::InvalidInput>(f);
}
}  // namespace

TEST(Partition, ReorderingRefusesAMalformedMatrix) {
  // Both used to read far past the arrays (a crash) where transposed and TunedSpmv refused.
  auto wild_column = banded<C>(40, 3);
  wild_column.col_indices[7] = 5000000;
  auto short_offsets = banded<C>(40, 3);
  short_offsets.row_offsets.resize(20);
  const std::vector<int> identity = [] {
    std::vector<int> order(40);
    std::iota(order.begin(), order.end(), 0);
    return order;
  }();
  for (const auto* bad : {&wild_column, &short_offsets}) {
    const std::string rcm = invalid_input_of([&] { cs::reverse_cuthill_mckee(*bad); });
    EXPECT_TRUE(contains(rcm, "reverse_cuthill_mckee: ")) << rcm;
    const std::string moved = invalid_input_of([&] { cs::permuted(*bad, identity); });
    EXPECT_TRUE(contains(moved, "permuted: ")) << moved;
  }
  EXPECT_TRUE(contains(invalid_input_of([&] { cs::reverse_cuthill_mckee(wild_column); }),
                       "column index 5000000 in row 2 (entry 7) is outside [0, 40)"));
  EXPECT_TRUE(contains(invalid_input_of([&] { cs::permuted(short_offsets, identity); }),
                       "row_offsets has 20 entries, expected num_rows + 1 = 41"));
  // The partition helpers check the matrix and the partition the same way.
  cs::RowPartition p;
  p.starts = {0, 20, 40};
  EXPECT_TRUE(contains(invalid_input_of([&] { cs::halo_sizes(wild_column, p); }), "halo_sizes: column index"));
  EXPECT_TRUE(contains(invalid_input_of([&] { cs::balanced_row_partition(short_offsets, 2); }),
                       "balanced_row_partition: row_offsets"));
  p.starts = {0, 30, 20, 40};
  EXPECT_TRUE(contains(invalid_input_of([&] { cs::halo_sizes(banded<C>(40, 3), p); }),
                       "halo_sizes: part 1 of the partition starts at row 30, after part 2 (row 20)"));
  p.starts = {3, 40};
  EXPECT_TRUE(contains(invalid_input_of([&] { cs::halo_sizes(banded<C>(40, 3), p); }), "starts at row 3, not 0"));
}

TEST(Partition, VectorPermutationsRefuseAnythingButAPermutation) {
  const std::vector<C> v = {C(1, 0), C(2, 0), C(3, 0), C(4, 0)};
  EXPECT_EQ(cs::permuted_vector(v, {3, 1, 0, 2}), (std::vector<C>{C(4, 0), C(2, 0), C(1, 0), C(3, 0)}));
  EXPECT_EQ(cs::unpermuted_vector(cs::permuted_vector(v, {3, 1, 0, 2}), {3, 1, 0, 2}), v);
  // A longer order, a repeated index, an index out of range, a shorter order: each used to
  // read or write past a vector, return garbage or throw std::out_of_range.
  const std::vector<std::pair<std::vector<int>, std::string>> bad = {
      {{0, 1, 2, 3, 4}, "an order of 5 positions for 4 rows or values"},
      {{0, 1, 1, 3}, "1 is at positions 1 and 2"},
      {{0, 1, 2, 7}, "position 3 holds 7, outside [0, 4)"},
      {{0, 1, -1, 3}, "position 2 holds -1, outside [0, 4)"},
      {{0, 1, 2}, "an order of 3 positions for 4 rows or values"}};
  for (const auto& [order, reason] : bad) {
    const std::string forward = invalid_input_of([&] { cs::permuted_vector(v, order); });
    EXPECT_TRUE(contains(forward, "permuted_vector: ") && contains(forward, reason)) << forward;
    const std::string back = invalid_input_of([&] { cs::unpermuted_vector(v, order); });
    EXPECT_TRUE(contains(back, "unpermuted_vector: ") && contains(back, reason)) << back;
  }
}
