#pragma once
// How the row schedules (Static, DynamicTeam, DynamicWarp, SmRange; schedule.hpp) hand
// rows to the groups of threads that compute them: shared by the SpMV row kernel
// (impl/spmv_functor.hpp) and the SpMM row kernel (impl/spmm_functor.hpp), which
// differ only in what a group does with its row.
//
// A group is the threads that share a row: `lanes` of them for an SpMV, lanes x
// vectors for an SpMM. Groups never straddle a warp: a warp holds 32 / group
// groups (its last 32 % group threads idle), so that the lanes of a row meet by
// shuffles and DynamicWarp hands a warp whole rows.

#include <Kokkos_Core.hpp>

#include "../schedule.hpp"
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
  int ranges = 1;  ///< SmRange on CUDA: contiguous ranges of team chunks, one per multiprocessor

  /// Chunks for `num_rows` rows, teams of `team_rows` rows and warps of `warp_rows` rows;
  /// `ranges` ranges of team chunks (SmRange).
  static RowWork make(int num_rows, int team_rows, int warp_rows, int ranges = 1) {
    RowWork w;
    w.num_rows = num_rows;
    w.rows_per_team_chunk = team_rows;
    w.team_chunks = (num_rows + team_rows - 1) / team_rows;
    w.rows_per_warp_chunk = warp_rows;
    w.warp_chunks = (num_rows + warp_rows - 1) / warp_rows;
    w.ranges = ranges < 1 ? 1 : ranges;
    return w;
  }
  /// First team chunk of range r of `parts` equal ranges (r = parts: the end); ranges of
  /// one chunk count more or less, none empty unless there are fewer chunks than ranges.
  KOKKOS_INLINE_FUNCTION int range_begin(int r, int parts) const {
    return static_cast<int>(static_cast<long long>(team_chunks) * r / parts);
  }
  KOKKOS_INLINE_FUNCTION int range_begin(int r) const { return range_begin(r, ranges); }
  KOKKOS_INLINE_FUNCTION unsigned range_chunks(int r) const {
    return static_cast<unsigned>(range_begin(r + 1) - range_begin(r));
  }
  /// Teams worth launching for `kind` with teams of `team_size` threads (one row each
  /// on host backends): never more than there is work for.
  int work_items(ScheduleKind kind, int team_rows) const {
    return kind == ScheduleKind::DynamicWarp ? (warp_chunks * rows_per_warp_chunk + team_rows - 1) / team_rows
                                             : team_chunks;
  }
  /// Counters a launch of `kind` uses (zeroed before it): one for the dynamic kinds,
  /// one per range for SmRange on CUDA, none for Static.
  int counters(ScheduleKind kind, bool gpu) const {
    if (kind == ScheduleKind::DynamicTeam || kind == ScheduleKind::DynamicWarp) return 1;
    return kind == ScheduleKind::SmRange && gpu ? ranges : 0;
  }
};

/// Kokkos' launch (host backends): calls row_op(row) for every row the calling team
/// thread takes, as `Kind` hands them out; rows past the end included (row_op skips them).
/// DynamicWarp: each team thread is its own "warp" and takes chunks by itself. SmRange:
/// each team takes its own contiguous range of chunks (host threads share no L1 that
/// teams could group by, and no counters are needed).
template <ScheduleKind Kind, class Member, class Counter, class RowOp>
KOKKOS_INLINE_FUNCTION void for_each_team_row(const Member& team, const RowWork& work, const Counter& work_counter,
                                              const RowOp& row_op) {
  if constexpr (Kind == ScheduleKind::Static) {
    for (int chunk = team.league_rank(); chunk < work.team_chunks; chunk += team.league_size())
      row_op(chunk * work.rows_per_team_chunk + team.team_rank());
  } else if constexpr (Kind == ScheduleKind::SmRange) {
    const int end = work.range_begin(team.league_rank() + 1, team.league_size());
    for (int chunk = work.range_begin(team.league_rank(), team.league_size()); chunk < end; ++chunk)
      row_op(chunk * work.rows_per_team_chunk + team.team_rank());
  } else if constexpr (Kind == ScheduleKind::DynamicTeam) {
    for (;;) {
      int chunk = 0;
      // single(PerTeam, ..., value) broadcasts the value to the whole team.
      Kokkos::single(
          Kokkos::PerTeam(team), [&](int& c) { c = static_cast<int>(Kokkos::atomic_fetch_add(&work_counter(0), 1u)); },
          chunk);
      if (chunk >= work.team_chunks) break;
      row_op(chunk * work.rows_per_team_chunk + team.team_rank());
    }
  } else {
    for (;;) {
      const int chunk = static_cast<int>(Kokkos::atomic_fetch_add(&work_counter(0), 1u));
      if (chunk >= work.warp_chunks) break;
      const int end = chunk * work.rows_per_warp_chunk + work.rows_per_warp_chunk;
      for (int row = chunk * work.rows_per_warp_chunk; row < end; ++row) row_op(row);
    }
  }
}

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
/// The multiprocessor the calling thread runs on (PTX %smid; not always contiguous
/// across a device, hence taken modulo the ranges by its caller).
__device__ inline unsigned multiprocessor_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

/// SmRange: the next team chunk for the calling warp (all 32 lanes call it; a block's
/// first warp claims for the block). From `range` while it has chunks (counters[r]:
/// chunks of range r taken so far); then the warp looks for another range with chunks
/// left, 32 counters at a time from the next range on, and keeps to that one
/// (`range` is updated). -1 when every range is taken: counters only grow, so a range
/// seen exhausted stays so.
__device__ inline int claim_range_chunk(const RowWork& work, unsigned* counters, int& range) {
  const unsigned all = 0xffffffffu;
  const int lane = static_cast<int>(threadIdx.x & 31);
  int chunk = -1;
  for (;;) {
    if (lane == 0) {
      const unsigned taken = atomicAdd(counters + range, 1u);
      if (taken < work.range_chunks(range)) chunk = work.range_begin(range) + static_cast<int>(taken);
    }
    chunk = __shfl_sync(all, chunk, 0);
    if (chunk >= 0) return chunk;
    int found = -1;
    for (int first = 1; first < work.ranges && found < 0; first += 32) {
      const int r = (range + first + lane) % work.ranges;
      const bool left =
          first + lane < work.ranges && *static_cast<volatile unsigned*>(counters + r) < work.range_chunks(r);
      const unsigned ballot = __ballot_sync(all, left);
      if (ballot != 0u) found = (range + first + __ffs(static_cast<int>(ballot)) - 1) % work.ranges;
    }
    if (found < 0) return -1;
    range = found;
  }
}

/// One block of a plain row kernel: calls row_op(row, member) for every row the
/// calling thread's group takes (member: the thread's place in its group, 0 ..
/// group - 1), as operator() takes them (Static: chunks league-strided; DynamicTeam: a
/// chunk per atomic per block; DynamicWarp: a chunk of 32 / group rows per atomic
/// per warp; SmRange: a chunk per atomic per block, from the range of the block's
/// multiprocessor first, so that the blocks resident on one multiprocessor work on
/// neighbouring rows and share x in its L1). A block's chunk is its warps' groups; idle threads (past a warp's last
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
  } else if constexpr (Kind == ScheduleKind::SmRange) {
    __shared__ int block_chunk;
    int range = static_cast<int>(multiprocessor_id() % static_cast<unsigned>(work.ranges));  // warp 0's
    for (;;) {
      if (thread < 32) {
        const int claimed = claim_range_chunk(work, work_counter.data(), range);
        if (thread == 0) block_chunk = claimed;
      }
      __syncthreads();
      const int chunk = block_chunk;
      __syncthreads();  // every thread has read it before warp 0 claims the next
      if (chunk < 0) break;
      if (!idle) row_op(chunk * work.rows_per_team_chunk + block_row, member);
    }
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
