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

#include "../compound_vector.hpp"
#include "../entry_traits.hpp"
#include "../schedule.hpp"
#include "../sparse_matrix.hpp"
#include "plain_kernel.hpp"
#include "row_batch.hpp"
#include "row_result.hpp"
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
  int num_rows;
  int ell_stride;
  int lanes;                ///< vector lanes per row at launch (1 on host backends)
  int rows_per_team_chunk;  ///< Static / DynamicTeam: rows a team works on at once
  int team_chunks;
  int rows_per_warp_chunk;  ///< DynamicWarp: rows taken per atomic
  int warp_chunks;

  /// Adds lane `lane`'s slots of a row to `acc`: slots lane, lane + lanes,
  /// lane + 2 lanes, ... in that order, as a ThreadVectorRange over the row would,
  /// so every Batch gives the same bits. Indices and entries of the whole batch
  /// first, then x at each column: independent loads, in flight together.
  KOKKOS_INLINE_FUNCTION void add_lane_slots(const RowSlots& slots, int first_column, int lane,
                                             vector_type& acc) const {
    for (int k = lane; k < slots.length; k += Batch * lanes) {
      int columns[Batch];
      Entry entries[Batch];
      vector_type xs[Batch];
      for (int u = 0; u < Batch; ++u) {
        const int slot = slots.first + (k + u * lanes) * slots.step;
        if (k + u * lanes < slots.length) {
          columns[u] = first_column + load_index_streaming(col_indices, slot);
          entries[u] = load_streaming<Entry, Inner>(values, slot);
        }
      }
      for (int u = 0; u < Batch; ++u)
        if (k + u * lanes < slots.length) xs[u] = load_readonly<vector_type, XInner>(x, columns[u]);
      for (int u = 0; u < Batch; ++u)
        if (k + u * lanes < slots.length) traits::multiply_add(acc, entries[u], xs[u]);
    }
  }

  /// y(row) = alpha * (A x)(row) + beta * y(row), computed by the calling
  /// thread's vector lanes (Kokkos' launch, host backends). Rows past the end are
  /// skipped by the whole lane group.
  KOKKOS_INLINE_FUNCTION void compute_row(const member_type& team, int row) const {
    if (row >= num_rows) return;
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
    if constexpr (Kind == ScheduleKind::Static) {
      for (int chunk = team.league_rank(); chunk < team_chunks; chunk += team.league_size())
        compute_row(team, chunk * rows_per_team_chunk + team.team_rank());
    } else if constexpr (Kind == ScheduleKind::DynamicTeam) {
      for (;;) {
        int chunk = 0;
        // single(PerTeam, ..., value) broadcasts the value to the whole team.
        Kokkos::single(
            Kokkos::PerTeam(team), [&](int& c) { c = static_cast<int>(Kokkos::atomic_fetch_add(&work_counter(), 1u)); },
            chunk);
        if (chunk >= team_chunks) break;
        compute_row(team, chunk * rows_per_team_chunk + team.team_rank());
      }
    } else {
      dynamic_warp(team);
    }
  }

  /// DynamicWarp through Kokkos (host backends): each team thread is its own
  /// "warp" and works through chunks of rows_per_warp_chunk rows by itself.
  KOKKOS_INLINE_FUNCTION void dynamic_warp(const member_type& team) const {
    for (;;) {
      const int chunk = static_cast<int>(Kokkos::atomic_fetch_add(&work_counter(), 1u));
      if (chunk >= warp_chunks) break;
      const int end = chunk * rows_per_warp_chunk + rows_per_warp_chunk;
      for (int row = chunk * rows_per_warp_chunk; row < end; ++row) compute_row(team, row);
    }
  }

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  /// compute_row on CUDA, for lane `lane` of the `lanes` consecutive threads that
  /// share `row`: the same slots per lane (add_lane_slots), the lanes' sums added
  /// by a butterfly of shuffles within the group (fixed, so every call and every
  /// Batch gives the same bits). Rows past the end are skipped by the whole group.
  __device__ void compute_row_plain(int row, int lane) const {
    if (row >= num_rows) return;
    const RowSlots slots = row_slots<Outer>(offsets, row_lengths, ell_stride, row);
    const int first_column = column_base<Outer>(column_bases, row);
    vector_type sum = traits::zero();
    add_lane_slots(slots, first_column, lane, sum);
    if (lanes > 1) {
      const int warp_lane = static_cast<int>(threadIdx.x & 31);
      const unsigned group = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u) << (warp_lane & ~(lanes - 1));
      for (int mask = lanes / 2; mask >= 1; mask /= 2)
        sum = traits::add(sum, shuffle_components(sum, [=](auto s) { return __shfl_xor_sync(group, s, mask); }));
    }
    if (lane == 0) result.store(y, row, sum);
  }

  /// One block of row_kernel: Threads / lanes rows at a time, taken as operator()
  /// takes them (Static: chunks league-strided; DynamicTeam: a chunk per atomic
  /// per block; DynamicWarp: a chunk of 32 / lanes rows per atomic per warp).
  __device__ void plain_block() const {
    const int thread = static_cast<int>(threadIdx.x);
    const int lane = thread & (lanes - 1);
    if constexpr (Kind == ScheduleKind::Static) {
      for (int chunk = static_cast<int>(blockIdx.x); chunk < team_chunks; chunk += static_cast<int>(gridDim.x))
        compute_row_plain(chunk * rows_per_team_chunk + thread / lanes, lane);
    } else if constexpr (Kind == ScheduleKind::DynamicTeam) {
      __shared__ unsigned block_chunk;
      for (;;) {
        if (thread == 0) block_chunk = atomicAdd(work_counter.data(), 1u);
        __syncthreads();
        const int chunk = static_cast<int>(block_chunk);
        __syncthreads();  // every thread has read it before thread 0 takes the next
        if (chunk >= team_chunks) break;
        compute_row_plain(chunk * rows_per_team_chunk + thread / lanes, lane);
      }
    } else {
      // Warp-uniform loop (every lane sees the broadcast chunk), as __shfl_sync needs.
      const int warp_lane = thread & 31;
      for (;;) {
        unsigned chunk = 0;
        if (warp_lane == 0) chunk = atomicAdd(work_counter.data(), 1u);
        chunk = __shfl_sync(0xffffffffu, chunk, 0);
        if (chunk >= static_cast<unsigned>(warp_chunks)) break;
        compute_row_plain(static_cast<int>(chunk) * rows_per_warp_chunk + warp_lane / lanes, lane);
      }
    }
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
