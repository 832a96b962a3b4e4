#pragma once
// y = alpha * A * x + beta * y for every layout and schedule variant.
//
//   spmv(Schedule<ScheduleKind::DynamicWarp, 256, 2>{}, alpha, A, x, beta, y);
//
// Deterministic: lanes sharing a row reduce in a fixed order, and the merge-path
// and segmented-sum schedules add the parts of a row that span workers in worker
// order (no atomics on y), so repeated calls give identical bits.
// beta == 0 overwrites y without reading it (NaNs in y do not propagate).

#include <Kokkos_Core.hpp>
#include <algorithm>

#include "../device_info.hpp"
#include "../entries/entry_traits.hpp"
#include "../error.hpp"
#include "../impl/merge_path.hpp"
#include "../impl/overlap.hpp"
#include "../impl/segmented_sum.hpp"
#include "../impl/spmv_functor.hpp"
#include "../impl/team_launch.hpp"
#include "../layouts/compound_vector.hpp"
#include "../layouts/sparse_matrix.hpp"
#include "../schedules/schedule.hpp"

namespace compound_sparse {

namespace impl {

/// Throws InvalidInput if the schedule's lanes_per_row is not one of 1, 2, 4, 8, 16,
/// 32 (1 for a kind that does not use lanes), or a GPU schedule's threads are not
/// whole warps; `operation` names the caller in the message.
template <class ExecutionSpace, ScheduleKind Kind, unsigned Threads, unsigned MinTeams>
void check_schedule(const Schedule<Kind, Threads, MinTeams>& schedule, const char* operation) {
  const int lanes = schedule.lanes_per_row;
  COMPOUND_SPARSE_REQUIRE(lanes >= 1 && lanes <= 32 && (lanes & (lanes - 1)) == 0,
                          operation << ": lanes_per_row must be 1, 2, 4, 8, 16 or 32, got " << lanes);
  COMPOUND_SPARSE_REQUIRE(schedule_kind_uses_lanes[static_cast<int>(Kind)] || lanes == 1,
                          operation << ": schedule kind " << to_string(Kind)
                                    << " does not use lanes; lanes_per_row must be 1, got " << lanes);
  COMPOUND_SPARSE_REQUIRE(
      !is_gpu_space<ExecutionSpace>() || (Threads % 32 == 0 && Threads >= static_cast<unsigned>(lanes)),
      operation << ": GPU schedules need a multiple of 32 threads per team, got " << Threads);
}

/// The tile shape of the merge-path schedule for `team_size` threads: on GPUs
/// one worker per thread, on host backends 32 workers walked by however many
/// threads the team has; each worker gets the largest odd item count up to 11
/// (GPU) or 33 (host) whose scratch fits `scratch_max` bytes and for which
/// `launches(scratch bytes)` holds. Odd, so that a quarter warp's strided reads
/// of 16-byte products fall in different banks. Larger tiles spread a tile's
/// fixed costs (its index, two barriers, each worker's search) over more items:
/// on the H200, complex<float> on circuit-1m and rmat-s20 at 256 x {1, 2, 4}
/// ran 2-5% faster at 9 or 11 items than at 7, the largest the rule allowed.
template <class Functor, class Launches>
MergePathTile merge_path_tile(bool gpu, int team_size, std::size_t scratch_max, const Launches& launches) {
  const auto fits = [&](const MergePathTile& t) {
    return Functor::scratch_bytes(t) <= scratch_max && launches(Functor::scratch_bytes(t));
  };
  MergePathTile tile{gpu ? team_size : 32, gpu ? 11 : 33};
  while (tile.items_per_worker > 1 && !fits(tile)) tile.items_per_worker -= 2;
  COMPOUND_SPARSE_REQUIRE(fits(tile), "spmv: merge_path with " << team_size << " threads per team needs "
                                                               << Functor::scratch_bytes(tile)
                                                               << " bytes of team scratch, more than the backend "
                                                                  "offers at these launch bounds (at most "
                                                               << scratch_max << "); use fewer threads or teams");
  return tile;
}

/// The merge-path functor of a product on `a`, every member but the tile set.
template <class Entry, class Inner, class XInner, class YInner, class MemorySpace>
MergePathFunctor<Entry, Inner, XInner, YInner, MemorySpace> merge_path_functor(
    const RowResult<Entry, YInner>& result, const SparseMatrix<Entry, Csr, Inner, MemorySpace>& a,
    const CompoundVector<vector_type_t<Entry>, XInner, MemorySpace>& x,
    const CompoundVector<vector_type_t<Entry>, YInner, MemorySpace>& y) {
  const std::size_t index_length = a.merge_path.index_rows.extent(0);
  COMPOUND_SPARSE_REQUIRE(index_length == merge_path_index_length(a.num_rows, a.num_entries) &&
                              a.merge_path.carry_rows.extent(0) + 1 == index_length,
                          "spmv: the matrix has no merge-path index (build it with to_device or "
                          "matrix_from_csr_views)");
  MergePathFunctor<Entry, Inner, XInner, YInner, MemorySpace> f;
  f.offsets = a.offsets;
  f.col_indices = a.col_indices;
  f.values = a.values;
  f.x = x.data;
  f.y = y.data;
  f.state = a.merge_path;
  f.result = result;
  f.num_rows = a.num_rows;
  f.num_index_strides = static_cast<int>(index_length) - 1;
  return f;
}

/// Runs the merge-path product of `f` (a MergePathFunctor, or a functor with its
/// members and types) with tiles of shape `tile` on teams of `team_size`
/// threads: pass 1 over the tiles, pass 2 over their carries. The tile must fit
/// the team's scratch at these launch bounds (merge_path_tile).
template <unsigned Threads, unsigned MinTeams, class ExecutionSpace, class Functor>
void launch_merge_path(const ExecutionSpace& exec, Functor f, int team_size, const MergePathTile& tile) {
  using policy_type = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::LaunchBounds<Threads, MinTeams>>;
  f.tile = tile;
  // A tile is a whole number of the index's strides, as pass 1 counts them.
  const int strides_per_tile = tile.items() / merge_path_index_stride;
  const int tiles = (f.num_index_strides + strides_per_tile - 1) / strides_per_tile;
  team_parallel_for(
      "compound_sparse::spmv_merge_path",
      policy_type(exec, tiles, team_size, 1).set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_bytes(tile))), f);

  MergePathFixup<typename Functor::entry_type, typename Functor::y_inner, typename Functor::memory_space> fixup;
  fixup.y = f.y;
  fixup.state = f.state;
  fixup.result = f.result;
  fixup.num_rows = f.num_rows;
  fixup.tiles = tiles;
  Kokkos::parallel_for("compound_sparse::spmv_merge_path_fixup", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, tiles),
                       fixup);
}

/// The merge-path schedule (impl/merge_path.hpp): pass 1 on one team of
/// Threads threads per tile, pass 2 over the tiles' carries.
template <class ExecutionSpace, unsigned Threads, unsigned MinTeams, class Entry, class Inner, class XInner,
          class YInner, class MemorySpace>
void merge_path_spmv(const ExecutionSpace& exec, const RowResult<Entry, YInner>& result,
                     const SparseMatrix<Entry, Csr, Inner, MemorySpace>& a,
                     const CompoundVector<vector_type_t<Entry>, XInner, MemorySpace>& x,
                     const CompoundVector<vector_type_t<Entry>, YInner, MemorySpace>& y) {
  using functor_type = MergePathFunctor<Entry, Inner, XInner, YInner, MemorySpace>;
  const functor_type f = merge_path_functor(result, a, x, y);
  using policy_type = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::LaunchBounds<Threads, MinTeams>>;
  constexpr bool gpu = is_gpu_space<ExecutionSpace>();
  const int team_size = launch_team_size<policy_type>(exec, f, static_cast<int>(Threads));
  // The launch bounds ask for MinTeams resident teams per multiprocessor: their
  // scratch must fit it together, or Kokkos refuses the team size at launch,
  // from inside parallel_for, where its exception leaves Kokkos' reference
  // counting of Views switched off (Kokkos 3.4). Ask before launching instead.
  // The answer depends only on this instantiation (on GPUs the team has Threads
  // threads; on host backends the tile ignores the team size) and the device
  // Kokkos runs on, so it is found once, not on every product.
  const auto launches = [&](std::size_t bytes) {
    return !gpu || policy_type(exec, 1, 1)
                           .set_scratch_size(0, Kokkos::PerTeam(bytes))
                           .team_size_max(f, Kokkos::ParallelForTag()) >= team_size;
  };
  static const MergePathTile tile = merge_path_tile<functor_type>(
      gpu, team_size, static_cast<std::size_t>(policy_type::scratch_size_max(0)), launches);
  launch_merge_path<Threads, MinTeams>(exec, f, team_size, tile);
}

/// The segmented-sum schedule (impl/segmented_sum.hpp): pass 1 on one warp (on
/// host backends one thread) per tile, Threads / 32 tiles per team on GPUs;
/// pass 2 over the rows that span tiles (long ones by chunks) and the empty
/// rows; pass 3, where a long row has several chunks, adds their sums.
template <class ExecutionSpace, unsigned Threads, unsigned MinTeams, class Entry, class Inner, class XInner,
          class YInner, class MemorySpace>
void segmented_sum_spmv(const ExecutionSpace& exec, const RowResult<Entry, YInner>& result,
                        const SparseMatrix<Entry, Csr, Inner, MemorySpace>& a,
                        const CompoundVector<vector_type_t<Entry>, XInner, MemorySpace>& x,
                        const CompoundVector<vector_type_t<Entry>, YInner, MemorySpace>& y) {
  const auto& state = a.segmented;
  const int tiles = checked_segmented_tiles(a, "spmv");
  // CUDA runs the passes as plain kernels (impl/segmented_sum.hpp says why), a warp per
  // tile; host backends through Kokkos, a team thread per tile.
  const auto pass1 = [&](auto beta_is_zero) {
    SegmentedSumFunctor<Entry, Inner, XInner, YInner, MemorySpace, decltype(beta_is_zero)::value> f;
    f.col_indices = a.col_indices;
    f.values = a.values;
    f.x = x.data;
    f.y = y.data;
    f.state = state;
    f.result = result;
    f.num_entries = static_cast<int>(a.num_entries);
    launch_segmented_tiles<Threads, MinTeams>(exec, f, tiles, "compound_sparse::spmv_segmented_sum",
                                              "the segmented sum's first pass");
  };
  if (tiles > 0) {
    if (result.beta_is_zero)
      pass1(std::true_type{});
    else
      pass1(std::false_type{});
  }
  constexpr int fixup_team = segmented_fixup_team<ExecutionSpace>();
  SegmentedSumFixup<Entry, YInner, MemorySpace> fixup;
  fixup.y = y.data;
  fixup.state = state;
  fixup.offsets = a.offsets;
  fixup.result = result;
  fixup.short_teams = (state.short_splits + state.empty_count + 32 * fixup_team - 1) / (32 * fixup_team);
  launch_segmented_fixups(
      exec, fixup, fixup.short_teams, state.chunks, state.chunked_count,
      {"compound_sparse::spmv_segmented_sum_fixup", "compound_sparse::spmv_segmented_sum_chunk_totals"},
      {"the segmented sum's second pass", "the segmented sum's third pass"});
}

/// Slots per batch of the row kernel for these launch bounds (impl/row_batch.hpp), a
/// thread accumulating `Vectors` vectors: one on host backends.
template <class ExecutionSpace, class Entry, unsigned Threads, unsigned MinTeams, int Vectors = 1>
constexpr int row_spmv_batch() {
  return is_gpu_space<ExecutionSpace>() ? row_batch<Entry, Threads, MinTeams, Vectors>() : 1;
}

/// Points a row functor (SpmvFunctor, SpmmFunctor) at the matrix's arrays.
template <class Functor, class Matrix>
void set_row_matrix(Functor& f, const Matrix& a) {
  f.offsets = a.offsets;
  f.row_lengths = a.row_lengths;
  f.col_indices = a.col_indices;
  f.column_bases = a.column_bases;
  f.values = a.values;
  f.work_counter = a.work_counter;
  f.ell_stride = a.ell_stride;
}

/// Launches a row functor whose work (f.work) and lanes are set: a league of n_s * n_b
/// teams, but never more than there is work for (teams of `team_rows` rows); the
/// dynamic kinds' counter reset first. CUDA runs the plain kernel row_kernel, Threads
/// threads a block (`what` names it in a launch error); host backends Kokkos' team
/// launch of `team_size` threads (`label`).
template <ScheduleKind Kind, unsigned Threads, unsigned MinTeams, class ExecutionSpace, class Functor, class Counter>
void launch_rows(const ExecutionSpace& exec, const Functor& f, const Counter& work_counter, int team_size,
                 int team_rows, const char* label, const char* what) {
  using policy_type = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::LaunchBounds<Threads, MinTeams>>;
  const int league = std::max(1, std::min(f.work.work_items(Kind, team_rows),
                                          multiprocessor_count<ExecutionSpace>() * static_cast<int>(MinTeams)));
  if (Kind != ScheduleKind::Static) Kokkos::deep_copy(exec, work_counter, 0u);
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
  if constexpr (is_gpu_space<ExecutionSpace>()) {
    (void)label;
    (void)team_size;
    launch_plain_kernel<row_kernel<Functor, Threads, MinTeams>>(exec, league, static_cast<int>(Threads), f, what);
  } else
#endif
  {
    (void)what;
    team_parallel_for(label, policy_type(exec, league, team_size, f.lanes), f);
  }
}

/// The schedules that hand whole rows to threads (Static, DynamicTeam,
/// DynamicWarp; impl/spmv_functor.hpp). Batch: tests and labs may set it;
/// spmv uses row_spmv_batch.
template <class ExecutionSpace, ScheduleKind Kind, unsigned Threads, unsigned MinTeams, class Entry, class Outer,
          class Inner, class XInner, class YInner, class MemorySpace,
          int Batch = row_spmv_batch<ExecutionSpace, Entry, Threads, MinTeams>()>
void row_spmv(const ExecutionSpace& exec, const Schedule<Kind, Threads, MinTeams>& schedule,
              const RowResult<Entry, YInner>& result, const SparseMatrix<Entry, Outer, Inner, MemorySpace>& a,
              const CompoundVector<vector_type_t<Entry>, XInner, MemorySpace>& x,
              const CompoundVector<vector_type_t<Entry>, YInner, MemorySpace>& y) {
  using functor_type = SpmvFunctor<Kind, Entry, Outer, Inner, XInner, YInner, MemorySpace, Batch>;
  using policy_type = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::LaunchBounds<Threads, MinTeams>>;

  functor_type f;
  set_row_matrix(f, a);
  f.x = x.data;
  f.y = y.data;
  f.result = result;

  // Host backends ignore vector lanes beyond one thread's loop (launch_team_size);
  // CUDA runs the plain kernel row_kernel, Threads threads a block.
  const int lanes = schedule.lanes_per_row;
  constexpr bool gpu = is_gpu_space<ExecutionSpace>();
  const int team_size = launch_team_size<policy_type>(exec, f, static_cast<int>(Threads) / lanes);
  f.lanes = gpu ? lanes : 1;  // the lanes that share a row at launch
  f.work = RowWork::make(a.num_rows, team_size, gpu ? 32 / lanes : 32);
  launch_rows<Kind, Threads, MinTeams>(exec, f, a.work_counter, team_size, team_size, "compound_sparse::spmv",
                                       "the row kernel");
}

}  // namespace impl

/// Runs on the execution space instance `exec` (asynchronously, like any Kokkos kernel).
/// Throws compound_sparse::InvalidInput if x or y do not match A's columns/rows, y shares
/// memory with x (the product would read values it has overwritten), or
/// lanes_per_row is not one of 1, 2, 4, 8, 16, 32 (1 for a kind that does not use
/// lanes, schedule_kind_uses_lanes). A kind runs only on the outer layouts it is
/// declared for (schedule_supports_outer_v; MergePath, SegmentedSum: Csr), checked at compile time.
template <class ExecutionSpace, ScheduleKind Kind, unsigned Threads, unsigned MinTeams, class Entry, class Outer,
          class Inner, class XInner, class YInner, class MemorySpace>
void spmv(const ExecutionSpace& exec, const Schedule<Kind, Threads, MinTeams>& schedule,
          const coefficient_type_t<Entry>& alpha, const SparseMatrix<Entry, Outer, Inner, MemorySpace>& a,
          const CompoundVector<vector_type_t<Entry>, XInner, MemorySpace>& x, const coefficient_type_t<Entry>& beta,
          const CompoundVector<vector_type_t<Entry>, YInner, MemorySpace>& y) {
  static_assert(std::is_same<ExecutionSpace, typename MemorySpace::execution_space>::value,
                "spmv: the execution space must be the memory space's execution space");
  static_assert(schedule_supports_outer_v<Kind, Outer>,
                "spmv: this schedule kind does not run on this outer layout (cmake/CompoundSparseVariantSpace.cmake)");
  COMPOUND_SPARSE_REQUIRE(x.size() == a.num_cols,
                          "spmv: x has " << x.size() << " elements but A has " << a.num_cols << " columns");
  COMPOUND_SPARSE_REQUIRE(y.size() == a.num_rows,
                          "spmv: y has " << y.size() << " elements but A has " << a.num_rows << " rows");
  impl::require_disjoint_output(impl::footprint_of(x.data), impl::footprint_of(y.data), "spmv");
  impl::check_schedule<ExecutionSpace>(schedule, "spmv");
  if (a.num_rows == 0) return;
  const auto result = impl::RowResult<Entry, YInner>::make(alpha, beta);
  if constexpr (Kind == ScheduleKind::MergePath) {
    impl::merge_path_spmv<ExecutionSpace, Threads, MinTeams>(exec, result, a, x, y);
  } else if constexpr (Kind == ScheduleKind::SegmentedSum) {
    impl::segmented_sum_spmv<ExecutionSpace, Threads, MinTeams>(exec, result, a, x, y);
  } else {
    impl::row_spmv(exec, schedule, result, a, x, y);
  }
}

/// spmv on a default-constructed instance of the matrix's execution space.
template <ScheduleKind Kind, unsigned Threads, unsigned MinTeams, class Entry, class Outer, class Inner, class XInner,
          class YInner, class MemorySpace>
void spmv(const Schedule<Kind, Threads, MinTeams>& schedule, const coefficient_type_t<Entry>& alpha,
          const SparseMatrix<Entry, Outer, Inner, MemorySpace>& a,
          const CompoundVector<vector_type_t<Entry>, XInner, MemorySpace>& x, const coefficient_type_t<Entry>& beta,
          const CompoundVector<vector_type_t<Entry>, YInner, MemorySpace>& y) {
  spmv(typename MemorySpace::execution_space(), schedule, alpha, a, x, beta, y);
}

}  // namespace compound_sparse
