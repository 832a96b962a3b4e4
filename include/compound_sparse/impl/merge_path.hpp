#pragma once
// The merge-path schedule (ScheduleKind::MergePath, CSR only): work split by
// non-zeros and rows together, so that one long row no longer serialises a thread.
//
// Merrill and Garland ("Merge-based parallel sparse matrix-vector multiplication",
// SC16) view CSR SpMV as merging two sorted lists: the row ends offsets[1..n] and
// the non-zero indices 0..nnz-1. Walking the merged list, a non-zero index adds
// its product to the running sum and a row end writes the sum to y and starts
// the next row. The list has n + nnz items; worker w (one thread) takes the
// items [w*p, (w+1)*p) and finds where it starts by a binary search along its
// diagonal (merge_path_start). Every worker then does the same amount of work
// whatever the row lengths: a row of 32K non-zeros is shared by many workers
// and many teams.
//
// A worker writes y for the rows whose end it reaches. The sum of the row it is
// still in when its items run out (the carry: that row's non-zeros it consumed)
// goes to the matrix's MergePathCarries, and a second pass (MergePathFixup) adds, for
// each row that spans workers, their carries to y in worker order. No atomics on
// y, and the same worker count gives the same bits on every call.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>

#include "../compound_vector.hpp"
#include "../entry_traits.hpp"
#include "../sparse_matrix.hpp"
#include "row_result.hpp"
#include "value_access.hpp"

namespace compound_sparse {
namespace impl {

/// min for kernels: std::min is a host function to nvcc.
KOKKOS_INLINE_FUNCTION std::int64_t smaller(std::int64_t a, std::int64_t b) {
  return a < b ? a : b;
}

/// A position on the merge path: `row` row ends and `entry` non-zeros consumed.
struct MergeCoordinate {
  int row;
  int entry;
};

/// Where diagonal `diagonal` (0 <= diagonal <= num_rows + num_entries) crosses
/// the merge path of the CSR row offsets: the largest row count i such that the
/// merged list's first `diagonal` items hold i row ends. A row end is consumed
/// when every non-zero of its row is, so empty rows are passed at once.
template <class IndexView>
KOKKOS_INLINE_FUNCTION MergeCoordinate merge_path_start(const IndexView& offsets, int num_rows, int num_entries,
                                                        std::int64_t diagonal) {
  std::int64_t lo = diagonal > num_entries ? diagonal - num_entries : 0;
  std::int64_t hi = diagonal < num_rows ? diagonal : num_rows;
  while (lo < hi) {
    const std::int64_t pivot = (lo + hi) / 2;
    // Row end `pivot` (value offsets[pivot + 1]) comes before non-zero
    // diagonal - pivot - 1 when it is not larger.
    if (offsets(pivot + 1) <= diagonal - pivot - 1)
      lo = pivot + 1;
    else
      hi = pivot;
  }
  return {static_cast<int>(lo), static_cast<int>(diagonal - lo)};
}

/// Workers a matrix with `num_rows` rows and `num_entries` non-zeros gets at
/// most: enough to fill `multiprocessors` at 2048 threads each (the most a
/// current GPU keeps resident), but no fewer than 8 merge items per worker, so
/// that searching and the carry stay small next to the work. The carry arrays
/// of a Csr matrix have this length.
inline int merge_path_max_workers(int num_rows, std::size_t num_entries, int multiprocessors) {
  const std::uint64_t items = static_cast<std::uint64_t>(num_rows) + num_entries;
  const std::uint64_t by_work = std::max<std::uint64_t>(1, items / 8);
  const std::uint64_t by_device = static_cast<std::uint64_t>(std::max(1, multiprocessors)) * 2048;
  return static_cast<int>(std::min(by_work, by_device));
}

/// Pass 1: each worker walks its part of the merge path.
template <class Entry, class Inner, class XInner, class YInner, class MemorySpace>
struct MergePathFunctor {
  using traits = entry_traits<Entry>;
  using vector_type = typename traits::vector_type;
  using coefficient_type = typename traits::coefficient_type;
  using matrix_type = SparseMatrix<Entry, Csr, Inner, MemorySpace>;
  using member_type = typename Kokkos::TeamPolicy<typename MemorySpace::execution_space>::member_type;

  typename matrix_type::index_view offsets, col_indices;
  typename matrix_type::values_view values;
  typename CompoundVector<vector_type, XInner, MemorySpace>::view_type x;
  typename CompoundVector<vector_type, YInner, MemorySpace>::view_type y;
  MergePathCarries<Entry, MemorySpace> carries;
  RowResult<Entry, YInner> result;
  int num_rows = 0;
  int num_entries = 0;
  int workers = 0;
  std::int64_t items_per_worker = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int worker = team.league_rank() * team.team_size() + team.team_rank();
    if (worker >= workers) return;
    const std::int64_t total = static_cast<std::int64_t>(num_rows) + num_entries;
    std::int64_t item = smaller(worker * items_per_worker, total);
    const std::int64_t end = smaller(item + items_per_worker, total);
    const MergeCoordinate start = merge_path_start(offsets, num_rows, num_entries, item);
    int row = start.row;
    int k = start.entry;
    int consumed = 0;  // non-zeros of `row` that this worker added to `sum`
    vector_type sum = traits::zero();
    while (item < end) {
      // The row's remaining non-zeros within this worker's items, in one tight loop.
      const int take = static_cast<int>(smaller(offsets(row + 1) - k, end - item));
      for (const int stop = k + take; k < stop; ++k)
        traits::multiply_add(sum, load_value<Entry, Inner>(values, k),
                             load_value<vector_type, XInner>(x, col_indices(k)));
      item += take;
      consumed += take;
      if (item == end) break;     // the row goes on in the next worker
      result.store(y, row, sum);  // the row's end is this worker's item
      sum = traits::zero();
      consumed = 0;
      ++row;
      ++item;
    }
    carries.rows(worker) = consumed > 0 ? row : num_rows;  // num_rows: nothing to carry
    carries.values(worker) = sum;
  }
};

/// Pass 2: for each row that spans workers, the first worker of the run that
/// carries it adds their carries, in worker order, to y.
template <class Entry, class YInner, class MemorySpace>
struct MergePathFixup {
  using traits = entry_traits<Entry>;
  using vector_type = typename traits::vector_type;

  typename CompoundVector<vector_type, YInner, MemorySpace>::view_type y;
  MergePathCarries<Entry, MemorySpace> carries;
  RowResult<Entry, YInner> result;
  int num_rows = 0;
  int workers = 0;

  KOKKOS_INLINE_FUNCTION void operator()(int worker) const {
    const int row = carries.rows(worker);
    if (row >= num_rows || (worker > 0 && carries.rows(worker - 1) == row)) return;
    vector_type sum = carries.values(worker);
    for (int w = worker + 1; w < workers && carries.rows(w) == row; ++w) sum = traits::add(sum, carries.values(w));
    result.accumulate(y, row, sum);
  }
};

}  // namespace impl
}  // namespace compound_sparse
