#pragma once
// The row-based SpMM kernel: Y = alpha A X + beta Y for k vectors at once, on
// every outer and inner layout of A and both multivector layouts, for the row
// schedules (Static, DynamicTeam, DynamicWarp; row_schedule.hpp).
//
// A row's group of threads is lanes x vectors: `lanes` threads share the row's
// slots as in the SpMV kernel (impl/spmv_functor.hpp), and each of `vectors`
// such lane sets sums the row for its own vector. The lane sets read the same
// entries at the same moment (one memory transaction for the warp, the matrix
// read from DRAM once for all k vectors) and neighbouring values of X: a row's k
// values are contiguous in an Aos multivector. A thread keeps one accumulator, as
// in the SpMV, so its register budget and batch are the SpMV's, for every k.
// Where lanes x k is more than a warp, the group takes the vectors in passes of
// 32 / lanes, reading the row again (from cache). Each vector's sum is added in
// the SpMV's order: column j of Y has the bits of an SpMV of column j of X with
// the same schedule and lanes.
//
// Host backends run operator() through Kokkos' TeamPolicy: a thread per row, its
// vectors one after the other.

#include <Kokkos_Core.hpp>
#include <cstddef>

#include "../entry_traits.hpp"
#include "../schedule.hpp"
#include "../sparse_matrix.hpp"
#include "lane_slots.hpp"
#include "row_result.hpp"
#include "row_schedule.hpp"
#include "row_slots.hpp"
#include "streaming_load.hpp"
#include "vector_sum.hpp"

namespace compound_sparse {
namespace impl {

template <ScheduleKind Kind, class Entry, class Outer, class Inner, class MemorySpace, int Batch = 1>
struct SpmmFunctor {
  static_assert(Batch >= 1, "a batch holds at least one slot");
  using traits = entry_traits<Entry>;
  using vector_type = typename traits::vector_type;
  using matrix_type = SparseMatrix<Entry, Outer, Inner, MemorySpace>;
  using execution_space = typename MemorySpace::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;

  typename matrix_type::index_view offsets, row_lengths, column_bases;
  typename matrix_type::column_view col_indices;
  typename matrix_type::values_view values;
  Kokkos::View<unsigned, MemorySpace> work_counter;
  const vector_type* x;
  vector_type* y;
  std::ptrdiff_t x_row_stride, x_vector_stride;  ///< in values (MultiVector::row_stride, vector_stride)
  std::ptrdiff_t y_row_stride, y_vector_stride;
  RowResult<Entry, Aos> result;
  RowWork work;
  int ell_stride;
  int lanes;             ///< lanes per row and vector at launch (1 on host backends)
  int vectors;           ///< k
  int vectors_per_pass;  ///< lane sets of a row's group (k, or 32 / lanes where k is more)

  /// Lane `lane`'s share of the sum of `row` for vector j (lane_slots.hpp).
  KOKKOS_INLINE_FUNCTION vector_type lane_sum(const RowSlots& slots, int first_column, int lane, int j) const {
    const vector_type* x_j = x + j * x_vector_stride;
    const auto x_at = [&](int column) { return load_readonly_at(x_j + column * x_row_stride); };
    vector_type sum = traits::zero();
    add_lane_slots<Batch, Entry, Inner>(slots, first_column, lane, lanes, col_indices, values, x_at, sum);
    return sum;
  }

  KOKKOS_INLINE_FUNCTION vector_type* y_at(int row, int j) const {
    return y + row * y_row_stride + j * y_vector_stride;
  }

  /// Row `row` of Y = alpha A X + beta Y, every vector, by the calling thread
  /// (Kokkos' launch, host backends); rows past the end are skipped.
  KOKKOS_INLINE_FUNCTION void compute_row(const member_type& team, int row) const {
    if (row >= work.num_rows) return;
    const RowSlots slots = row_slots<Outer>(offsets, row_lengths, ell_stride, row);
    const int first_column = column_base<Outer>(column_bases, row);
    for (int j = 0; j < vectors; ++j) {
      vector_type sum;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, lanes),
          [&](int lane, vector_type& acc) { acc = traits::add(acc, lane_sum(slots, first_column, lane, j)); },
          VectorSum<Entry, MemorySpace>(sum));
      Kokkos::single(Kokkos::PerThread(team), [&]() { result.store_at(y_at(row, j), sum); });
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    for_each_team_row<Kind>(team, work, work_counter, [&](int row) { compute_row(team, row); });
  }

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  /// Row `row` on CUDA for the thread at `member` of its group: lane member % lanes
  /// of vector member / lanes (+ vectors_per_pass per pass). Rows past the end are
  /// skipped by the whole group, vectors past k by their whole lane set.
  __device__ void compute_row_plain(int row, int member) const {
    if (row >= work.num_rows) return;
    const RowSlots slots = row_slots<Outer>(offsets, row_lengths, ell_stride, row);
    const int first_column = column_base<Outer>(column_bases, row);
    const int lane = member % lanes;
    for (int j = member / lanes; j < vectors; j += vectors_per_pass) {
      const vector_type sum = sum_over_lanes<traits>(lane_sum(slots, first_column, lane, j), lanes);
      if (lane == 0) result.store_at(y_at(row, j), sum);
    }
  }

  /// One block of row_kernel (impl/spmv_functor.hpp): groups of lanes x
  /// vectors_per_pass threads, rows taken as operator() takes them (row_schedule.hpp).
  __device__ void plain_block() const {
    for_each_block_row<Kind>(work, lanes * vectors_per_pass, work_counter,
                             [&](int row, int member) { compute_row_plain(row, member); });
  }
#endif
};

}  // namespace impl
}  // namespace compound_sparse
