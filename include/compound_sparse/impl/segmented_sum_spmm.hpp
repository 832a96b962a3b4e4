#pragma once
// The segmented-sum schedule's SpMM (ScheduleKind::SegmentedSum, CSR): Y = alpha A X + beta Y
// for k vectors, each non-zero's entry and column loaded once for all k.
//
// The tiles, heads and split rows are the SpMV's (segmented_sum.hpp, the matrix's
// SegmentedSumState). A warp loads its tile's entries and columns once and works out, once
// per step, which lanes end a row and where each sum goes; then, a group of
// segmented_spmm_group vectors at a time, it loads X's values, multiplies, and runs the SpMV's
// segmented scan for each vector of the group (all five levels: the SpMV's skipping of levels
// past a tile's reach made this pass slower on Soa multivectors, segmented_scans).
//
// Before this kernel the schedule ran one SpMV per vector, reading the matrix k times: on an
// H100 the irregular records' SpMM took as long per vector as k SpMVs or longer, 0.88-1.08x,
// while their dense rows leave them no other schedule but the merge path. With this kernel 8 vectors cost
// 1.31-1.83x less per vector than one SpMV on four of them (H100, double).
//
// X's values on Aos multivectors: complex<float> at k = 16 cost more per vector than at k = 8
// (34 -> 41 µs on circuit-1m) and lost to cuSPARSE's row-major SpMM. Nsight Compute found the
// first pass bound by L1 throughput, not DRAM: each lane's 8-byte load takes a 32-byte sector
// access, four for a group's four values. So a whole group's values, contiguous on an Aos
// multivector, are read as one run in 16-byte words (x_run_bytes): half the L1 sectors,
// 41 -> 33 µs at k = 16 and 34 -> 30 µs at k = 8, 1.03x and 1.17x cuSPARSE's fastest form at
// k = 16 (1.07x and 1.14x with the branch outside the steps). Half a group (the last of
// k = 2, 6, ...) is one 16-byte word: 8% faster at k = 2.
// Larger groups were slower (more registers, fewer warps).
//
// The partial sums of rows that span tiles keep the SpMV's slots, each slot now holding k
// values: slot s of vector j at partials[s * k + j], and chunk c of a long row's sum likewise
// at chunk_sums[c * k + j]. Both live in the matrix's SpMM staging (SparseMatrix::spmm_staging,
// grown to 2 * tiles * k values, plus chunks * k where a long row is chunked): k / 32 values
// per non-zero, for 8 complex<double> vectors 4 bytes per non-zero against the matrix's 20
// (a value and a column index). Every vector's sums are added in the SpMV's order (the same
// multiply-adds, scans and fix-ups): column j of Y has the bits of the SpMV of column j of X.
//
// Host backends: a team thread per tile walks it once per vector.

#include <Kokkos_Core.hpp>
#include <cstddef>

#include "../entries/entry_traits.hpp"
#include "../layouts/sparse_matrix.hpp"
#include "plain_kernel.hpp"
#include "row_result.hpp"
#include "segmented_sum.hpp"
#include "streaming_load.hpp"
#include "value_access.hpp"

namespace compound_sparse {
namespace impl {

/// Vectors whose X values a lane holds at once in the SpMM's first pass: 32 bytes of them
/// (2 complex<double>, 4 complex<float>, 1 quaternion of doubles), at least 1 and at most 8.
/// Each is two loads in flight a lane (the tile's two steps), and two products and a carry in
/// registers. With 64 bytes, ptxas (sm_90, 256:4, so 64 registers) spilled 96-120 bytes a
/// thread for complex<double>, quaternions of doubles and 3x3 blocks of doubles; with 32 none
/// for complex<double>, 36-48 bytes for the other two (none at 256:2: 70-94 registers). Not
/// yet timed against other sizes.
template <class Entry>
constexpr int segmented_spmm_group() {
  constexpr int fill = static_cast<int>(32 / sizeof(vector_type_t<Entry>));
  return fill < 1 ? 1 : fill > 8 ? 8 : fill;
}

/// Where the SpMM's values of one multivector are: value (row, j) at
/// data[row * row_stride + j * vector_stride] (MultiVector::row_stride, vector_stride), so
/// that one kernel serves both layouts.
template <class Value>
struct StridedValues {
  Value* data = nullptr;
  std::ptrdiff_t row_stride = 0, vector_stride = 0;
  KOKKOS_INLINE_FUNCTION Value* at(int row, int j) const { return data + row * row_stride + j * vector_stride; }
};

/// Pass 1: one tile per warp on CUDA (warp_tile, from the plain kernel segmented_sum_tiles),
/// per team thread on host backends (serial_tile, once per vector). Group: the vectors whose X
/// values a lane holds at once (segmented_spmm_group; others only in labs).
template <class Entry, class Inner, class MemorySpace, int Group = segmented_spmm_group<Entry>()>
struct SegmentedSumSpmmTiles {
  using traits = entry_traits<Entry>;
  using vector_type = typename traits::vector_type;
  using matrix_type = SparseMatrix<Entry, Csr, Inner, MemorySpace>;
  using execution_space = typename MemorySpace::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  static_assert(Group >= 1, "a group holds at least one vector");
  static constexpr int group = Group;

  typename matrix_type::column_view col_indices;
  typename matrix_type::values_view values;
  StridedValues<const vector_type> x;
  StridedValues<vector_type> y;
  SegmentedSumState<Entry, MemorySpace> state;
  vector_type* partials = nullptr;  ///< slot s of vector j at partials[s * vectors + j]
  RowResult<Entry, Aos> result;
  int num_entries = 0;
  int vectors = 0;  ///< k
  /// A whole group's X values in words of this many bytes (16 or 8: run_word_bytes, where a
  /// row's values are contiguous, Aos), or 0: each value in its own load (load_whole).
  int x_run_bytes = 0;

  KOKKOS_INLINE_FUNCTION vector_type& partial(int slot, int j) const { return partials[slot * vectors + j]; }

  /// Kokkos' launch, host backends only: CUDA runs warp_tile from segmented_sum_tiles.
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int tile = team.league_rank() * team.team_size() + team.team_rank();
    if (tile < state.tiles)
      for (int j = 0; j < vectors; ++j) serial_tile(tile, j);
  }

  /// Whether a whole group's X values can be read as one run in words wider than a value's
  /// (on Aos multivectors, x_run_bytes): of the library's value types, complex<float> only.
  static constexpr bool group_fits_runs =
      run_fits_words<group, vector_type, 16> || run_fits_words<group, vector_type, 8>;

  /// Half a group: the last group of k = 2, 6, 10 and 14 complex<float> vectors (the bucket of
  /// k = 2 is that group alone). Read as a run too where its bytes fill every word a whole
  /// group's run may take (x_run_bytes): for complex<float>, two values in one 16-byte word.
  static constexpr int half_group = group / 2;
  static constexpr bool half_fills_16 =
      !run_fits_words<group, vector_type, 16> || run_fits_words<half_group, vector_type, 16>;
  static constexpr bool half_fills_8 =
      !run_fits_words<group, vector_type, 8> || run_fits_words<half_group, vector_type, 8>;
  static constexpr bool half_group_fits_runs = group_fits_runs && group % 2 == 0 && half_fills_16 && half_fills_8;

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  /// X's values of vectors j0 .. j0 + N - 1 at `row`, one run of bytes (x_run_bytes > 0). A run
  /// of N = group or half_group values starts where a group's does, so it is aligned as that is.
  template <int N>
  __device__ __forceinline__ void load_x_run(int row, int j0, vector_type (&xs)[N]) const {
    if constexpr (run_fits_words<N, vector_type, 16>)
      if (x_run_bytes == 16) return load_run_words<ReadOnly, int4>(x.at(row, j0), xs);
    if constexpr (run_fits_words<N, vector_type, 8>) load_run_words<ReadOnly, int2>(x.at(row, j0), xs);
  }

  /// group_products for the first N vectors of a group read as runs (x_run_bytes > 0); the
  /// products of the group's other vectors are 0.
  template <int N>
  __device__ __forceinline__ void run_products(vector_type (&products)[segmented_steps][group],
                                               const Entry (&entries)[segmented_steps],
                                               const int (&columns)[segmented_steps], int entry, int j0) const {
#pragma unroll
    for (int u = 0; u < segmented_steps; ++u) {
      const bool valid = entry + 32 * u < num_entries;
      vector_type xs[N];
      if (valid) load_x_run(columns[u], j0, xs);
#pragma unroll
      for (int g = 0; g < group; ++g) {
        products[u][g] = traits::zero();
        if (g < N && valid) traits::multiply_add(products[u][g], entries[u], xs[g < N ? g : 0]);
      }
    }
  }

  /// Every step's products of the entries with X's values of vectors j0 .. j0 + count - 1
  /// (`entry`: the lane's first non-zero): 2 * count loads of X in flight a lane. The loops over
  /// a group run to `group` (compile time), so that the arrays stay in registers (a loop to
  /// `count` put them on the stack, ptxas -v). A whole or half group on an Aos multivector reads
  /// its values as one run (x_run_bytes), compiled only where group_fits_runs: the other value
  /// types keep their code as before the runs. The branch is taken once for all steps: inside
  /// the loop over steps it cost complex<float> on Soa multivectors, which never take
  /// it, 6% at k = 8 (the lab).
  __device__ __forceinline__ void group_products(vector_type (&products)[segmented_steps][group],
                                                 const Entry (&entries)[segmented_steps],
                                                 const int (&columns)[segmented_steps], int entry, int j0,
                                                 int count) const {
    if constexpr (group_fits_runs) {
      if (x_run_bytes > 0) {  // uniform over the warp, as count is
        if (count == group) return run_products<group>(products, entries, columns, entry, j0);
        if constexpr (half_group_fits_runs)
          if (count == half_group) return run_products<half_group>(products, entries, columns, entry, j0);
      }
    }
#pragma unroll
    for (int u = 0; u < segmented_steps; ++u)
#pragma unroll
      for (int g = 0; g < group; ++g) {
        products[u][g] = traits::zero();
        if (g < count && entry + 32 * u < num_entries)
          traits::multiply_add(products[u][g], entries[u], load_readonly_at(x.at(columns[u], j0 + g)));
      }
  }

  __device__ void warp_tile(int tile, int lane) const {
    const int k0 = tile * segmented_tile_entries;
    const unsigned up_to_lane = (2u << lane) - 1u;  // bits 0..lane
    // The tile's entries and columns, loaded once for all k vectors.
    Entry entries[segmented_steps];
    int columns[segmented_steps];
    for (int u = 0; u < segmented_steps; ++u) {
      const int k = k0 + 32 * u + lane;
      if (k < num_entries) {
        entries[u] = load_streaming<Entry, Inner>(values, k);
        columns[u] = load_index_streaming(col_indices, k);
      }
    }
    // The rows, the same for every vector: per step, the lane's row's first lane (-1: the
    // row began before the step), and where a lane that ends a row puts its sum: a row of y
    // or a partial-sum slot (-1: neither); and the slot of a row that goes on past the tile.
    unsigned words[segmented_steps + 1];
    for (int u = 0; u <= segmented_steps; ++u) words[u] = state.heads(tile * segmented_steps + u);
    int own_head[segmented_steps], store_row[segmented_steps], store_slot[segmented_steps];
    int tail_slot = -1;
    int segment = state.heads_before(tile) - 1;
    bool head_seen = false;
    for (int u = 0; u < segmented_steps; ++u) {
      const int k = k0 + 32 * u + lane;
      const unsigned heads_to_lane = words[u] & up_to_lane;
      own_head[u] = heads_to_lane ? 31 - __clz(heads_to_lane) : -1;
      const bool last_of_row = lane < 31 ? (words[u] >> (lane + 1)) & 1u : words[u + 1] & 1u;
      store_row[u] = store_slot[u] = -1;
      if (last_of_row && k < num_entries) {
        if (head_seen || own_head[u] >= 0)
          store_row[u] = segment_row(state, segment + count_bits(heads_to_lane));
        else
          store_slot[u] = 2 * tile;  // the tile's first row, begun in an earlier tile
      }
      segment += count_bits(words[u]);
      head_seen = head_seen || words[u] != 0;
      if (u == segmented_steps - 1 && lane == 31 && !last_of_row && k < num_entries)
        tail_slot = 2 * tile + (head_seen ? 1 : 0);  // the row goes on in the next tile
    }

    for (int j0 = 0; j0 < vectors; j0 += group) {
      const int count = vectors - j0 < group ? vectors - j0 : group;  // the same in every lane
      vector_type products[segmented_steps][group];
      group_products(products, entries, columns, k0 + lane, j0, count);
      vector_type carry[group];
#pragma unroll
      for (int g = 0; g < group; ++g) carry[g] = traits::zero();
#pragma unroll
      for (int u = 0; u < segmented_steps; ++u)
#pragma unroll
        for (int g = 0; g < group; ++g) {
          if (g >= count) continue;  // uniform over the warp: every lane shuffles or none
          vector_type sum = products[u][g];
          for (int d = 1; d < 32; d <<= 1) {
            const vector_type below =
                shuffle_components(sum, [d](auto s) { return __shfl_up_sync(0xffffffffu, s, d); });
            if (lane >= d && own_head[u] <= lane - d) sum = traits::add(below, sum);
          }
          if (own_head[u] < 0) sum = traits::add(carry[g], sum);
          if (store_row[u] >= 0)
            result.store_at(y.at(store_row[u], j0 + g), sum);
          else if (store_slot[u] >= 0)
            partial(store_slot[u], j0 + g) = sum;
          carry[g] = shuffle_components(sum, [](auto s) { return __shfl_sync(0xffffffffu, s, 31); });
          if (u == segmented_steps - 1 && tail_slot >= 0) partial(tail_slot, j0 + g) = sum;
        }
    }
  }
#endif

  /// Vector j of `tile`, in the SpMV's order (SegmentedSumFunctor::serial_tile).
  KOKKOS_INLINE_FUNCTION void serial_tile(int tile, int j) const {
    walk_tile_in_order<Entry>(
        state, tile, num_entries,
        [&](vector_type& sum, int k) {
          traits::multiply_add(sum, load_value<Entry, Inner>(values, k), *x.at(col_indices(k), j));
        },
        [&](int row, const vector_type& sum) { result.store_at(y.at(row, j), sum); },
        [&](int slot, const vector_type& sum) { partial(slot, j) = sum; });
  }
};

/// Passes 2 and 3 for k vectors: SegmentedSumFixup's work, each row's slots added per vector
/// in the SpMV's order. Pass 2's short items are (row, vector) pairs, a vector's neighbours in
/// neighbouring lanes.
template <class Entry, class MemorySpace>
struct SegmentedSumSpmmFixup : SegmentedSplitRows<Entry, MemorySpace> {
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

  StridedValues<vector_type> y;
  const vector_type* partials = nullptr;  ///< as SegmentedSumSpmmTiles::partials
  vector_type* chunk_sums = nullptr;      ///< chunk c of vector j at chunk_sums[c * vectors + j]
  RowResult<Entry, Aos> result;
  int short_teams = 0;
  int vectors = 0;

  KOKKOS_INLINE_FUNCTION vector_type slot(int t1, int q, int j) const {
    return partials[rows::slot_index(t1, q) * vectors + j];
  }
  KOKKOS_INLINE_FUNCTION vector_type slot_sum(int t1, int begin, int end, int j) const {
    vector_type sum = slot(t1, begin, j);
    for (int q = begin + 1; q < end; ++q) sum = traits::add(sum, slot(t1, q, j));
    return sum;
  }

  /// Item i: vector i % k of the (i / k)-th short split row, then of the empty rows.
  KOKKOS_INLINE_FUNCTION void short_item(int i) const {
    const int r = i / vectors, j = i % vectors;
    if (r < state.short_splits) {
      const int row = state.split_rows(r);
      result.store_at(y.at(row, j), slot_sum(first_tile(row), 0, slots(row), j));
    } else if (r - state.short_splits < state.empty_count) {
      result.store_at(y.at(state.empty_rows(r - state.short_splits), j), traits::zero());
    }
  }

  KOKKOS_INLINE_FUNCTION void finish_chunk(int c, const Chunk& k, int j, const vector_type& sum) const {
    if (k.whole)
      result.store_at(y.at(k.row, j), sum);
    else
      chunk_sums[c * vectors + j] = sum;
  }

  /// Kokkos' launch, host backends only: CUDA runs warp_work from segmented_sum_fixup.
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int worker = team.league_rank() * team.team_size() + team.team_rank();
    if (team.league_rank() < short_teams) {
      for (int lane = 0; lane < 32; ++lane) short_item(worker * 32 + lane);
      return;
    }
    const int c = worker - short_teams * team.team_size();
    if (c < state.chunks) {
      const Chunk k = chunk(c);
      for (int j = 0; j < vectors; ++j) finish_chunk(c, k, j, slot_sum(k.first_tile, k.begin, k.end, j));
    }
  }
  KOKKOS_INLINE_FUNCTION vector_type chunk_total(int s, int j) const {
    const int begin = state.chunk_begin(s), end = state.chunk_begin(s + 1);
    vector_type sum = chunk_sums[begin * vectors + j];
    for (int c = begin + 1; c < end; ++c) sum = traits::add(sum, chunk_sums[c * vectors + j]);
    return sum;
  }
  /// Pass 3 through Kokkos, host backends only: CUDA runs chunk_total_work from segmented_sum_chunk_totals.
  KOKKOS_INLINE_FUNCTION void operator()(ChunkTotals, const member_type& team) const {
    const int i = team.league_rank() * team.team_size() + team.team_rank();
    if (i >= state.chunked_count) return;
    const int s = state.chunked_splits(i);
    for (int j = 0; j < vectors; ++j) result.store_at(y.at(long_row(s), j), chunk_total(s, j));
  }

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  /// The work of warp `worker` (of team `team`, `team_size` warps a team).
  __device__ void warp_work(int team, int worker, int team_size, int lane) const {
    if (team < short_teams) {
      short_item(worker * 32 + lane);
      return;
    }
    const int c = worker - short_teams * team_size;
    if (c >= state.chunks) return;  // uniform over a warp
    const Chunk k = chunk(c);
    for (int j = 0; j < vectors; ++j) {
      vector_type sum = traits::zero();
      for (int q = k.begin + lane; q < k.end; q += 32) sum = traits::add(sum, slot(k.first_tile, q, j));
      sum = warp_total<Entry>(sum);
      if (lane == 0) finish_chunk(c, k, j, sum);
    }
  }
  /// Pass 3: warp `worker` adds the chunk sums of chunked row `worker`, vector by vector.
  __device__ void chunk_total_work(int worker, int lane) const {
    if (worker >= state.chunked_count) return;  // uniform over a warp
    const int s = state.chunked_splits(worker);
    const int begin = state.chunk_begin(s), end = state.chunk_begin(s + 1);
    for (int j = 0; j < vectors; ++j) {
      vector_type sum = traits::zero();
      for (int c = begin + lane; c < end; c += 32) sum = traits::add(sum, chunk_sums[c * vectors + j]);
      sum = warp_total<Entry>(sum);
      if (lane == 0) result.store_at(y.at(long_row(s), j), sum);
    }
  }
#endif
};

}  // namespace impl
}  // namespace compound_sparse
