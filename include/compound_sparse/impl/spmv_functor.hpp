#pragma once
// The row-based SpMV kernel: one functor for every outer layout, inner layout,
// vector layout and the schedule kinds that hand whole rows to threads (Static,
// DynamicTeam, DynamicWarp; MergePath is impl/merge_path.hpp). The layouts enter
// only through two small pieces: row_slots (where a row's slots are) and
// value_access.hpp (how an entry or vector element is assembled from its
// components). Each lane loads Batch of its row's slots before it multiplies
// (impl/row_batch.hpp says why and how many).

#include <Kokkos_Core.hpp>
#include <type_traits>

#include "../compound_vector.hpp"
#include "../entry_traits.hpp"
#include "../schedule.hpp"
#include "../sparse_matrix.hpp"
#include "row_batch.hpp"
#include "row_result.hpp"
#include "row_slots.hpp"
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

  /// y(row) = alpha * (A x)(row) + beta * y(row), computed by the calling
  /// thread's vector lanes. Rows past the end are skipped by the whole lane group.
  /// Lane l adds slots l, l + lanes, l + 2 lanes, ... in that order, as a
  /// ThreadVectorRange over the row would, so every Batch gives the same bits.
  KOKKOS_INLINE_FUNCTION void compute_row(const member_type& team, int row) const {
    if (row >= num_rows) return;
    const RowSlots slots = row_slots<Outer>(offsets, row_lengths, ell_stride, row);
    const int first_column = column_base<Outer>(column_bases, row);
    vector_type sum;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, lanes),
        [&](int lane, vector_type& acc) {
          for (int k = lane; k < slots.length; k += Batch * lanes) {
            int columns[Batch];
            Entry entries[Batch];
            vector_type xs[Batch];
            // Indices and entries of the whole batch, then x at each column:
            // independent loads, in flight together.
            for (int u = 0; u < Batch; ++u) {
              const int slot = slots.first + (k + u * lanes) * slots.step;
              if (k + u * lanes < slots.length) {
                columns[u] = first_column + static_cast<int>(col_indices(slot));
                entries[u] = load_value<Entry, Inner>(values, slot);
              }
            }
            for (int u = 0; u < Batch; ++u)
              if (k + u * lanes < slots.length) xs[u] = load_value<vector_type, XInner>(x, columns[u]);
            for (int u = 0; u < Batch; ++u)
              if (k + u * lanes < slots.length) traits::multiply_add(acc, entries[u], xs[u]);
          }
        },
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

  KOKKOS_INLINE_FUNCTION void dynamic_warp(const member_type& team) const {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
    // Kokkos maps vector lanes to threadIdx.x and team ranks to threadIdx.y, so
    // a warp holds 32 / blockDim.x consecutive team ranks. The loop is
    // warp-uniform (every lane sees the broadcast chunk), as __shfl_sync needs.
    const int lane = (threadIdx.y * blockDim.x + threadIdx.x) & 31;
    const int group = lane / blockDim.x;
    for (;;) {
      unsigned chunk = 0;
      if (lane == 0) chunk = atomicAdd(work_counter.data(), 1u);
      chunk = __shfl_sync(0xffffffffu, chunk, 0);
      if (chunk >= static_cast<unsigned>(warp_chunks)) break;
      compute_row(team, static_cast<int>(chunk) * rows_per_warp_chunk + group);
    }
#else
    // Portable path: each team thread is its own "warp" and works through
    // chunks of rows_per_warp_chunk rows by itself.
    for (;;) {
      const int chunk = static_cast<int>(Kokkos::atomic_fetch_add(&work_counter(), 1u));
      if (chunk >= warp_chunks) break;
      const int end = chunk * rows_per_warp_chunk + rows_per_warp_chunk;
      for (int row = chunk * rows_per_warp_chunk; row < end; ++row) compute_row(team, row);
    }
#endif
  }
};

}  // namespace impl
}  // namespace compound_sparse
