#pragma once
// The segmented-sum schedule (ScheduleKind::SegmentedSum, CSR only): work split by
// non-zeros alone, rows summed by a warp's segmented scan in registers.
//
// The non-zeros are cut into tiles of segmented_tile_entries (64) consecutive
// non-zeros, one warp each, whatever the rows: a row of 32K non-zeros spans 512
// tiles, and a tile may hold many rows. Which non-zeros start a row comes from a
// bitmap made with the matrix (bit k of `heads`: non-zero k is its row's first;
// bit num_entries is set too, so the last non-zero ends a row). In each of a
// tile's two steps the warp's lanes take 32 consecutive non-zeros (coalesced
// loads, no search, no scratch, no barrier), multiply them by x, and a segmented
// inclusive scan over the lanes (up to 5 shuffle steps, fewer in a tile of short
// rows: segmented_scan_reach; a lane adds its neighbour's sum only while no row
// starts in between) leaves each row's sum in the lane of its
// last non-zero. That lane writes y. The row's index is the count of heads
// before it: heads_before(tile), made with the matrix, plus the heads in the
// tile up to the lane (a popcount of the bitmap's word). Rows without
// non-zeros have no head: where a matrix has any, the count indexes
// nonempty_rows, and the second pass writes the empty rows.
//
// A row that spans tiles leaves partial sums in fixed slots: 2t for tile t's
// first row when it began in an earlier tile, 2t + 1 for its last row when it
// ends in a later one (a tile inside one row uses 2t). The second pass adds, for
// each such row (found with the matrix: split_rows), slot 2 t1 + 1 and then
// slots 2t for t1 < t <= t2 in tile order, one thread per row where it spans at
// most segmented_long_span tiles, and one warp per longer row. In a matrix whose
// longest split row has more than segmented_chunked_min_slots slots, the long
// rows' slots are instead cut into chunks of segmented_chunk_slots, one warp
// each; a row of one chunk is finished there, and a third pass adds the chunk
// sums of the others, a warp per row. (One warp per long row left a row of
// millions of non-zeros -- a hub, a rigid cap's master node: 25-33K slots -- to
// 800-1,000 loads a lane one after another while the GPU idled: 141-304 us,
// 13-17% of the product on the xl set's elasticity-rigid-xl and
// connection-hubs-8m, H200, Nsight Compute.
// Chunked, those products ran 10-12% faster; but on matrices whose longest row
// has a few hundred slots the third pass's launch cost more than it saved.) No
// atomics on y, and the same bits on every call.
//
// Against the merge path (merge_path.hpp), which stages a tile in scratch and
// searches it per thread, this executes far fewer instructions per non-zero. On the
// H200 irregular family the tuner chose it for every matrix and precision, 1.02-1.51x
// faster than the merge path (search times). Both passes are plain CUDA
// kernels that prefer L1 (see segmented_sum_tiles): so launched, the library's
// product ran at 1.23-1.72x cuSPARSE's CSR ALG1 on circuit-1m and rmat-s20, complex
// float and double (H200 lab), where
// launched by Kokkos with its shared-memory preference it had been at 0.97-1.04x.
//
// Host backends run the same tiles, each walked in order by one thread.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <string>
#include <vector>

#include "../entries/entry_traits.hpp"
#include "../error.hpp"
#include "../layouts/compound_vector.hpp"
#include "../layouts/sparse_matrix.hpp"
#include "plain_kernel.hpp"
#include "row_result.hpp"
#include "streaming_load.hpp"
#include "team_launch.hpp"
#include "value_access.hpp"

namespace compound_sparse {
namespace impl {

/// Warp steps per tile. Of tiles of 32, 64, 128 and 256 non-zeros, 64 ran
/// fastest on circuit-1m and rmat-s20 in complex double, 5-8% ahead of the next
/// (H200 lab, run2): more warps in flight, each with both steps' loads issued
/// before the first scan.
constexpr int segmented_steps = 2;
constexpr int segmented_tile_entries = 32 * segmented_steps;
/// A split row spanning more tiles than this is summed by warps in the second pass.
constexpr int segmented_long_span = 16;
/// Slots of a long split row per warp of the second pass (8 a lane): a 25K-slot
/// row is summed by ~100 warps at once.
constexpr int segmented_chunk_slots = 256;
/// Long rows are cut into chunks only in a matrix whose longest split row has more
/// slots than this. Where fewer, one warp sums such a row in about the time the
/// third pass's launch takes: chunked (against unchunked, H200, float and
/// double), elasticity-rigid-34, -44, circuit-512k and circuit-1m, longest rows of
/// 287-768 slots, lost 0.7-3.2 us (up to 19%); connection-hubs-256k (1,043) was
/// even; connection-hubs-512k (2,075) gained 2.9-7.9 us, connection-hubs-8m and
/// elasticity-rigid-xl (25-33K) 10-12%. circuit-10m (2,370) ran 2.6-2.9% slower than
/// the one-warp run before it, on another machine; Nsight Compute found its kernels
/// not slower (415.9 / 623.0 us against 418.2 / 630.5): the third launch and the
/// machine differed.
constexpr int segmented_chunked_min_slots = 1024;

KOKKOS_INLINE_FUNCTION int count_bits(unsigned v) {
#if defined(__CUDA_ARCH__)
  return __popc(v);
#else
  return __builtin_popcount(v);
#endif
}

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
/// How far a tile's segmented scans reach: the most lanes, over the warp and the tile's steps,
/// from a lane back to its row's first lane in the step (lane 0 where the row began before the
/// step). own_head[u]: the lane's row's first lane in step u, -1 for a row begun before it.
///
/// Level d of the scan (d = 1, 2, 4, 8, 16) adds lane L - d's sum into lane L only where no row
/// starts in between, so only in lanes whose reach is d or more: the levels past the tile's
/// reach add nothing anywhere, and segmented_scans (the SpMV's) skips them. The same additions
/// in the same order (the same bits), fewer shuffles: circuit-1m's tiles (5.4 non-zeros a row)
/// run 3.68 levels of the five on average, rmat-s20's 4.72.
template <int Steps>
__device__ __forceinline__ int segmented_scan_reach(int lane, const int (&own_head)[Steps]) {
  int reach = 0;
  for (int u = 0; u < Steps; ++u) {
    const int run = lane - (own_head[u] > 0 ? own_head[u] : 0);
    reach = run > reach ? run : reach;
  }
#if __CUDA_ARCH__ >= 800
  return static_cast<int>(__reduce_max_sync(0xffffffffu, static_cast<unsigned>(reach)));
#else
  for (int mask = 16; mask >= 1; mask >>= 1) {
    const int other = __shfl_xor_sync(0xffffffffu, reach, mask);
    reach = other > reach ? other : reach;
  }
  return reach;
#endif
}

/// The segmented inclusive scans of a tile's steps, all at once: in each, lane L adds lane
/// L - d's sum at level d where no row starts in between, levels up to `reach`
/// (segmented_scan_reach); each level shuffles every step's sum before adding any, so that the
/// steps' chains overlap. Leaves each lane with its row's sum up to it in the step (without the
/// carry of a row begun before the step).
///
/// The SpMV's scans. Against scans of each step's five levels, one step after the other, the
/// SpMV ran 5.0-5.6% faster on circuit-1m in complex double, and within 1.1% in complex float
/// on circuit-1m and rmat-s20 (H100). The SpMM's first pass keeps its full scans, a vector
/// after the other: with the reach, its Aos products at k >= 8 ran up to 8% faster, but its
/// Soa products up to 24% slower and those of k = 2 up to 15% (both orders of its scans).
template <class Entry, int Steps>
__device__ __forceinline__ void segmented_scans(vector_type_t<Entry> (&sums)[Steps], int lane,
                                                const int (&own_head)[Steps], int reach) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    if (d > reach) break;  // uniform over the warp
#pragma unroll
    for (int u = 0; u < Steps; ++u) {
      const vector_type_t<Entry> below =
          shuffle_components(sums[u], [d](auto s) { return __shfl_up_sync(0xffffffffu, s, d); });
      if (lane >= d && own_head[u] <= lane - d) sums[u] = entry_traits<Entry>::add(below, sums[u]);
    }
  }
}
#endif

/// Tiles of a matrix with `num_entries` non-zeros.
inline int segmented_tiles(std::size_t num_entries) {
  return static_cast<int>((num_entries + segmented_tile_entries - 1) / segmented_tile_entries);
}

/// A device copy of `values`.
template <class MemorySpace, class T>
Kokkos::View<T*, MemorySpace> device_list(const std::vector<T>& values, const char* label) {
  Kokkos::View<T*, MemorySpace> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), values.size());
  Kokkos::deep_copy(d,
                    Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(values.data(), values.size()));
  return d;
}

/// The i < n with keep(i), in increasing order, as a new View (a count, then a scan that
/// writes each kept index at its rank).
template <class ExecutionSpace, class Keep>
Kokkos::View<int*, typename ExecutionSpace::memory_space> indices_where(int n, const Keep& keep, const char* label) {
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  int count = 0;
  Kokkos::parallel_reduce(
      "compound_sparse::segmented_count", policy(0, n), KOKKOS_LAMBDA(int i, int& c) { c += keep(i) ? 1 : 0; }, count);
  Kokkos::View<int*, typename ExecutionSpace::memory_space> kept(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), static_cast<std::size_t>(count));
  Kokkos::parallel_scan(
      "compound_sparse::segmented_compact", policy(0, n), KOKKOS_LAMBDA(int i, int& rank, bool final) {
        if (!keep(i)) return;
        if (final) kept(rank) = i;
        ++rank;
      });
  return kept;
}

/// offsets(0 .. n) = 0, count(0), count(0) + count(1), ...: a new View of n + 1 running sums.
template <class ExecutionSpace, class Count>
Kokkos::View<int*, typename ExecutionSpace::memory_space> running_sums(int n, const Count& count, const char* label) {
  Kokkos::View<int*, typename ExecutionSpace::memory_space> sums(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), static_cast<std::size_t>(n) + 1);
  Kokkos::parallel_scan(
      "compound_sparse::segmented_sums", Kokkos::RangePolicy<ExecutionSpace>(0, n + 1),
      KOKKOS_LAMBDA(int i, int& sum, bool final) {
        if (final) sums(i) = sum;
        if (i < n) sum += count(i);
      });
  return sums;
}

/// Builds m.segmented from m.offsets (CSR) by device kernels, once per matrix: the row
/// starts' bits by atomic ors (whose result is the same in any order), the lists of rows by
/// counts and scans in row order, so the state is the same whatever the order the threads
/// ran in. Only the lists' lengths come to the host.
template <class Matrix>
void make_segmented_state(Matrix& m) {
  using memory_space = typename Matrix::memory_space;
  using execution_space = typename memory_space::execution_space;
  using policy = Kokkos::RangePolicy<execution_space>;
  constexpr int tile = segmented_tile_entries;
  auto& s = m.segmented;
  const int n = m.num_rows;
  const int num_entries = static_cast<int>(m.num_entries);
  const int tiles = segmented_tiles(m.num_entries);
  const auto offsets = m.offsets;
  const auto alloc = [](const char* label) {
    return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
  };
  // One word past the last tile's: a tile's last lane reads the next word's bit 0.
  const Kokkos::View<unsigned*, memory_space> heads("compound_sparse::segmented_heads",
                                                    static_cast<std::size_t>(tiles) * segmented_steps + 1);
  Kokkos::parallel_for(
      "compound_sparse::segmented_heads", policy(0, n + 1), KOKKOS_LAMBDA(int r) {
        // Row r's first non-zero, and past the last row the bit num_entries.
        const int first = r < n ? offsets(r) : num_entries;
        if (r < n && first == offsets(r + 1)) return;
        Kokkos::atomic_fetch_or(&heads(first / 32), 1u << (first % 32));
      });
  // A row's span: the tiles it reaches past its first.
  const auto span = KOKKOS_LAMBDA(int r) {
    return (offsets(r + 1) - 1) / tile - offsets(r) / tile;
  };
  const auto is_empty = KOKKOS_LAMBDA(int r) {
    return offsets(r) == offsets(r + 1);
  };
  auto empty_rows = indices_where<execution_space>(n, is_empty, "compound_sparse::segmented_empty_rows");
  // The i-th non-empty row is row i where no row is empty: no list then.
  auto nonempty_rows = indices_where<execution_space>(
      empty_rows.extent(0) == 0 ? 0 : n, KOKKOS_LAMBDA(int r) { return !is_empty(r); },
      "compound_sparse::segmented_nonempty_rows");
  const auto short_splits = indices_where<execution_space>(
      n, KOKKOS_LAMBDA(int r) { return !is_empty(r) && span(r) > 0 && span(r) <= segmented_long_span; },
      "compound_sparse::segmented_short_splits");
  const auto long_splits = indices_where<execution_space>(
      n, KOKKOS_LAMBDA(int r) { return !is_empty(r) && span(r) > segmented_long_span; },
      "compound_sparse::segmented_long_splits");
  const int num_short = static_cast<int>(short_splits.extent(0));
  const int num_long = static_cast<int>(long_splits.extent(0));
  // Long split row j's chunks: [chunk_begin(j), chunk_begin(j + 1)), chunk c of row chunk_split(c).
  int most_slots = 0;
  Kokkos::parallel_reduce(
      "compound_sparse::segmented_most_slots", policy(0, num_long),
      KOKKOS_LAMBDA(int j, int& most) {
        const int slots = span(long_splits(j)) + 1;
        if (slots > most) most = slots;
      },
      Kokkos::Max<int>(most_slots));
  const bool cut = num_long > 0 && most_slots > segmented_chunked_min_slots;
  const auto chunks_of = KOKKOS_LAMBDA(int j) {
    const int slots = span(long_splits(j)) + 1;
    return cut ? (slots + segmented_chunk_slots - 1) / segmented_chunk_slots : 1;
  };
  const auto chunk_begin = running_sums<execution_space>(num_long, chunks_of, "compound_sparse::segmented_chunk_begin");
  int num_chunks = 0;
  Kokkos::deep_copy(num_chunks, Kokkos::subview(chunk_begin, num_long));
  const Kokkos::View<int*, memory_space> chunk_split(alloc("compound_sparse::segmented_chunk_split"),
                                                     static_cast<std::size_t>(num_chunks));
  Kokkos::parallel_for(
      "compound_sparse::segmented_chunk_split", policy(0, num_long), KOKKOS_LAMBDA(int j) {
        for (int c = chunk_begin(j); c < chunk_begin(j + 1); ++c) chunk_split(c) = j;
      });
  const auto chunked_splits = indices_where<execution_space>(
      num_long, KOKKOS_LAMBDA(int j) { return chunks_of(j) > 1; }, "compound_sparse::segmented_chunked_splits");
  // Row starts before each tile.
  const auto heads_before = running_sums<execution_space>(
      tiles,
      KOKKOS_LAMBDA(int t) {
        int count = 0;
        for (int w = 0; w < segmented_steps; ++w) count += count_bits(heads(t * segmented_steps + w));
        return count;
      },
      "compound_sparse::segmented_heads_before");
  // The split rows: the short ones, then the long ones.
  const Kokkos::View<int*, memory_space> split_rows(alloc("compound_sparse::segmented_split_rows"),
                                                    static_cast<std::size_t>(num_short + num_long));
  Kokkos::parallel_for(
      "compound_sparse::segmented_split_rows", policy(0, num_short + num_long),
      KOKKOS_LAMBDA(int i) { split_rows(i) = i < num_short ? short_splits(i) : long_splits(i - num_short); });

  s.tiles = tiles;
  s.heads = heads;
  s.heads_before = heads_before;
  s.empty_rows = empty_rows;
  s.nonempty_rows = nonempty_rows;
  s.split_rows = split_rows;
  s.empty_count = static_cast<int>(empty_rows.extent(0));
  s.short_splits = num_short;
  s.long_splits = num_long;
  s.partials = decltype(s.partials)(alloc("compound_sparse::segmented_partials"), 2 * static_cast<std::size_t>(tiles));
  s.chunk_split = chunk_split;
  s.chunk_begin = chunk_begin;
  s.chunked_splits = chunked_splits;
  s.chunks = num_chunks;
  s.chunked_count = static_cast<int>(chunked_splits.extent(0));
  // Only the chunks of rows of several chunks keep a sum for the third pass.
  s.chunk_sums = decltype(s.chunk_sums)(alloc("compound_sparse::segmented_chunk_sums"),
                                        s.chunked_count == 0 ? 0 : static_cast<std::size_t>(num_chunks));
  Kokkos::fence();
}

/// The matrix's tiles, after checking that it has the segmented-sum state for them
/// (`operation`, "spmv" or "spmm", names the caller in the error).
template <class Matrix>
int checked_segmented_tiles(const Matrix& a, const char* operation) {
  const auto& state = a.segmented;
  const int tiles = segmented_tiles(a.num_entries);
  COMPOUND_SPARSE_REQUIRE(state.tiles == tiles &&
                              state.heads.extent(0) == static_cast<std::size_t>(tiles) * segmented_steps + 1 &&
                              state.partials.extent(0) == 2 * static_cast<std::size_t>(tiles),
                          operation << ": the matrix has no segmented-sum state (build it with to_device or "
                                       "matrix_from_csr_views)");
  return tiles;
}

/// The row of the segment-th non-empty row.
template <class State>
KOKKOS_INLINE_FUNCTION int segment_row(const State& state, int segment) {
  return state.empty_count > 0 ? state.nonempty_rows(segment) : segment;
}
/// Whether non-zero k is its row's first (bit num_entries is set too).
template <class State>
KOKKOS_INLINE_FUNCTION bool starts_row(const State& state, int k) {
  return (state.heads(k / 32) >> (k % 32)) & 1u;
}

/// Host backends' pass 1 of one tile, walked in order by one thread: add_product(sum, k) adds
/// non-zero k's product to sum; a row begun in the tile that ends there goes to
/// finish_row(row, sum), the tile's first row begun in an earlier tile to partial(2 tile, sum),
/// and the row that goes on past the tile to partial(2 tile + 1, sum), or 2 tile where the
/// tile lies inside one row.
template <class Entry, class State, class AddProduct, class FinishRow, class Partial>
KOKKOS_INLINE_FUNCTION void walk_tile_in_order(const State& state, int tile, int num_entries,
                                               const AddProduct& add_product, const FinishRow& finish_row,
                                               const Partial& partial) {
  const int k0 = tile * segmented_tile_entries;
  const int k1 = k0 + segmented_tile_entries < num_entries ? k0 + segmented_tile_entries : num_entries;
  int segment = state.heads_before(tile) - 1;
  bool head_seen = false;
  vector_type_t<Entry> sum = entry_traits<Entry>::zero();
  for (int k = k0; k < k1; ++k) {
    if (starts_row(state, k)) {
      ++segment;
      head_seen = true;
      sum = entry_traits<Entry>::zero();
    }
    add_product(sum, k);
    if (starts_row(state, k + 1)) {
      if (head_seen)
        finish_row(segment_row(state, segment), sum);
      else
        partial(2 * tile, sum);
    }
  }
  if (!starts_row(state, k1)) partial(2 * tile + (head_seen ? 1 : 0), sum);  // k1 < num_entries: bit num_entries is set
}

/// Pass 1: one tile per warp on CUDA (warp_tile, from the plain kernel
/// segmented_sum_tiles), per team thread on host backends (Kokkos' launch,
/// serial_tile). BetaIsZero:
/// y is written without being read. A kernel that may also read y (beta != 0)
/// needed 62 registers for complex<double> and spilled at 32 (2048 threads per
/// multiprocessor); without that path it fits 32, so the two are compiled apart.
template <class Entry, class Inner, class XInner, class YInner, class MemorySpace, bool BetaIsZero>
struct SegmentedSumFunctor {
  using traits = entry_traits<Entry>;
  using vector_type = typename traits::vector_type;
  using matrix_type = SparseMatrix<Entry, Csr, Inner, MemorySpace>;
  using execution_space = typename MemorySpace::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;

  typename matrix_type::index_view col_indices;
  typename matrix_type::values_view values;
  typename CompoundVector<vector_type, XInner, MemorySpace>::view_type x;
  typename CompoundVector<vector_type, YInner, MemorySpace>::view_type y;
  SegmentedSumState<Entry, MemorySpace> state;
  RowResult<Entry, YInner> result;
  int num_entries = 0;

  /// y(row) = alpha * sum + beta * y(row).
  KOKKOS_INLINE_FUNCTION void store(int row, const vector_type& sum) const {
    if constexpr (BetaIsZero)
      store_value<vector_type, YInner>(y, row, traits::scale(result.alpha, sum));
    else
      result.store(y, row, sum);
  }
  /// Kokkos' launch, host backends only: CUDA runs warp_tile from segmented_sum_tiles.
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int tile = team.league_rank() * team.team_size() + team.team_rank();
    if (tile < state.tiles) serial_tile(tile);
  }

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  __device__ void warp_tile(int tile, int lane) const {
    const int k0 = tile * segmented_tile_entries;
    const unsigned up_to_lane = (2u << lane) - 1u;  // bits 0..lane
    // Both steps' loads first: each lane has two products in flight.
    vector_type sums[segmented_steps];  // the products, then their scans
    unsigned words[segmented_steps + 1];
    for (int u = 0; u < segmented_steps; ++u) {
      const int k = k0 + 32 * u + lane;
      sums[u] = traits::zero();
      if (k < num_entries)
        traits::multiply_add(sums[u], load_streaming<Entry, Inner>(values, k),
                             load_readonly<vector_type, XInner>(x, load_index_streaming(col_indices, k)));
    }
    for (int u = 0; u <= segmented_steps; ++u) words[u] = state.heads(tile * segmented_steps + u);
    // The step's row heads up to this lane, and this lane's row's first lane in the step (-1: the
    // row began before it); the stores below count the heads again to find their rows.
    unsigned heads_to_lane[segmented_steps];
    int own_head[segmented_steps];
    for (int u = 0; u < segmented_steps; ++u) {
      heads_to_lane[u] = words[u] & up_to_lane;
      own_head[u] = heads_to_lane[u] ? 31 - __clz(heads_to_lane[u]) : -1;
    }
    segmented_scans<Entry>(sums, lane, own_head, segmented_scan_reach(lane, own_head));

    int segment = state.heads_before(tile) - 1;  // the last row begun before this step
    bool head_seen = false;                      // a row began in this tile before this step
    vector_type carry = traits::zero();          // the sum of the row lane 31 was in at the last step
    for (int u = 0; u < segmented_steps; ++u) {
      const int k = k0 + 32 * u + lane;
      vector_type sum = sums[u];
      if (own_head[u] < 0) sum = traits::add(carry, sum);
      const bool last_of_row = lane < 31 ? (words[u] >> (lane + 1)) & 1u : words[u + 1] & 1u;
      if (last_of_row && k < num_entries) {
        if (head_seen || own_head[u] >= 0)
          store(segment_row(state, segment + count_bits(heads_to_lane[u])), sum);
        else
          state.partials(2 * tile) = sum;  // the tile's first row, begun in an earlier tile
      }
      carry = shuffle_components(sum, [](auto s) { return __shfl_sync(0xffffffffu, s, 31); });
      segment += count_bits(words[u]);
      head_seen = head_seen || words[u] != 0;
      if (u == segmented_steps - 1 && lane == 31 && !last_of_row && k < num_entries)
        state.partials(2 * tile + (head_seen ? 1 : 0)) = sum;  // the row goes on in the next tile
    }
  }
#endif

  KOKKOS_INLINE_FUNCTION void serial_tile(int tile) const {
    walk_tile_in_order<Entry>(
        state, tile, num_entries,
        [&](vector_type& sum, int k) {
          traits::multiply_add(sum, load_value<Entry, Inner>(values, k),
                               load_value<vector_type, XInner>(x, col_indices(k)));
        },
        [&](int row, const vector_type& sum) { store(row, sum); },
        [&](int slot, const vector_type& sum) { state.partials(slot) = sum; });
  }
};

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
/// The sum of every lane's value (vectors of Entry), the same in every lane (a
/// butterfly: the same order on every call).
template <class Entry>
__device__ vector_type_t<Entry> warp_total(vector_type_t<Entry> sum) {
  for (int mask = 16; mask >= 1; mask >>= 1)
    sum = entry_traits<Entry>::add(
        sum, shuffle_components(sum, [mask](auto s) { return __shfl_xor_sync(0xffffffffu, s, mask); }));
  return sum;
}
#endif

/// Where the split rows' partial sums are, for both fix-ups (the SpMV's below and the SpMM's,
/// segmented_sum_spmm.hpp): a split row's slots, and the chunks of its long ones.
template <class Entry, class MemorySpace>
struct SegmentedSplitRows {
  SegmentedSumState<Entry, MemorySpace> state;
  Kokkos::View<const int*, MemorySpace> offsets;

  /// The partial-sum slot of a split row's q-th slot: q = 0 is slot 2 t1 + 1, q > 0 slot 2 (t1 + q).
  KOKKOS_INLINE_FUNCTION static int slot_index(int first_tile, int q) {
    return q == 0 ? 2 * first_tile + 1 : 2 * (first_tile + q);
  }
  KOKKOS_INLINE_FUNCTION int first_tile(int row) const { return offsets(row) / segmented_tile_entries; }
  KOKKOS_INLINE_FUNCTION int slots(int row) const {
    return (offsets(row + 1) - 1) / segmented_tile_entries - first_tile(row) + 1;
  }
  /// Long split row j.
  KOKKOS_INLINE_FUNCTION int long_row(int j) const { return state.split_rows(state.short_splits + j); }
  /// Chunk c of a long split row: its row, first tile, first slot and end slot. A row's
  /// last chunk ends with the row (an uncut row is one chunk of all its slots).
  struct Chunk {
    int row, first_tile, begin, end;
    bool whole;  ///< the chunk is the whole row
  };
  KOKKOS_INLINE_FUNCTION Chunk chunk(int c) const {
    const int j = state.chunk_split(c), row = long_row(j);
    const int begin = (c - state.chunk_begin(j)) * segmented_chunk_slots;
    const bool last = c + 1 == state.chunk_begin(j + 1);
    return {row, first_tile(row), begin, last ? slots(row) : begin + segmented_chunk_slots, begin == 0 && last};
  }
};

/// Pass 2: the rows that span tiles add their partial sums, and the empty rows
/// get y = beta y. Teams [0, short_teams): 32 rows per team thread (on CUDA one
/// per lane), the short split rows and then the empty rows; the rest: one chunk
/// of a long split row per team thread (on CUDA a warp: each lane adds every
/// 32nd slot of the chunk in order, then a butterfly gives every lane the same
/// total), stored in y where the chunk is the whole row, else in chunk_sums.
///
/// Pass 3 (work tag ChunkTotals; on CUDA chunk_total_work), only for matrices with
/// a long split row of several chunks: each such row adds its chunk sums in
/// order, one team thread each (on CUDA a warp, as in pass 2).
template <class Entry, class YInner, class MemorySpace>
struct SegmentedSumFixup : SegmentedSplitRows<Entry, MemorySpace> {
  using rows = SegmentedSplitRows<Entry, MemorySpace>;
  using rows::chunk;
  using rows::first_tile;
  using rows::long_row;
  using rows::slots;
  using rows::state;
  using Chunk = typename rows::Chunk;
  using traits = entry_traits<Entry>;
  using vector_type = typename traits::vector_type;
  using execution_space = typename MemorySpace::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  struct ChunkTotals {};  ///< Kokkos work tag of pass 3

  typename CompoundVector<vector_type, YInner, MemorySpace>::view_type y;
  RowResult<Entry, YInner> result;
  int short_teams = 0;

  /// Slot q of the split row whose first tile is t1 (SegmentedSplitRows::slot_index).
  KOKKOS_INLINE_FUNCTION vector_type slot(int t1, int q) const { return state.partials(rows::slot_index(t1, q)); }
  /// The sum of slots [begin, end) of the split row whose first tile is t1, in tile order, by one thread.
  KOKKOS_INLINE_FUNCTION vector_type slot_sum(int t1, int begin, int end) const {
    vector_type sum = slot(t1, begin);
    for (int q = begin + 1; q < end; ++q) sum = traits::add(sum, slot(t1, q));
    return sum;
  }

  KOKKOS_INLINE_FUNCTION void short_row(int i) const {
    if (i < state.short_splits) {
      const int row = state.split_rows(i);
      result.store(y, row, slot_sum(first_tile(row), 0, slots(row)));
    } else if (i - state.short_splits < state.empty_count) {
      result.store(y, state.empty_rows(i - state.short_splits), traits::zero());
    }
  }

  /// The chunk's sum to y (a whole row) or to chunk_sums (pass 3 adds them).
  KOKKOS_INLINE_FUNCTION void finish_chunk(int c, const Chunk& k, const vector_type& sum) const {
    if (k.whole)
      result.store(y, k.row, sum);
    else
      state.chunk_sums(c) = sum;
  }

  /// Kokkos' launch, host backends only: CUDA runs warp_work from segmented_sum_fixup.
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int worker = team.league_rank() * team.team_size() + team.team_rank();
    if (team.league_rank() < short_teams) {
      for (int lane = 0; lane < 32; ++lane) short_row(worker * 32 + lane);
      return;
    }
    const int c = worker - short_teams * team.team_size();
    if (c < state.chunks) {
      const Chunk k = chunk(c);
      finish_chunk(c, k, slot_sum(k.first_tile, k.begin, k.end));
    }
  }
  /// Pass 3 through Kokkos, host backends only: CUDA runs chunk_total_work from segmented_sum_chunk_totals.
  KOKKOS_INLINE_FUNCTION void operator()(ChunkTotals, const member_type& team) const {
    const int i = team.league_rank() * team.team_size() + team.team_rank();
    if (i >= state.chunked_count) return;
    const int j = state.chunked_splits(i);
    const int begin = state.chunk_begin(j), end = state.chunk_begin(j + 1);
    vector_type sum = state.chunk_sums(begin);
    for (int c = begin + 1; c < end; ++c) sum = traits::add(sum, state.chunk_sums(c));
    result.store(y, long_row(j), sum);
  }

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  /// The work of warp `worker` (of team `team`, `team_size` warps a team).
  __device__ void warp_work(int team, int worker, int team_size, int lane) const {
    if (team < short_teams) {
      short_row(worker * 32 + lane);
      return;
    }
    const int c = worker - short_teams * team_size;
    if (c >= state.chunks) return;  // uniform over a warp
    const Chunk k = chunk(c);
    vector_type sum = traits::zero();
    for (int q = k.begin + lane; q < k.end; q += 32) sum = traits::add(sum, slot(k.first_tile, q));
    sum = warp_total<Entry>(sum);
    if (lane == 0) finish_chunk(c, k, sum);
  }
  /// Pass 3: warp `worker` adds the chunk sums of chunked row `worker`.
  __device__ void chunk_total_work(int worker, int lane) const {
    if (worker >= state.chunked_count) return;  // uniform over a warp
    const int j = state.chunked_splits(worker);
    const int begin = state.chunk_begin(j), end = state.chunk_begin(j + 1);
    vector_type sum = traits::zero();
    for (int c = begin + lane; c < end; c += 32) sum = traits::add(sum, state.chunk_sums(c));
    sum = warp_total<Entry>(sum);
    if (lane == 0) result.store(y, long_row(j), sum);
  }
#endif
};

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
// On CUDA both passes are plain kernels (plain_kernel.hpp says why): neither
// uses anything of a team but its warps.

/// Pass 1: warp w of block b takes tile b * Threads / 32 + w.
template <class Functor, unsigned Threads, unsigned MinBlocks>
__global__ void __launch_bounds__(Threads, MinBlocks) segmented_sum_tiles(const Functor f) {
#if defined(__CUDA_ARCH__)
  const int tile = static_cast<int>(blockIdx.x * (Threads / 32) + threadIdx.x / 32);
  if (tile < f.state.tiles) f.warp_tile(tile, static_cast<int>(threadIdx.x % 32));
#endif
}

/// Pass 2 in blocks of 128 threads (4 warps), as SegmentedSumFixup's teams.
template <class Functor>
__global__ void __launch_bounds__(128) segmented_sum_fixup(const Functor f) {
#if defined(__CUDA_ARCH__)
  const int warp = static_cast<int>(threadIdx.x / 32);
  f.warp_work(static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.x) * 4 + warp, 4,
              static_cast<int>(threadIdx.x % 32));
#endif
}

/// Pass 3 in blocks of 128 threads: warp w of block b takes chunked row 4b + w.
template <class Functor>
__global__ void __launch_bounds__(128) segmented_sum_chunk_totals(const Functor f) {
#if defined(__CUDA_ARCH__)
  f.chunk_total_work(static_cast<int>(blockIdx.x * 4 + threadIdx.x / 32), static_cast<int>(threadIdx.x % 32));
#endif
}
#endif

/// Launches pass 1 of the segmented sum (SpMV or SpMM): on CUDA the plain kernel
/// segmented_sum_tiles, a warp per tile; on host backends through Kokkos, a team thread per
/// tile (`label`: the Kokkos kernel's name, `what`: the pass in launch errors).
template <unsigned Threads, unsigned MinTeams, class ExecutionSpace, class Tiles>
void launch_segmented_tiles(const ExecutionSpace& exec, const Tiles& f, int tiles, const char* label,
                            const char* what) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
  if constexpr (is_gpu_space<ExecutionSpace>()) {
    constexpr int warps = static_cast<int>(Threads) / 32;
    launch_plain_kernel<segmented_sum_tiles<Tiles, Threads, MinTeams>>(exec, (tiles + warps - 1) / warps, Threads, f,
                                                                       what);
  } else
#endif
  {
    static_cast<void>(what);  // CUDA's launch errors only
    using policy_type = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::LaunchBounds<Threads, MinTeams>>;
    const int team_size = launch_team_size<policy_type>(exec, f, 32);
    Kokkos::parallel_for(label, policy_type(exec, (tiles + team_size - 1) / team_size, team_size, 1), f);
  }
}

/// The teams of a fix-up (pass 2): 32 short items a team thread (a lane on CUDA), then one
/// chunk of a long split row a team thread (a warp on CUDA, 4 a team).
template <class ExecutionSpace>
constexpr int segmented_fixup_team() {
  return is_gpu_space<ExecutionSpace>() ? 4 : 1;
}

/// Launches passes 2 and 3 of the segmented sum: `fixup` (short_teams of its short items,
/// then one team per segmented_fixup_team chunks), then, where a long row has several chunks
/// (`chunked_count`), its ChunkTotals; plain kernels on CUDA, Kokkos on host backends.
/// `labels`: the Kokkos names of the two passes; `what`: the passes in launch errors.
template <class ExecutionSpace, class Fixup>
void launch_segmented_fixups(const ExecutionSpace& exec, const Fixup& fixup, int short_teams, int chunks,
                             int chunked_count, const char* const (&labels)[2], const char* const (&what)[2]) {
  static_cast<void>(what);  // CUDA's launch errors only
  constexpr int fixup_team = segmented_fixup_team<ExecutionSpace>();
  const int long_teams = (chunks + fixup_team - 1) / fixup_team;  // a chunk of a long row each
  if (short_teams + long_teams == 0) return;
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
  if constexpr (is_gpu_space<ExecutionSpace>()) {
    launch_plain_kernel<segmented_sum_fixup<Fixup>>(exec, short_teams + long_teams, 32 * fixup_team, fixup, what[0]);
  } else
#endif
  {
    Kokkos::parallel_for(labels[0], Kokkos::TeamPolicy<ExecutionSpace>(exec, short_teams + long_teams, fixup_team, 1),
                         fixup);
  }
  if (chunked_count == 0) return;
  // Pass 3: the long rows of several chunks add their chunk sums.
  const int total_teams = (chunked_count + fixup_team - 1) / fixup_team;
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
  if constexpr (is_gpu_space<ExecutionSpace>()) {
    launch_plain_kernel<segmented_sum_chunk_totals<Fixup>>(exec, total_teams, 32 * fixup_team, fixup, what[1]);
  } else
#endif
  {
    using tag = typename Fixup::ChunkTotals;
    Kokkos::parallel_for(labels[1], Kokkos::TeamPolicy<ExecutionSpace, tag>(exec, total_teams, fixup_team, 1), fixup);
  }
}

}  // namespace impl
}  // namespace compound_sparse
