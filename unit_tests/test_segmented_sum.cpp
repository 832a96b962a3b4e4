// The segmented-sum schedule's pieces: the bitmap and lists made with the matrix,
// against a walk of the offsets; rows that end exactly at tile ends; rows spanning
// many tiles, and long rows summed in several chunks; its SpMM against its SpMV per vector;
// and its refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <compound_sparse.hpp>
#include <cstring>
#include <string>
#include <type_traits>
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

/// A matrix with rows of the given lengths (columns increasing from a random start, values random).
template <class Entry = C>
cs::HostCsr<Entry> rows_of_lengths(const std::vector<int>& lengths, int cols, std::mt19937& rng) {
  cs::HostCsr<Entry> a;
  a.num_rows = static_cast<int>(lengths.size());
  a.num_cols = cols;
  const auto values = random_vector<Entry>(static_cast<int>(*std::max_element(lengths.begin(), lengths.end())), rng);
  for (int length : lengths) {
    const int start = std::uniform_int_distribution<int>(0, cols - length)(rng);
    for (int k = 0; k < length; ++k) {
      a.col_indices.push_back(start + k);
      a.values.push_back(values[k]);
    }
    a.row_offsets.push_back(static_cast<int>(a.col_indices.size()));
  }
  return a;
}

/// Row lengths around the chunk size of long rows (a chunk: segmented_chunk_slots tiles'
/// slots): rows of one chunk exactly when they start at a tile, of one slot more, of several
/// chunks with a short last one, with short and empty rows between them. The longest (five
/// chunks) has more than segmented_chunked_min_slots slots, so the matrix's long rows are cut.
std::vector<int> chunked_row_lengths() {
  const int tile = cs::impl::segmented_tile_entries, chunk = cs::impl::segmented_chunk_slots * tile;
  static_assert(4 * cs::impl::segmented_chunk_slots + 8 > cs::impl::segmented_chunked_min_slots);
  // The first row starts at a tile: chunk - 1 slots' worth of non-zeros (one chunk), then a
  // row of exactly `chunk` non-zeros that starts mid-tile (chunk + 1 slots: two chunks).
  return {chunk - tile, 5, 0, chunk, 3, 4 * chunk + 7 * tile + 11, 0, 17 * tile + 1, 1, chunk + tile, 2};
}

/// Long rows of up to three chunks' slots, none over segmented_chunked_min_slots: each is
/// summed whole by one warp, with no third pass.
std::vector<int> uncut_row_lengths() {
  const int tile = cs::impl::segmented_tile_entries, chunk = cs::impl::segmented_chunk_slots * tile;
  static_assert(3 * cs::impl::segmented_chunk_slots + 9 <= cs::impl::segmented_chunked_min_slots);
  return {3 * chunk + 7 * tile + 11, 5, 0, chunk, 3, 17 * tile + 1, 1, chunk + tile, 2};
}

}  // namespace

TEST(SegmentedSum, StateMatchesAWalkOfTheOffsets) {
  std::mt19937 rng(5);
  const std::vector<std::pair<std::string, cs::HostCsr<C>>> matrices = {
      {"empty rows", random_csr<C>(257, 193, 0, 12, -1, rng)},
      {"a row of 5000", random_csr<C>(61, 5000, 0, 2, 29, rng)},
      {"rows of 64", equal_rows(40, 100, cs::impl::segmented_tile_entries, rng)},
      {"no entries", random_csr<C>(40, 40, 0, 0, -1, rng)},
      {"power law", power_law_csr<C>(3001, 3001, rng)},
      {"rows of several chunks", rows_of_lengths(chunked_row_lengths(), 70000, rng)},
      {"long rows, uncut", rows_of_lengths(uncut_row_lengths(), 70000, rng)}};
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
    // Each long split row's slots in chunks of segmented_chunk_slots, in order, where the
    // longest has more than segmented_chunked_min_slots; else one chunk a row.
    std::vector<int> slots;
    for (int r : long_splits) slots.push_back((host.row_offsets[r + 1] - 1) / tile - host.row_offsets[r] / tile + 1);
    const bool cut =
        !slots.empty() && *std::max_element(slots.begin(), slots.end()) > cs::impl::segmented_chunked_min_slots;
    std::vector<int> chunk_split, chunk_first, chunk_begin, chunked;
    for (std::size_t j = 0; j < long_splits.size(); ++j) {
      const int chunk_size = cut ? cs::impl::segmented_chunk_slots : slots[j];
      chunk_begin.push_back(static_cast<int>(chunk_split.size()));
      for (int q = 0; q < slots[j]; q += chunk_size) {
        chunk_split.push_back(static_cast<int>(j));
        chunk_first.push_back(q);
      }
      if (slots[j] > chunk_size) chunked.push_back(static_cast<int>(j));
    }
    chunk_begin.push_back(static_cast<int>(chunk_split.size()));
    EXPECT_EQ(host_copy(s.chunk_split), chunk_split) << name;
    // A chunk's first slot, derived from its row's first chunk, as the fixup derives it.
    const auto begin_of_row = host_copy(s.chunk_begin), row_of_chunk = host_copy(s.chunk_split);
    std::vector<int> derived_first;
    for (std::size_t c = 0; c < row_of_chunk.size(); ++c)
      derived_first.push_back((static_cast<int>(c) - begin_of_row[row_of_chunk[c]]) * cs::impl::segmented_chunk_slots);
    EXPECT_EQ(derived_first, chunk_first) << name;
    EXPECT_EQ(host_copy(s.chunk_begin), chunk_begin) << name;
    EXPECT_EQ(host_copy(s.chunked_splits), chunked) << name;
    EXPECT_EQ(s.chunks, static_cast<int>(chunk_split.size())) << name;
    EXPECT_EQ(s.chunked_count, static_cast<int>(chunked.size())) << name;
    EXPECT_EQ(s.chunk_sums.extent(0), chunked.empty() ? 0 : chunk_split.size()) << name;
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

// Long rows cut into chunks (pass 2) whose sums pass 3 adds: rows of one chunk, of two, of
// five with a short last one, between short and empty rows; and long rows left whole (one
// of three chunks' slots) where none is long enough to be cut; every entry class, both beta
// paths, and the same bits on a second call.
template <class Entry>
void check_long_rows(unsigned seed, bool cut) {
  std::mt19937 rng(seed);
  const auto host = rows_of_lengths<Entry>(cut ? chunked_row_lengths() : uncut_row_lengths(), 70000, rng);
  const auto a = cs::to_device<cs::Csr, cs::Aos>(host);
  if (cut) {
    ASSERT_GT(a.segmented.chunked_count, 1);
    ASSERT_GT(a.segmented.chunks, a.segmented.long_splits + 3);
  } else {
    ASSERT_EQ(a.segmented.chunked_count, 0);
    ASSERT_EQ(a.segmented.chunks, a.segmented.long_splits);
    ASSERT_GT(a.segmented.long_splits, 2);
  }
  using V = cs::vector_type_t<Entry>;
  const auto x_host = random_vector<V>(host.num_cols, rng);
  const auto x = cs::to_device<cs::Aos>(x_host);
  const cs::Schedule<cs::ScheduleKind::SegmentedSum, 256, 4> schedule;
  for (const auto& [alpha, beta] : coefficient_pairs<cs::coefficient_type_t<Entry>>()) {
    auto y0 = random_vector<V>(host.num_rows, rng);
    if (l1(beta) == 0)
      for (auto& v : y0) v = nan_value<V>();  // y is not read
    const auto y = cs::to_device<cs::Aos>(y0);
    cs::spmv(schedule, alpha, a, x, beta, y);
    const auto first = cs::to_host(y);
    expect_matches_reference<Entry>(cut ? "chunked rows" : "uncut long rows", alpha, host, x_host, beta, y0, first);
    if (l1(beta) == 0) {
      cs::spmv(schedule, alpha, a, x, beta, y);
      const auto second = cs::to_host(y);
      EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(V)), 0)
          << "another sum on a second call";
    }
  }
}

// The SpMM (impl/segmented_sum_spmm.hpp) on k vectors of `Layout`, in both beta paths: every
// column bit for bit the SpMV of that column with the same schedule, and within the
// reference's tolerance. k = 3 and 5 leave a group part-filled.
template <class Entry, class Layout, class Matrix>
void check_spmm_columns(const std::string& name, const cs::HostCsr<Entry>& host, const Matrix& a, int k,
                        std::mt19937& rng) {
  using V = cs::vector_type_t<Entry>;
  const cs::Schedule<cs::ScheduleKind::SegmentedSum, 256, 4> schedule;
  std::vector<std::vector<V>> x_host;
  for (int j = 0; j < k; ++j) x_host.push_back(random_vector<V>(host.num_cols, rng));
  const auto x = cs::to_device<Layout>(x_host);
  for (const auto& [alpha, beta] : coefficient_pairs<cs::coefficient_type_t<Entry>>()) {
    std::vector<std::vector<V>> y0;
    for (int j = 0; j < k; ++j) {
      y0.push_back(random_vector<V>(host.num_rows, rng));
      if (l1(beta) == 0)
        for (auto& v : y0.back()) v = nan_value<V>();  // y is not read
    }
    const auto y = cs::to_device<Layout>(y0);
    cs::spmm(schedule, alpha, a, x, beta, y);
    const auto got = cs::to_host(y);
    const std::string what =
        name + ", k = " + std::to_string(k) + (std::is_same<Layout, cs::Soa>::value ? ", soa" : ", aos");
    for (int j = 0; j < k; ++j) {
      const auto yj = cs::to_device<cs::Aos>(y0[static_cast<std::size_t>(j)]);
      cs::spmv(schedule, alpha, a, cs::to_device<cs::Aos>(x_host[static_cast<std::size_t>(j)]), beta, yj);
      const auto spmv = cs::to_host(yj);
      ASSERT_EQ(got[static_cast<std::size_t>(j)].size(), spmv.size());
      EXPECT_EQ(std::memcmp(got[static_cast<std::size_t>(j)].data(), spmv.data(), spmv.size() * sizeof(V)), 0)
          << what << ": column " << j << " differs from its SpMV";
      expect_matches_reference<Entry>(what, alpha, host, x_host[static_cast<std::size_t>(j)], beta,
                                      y0[static_cast<std::size_t>(j)], got[static_cast<std::size_t>(j)]);
    }
  }
}

/// Whole tiles of rows of 2, 3, 5, 9 and then 17 non-zeros: on CUDA their tiles' scans reach
/// 1, 2, 4, 8 and 16 lanes (segmented_scan_reach), each a level that must still run.
std::vector<int> short_rows_of_each_reach() {
  std::vector<int> lengths;
  for (int length : {2, 3, 5, 9, 17}) lengths.insert(lengths.end(), 4 * cs::impl::segmented_tile_entries, length);
  return lengths;
}

template <class Entry>
void check_spmm(unsigned seed) {
  std::mt19937 rng(seed);
  const int tile = cs::impl::segmented_tile_entries;
  const std::vector<std::pair<std::string, std::vector<int>>> shapes = {
      {"chunked rows", chunked_row_lengths()},
      {"uncut long rows", uncut_row_lengths()},
      {"rows at tile edges", {tile, 2 * tile, tile - 1, 0, tile + 1, 17 * tile, 0, 0, 17 * tile + 3, 1}},
      {"one row", {5}},
      {"short rows of 2, 3, 5, 9 and 17", short_rows_of_each_reach()}};
  for (const auto& [name, lengths] : shapes) {
    const auto host = rows_of_lengths<Entry>(lengths, 70000, rng);
    const auto a = cs::to_device<cs::Csr, cs::Soa>(host);
    for (int k : {2, 3, 5, 6, 8, 16}) {
      check_spmm_columns<Entry, cs::Aos>(name, host, a, k, rng);
      check_spmm_columns<Entry, cs::Soa>(name, host, a, k, rng);
    }
  }
}

TEST(SegmentedSum, SpmmColumnsAreTheirSpmvs) {
  check_spmm<C>(31);
  check_spmm<cs::Quaternion<float>>(32);
  check_spmm<cs::Block<double, 3>>(33);
  // On CUDA, Aos multivectors of complex<float> at k = 8 and 16 read each group of four
  // vectors' X values as one run of 16-byte words, and the half groups of k = 2 and 6 as one
  // 16-byte word; k = 3 and 5 end in partial groups of three and one, read value by value.
  check_spmm<Kokkos::complex<float>>(34);
}

template <class Entry, int Group = cs::impl::segmented_spmm_group<Entry>()>
using SpmmTiles = cs::impl::SegmentedSumSpmmTiles<Entry, cs::Aos, Kokkos::HostSpace, Group>;

// The words in which the SpMM reads a group's X values on an Aos multivector (CUDA only, but
// chosen on the host): the group's bytes, the row stride's bytes and the address must all be
// multiples of the word, and the word wider than one value.
TEST(SegmentedSum, RunWordsFollowSizeStrideAndAlignment) {
  using cf = Kokkos::complex<float>;
  alignas(16) static cf values[64];
  EXPECT_EQ((cs::impl::run_word_bytes<4, cf>(values, 16)), 16);     // k = 16: 128-byte rows
  EXPECT_EQ((cs::impl::run_word_bytes<4, cf>(values, 6)), 16);      // 48-byte rows
  EXPECT_EQ((cs::impl::run_word_bytes<4, cf>(values, 5)), 0);       // 40-byte rows: every other row misaligned
  EXPECT_EQ((cs::impl::run_word_bytes<4, cf>(values + 1, 16)), 0);  // 8-byte aligned only
  EXPECT_EQ((cs::impl::run_word_bytes<1, cf>(values, 16)), 0);      // one value: load_whole's word already
  EXPECT_EQ((cs::impl::run_word_bytes<2, C>(reinterpret_cast<C*>(values), 8)), 0);  // 16-byte values
  alignas(16) static float reals[64];
  EXPECT_EQ((cs::impl::run_word_bytes<2, float>(reals, 8)), 8);  // 8 bytes a group: 8-byte words
  EXPECT_EQ((cs::impl::run_word_bytes<2, float>(reals, 3)), 0);  // 12-byte rows
  EXPECT_EQ((cs::impl::run_word_bytes<4, float>(reals, 4)), 16);
  EXPECT_EQ((cs::impl::run_word_bytes<4, float>(reals, 2)), 8);  // 8-byte rows
  static_assert(cs::impl::run_fits_words<4, cf, 16> && !cs::impl::run_fits_words<4, cf, 8>);
  static_assert(!cs::impl::run_fits_words<2, C, 16>, "complex<double> is read in 16-byte words already");
  // Which of the library's value types the first pass reads in runs (its CUDA branches are
  // compiled only where these hold): complex<float>, whole groups of four and half groups of two.
  using cf_tiles = SpmmTiles<Kokkos::complex<float>>;
  static_assert(cf_tiles::group == 4 && cf_tiles::group_fits_runs && cf_tiles::half_group == 2 &&
                cf_tiles::half_group_fits_runs);
  static_assert(!SpmmTiles<C>::group_fits_runs && !SpmmTiles<C>::half_group_fits_runs);
  static_assert(!SpmmTiles<cs::Quaternion<float>>::group_fits_runs);
  static_assert(!SpmmTiles<cs::Quaternion<double>>::group_fits_runs);
  static_assert(!SpmmTiles<cs::Block<float, 3>>::group_fits_runs, "12-byte values fit no wider word");
  static_assert(!SpmmTiles<cs::Block<double, 3>>::group_fits_runs);
  // A lab's group of 8 complex<float> has a half group of 4 (two 16-byte words); a group of 2,
  // one 16-byte word, has a half of one value, which fits no wider word.
  static_assert(SpmmTiles<Kokkos::complex<float>, 8>::half_group_fits_runs);
  static_assert(SpmmTiles<Kokkos::complex<float>, 2>::group_fits_runs &&
                !SpmmTiles<Kokkos::complex<float>, 2>::half_group_fits_runs);
}

TEST(SegmentedSum, RowsOfSeveralChunksMatchTheReference) {
  check_long_rows<C>(21, true);
  check_long_rows<cs::Quaternion<float>>(22, true);
  check_long_rows<cs::Block<double, 3>>(23, true);
}

TEST(SegmentedSum, LongRowsLeftWholeMatchTheReference) {
  check_long_rows<C>(24, false);
  check_long_rows<cs::Quaternion<float>>(25, false);
  check_long_rows<cs::Block<double, 3>>(26, false);
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
