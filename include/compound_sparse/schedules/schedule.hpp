#pragma once
// Parallel schedules: how rows are handed to GPU threads.
//
// Every schedule launches teams of Threads threads with launch bounds
// <Threads, MinTeamsPerSM> (the register budget the compiler must meet) and a
// league of n_s * MinTeamsPerSM teams, n_s the number of multiprocessors: a
// Kokkos::TeamPolicy on host backends and for the merge path; on CUDA the row
// kinds (Static, DynamicTeam, DynamicWarp) and the segmented sum run as plain
// CUDA kernels whose blocks are the teams (impl/plain_kernel.hpp says why). Each team
// thread owns `lanes_per_row` vector lanes that share one row and reduce its
// sum in registers (1 = one thread per row; 2..32 = vector-per-row, for long
// rows). A team of Threads threads therefore works on Threads / lanes_per_row
// rows at a time — one "chunk".
//
//   Static       team t takes chunks t, t + league, t + 2*league, ...
//   DynamicTeam  each team takes the next chunk from a device-wide atomic
//                counter until none is left (balances irregular rows).
//   DynamicWarp  on CUDA, each warp takes the next 32/lanes_per_row rows from
//                the counter (one atomic per warp, broadcast by a shuffle, no
//                team barrier). On host backends each thread takes chunks of
//                32 rows from the counter.
//   MergePath    CSR only, lanes_per_row 1: the n + nnz items of the merge of
//                row ends and non-zeros are cut into equal tiles, one per team
//                (so its league is the tile count, not n_s * MinTeamsPerSM);
//                a team stages its tile's products in scratch and its threads
//                walk equal shares of it, so a long row is shared by many
//                threads and teams; a second pass adds the partial sums of
//                rows that span tiles (impl/merge_path.hpp). Deterministic, no
//                atomics on y.
//   SegmentedSum CSR only, lanes_per_row 1: the non-zeros alone are cut into
//                tiles of 64, one per warp (Threads / 32 per team, so its
//                league is the tile count over that); the warp's lanes take 32
//                consecutive non-zeros at a time and a segmented scan across
//                them sums each row, found from a bitmap of the non-zeros that
//                start rows; a second pass adds the partial sums of rows that
//                span tiles and writes the empty rows (impl/segmented_sum.hpp).
//                Deterministic, no atomics on y.
//
// The kind and the launch bounds are template parameters (compile-time variants,
// selected at run time by the tuning database); lanes_per_row is a run-time value.
// The kinds are declared with the rest of the variant space in
// cmake/CompoundSparseVariantSpace.cmake, which generates the ScheduleKind enum.

#include <string>

#include "compound_sparse/variant_space.hpp"  // ScheduleKind and its names, from the variant space's declaration

namespace compound_sparse {

/// The kind's name in variant keys (schedule_kind_names).
inline std::string to_string(ScheduleKind kind) {
  return schedule_kind_names[static_cast<int>(kind)];
}

/// A schedule variant. Threads = n_t (threads per team, a multiple of 32 on
/// GPUs), MinTeamsPerSM = n_b (teams resident per multiprocessor, which both
/// sets the launch bound and the league size n_s * n_b).
template <ScheduleKind Kind, unsigned Threads, unsigned MinTeamsPerSM>
struct Schedule {
  static_assert(Threads >= 1 && MinTeamsPerSM >= 1, "launch bounds must be positive");
  static constexpr ScheduleKind kind = Kind;
  static constexpr unsigned threads = Threads;
  static constexpr unsigned min_teams_per_sm = MinTeamsPerSM;

  /// Vector lanes per row: 1, 2, 4, 8, 16 or 32.
  int lanes_per_row = 1;
};

using StaticSchedule = Schedule<ScheduleKind::Static, 128, 4>;
using DynamicTeamSchedule = Schedule<ScheduleKind::DynamicTeam, 128, 4>;
using DynamicWarpSchedule = Schedule<ScheduleKind::DynamicWarp, 128, 4>;

}  // namespace compound_sparse
