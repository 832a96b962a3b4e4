#pragma once
// The merge-path schedule (ScheduleKind::MergePath, CSR only): work split by
// non-zeros and rows together, so that one long row no longer serialises a thread.
//
// Merrill and Garland ("Merge-based parallel sparse matrix-vector multiplication",
// SC16) view CSR SpMV as merging two sorted lists: the row ends offsets[1..n] and
// the non-zero indices 0..nnz-1. Walking the merged list, a non-zero index adds
// its product to the running sum and a row end writes the sum to y and starts
// the next row. The list has n + nnz items, cut into equal tiles, one per team;
// a row of 32K non-zeros is shared by many tiles, whatever the row lengths.
//
// A team first stages its tile: its threads compute the tile's products
// A(k) x(col(k)) side by side (consecutive threads read consecutive non-zeros,
// so the loads coalesce; each thread has several in flight) and copy the
// tile's row ends, both into scratch. Then
// each of the tile's workers walks its equal share of the tile in scratch.
// Walking the matrix in global memory instead, each thread reading its own run
// of non-zeros, cost 0.36 TB/s on the H200: a warp's 32 runs touch 32 cache
// lines per load and thrash L1.
//
// Where a tile starts on the path is found once per matrix, not per product:
// the coordinates of every 32nd diagonal are computed with the matrix
// (merge_path_index), and tiles are multiples of 32 items.
//
// A worker writes y for the rows whose end it reaches. The sum of the row it is
// still in when its items run out (its carry) goes to scratch; after a barrier,
// the first worker of each run of workers carrying the same row adds the run's
// carries to y, in worker order, when the row ends inside the tile. The run
// that reaches the tile's end becomes the tile's carry, and a second pass
// (MergePathFixup) adds, for each row that spans tiles, their carries in tile
// order. No atomics on y, and a given tile shape gives the same bits on every
// call.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>

#include "../entries/entry_traits.hpp"
#include "../layouts/compound_vector.hpp"
#include "../layouts/sparse_matrix.hpp"
#include "row_result.hpp"
#include "value_access.hpp"

namespace compound_sparse {
namespace impl {

/// min for kernels: std::min is a host function to nvcc. Both arguments of one
/// type, so that the walk inside a tile stays in 32-bit arithmetic and the
/// whole path (n + nnz may pass 2^31) in 64-bit.
template <class T>
KOKKOS_INLINE_FUNCTION T smaller(T a, T b) {
  return a < b ? a : b;
}

/// A position on the merge path: `row` row ends and `entry` non-zeros consumed.
struct MergeCoordinate {
  int row;
  int entry;
};

/// Where diagonal `diagonal` (0 <= diagonal <= num_rows + num_entries) crosses
/// the merge path of rows whose ends (one past their last non-zero) are
/// row_end(0..num_rows-1): the largest row count i such that the merged list's
/// first `diagonal` items hold i row ends. A row end is consumed when every
/// non-zero of its row is, so empty rows are passed at once.
/// Index is the type of the search's arithmetic: std::int64_t on the whole
/// path (n + nnz may pass 2^31), int inside a tile, where 32-bit arithmetic
/// made the merge-path product 1-15% faster on the H200 (fewer instructions
/// per step of a search every worker makes).
template <class Index, class RowEnd>
KOKKOS_INLINE_FUNCTION MergeCoordinate merge_path_search(const RowEnd& row_end, int num_rows, int num_entries,
                                                         Index diagonal) {
  Index lo = diagonal > num_entries ? diagonal - num_entries : 0;
  Index hi = diagonal < num_rows ? diagonal : num_rows;
  while (lo < hi) {
    const Index pivot = (lo + hi) / 2;
    // Row end `pivot` comes before non-zero diagonal - pivot - 1 when it is not larger.
    if (row_end(static_cast<int>(pivot)) <= diagonal - pivot - 1)
      lo = pivot + 1;
    else
      hi = pivot;
  }
  return {static_cast<int>(lo), static_cast<int>(diagonal - lo)};
}

/// Row ends of a CSR matrix: offsets(row + 1).
template <class IndexView>
struct CsrRowEnd {
  IndexView offsets;
  KOKKOS_INLINE_FUNCTION int operator()(int row) const { return offsets(row + 1); }
};

/// merge_path_search on CSR row offsets.
template <class IndexView>
KOKKOS_INLINE_FUNCTION MergeCoordinate merge_path_start(const IndexView& offsets, int num_rows, int num_entries,
                                                        std::int64_t diagonal) {
  return merge_path_search(CsrRowEnd<IndexView>{offsets}, num_rows, num_entries, diagonal);
}

/// The path's coordinates are indexed every this many items; tiles are multiples of it.
constexpr int merge_path_index_stride = 32;

/// Indexed coordinates of a matrix with `num_rows` rows and `num_entries`
/// non-zeros: one per merge_path_index_stride items and one for the path's end.
/// The matrix's carry slots (one per tile) number one fewer: no tile is
/// shorter than the stride.
inline std::size_t merge_path_index_length(int num_rows, std::size_t num_entries) {
  const std::uint64_t items = static_cast<std::uint64_t>(num_rows) + num_entries;
  return static_cast<std::size_t>((items + merge_path_index_stride - 1) / merge_path_index_stride) + 1;
}

/// Writes, for the CSR matrix `m`, the coordinates of diagonals 0, 32, 64, ...
/// and of the path's end into m.merge_path.index_rows / index_entries.
template <class Matrix>
void merge_path_index(const Matrix& m) {
  using execution_space = typename Matrix::execution_space;
  const auto offsets = m.offsets;
  const auto rows = m.merge_path.index_rows;
  const auto entries = m.merge_path.index_entries;
  const int num_rows = m.num_rows;
  const int num_entries = static_cast<int>(m.num_entries);
  const std::int64_t items = static_cast<std::int64_t>(num_rows) + num_entries;
  Kokkos::parallel_for(
      "compound_sparse::merge_path_index", Kokkos::RangePolicy<execution_space>(0, static_cast<int>(rows.extent(0))),
      KOKKOS_LAMBDA(int s) {
        const std::int64_t diagonal = smaller(static_cast<std::int64_t>(s) * merge_path_index_stride, items);
        const MergeCoordinate c = merge_path_start(offsets, num_rows, num_entries, diagonal);
        rows(s) = c.row;
        entries(s) = c.entry;
      });
}

/// The sum of the run of carries that starts at `first` (those of rows(first)),
/// in order. Eight slots are loaded at a time: a loop that tested each slot's
/// row before loading the next waited one memory latency per slot, and a row
/// of 49K non-zeros spans 38 tiles (10 us of the fix-up pass on the H200).
template <class Traits, class Rows, class Values>
KOKKOS_INLINE_FUNCTION typename Traits::vector_type sum_run(const Rows& rows, const Values& values, int first,
                                                            int count) {
  constexpr int batch = 8;
  const int row = rows(first);
  typename Traits::vector_type sum = values(first);
  for (int next = first + 1; next < count; next += batch) {
    int slot_rows[batch];
    for (int u = 0; u < batch; ++u) slot_rows[u] = next + u < count ? rows(next + u) : -1;
    for (int u = 0; u < batch; ++u) {
      if (slot_rows[u] != row) return sum;
      sum = Traits::add(sum, values(next + u));
    }
  }
  return sum;
}

/// The shape of a tile: `workers` workers of `items_per_worker` merge items each.
struct MergePathTile {
  int workers = 0;
  int items_per_worker = 0;
  KOKKOS_INLINE_FUNCTION int items() const { return workers * items_per_worker; }
};

/// Pass 1: each team stages one tile in scratch and walks it (see the top of
/// this file); the tile's carry goes to the matrix's carry slots.
template <class Entry, class Inner, class XInner, class YInner, class MemorySpace>
struct MergePathFunctor {
  using entry_type = Entry;
  using y_inner = YInner;
  using memory_space = MemorySpace;
  using traits = entry_traits<Entry>;
  using vector_type = typename traits::vector_type;
  using matrix_type = SparseMatrix<Entry, Csr, Inner, MemorySpace>;
  using execution_space = typename MemorySpace::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  using scratch_space = typename execution_space::scratch_memory_space;
  using vector_scratch = Kokkos::View<vector_type*, scratch_space, Kokkos::MemoryUnmanaged>;
  using index_scratch = Kokkos::View<int*, scratch_space, Kokkos::MemoryUnmanaged>;

  typename matrix_type::index_view offsets, col_indices;
  typename matrix_type::values_view values;
  typename CompoundVector<vector_type, XInner, MemorySpace>::view_type x;
  typename CompoundVector<vector_type, YInner, MemorySpace>::view_type y;
  MergePathState<Entry, MemorySpace> state;
  RowResult<Entry, YInner> result;
  int num_rows = 0;
  int num_index_strides = 0;  ///< state.index_rows.extent(0) - 1
  MergePathTile tile;

  /// Scratch bytes per team for a tile of this shape.
  static std::size_t scratch_bytes(const MergePathTile& t) {
    return vector_scratch::shmem_size(t.items()) + vector_scratch::shmem_size(t.workers) +
           index_scratch::shmem_size(t.items() + 1) + index_scratch::shmem_size(t.workers);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int tile_index = team.league_rank();
    const int strides_per_tile = tile.items() / merge_path_index_stride;
    const int first = tile_index * strides_per_tile;
    const int last =
        static_cast<int>(smaller(static_cast<std::int64_t>(first) + strides_per_tile, std::int64_t{num_index_strides}));
    const int row0 = state.index_rows(first), k0 = state.index_entries(first);
    const int tile_rows = state.index_rows(last) - row0;  // rows whose end is in the tile
    const int tile_entries = state.index_entries(last) - k0;
    const int tile_items = tile_rows + tile_entries;

    // Vectors first: scratch hands out memory in order, and they need the wider alignment.
    const vector_scratch products(team.team_scratch(0), tile.items());
    const vector_scratch carry_values(team.team_scratch(0), tile.workers);
    const index_scratch row_ends(team.team_scratch(0), tile.items() + 1);  // relative to k0
    const index_scratch carry_rows(team.team_scratch(0), tile.workers);

    const int threads = team.team_size(), rank = team.team_rank();
    if (rank == 0) state.carry_rows(tile_index) = num_rows;
    // Each thread loads its non-zero (column and entry) and its row end, then x
    // at the column, and only then stores the product and the row end: the
    // compiler cannot tell a store to scratch from the matrix or x, so loads
    // after a store wait for it. Two loops, products then row ends, waited out
    // three memory latencies per share and, at 8 teams of 256 threads per
    // multiprocessor, spilled registers (H200: 1.06-1.28x faster, more on the
    // launch bounds that spilled). Row row0 + tile_rows goes on past the tile:
    // its end is the tile's last non-zero.
    const int span = tile_entries > tile_rows + 1 ? tile_entries : tile_rows + 1;
    for (int j = rank; j < span; j += threads) {
      const bool has_entry = j < tile_entries, has_row_end = j <= tile_rows;
      int column = 0, row_end = tile_entries;
      Entry a{};
      if (has_entry) {
        column = col_indices(k0 + j);
        a = load_value<Entry, Inner>(values, k0 + j);
      }
      if (has_row_end && j < tile_rows) row_end = offsets(row0 + j + 1) - k0;
      if (has_entry) {
        vector_type product = traits::zero();
        traits::multiply_add(product, a, load_value<vector_type, XInner>(x, column));
        products(j) = product;
      }
      if (has_row_end) row_ends(j) = row_end;
    }
    team.team_barrier();

    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, tile.workers), [&](int w) {
      int item = smaller(w * tile.items_per_worker, tile_items);
      const int end = smaller(item + tile.items_per_worker, tile_items);
      const MergeCoordinate start = merge_path_search<int>(row_ends, tile_rows, tile_entries, item);
      int i = start.row;
      int e = start.entry;
      int consumed = 0;  // non-zeros of row i that this worker added to `sum`
      vector_type sum = traits::zero();
      while (item < end) {
        const int take = smaller(row_ends(i) - e, end - item);
        for (const int stop = e + take; e < stop; ++e) sum = traits::add(sum, products(e));
        item += take;
        consumed += take;
        if (item == end) break;          // the row goes on in the next worker
        result.store(y, row0 + i, sum);  // the row's end is this worker's item
        sum = traits::zero();
        consumed = 0;
        ++i;
        ++item;
      }
      carry_rows(w) = consumed > 0 ? row0 + i : num_rows;  // num_rows: nothing to carry
      carry_values(w) = sum;
    });
    team.team_barrier();

    // The first worker of each run carrying one row adds the run's carries.
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, tile.workers), [&](int w) {
      const int row = carry_rows(w);
      if (row >= num_rows || (w > 0 && carry_rows(w - 1) == row)) return;
      const vector_type sum = sum_run<traits>(carry_rows, carry_values, w, tile.workers);
      if (row < row0 + tile_rows) {
        result.accumulate(y, row, sum);  // its end, and store(), came later in this tile
      } else {
        state.carry_rows(tile_index) = row;  // it goes on in the next tile
        state.carry_values(tile_index) = sum;
      }
    });
  }
};

/// Pass 2: for each row that spans tiles, the first tile of the run that
/// carries it adds their carries, in tile order, to y.
template <class Entry, class YInner, class MemorySpace>
struct MergePathFixup {
  using traits = entry_traits<Entry>;
  using vector_type = typename traits::vector_type;

  typename CompoundVector<vector_type, YInner, MemorySpace>::view_type y;
  MergePathState<Entry, MemorySpace> state;
  RowResult<Entry, YInner> result;
  int num_rows = 0;
  int tiles = 0;

  KOKKOS_INLINE_FUNCTION void operator()(int tile) const {
    const int row = state.carry_rows(tile);
    if (row >= num_rows || (tile > 0 && state.carry_rows(tile - 1) == row)) return;
    result.accumulate(y, row, sum_run<traits>(state.carry_rows, state.carry_values, tile, tiles));
  }
};

}  // namespace impl
}  // namespace compound_sparse
