#pragma once
// How the row schedules (Static, DynamicTeam, DynamicWarp; schedule.hpp) hand rows
// to the groups of threads that compute them: shared by the SpMV row kernel
// (impl/spmv_functor.hpp) and the SpMM row kernel (impl/spmm_functor.hpp), which
// differ only in what a group does with its row.
//
// A group is the threads that share a row: `lanes` of them for an SpMV, lanes x
// vectors for an SpMM. Groups never straddle a warp: a warp holds 32 / group
// groups (its last 32 % group threads idle), so that the lanes of a row meet by
// shuffles and DynamicWarp hands a warp whole rows.

#include <Kokkos_Core.hpp>

#include "../schedules/schedule.hpp"
#include "plain_kernel.hpp"

namespace compound_sparse {
namespace impl {

/// The rows of a product and their chunks, as the row schedules hand them out.
struct RowWork {
  int num_rows = 0;
  int rows_per_team_chunk = 1;  ///< Static / DynamicTeam: rows a team (block) works on at once
  int team_chunks = 0;
  int rows_per_warp_chunk = 1;  ///< DynamicWarp: rows taken per atomic
  int warp_chunks = 0;

  /// Chunks for `num_rows` rows, teams of `team_rows` rows and warps of `warp_rows` rows.
  static RowWork make(int num_rows, int team_rows, int warp_rows) {
    RowWork w;
    w.num_rows = num_rows;
    w.rows_per_team_chunk = team_rows;
    w.team_chunks = (num_rows + team_rows - 1) / team_rows;
    w.rows_per_warp_chunk = warp_rows;
    w.warp_chunks = (num_rows + warp_rows - 1) / warp_rows;
    return w;
  }
  /// Teams worth launching for `kind` with teams of `team_size` threads (one row each
  /// on host backends): never more than there is work for.
  int work_items(ScheduleKind kind, int team_rows) const {
    return kind == ScheduleKind::DynamicWarp ? (warp_chunks * rows_per_warp_chunk + team_rows - 1) / team_rows
                                             : team_chunks;
  }
};

/// Kokkos' launch (host backends): calls row_op(row) for every row the calling team
/// thread takes, as `Kind` hands them out; rows past the end included (row_op skips them).
/// DynamicWarp: each team thread is its own "warp" and takes chunks by itself.
template <ScheduleKind Kind, class Member, class Counter, class RowOp>
KOKKOS_INLINE_FUNCTION void for_each_team_row(const Member& team, const RowWork& work, const Counter& work_counter,
                                              const RowOp& row_op) {
  if constexpr (Kind == ScheduleKind::Static) {
    for (int chunk = team.league_rank(); chunk < work.team_chunks; chunk += team.league_size())
      row_op(chunk * work.rows_per_team_chunk + team.team_rank());
  } else if constexpr (Kind == ScheduleKind::DynamicTeam) {
    for (;;) {
      int chunk = 0;
      // single(PerTeam, ..., value) broadcasts the value to the whole team.
      Kokkos::single(
          Kokkos::PerTeam(team), [&](int& c) { c = static_cast<int>(Kokkos::atomic_fetch_add(&work_counter(), 1u)); },
          chunk);
      if (chunk >= work.team_chunks) break;
      row_op(chunk * work.rows_per_team_chunk + team.team_rank());
    }
  } else {
    for (;;) {
      const int chunk = static_cast<int>(Kokkos::atomic_fetch_add(&work_counter(), 1u));
      if (chunk >= work.warp_chunks) break;
      const int end = chunk * work.rows_per_warp_chunk + work.rows_per_warp_chunk;
      for (int row = chunk * work.rows_per_warp_chunk; row < end; ++row) row_op(row);
    }
  }
}

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
/// One block of a plain row kernel: calls row_op(row, member) for every row the
/// calling thread's group takes (member: the thread's place in its group, 0 ..
/// group - 1), as operator() takes them (Static: chunks league-strided; DynamicTeam: a
/// chunk per atomic per block; DynamicWarp: a chunk of 32 / group rows per atomic
/// per warp). A block's chunk is its warps' groups; idle threads (past a warp's last
/// group) take part in the loop, and its barriers, without a row. Rows past the end
/// included (row_op skips them, the whole group alike).
template <ScheduleKind Kind, class Counter, class RowOp>
__device__ void for_each_block_row(const RowWork& work, int group, const Counter& work_counter, const RowOp& row_op) {
  const int thread = static_cast<int>(threadIdx.x);
  const int warp_lane = thread & 31;
  const int groups_per_warp = 32 / group;
  const int member = warp_lane % group;
  const bool idle = warp_lane >= groups_per_warp * group;
  // The thread's row within its block's chunk (Static, DynamicTeam) or warp's chunk (DynamicWarp).
  const int warp_row = warp_lane / group;
  const int block_row = (thread >> 5) * groups_per_warp + warp_row;
  if constexpr (Kind == ScheduleKind::Static) {
    for (int chunk = static_cast<int>(blockIdx.x); chunk < work.team_chunks; chunk += static_cast<int>(gridDim.x))
      if (!idle) row_op(chunk * work.rows_per_team_chunk + block_row, member);
  } else if constexpr (Kind == ScheduleKind::DynamicTeam) {
    __shared__ unsigned block_chunk;
    for (;;) {
      if (thread == 0) block_chunk = atomicAdd(work_counter.data(), 1u);
      __syncthreads();
      const int chunk = static_cast<int>(block_chunk);
      __syncthreads();  // every thread has read it before thread 0 takes the next
      if (chunk >= work.team_chunks) break;
      if (!idle) row_op(chunk * work.rows_per_team_chunk + block_row, member);
    }
  } else {
    // Warp-uniform loop (every lane sees the broadcast chunk), as __shfl_sync needs.
    for (;;) {
      unsigned chunk = 0;
      if (warp_lane == 0) chunk = atomicAdd(work_counter.data(), 1u);
      chunk = __shfl_sync(0xffffffffu, chunk, 0);
      if (chunk >= static_cast<unsigned>(work.warp_chunks)) break;
      if (!idle) row_op(static_cast<int>(chunk) * work.rows_per_warp_chunk + warp_row, member);
    }
  }
}

/// The lanes' sums of a row added by a butterfly of shuffles within each aligned
/// group of `lanes` threads (fixed, so every call gives the same bits).
template <class Traits, class Vector>
__device__ Vector sum_over_lanes(Vector sum, int lanes) {
  if (lanes > 1) {
    const int warp_lane = static_cast<int>(threadIdx.x & 31);
    const unsigned group = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u) << (warp_lane & ~(lanes - 1));
    for (int mask = lanes / 2; mask >= 1; mask /= 2)
      sum = Traits::add(sum, shuffle_components(sum, [=](auto s) { return __shfl_xor_sync(group, s, mask); }));
  }
  return sum;
}
#endif

}  // namespace impl
}  // namespace compound_sparse
