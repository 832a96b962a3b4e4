#pragma once
// The row-based SpMV kernel: one functor for every outer layout, inner layout,
// vector layout and the schedule kinds that hand whole rows to threads (Static,
// DynamicTeam, DynamicWarp; MergePath is impl/merge_path.hpp). The layouts enter
// only through two small pieces: row_slots (where a row's slots are) and
// value_access.hpp (how an entry or vector element is assembled from its
// components). Each lane loads Batch of its row's slots before it multiplies
// (impl/row_batch.hpp says why and how many).
//
// On CUDA the functor runs as a plain kernel (row_kernel, plain_kernel.hpp says
// why): a block of Threads threads is a team of Threads / lanes rows, lane l of a
// row is thread l of its group of `lanes` consecutive threads, and the lanes'
// sums meet by shuffles. There the matrix is read with evict-first loads and x
// through the read-only path (streaming_load.hpp): on the Helmholtz grids of the
// same lab that took another 1-12% in complex float and double (1% less on the
// largest float grid). Host backends run operator() through Kokkos' TeamPolicy.

#include <Kokkos_Core.hpp>
#include <type_traits>

#include "../entries/entry_traits.hpp"
#include "../layouts/compound_vector.hpp"
#include "../layouts/sparse_matrix.hpp"
#include "../schedules/schedule.hpp"
#include "lane_slots.hpp"
#include "plain_kernel.hpp"
#include "row_batch.hpp"
#include "row_result.hpp"
#include "row_schedule.hpp"
#include "row_slots.hpp"
#include "streaming_load.hpp"
#include "value_access.hpp"
#include "vector_sum.hpp"

namespace compound_sparse {
namespace impl {

template <ScheduleKind Kind, class Entry, class Outer, class Inner, class XInner, class YInner, class MemorySpace,
          int Batch = 1>
struct SpmvFunctor {
  static_assert(Batch >= 1, "a batch holds at least one slot");
  using traits = entry_traits<Entry>;
  using vector_type = typename traits::vector_type;
  using coefficient_type = typename traits::coefficient_type;
  using matrix_type = SparseMatrix<Entry, Outer, Inner, MemorySpace>;
  using x_type = CompoundVector<vector_type, XInner, MemorySpace>;
  using y_type = CompoundVector<vector_type, YInner, MemorySpace>;
  using execution_space = typename MemorySpace::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;

  typename matrix_type::index_view offsets, row_lengths, column_bases;
  typename matrix_type::column_view col_indices;
  typename matrix_type::values_view values;
  Kokkos::View<unsigned, MemorySpace> work_counter;
  typename x_type::view_type x;
  typename y_type::view_type y;
  RowResult<Entry, YInner> result;
  RowWork work;
  int ell_stride;
  int lanes;  ///< vector lanes per row at launch (1 on host backends)

  /// Adds lane `lane`'s slots of a row to `acc` (lane_slots.hpp).
  KOKKOS_INLINE_FUNCTION void add_lane_slots(const RowSlots& slots, int first_column, int lane,
                                             vector_type& acc) const {
    const auto x_at = [&](int column) { return load_readonly<vector_type, XInner>(x, column); };
    impl::add_lane_slots<Batch, Entry, Inner>(slots, first_column, lane, lanes, col_indices, values, x_at, acc);
  }

  /// y(row) = alpha * (A x)(row) + beta * y(row), computed by the calling
  /// thread's vector lanes (Kokkos' launch, host backends). Rows past the end are
  /// skipped by the whole lane group.
  KOKKOS_INLINE_FUNCTION void compute_row(const member_type& team, int row) const {
    if (row >= work.num_rows) return;
    const RowSlots slots = row_slots<Outer>(offsets, row_lengths, ell_stride, row);
    const int first_column = column_base<Outer>(column_bases, row);
    vector_type sum;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, lanes),
        [&](int lane, vector_type& acc) { add_lane_slots(slots, first_column, lane, acc); },
        VectorSum<Entry, MemorySpace>(sum));
    Kokkos::single(Kokkos::PerThread(team), [&]() { result.store(y, row, sum); });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    for_each_team_row<Kind>(team, work, work_counter, [&](int row) { compute_row(team, row); });
  }

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  /// compute_row on CUDA, for lane `lane` of the `lanes` consecutive threads that
  /// share `row`: the same slots per lane (add_lane_slots), the lanes' sums added
  /// by a butterfly of shuffles within the group (sum_over_lanes). Rows past the end
  /// are skipped by the whole group.
  __device__ void compute_row_plain(int row, int lane) const {
    if (row >= work.num_rows) return;
    const RowSlots slots = row_slots<Outer>(offsets, row_lengths, ell_stride, row);
    const int first_column = column_base<Outer>(column_bases, row);
    vector_type sum = traits::zero();
    add_lane_slots(slots, first_column, lane, sum);
    sum = sum_over_lanes<traits>(sum, lanes);
    if (lane == 0) result.store(y, row, sum);
  }

  /// One block of row_kernel: Threads / lanes rows at a time, taken as operator()
  /// takes them (row_schedule.hpp).
  __device__ void plain_block() const {
    for_each_block_row<Kind>(work, lanes, work_counter, [&](int row, int lane) { compute_row_plain(row, lane); });
  }
#endif
};

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
/// The row functor as a plain CUDA kernel of Threads threads a block.
template <class Functor, unsigned Threads, unsigned MinBlocks>
__global__ void __launch_bounds__(Threads, MinBlocks) row_kernel(const Functor f) {
  static_assert(Threads % 32 == 0,
                "a block of the row kernel is whole warps (launch bounds: threads a multiple of 32)");
#if defined(__CUDA_ARCH__)
  f.plain_block();
#endif
}
#endif

}  // namespace impl
}  // namespace compound_sparse
