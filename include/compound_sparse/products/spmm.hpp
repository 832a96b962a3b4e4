#pragma once
// Y = alpha * A * X + beta * Y for k vectors at once (SpMM), X and Y multivectors
// (multi_vector.hpp) in either layout, every variant of the SpMV's space:
//
//   spmm(Schedule<ScheduleKind::DynamicWarp, 256, 2>{}, alpha, A, X, beta, Y);
//
// The row schedules (Static, DynamicTeam, DynamicWarp) read the matrix once for all
// k vectors (impl/spmm_functor.hpp), and so does the segmented sum
// (impl/segmented_sum_spmm.hpp, its partial sums in the matrix's spmm_staging); the merge
// path runs one SpMV per vector of an Soa multivector, whose vectors are Aos
// CompoundVectors (vector_of): an Aos X or Y is copied to an Soa one first (and Y back
// after), a multivector's worth of extra traffic, which the tuner's times of such
// variants include. One vector is an SpMV, for every kind.
// Deterministic, with the SpMV's bits: column j of Y is what spmv gives for column j
// of X with the same schedule and lanes. beta == 0 overwrites Y without reading it.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <type_traits>

#include "../impl/overlap.hpp"
#include "../impl/segmented_sum_spmm.hpp"
#include "../impl/spmm_functor.hpp"
#include "../layouts/multi_vector.hpp"
#include "spmv.hpp"

namespace compound_sparse {

namespace impl {

/// Vectors a thread of the SpMM row kernel accumulates (impl/spmm_functor.hpp): as many
/// as fill 32 bytes, but at most 4 and at least 2 where the lane sets load their own
/// entries (4 for complex<float>, 2 for complex<double>, quaternions of floats and the
/// blocks, 1 for quaternions of doubles). On the H200, k = 2..16 on four matrices: with 4,
/// complex<float> ran
/// 1.2-1.5x faster than an earlier run of one vector a thread (on another H200 of the
/// same kind); within one run, for complex<double>, the quaternions and 3x3 blocks the best
/// of 1, 2 and 4 was within 6% of 2 wherever 2 was among the three fastest candidates.
/// With shared loads (impl::spmm_shares_loads), 8 quaternions of doubles on
/// dirac-torus-xl ran 1.08x faster with one vector a thread than with two, each at its
/// best launch bounds (1.14x at 256:4), and 8 complex<double> vectors on helmholtz-box-xl
/// 1.31x slower.
template <class Entry>
constexpr int spmm_vectors_per_thread() {
  constexpr int fill = static_cast<int>(32 / sizeof(vector_type_t<Entry>));
  constexpr int least = spmm_shares_loads<Entry>() ? 1 : 2;
  return fill < least ? least : fill > 4 ? 4 : fill;
}

/// `m` itself when it is Soa; else a Soa multivector of its shape at `values` in the
/// matrix's staging (SparseMatrix::spmm_staging), holding m's values when `copy_values`
/// (queued on `exec`), else uninitialised.
template <class ExecutionSpace, class Value, class Layout, class MemorySpace>
MultiVector<Value, Soa, MemorySpace> as_soa(const ExecutionSpace& exec,
                                            const MultiVector<Value, Layout, MemorySpace>& m, Value* values,
                                            bool copy_values) {
  if constexpr (std::is_same<Layout, Soa>::value) {
    return m;
  } else {
    MultiVector<Value, Soa, MemorySpace> soa;
    soa.data = typename MultiVector<Value, Soa, MemorySpace>::view_type(values, m.data.extent(0), m.data.extent(1));
    if (copy_values) Kokkos::deep_copy(exec, soa.data, m.data);
    return soa;
  }
}

/// The first value of a.spmm_staging, grown when it holds fewer than `values` (the Soa
/// copies of an SpMM on Aos multivectors). Growing frees the old staging, which waits
/// for the device, so products already queued on it finish first.
template <class Entry, class Outer, class Inner, class MemorySpace>
vector_type_t<Entry>* spmm_staging(const SparseMatrix<Entry, Outer, Inner, MemorySpace>& a, std::size_t values) {
  if (a.spmm_staging.extent(0) < values)
    a.spmm_staging = decltype(a.spmm_staging)(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("compound_sparse::spmm_staging")), values);
  return a.spmm_staging.data();
}

/// The row schedules' SpMM (impl/spmm_functor.hpp), each thread accumulating a tile of
/// VectorsPerThread vectors. On CUDA a row of one lane and several lane sets runs the
/// kernel whose lane sets share the loads (SpmmFunctor's SharedLoads, for the entries of
/// spmm_shares_loads): a kernel of its own, so that neither form's registers are
/// allocated for the other's (together in one kernel, both spilled: ptxas -v, sm_90).
/// Aos multivectors (unpadded) of k = 8 vectors run that kernel compiled for their group
/// of 8 / VectorsPerThread (SpmmFunctor's FixedGroup), where the groups share loads, unless
/// FixedGroups is false: the k = 8 lab times both forms (1.32x and 1.11x for complex and
/// quaternion doubles on the xl matrices, H100), which give the same bits.
template <
    class ExecutionSpace, ScheduleKind Kind, unsigned Threads, unsigned MinTeams, class Entry, class Outer, class Inner,
    class XLayout, class YLayout, class MemorySpace, int VectorsPerThread = spmm_vectors_per_thread<Entry>(),
    int Batch = row_spmv_batch<ExecutionSpace, Entry, Threads, MinTeams, VectorsPerThread>(), bool FixedGroups = true>
void row_spmm(const ExecutionSpace& exec, const Schedule<Kind, Threads, MinTeams>& schedule,
              const RowResult<Entry, Aos>& result, const SparseMatrix<Entry, Outer, Inner, MemorySpace>& a,
              const MultiVector<vector_type_t<Entry>, XLayout, MemorySpace>& x,
              const MultiVector<vector_type_t<Entry>, YLayout, MemorySpace>& y) {
  using policy_type = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::LaunchBounds<Threads, MinTeams>>;
  // A row's group: lanes x vectors_per_pass threads within a warp (row_schedule.hpp).
  constexpr bool gpu = is_gpu_space<ExecutionSpace>();
  const int lanes = gpu ? schedule.lanes_per_row : 1;
  const int tiles = (x.count() + VectorsPerThread - 1) / VectorsPerThread;
  const int vectors_per_pass = gpu ? std::min(tiles, 32 / lanes) : 1;
  const int group = lanes * vectors_per_pass;

  const auto launch = [&](auto f) {
    set_row_matrix(f, a);
    f.x = x.data.data();
    f.y = y.data.data();
    f.x_row_stride = x.row_stride();
    f.x_vector_stride = x.vector_stride();
    f.y_row_stride = y.row_stride();
    f.y_vector_stride = y.vector_stride();
    f.result = result;
    f.vectors = x.count();
    f.lanes = lanes;
    f.vectors_per_pass = vectors_per_pass;
    const int team_size = launch_team_size<policy_type>(exec, f, static_cast<int>(Threads) / schedule.lanes_per_row);
    const int team_rows = gpu ? static_cast<int>(Threads) / 32 * (32 / group) : team_size;
    f.work = RowWork::make(a.num_rows, team_rows, gpu ? 32 / group : 32);
    launch_rows<Kind, Threads, MinTeams>(exec, f, a.work_counter, team_size, team_rows, "compound_sparse::spmm",
                                         "the SpMM row kernel");
  };
  if constexpr (gpu && spmm_shares_loads<Entry>()) {
    if constexpr (std::is_same<XLayout, Aos>::value && std::is_same<YLayout, Aos>::value) {
      constexpr int fixed = spmm_fixed_group<VectorsPerThread>();  // k = 8's group
      if constexpr (FixedGroups && fixed > 0)
        if (lanes == 1 && x.count() == fixed * VectorsPerThread && x.row_stride() == x.count() &&
            y.row_stride() == y.count() && x.vector_stride() == 1 && y.vector_stride() == 1)  // no padding
          return launch(SpmmFunctor<Kind, Entry, Outer, Inner, MemorySpace, VectorsPerThread, 1, true, fixed>{});
    }
    if (lanes == 1 && vectors_per_pass > 1)
      return launch(SpmmFunctor<Kind, Entry, Outer, Inner, MemorySpace, VectorsPerThread, 1, true>{});
  }
  launch(SpmmFunctor<Kind, Entry, Outer, Inner, MemorySpace, VectorsPerThread, Batch>{});
}

/// The segmented-sum schedule's SpMM (impl/segmented_sum_spmm.hpp): the SpMV's three passes,
/// each entry loaded once for all k vectors, the partial sums of split rows k to a slot in the
/// matrix's spmm_staging. One kernel per pass serves both multivector layouts (strides).
/// On Aos multivectors a group's X values (or a last half group's) are read as one run in 16-
/// or 8-byte words where their size and alignment allow (SegmentedSumSpmmTiles::x_run_bytes,
/// the whole group's words, which a half group's bytes fill too where it takes runs). Lab knobs (the
/// library's variants take the defaults): Group > 0, that many vectors' X values a lane at
/// once instead of segmented_spmm_group's; wide_x_loads = false, each value in its own load.
template <unsigned Threads, unsigned MinTeams, int Group = 0, class ExecutionSpace, class Entry, class Inner,
          class XLayout, class YLayout, class MemorySpace>
void segmented_sum_spmm(const ExecutionSpace& exec, const RowResult<Entry, Aos>& result,
                        const SparseMatrix<Entry, Csr, Inner, MemorySpace>& a,
                        const MultiVector<vector_type_t<Entry>, XLayout, MemorySpace>& x,
                        const MultiVector<vector_type_t<Entry>, YLayout, MemorySpace>& y, bool wide_x_loads = true) {
  using vector_type = vector_type_t<Entry>;
  const auto& state = a.segmented;
  const int tiles = checked_segmented_tiles(a, "spmm");
  const int k = x.count();
  const std::size_t slot_values = 2 * static_cast<std::size_t>(tiles) * static_cast<std::size_t>(k);
  const std::size_t chunk_values = state.chunked_count > 0 ? static_cast<std::size_t>(state.chunks) * k : 0;
  vector_type* partials = spmm_staging(a, slot_values + chunk_values);
  if (tiles > 0) {
    SegmentedSumSpmmTiles<Entry, Inner, MemorySpace, (Group > 0 ? Group : segmented_spmm_group<Entry>())> f;
    f.col_indices = a.col_indices;
    f.values = a.values;
    f.x = {x.data.data(), x.row_stride(), x.vector_stride()};
    f.y = {y.data.data(), y.row_stride(), y.vector_stride()};
    f.state = state;
    f.partials = partials;
    f.result = result;
    f.num_entries = static_cast<int>(a.num_entries);
    f.vectors = k;
    if (x.vector_stride() == 1 && wide_x_loads)  // a row's values together: a group's are one run
      f.x_run_bytes = run_word_bytes<decltype(f)::group>(f.x.data, x.row_stride());
    launch_segmented_tiles<Threads, MinTeams>(exec, f, tiles, "compound_sparse::spmm_segmented_sum",
                                              "the segmented sum SpMM's first pass");
  }
  constexpr long fixup_threads = 32 * segmented_fixup_team<ExecutionSpace>();
  SegmentedSumSpmmFixup<Entry, MemorySpace> fixup;
  fixup.y = {y.data.data(), y.row_stride(), y.vector_stride()};
  fixup.state = state;
  fixup.offsets = a.offsets;
  fixup.partials = partials;
  fixup.chunk_sums = partials + slot_values;
  fixup.result = result;
  fixup.vectors = k;
  // Short items: (row, vector) pairs of the short split rows and the empty rows.
  const long short_items = static_cast<long>(state.short_splits + state.empty_count) * k;
  fixup.short_teams = static_cast<int>((short_items + fixup_threads - 1) / fixup_threads);
  launch_segmented_fixups(
      exec, fixup, fixup.short_teams, state.chunks, state.chunked_count,
      {"compound_sparse::spmm_segmented_sum_fixup", "compound_sparse::spmm_segmented_sum_chunk_totals"},
      {"the segmented sum SpMM's second pass", "the segmented sum SpMM's third pass"});
}

}  // namespace impl

/// Runs on the execution space instance `exec` (asynchronously, like any Kokkos
/// kernel). Throws compound_sparse::InvalidInput if X or Y do not match A's columns
/// or rows, X and Y hold different numbers of vectors, Y shares memory with X, or the lanes are invalid
/// (as spmv). A kind runs only on the outer layouts it is declared for (checked at
/// compile time).
template <class ExecutionSpace, ScheduleKind Kind, unsigned Threads, unsigned MinTeams, class Entry, class Outer,
          class Inner, class XLayout, class YLayout, class MemorySpace>
void spmm(const ExecutionSpace& exec, const Schedule<Kind, Threads, MinTeams>& schedule,
          const coefficient_type_t<Entry>& alpha, const SparseMatrix<Entry, Outer, Inner, MemorySpace>& a,
          const MultiVector<vector_type_t<Entry>, XLayout, MemorySpace>& x, const coefficient_type_t<Entry>& beta,
          const MultiVector<vector_type_t<Entry>, YLayout, MemorySpace>& y) {
  static_assert(std::is_same<ExecutionSpace, typename MemorySpace::execution_space>::value,
                "spmm: the execution space must be the memory space's execution space");
  static_assert(schedule_supports_outer_v<Kind, Outer>,
                "spmm: this schedule kind does not run on this outer layout (cmake/CompoundSparseVariantSpace.cmake)");
  constexpr bool row_kind = !schedule_kind_splits_rows[static_cast<int>(Kind)];
  COMPOUND_SPARSE_REQUIRE(x.size() == a.num_cols,
                          "spmm: X has " << x.size() << " rows but A has " << a.num_cols << " columns");
  COMPOUND_SPARSE_REQUIRE(y.size() == a.num_rows,
                          "spmm: Y has " << y.size() << " rows but A has " << a.num_rows << " rows");
  COMPOUND_SPARSE_REQUIRE(x.count() == y.count(), "spmm: X has " << x.count() << " vectors but Y has " << y.count());
  impl::require_disjoint_output(impl::footprint_of(x.data), impl::footprint_of(y.data), "spmm");
  impl::check_schedule<ExecutionSpace>(schedule, "spmm");
  if (a.num_rows == 0 || x.count() == 0) return;
  if (x.count() == 1) {
    // One vector: the SpMV itself (the same bits; the SpMM kernel's strides cost the
    // H200 2-10% at k = 1).
    spmv(exec, schedule, alpha, a, only_vector(x), beta, only_vector(y));
  } else if constexpr (row_kind) {
    impl::row_spmm(exec, schedule, impl::RowResult<Entry, Aos>::make(alpha, beta), a, x, y);
  } else if constexpr (Kind == ScheduleKind::SegmentedSum) {
    impl::segmented_sum_spmm<Threads, MinTeams>(exec, impl::RowResult<Entry, Aos>::make(alpha, beta), a, x, y);
  } else {
    // One SpMV per vector (vector_of needs Soa): Aos multivectors through Soa copies in
    // the matrix's staging, kept from one product to the next.
    const std::size_t k = static_cast<std::size_t>(x.count());
    const std::size_t x_values = std::is_same<XLayout, Soa>::value ? 0 : k * static_cast<std::size_t>(a.num_cols);
    const std::size_t y_values = std::is_same<YLayout, Soa>::value ? 0 : k * static_cast<std::size_t>(a.num_rows);
    auto* staging = impl::spmm_staging(a, x_values + y_values);
    const auto x_soa = impl::as_soa(exec, x, staging, true);
    const auto y_soa = impl::as_soa(exec, y, staging + x_values, !(beta == real_value<coefficient_type_t<Entry>>(0)));
    for (int j = 0; j < x.count(); ++j) spmv(exec, schedule, alpha, a, vector_of(x_soa, j), beta, vector_of(y_soa, j));
    if constexpr (!std::is_same<YLayout, Soa>::value) Kokkos::deep_copy(exec, y.data, y_soa.data);
  }
}

/// spmm on a default-constructed instance of the matrix's execution space.
template <ScheduleKind Kind, unsigned Threads, unsigned MinTeams, class Entry, class Outer, class Inner, class XLayout,
          class YLayout, class MemorySpace>
void spmm(const Schedule<Kind, Threads, MinTeams>& schedule, const coefficient_type_t<Entry>& alpha,
          const SparseMatrix<Entry, Outer, Inner, MemorySpace>& a,
          const MultiVector<vector_type_t<Entry>, XLayout, MemorySpace>& x, const coefficient_type_t<Entry>& beta,
          const MultiVector<vector_type_t<Entry>, YLayout, MemorySpace>& y) {
  spmm(typename MemorySpace::execution_space(), schedule, alpha, a, x, beta, y);
}

}  // namespace compound_sparse
