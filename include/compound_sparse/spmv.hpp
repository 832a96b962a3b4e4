#pragma once
// y = alpha * A * x + beta * y for every layout and schedule variant.
//
//   spmv(Schedule<ScheduleKind::DynamicWarp, 256, 2>{}, alpha, A, x, beta, y);
//
// Deterministic: every y element is written by exactly one thread and lanes
// sharing a row reduce in a fixed order, so repeated calls give identical bits.
// beta == 0 overwrites y without reading it (NaNs in y do not propagate).

#include <Kokkos_Core.hpp>
#include <algorithm>

#include "compound_vector.hpp"
#include "device_info.hpp"
#include "entry_traits.hpp"
#include "error.hpp"
#include "impl/spmv_functor.hpp"
#include "schedule.hpp"
#include "sparse_matrix.hpp"

namespace compound_sparse {

namespace impl {
template <class ExecutionSpace>
constexpr bool is_gpu_space() {
#ifdef KOKKOS_ENABLE_CUDA
  return std::is_same<ExecutionSpace, Kokkos::Cuda>::value;
#else
  return false;
#endif
}
}  // namespace impl

/// Runs on the execution space instance `exec` (asynchronously, like any Kokkos kernel).
/// Throws compound_sparse::InvalidInput if x or y do not match A's columns/rows or
/// lanes_per_row is not one of 1, 2, 4, 8, 16, 32.
template <class ExecutionSpace, ScheduleKind Kind, unsigned Threads, unsigned MinTeams, class Entry, class Outer,
          class Inner, class XInner, class YInner, class MemorySpace>
void spmv(const ExecutionSpace& exec, const Schedule<Kind, Threads, MinTeams>& schedule,
          const coefficient_type_t<Entry>& alpha, const SparseMatrix<Entry, Outer, Inner, MemorySpace>& a,
          const CompoundVector<vector_type_t<Entry>, XInner, MemorySpace>& x, const coefficient_type_t<Entry>& beta,
          const CompoundVector<vector_type_t<Entry>, YInner, MemorySpace>& y) {
  static_assert(std::is_same<ExecutionSpace, typename MemorySpace::execution_space>::value,
                "spmv: the execution space must be the memory space's execution space");
  COMPOUND_SPARSE_REQUIRE(x.size() == a.num_cols,
                          "spmv: x has " << x.size() << " elements but A has " << a.num_cols << " columns");
  COMPOUND_SPARSE_REQUIRE(y.size() == a.num_rows,
                          "spmv: y has " << y.size() << " elements but A has " << a.num_rows << " rows");
  const int lanes = schedule.lanes_per_row;
  COMPOUND_SPARSE_REQUIRE(lanes >= 1 && lanes <= 32 && (lanes & (lanes - 1)) == 0,
                          "spmv: lanes_per_row must be 1, 2, 4, 8, 16 or 32, got " << lanes);
  constexpr bool gpu = impl::is_gpu_space<ExecutionSpace>();
  COMPOUND_SPARSE_REQUIRE(!gpu || (Threads % 32 == 0 && Threads >= static_cast<unsigned>(lanes)),
                          "spmv: GPU schedules need a multiple of 32 threads per team, got " << Threads);
  if (a.num_rows == 0) return;

  using functor_type = impl::SpmvFunctor<Kind, Entry, Outer, Inner, XInner, YInner, MemorySpace>;
  using policy_type = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::LaunchBounds<Threads, MinTeams>>;

  functor_type f;
  f.offsets = a.offsets;
  f.row_lengths = a.row_lengths;
  f.col_indices = a.col_indices;
  f.values = a.values;
  f.work_counter = a.work_counter;
  f.x = x.data;
  f.y = y.data;
  f.alpha = alpha;
  f.beta = beta;
  f.beta_is_zero = is_zero(beta);
  f.num_rows = a.num_rows;
  f.ell_stride = a.ell_stride;

  // Host backends run teams of at most team_size_max threads (1 on Serial) and
  // ignore vector lanes beyond one thread's loop; GPUs get exactly Threads threads.
  int team_size = static_cast<int>(Threads) / lanes;
  if (!gpu) {
    const int host_max = policy_type(exec, 1, Kokkos::AUTO).team_size_max(f, Kokkos::ParallelForTag());
    team_size = std::max(1, std::min(team_size, host_max));
  }
  f.rows_per_team_chunk = team_size;
  f.team_chunks = (a.num_rows + team_size - 1) / team_size;
  f.rows_per_warp_chunk = gpu ? 32 / lanes : 32;
  f.warp_chunks = (a.num_rows + f.rows_per_warp_chunk - 1) / f.rows_per_warp_chunk;

  // League n_s * n_b, but never more teams than there is work for.
  const int work_items = Kind == ScheduleKind::DynamicWarp
                             ? (f.warp_chunks * f.rows_per_warp_chunk + team_size - 1) / team_size
                             : f.team_chunks;
  const int league =
      std::max(1, std::min(work_items, multiprocessor_count<ExecutionSpace>() * static_cast<int>(MinTeams)));

  if (Kind != ScheduleKind::Static) Kokkos::deep_copy(exec, a.work_counter, 0u);
  Kokkos::parallel_for("compound_sparse::spmv", policy_type(exec, league, team_size, gpu ? lanes : 1), f);
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
