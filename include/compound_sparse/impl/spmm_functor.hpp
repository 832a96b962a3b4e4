#pragma once
// The row-based SpMM kernel: Y = alpha A X + beta Y for k vectors at once, on
// every outer and inner layout of A and both multivector layouts, for the row
// schedules (Static, DynamicTeam, DynamicWarp; row_schedule.hpp).
//
// A row's group of threads is lanes x lane sets: `lanes` threads share the row's
// slots as in the SpMV kernel (impl/spmv_functor.hpp), and each lane set sums the
// row for its own tile of VectorsPerThread vectors, each entry read once for the
// tile. The lane sets read the same entries at the same moment (one memory
// transaction for the warp, the matrix read from DRAM once for all k vectors) and
// neighbouring values of X: a row's k values are contiguous in an Aos multivector.
// A thread keeps VectorsPerThread accumulators; its batch is what the register
// budget leaves (row_batch.hpp). Where the tiles need more than a warp, the group
// takes them in passes, reading the row again (from cache). Each vector's sum is
// added in the SpMV's order: column j of Y has the bits of an SpMV of column j of
// X with the same schedule and lanes.
//
// On CUDA, where a row has one lane and several lane sets, the lane sets share the
// loads instead (compute_row_shared_loads): each loads a different slot's column and
// entry, the next batch's while this one is used, and the others take it by shuffles.
// Loading the same entry in every lane set left the SpMM of 8 vectors with one slot of
// the matrix in flight per row: on an H200 the shared loads were 1.16x faster on
// helmholtz-box-xl (complex<double>) and, with one vector a thread, 1.15x faster than
// the best lane-set form on dirac-torus-xl (quaternions of doubles). The same bits: each
// vector's sum still runs in slot order. Aos multivectors of k = 8 take a form of it compiled for their group
// (compute_row_fixed_group): the loop over a batch unrolled, two slots a member in flight
// for entries of up to 16 bytes, and a member's vectors interleaved with the others'.
//
// Host backends run operator() through Kokkos' TeamPolicy: a thread per row, its
// vectors one after the other.

#include <Kokkos_Core.hpp>
#include <cstddef>

#include "../entries/entry_traits.hpp"
#include "../layouts/sparse_matrix.hpp"
#include "../schedules/schedule.hpp"
#include "lane_slots.hpp"
#include "plain_kernel.hpp"
#include "row_result.hpp"
#include "row_schedule.hpp"
#include "row_slots.hpp"
#include "streaming_load.hpp"
#include "vector_sum.hpp"

namespace compound_sparse {
namespace impl {

/// Whether a row's lane sets share its loads on CUDA (SpmmFunctor::compute_row_shared_loads)
/// where it has one lane. Each slot's entry then crosses the group by shuffles, one per
/// 32-bit component: 8 for a quaternion of doubles, 18 for a 3x3 block of doubles, whose
/// SpMM met its targets without sharing and keeps the
/// lane sets' own loads.
template <class Entry>
constexpr bool spmm_shares_loads() {
  return sizeof(Entry) <= 32;
}

/// The group of a row whose lane sets share its loads at k = 8 (8 / VectorsPerThread, if that
/// is more than one thread): the size compute_row_fixed_group is compiled for.
template <int VectorsPerThread>
constexpr int spmm_fixed_group() {
  return 8 % VectorsPerThread == 0 && 8 / VectorsPerThread > 1 ? 8 / VectorsPerThread : 0;
}

/// Slots a member of a fixed group holds in flight for the others (compute_row_fixed_group),
/// and as many more loading: two for entries of up to 16 bytes. In the k = 8 lab on
/// helmholtz-box-xl (complex<double>, groups of 4) two slots and interleaved vectors ran
/// 1.17x faster than one slot and a member's vectors together (H200, 1004 against 1174 µs);
/// for quaternions of doubles two slots ran 1.06-1.40x slower on dirac-torus-xl (H100).
template <class Entry>
KOKKOS_INLINE_FUNCTION constexpr int fixed_group_depth() {
  return sizeof(Entry) <= 16 ? 2 : 1;
}

/// The SpMM row functor. SharedLoads (CUDA, one lane a row, several lane sets; row_spmm
/// decides): the lane sets share the row's loads (compute_row_shared_loads), Batch unused.
/// FixedGroup > 0 (with SharedLoads): Aos multivectors of exactly FixedGroup x
/// VectorsPerThread vectors, groups of FixedGroup (compute_row_fixed_group).
template <ScheduleKind Kind, class Entry, class Outer, class Inner, class MemorySpace, int VectorsPerThread = 1,
          int Batch = 1, bool SharedLoads = false, int FixedGroup = 0>
struct SpmmFunctor {
  static_assert(FixedGroup == 0 ||
                    (SharedLoads && FixedGroup > 1 && FixedGroup <= 32 && (FixedGroup & (FixedGroup - 1)) == 0),
                "a fixed group shares loads and is a power of two within a warp");
  static_assert(Batch >= 1 && VectorsPerThread >= 1, "a batch holds a slot, a thread a vector at least");
  using traits = entry_traits<Entry>;
  using vector_type = typename traits::vector_type;
  using tile_type = VectorTile<vector_type, VectorsPerThread>;
  using matrix_type = SparseMatrix<Entry, Outer, Inner, MemorySpace>;
  using execution_space = typename MemorySpace::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  static constexpr int vectors_per_thread = VectorsPerThread;

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
  int lanes;             ///< lanes per row and lane set at launch (1 on host backends)
  int vectors;           ///< k
  int vectors_per_pass;  ///< lane sets of a row's group, each with a tile of VectorsPerThread vectors

  /// X's values at `column` for the tile of vectors j .. j + count - 1 into `t` (x_j: vector
  /// j's first value); the tile's values past count are 0.
  KOKKOS_INLINE_FUNCTION void load_x_tile(tile_type& t, const vector_type* x_j, int column, int count) const {
    const vector_type* p = x_j + column * x_row_stride;
    for (int s = 0; s < VectorsPerThread; ++s)
      t.v[s] = s < count ? load_readonly_at(p + s * x_vector_stride) : traits::zero();
  }

  /// Lane `lane`'s share of the sums of `row` for vectors j .. j + count - 1 (count <=
  /// VectorsPerThread; the tile's other values stay 0), each entry read once for all
  /// of them (lane_slots.hpp).
  KOKKOS_INLINE_FUNCTION tile_type lane_sums(const RowSlots& slots, int first_column, int lane, int j,
                                             int count) const {
    const vector_type* x_j = x + j * x_vector_stride;
    const auto x_at = [&](int column) {
      tile_type t;
      load_x_tile(t, x_j, column, count);
      return t;
    };
    tile_type sums;
    for (int s = 0; s < VectorsPerThread; ++s) sums.v[s] = traits::zero();
    add_lane_slots<Batch, Entry, Inner>(slots, first_column, lane, lanes, col_indices, values, x_at, sums);
    return sums;
  }

  KOKKOS_INLINE_FUNCTION vector_type* y_at(int row, int j) const {
    return y + row * y_row_stride + j * y_vector_stride;
  }

  /// Row `row` of Y = alpha A X + beta Y, every vector, by the calling thread
  /// (Kokkos' launch, host backends), a tile of vectors at a time; rows past the end
  /// are skipped.
  KOKKOS_INLINE_FUNCTION void compute_row(const member_type& team, int row) const {
    if (row >= work.num_rows) return;
    const RowSlots slots = row_slots<Outer>(offsets, row_lengths, ell_stride, row);
    const int first_column = column_base<Outer>(column_bases, row);
    for (int j = 0; j < vectors; j += VectorsPerThread) {
      const int count = vectors - j < VectorsPerThread ? vectors - j : VectorsPerThread;
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        const tile_type sums = lane_sums(slots, first_column, 0, j, count);
        for (int s = 0; s < count; ++s) result.store_at(y_at(row, j + s), sums.v[s]);
      });
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    for_each_team_row<Kind>(team, work, work_counter, [&](int row) { compute_row(team, row); });
  }

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  /// Row `row` on CUDA for the thread at `member` of its group: lane member % lanes of
  /// lane set member / lanes, which takes tiles set, set + vectors_per_pass, ... of
  /// VectorsPerThread vectors each. Rows past the end are skipped by the whole group,
  /// tiles past k by their whole lane set.
  __device__ void compute_row_plain(int row, int member) const {
    if constexpr (FixedGroup > 0) return compute_row_fixed_group(row, member);
    if constexpr (SharedLoads) return compute_row_shared_loads(row, member);
    if (row >= work.num_rows) return;
    const RowSlots slots = row_slots<Outer>(offsets, row_lengths, ell_stride, row);
    const int first_column = column_base<Outer>(column_bases, row);
    const int lane = member % lanes;
    for (int j = member / lanes * VectorsPerThread; j < vectors; j += vectors_per_pass * VectorsPerThread) {
      const int count = vectors - j < VectorsPerThread ? vectors - j : VectorsPerThread;
      const tile_type sums = lane_sums(slots, first_column, lane, j, count);
      for (int s = 0; s < VectorsPerThread; ++s) {
        const vector_type sum = sum_over_lanes<traits>(sums.v[s], lanes);
        if (lane == 0 && s < count) result.store_at(y_at(row, j + s), sum);
      }
    }
  }

  /// Row `row` on CUDA for member `member` of a group of one lane and G = vectors_per_pass > 1
  /// lane sets, which share the row's loads: member m loads slot i + m of each batch of G
  /// slots (and slot i + G + m while batch i is used), and every member takes each slot's
  /// column and entry from its loader by a shuffle, then gathers x for its own tile. Each
  /// vector's multiply-adds come in slot order: the bits of compute_row_plain's lane sets.
  /// Rows past the end are skipped by the whole group; members whose tile lies past k in
  /// the last pass still load and shuffle for the others.
  __device__ void compute_row_shared_loads(int row, int member) const {
    if (row >= work.num_rows) return;
    const RowSlots slots = row_slots<Outer>(offsets, row_lengths, ell_stride, row);
    const int first_column = column_base<Outer>(column_bases, row);
    const int group = vectors_per_pass;
    const int first_lane = static_cast<int>(threadIdx.x & 31) - member;  // the group lies within a warp
    const unsigned mask = group == 32 ? 0xffffffffu : ((1u << group) - 1u) << first_lane;
    const auto load_slot = [&](int i, int& column, Entry& entry) {
      if (i < slots.length) load_row_slot<Entry, Inner>(slots, first_column, i, col_indices, values, column, entry);
    };
    for (int pass = 0; pass < vectors; pass += group * VectorsPerThread) {
      const int j = pass + member * VectorsPerThread;
      const int count = vectors - j < 0 ? 0 : vectors - j < VectorsPerThread ? vectors - j : VectorsPerThread;
      const vector_type* x_j = x + (count > 0 ? j : 0) * x_vector_stride;
      tile_type sums;
      for (int s = 0; s < VectorsPerThread; ++s) sums.v[s] = traits::zero();
      int column = 0;
      Entry entry{};
      load_slot(member, column, entry);
      for (int i = 0; i < slots.length; i += group) {
        int next_column = 0;
        Entry next_entry{};
        load_slot(i + group + member, next_column, next_entry);  // in flight while batch i is used
        const int in_batch = slots.length - i < group ? slots.length - i : group;
        for (int u = 0; u < in_batch; ++u) {
          const int c = __shfl_sync(mask, column, first_lane + u);
          const Entry e = shuffle_components(entry, [=](auto v) { return __shfl_sync(mask, v, first_lane + u); });
          tile_type xs;
          load_x_tile(xs, x_j, c, count);
          multiply_add_into(sums, e, xs);
        }
        column = next_column;
        entry = next_entry;
      }
      for (int s = 0; s < count; ++s) result.store_at(y_at(row, j + s), sums.v[s]);
    }
  }

  /// compute_row_shared_loads for Aos multivectors of k = FixedGroup x VectorsPerThread
  /// vectors, in groups of G = FixedGroup: one pass, every tile full, and G known to the
  /// compiler, which unrolls the loop over a batch's slots and keeps its loads of x in flight
  /// together. With the group a run-time value the same loop took 64 registers and spilled 12
  /// to 36 bytes for complex<double> at 256:4; unrolled, 43 and none (ptxas -v, sm_90). On the
  /// xl matrices this form was 1.32x (complex<double>) and 1.11x (quaternions of doubles)
  /// faster than compute_row_shared_loads (H100; the same bits). The
  /// slots come in batches of D G (D = fixed_group_depth): member m loads slots i + d G + m
  /// (d < D) of batch i, and batch i + D G's while batch i is used.
  /// Member m sums vectors m, m + G, ...: a group's s-th load of x is one run of G
  /// consecutive values (64 bytes for complex<double>) instead of every other 16 bytes of
  /// a row's 128. Each vector's multiply-adds come in slot order: the same bits.
  __device__ void compute_row_fixed_group(int row, int member) const {
    if (row >= work.num_rows) return;
    constexpr int G = FixedGroup > 0 ? FixedGroup : 1;
    constexpr int D = fixed_group_depth<Entry>();
    constexpr int k = G * VectorsPerThread;
    const RowSlots slots = row_slots<Outer>(offsets, row_lengths, ell_stride, row);
    const int first_column = column_base<Outer>(column_bases, row);
    const int first_lane = static_cast<int>(threadIdx.x & 31) - member;  // the group lies within a warp
    const unsigned mask = G == 32 ? 0xffffffffu : ((1u << G) - 1u) << first_lane;
    const auto load_slot = [&](int i, int& column, Entry& entry) {
      if (i < slots.length) load_row_slot<Entry, Inner>(slots, first_column, i, col_indices, values, column, entry);
    };
    const vector_type* x_m = x + member;
    vector_type sums[VectorsPerThread];
    for (int s = 0; s < VectorsPerThread; ++s) sums[s] = traits::zero();
    int column[D];
    Entry entry[D];
#pragma unroll
    for (int d = 0; d < D; ++d) {
      column[d] = 0;
      entry[d] = Entry{};
      load_slot(d * G + member, column[d], entry[d]);
    }
    for (int i = 0; i < slots.length; i += D * G) {
      int next_column[D];
      Entry next_entry[D];
#pragma unroll
      for (int d = 0; d < D; ++d) {  // in flight while batch i is used
        next_column[d] = 0;
        next_entry[d] = Entry{};
        load_slot(i + (D + d) * G + member, next_column[d], next_entry[d]);
      }
      const int in_batch = slots.length - i;
#pragma unroll
      for (int d = 0; d < D; ++d)
#pragma unroll
        for (int u = 0; u < G; ++u)
          if (d * G + u < in_batch) {
            const int c = __shfl_sync(mask, column[d], first_lane + u);
            const Entry e = shuffle_components(entry[d], [=](auto v) { return __shfl_sync(mask, v, first_lane + u); });
            const vector_type* x_c = x_m + static_cast<std::ptrdiff_t>(c) * k;
            for (int s = 0; s < VectorsPerThread; ++s) traits::multiply_add(sums[s], e, load_readonly_at(x_c + s * G));
          }
#pragma unroll
      for (int d = 0; d < D; ++d) {
        column[d] = next_column[d];
        entry[d] = next_entry[d];
      }
    }
    vector_type* y_m = y + static_cast<std::ptrdiff_t>(row) * k + member;
    for (int s = 0; s < VectorsPerThread; ++s) result.store_at(y_m + s * G, sums[s]);
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
