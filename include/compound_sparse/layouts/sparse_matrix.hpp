#pragma once
// SparseMatrix: a compound-entry sparse matrix stored on a Kokkos memory space
// in one outer layout (Csr, Ell, SlicedEll<C>) and one inner layout (Aos, Soa).
// Build it with to_device (convert.hpp); read it back with to_host_csr.
//
// The same struct serves every outer layout; which members are used, and how a
// row's slots are found, is what the outer layout decides:
//
//   layout        offsets                 row_lengths   slot k of row r
//   Csr           row offsets, n+1        (empty)       offsets[r] + k
//   Ell           (empty)                 n             k * ell_stride + r
//   SlicedEll<C>  slice offsets, ⌈n/C⌉+1  n             offsets[r/C] + k*C + r%C
//
// SlicedEll<C, 16> places slots as SlicedEll<C> does; its col_indices are 16-bit
// offsets from column_bases[r/C], the slice's smallest column.
//
// Padding slots (ELL, Sliced ELL) hold column 0 and a zero entry; kernels never
// read them because they stop at row_lengths[r].

#include <Kokkos_Core.hpp>
#include <cstddef>

#include "../entries/components.hpp"
#include "../entries/entry_traits.hpp"
#include "layout_tags.hpp"

namespace compound_sparse {

/// State of the merge-path schedule (impl/merge_path.hpp): the path's
/// coordinates (rows, non-zeros consumed) at every 32nd item, computed with the
/// matrix, and one carry slot per tile: the row a tile left unfinished
/// (num_rows: none) and its partial sum.
template <class Entry, class MemorySpace>
struct MergePathState {
  Kokkos::View<int*, MemorySpace> index_rows;
  Kokkos::View<int*, MemorySpace> index_entries;
  Kokkos::View<int*, MemorySpace> carry_rows;
  Kokkos::View<vector_type_t<Entry>*, MemorySpace> carry_values;
};

/// State of the segmented-sum schedule (impl/segmented_sum.hpp), for tiles of
/// impl::segmented_tile_entries non-zeros: a bitmap of the non-zeros that start
/// a row (bit num_entries set too), the count of such non-zeros before each
/// tile, the rows without non-zeros and, only where there are any, the others
/// in order; the rows that span tiles (those spanning at most
/// impl::segmented_long_span further tiles first); two partial-sum slots per
/// tile; and the long split rows' slots in chunks: a chunk per row, or (where the
/// longest has more than impl::segmented_chunked_min_slots slots) chunks of
/// impl::segmented_chunk_slots, summed apart and then added per row.
template <class Entry, class MemorySpace>
struct SegmentedSumState {
  Kokkos::View<unsigned*, MemorySpace> heads;
  Kokkos::View<int*, MemorySpace> heads_before;
  Kokkos::View<int*, MemorySpace> empty_rows;
  Kokkos::View<int*, MemorySpace> nonempty_rows;
  Kokkos::View<int*, MemorySpace> split_rows;
  Kokkos::View<vector_type_t<Entry>*, MemorySpace> partials;
  /// Chunk c belongs to long split row j = chunk_split(c) (the row
  /// split_rows(short_splits + j)), whose chunks are [chunk_begin(j),
  /// chunk_begin(j + 1)): it holds the row's slots from (c - chunk_begin(j)) times
  /// impl::segmented_chunk_slots on, to the next chunk's or (the last) to the row's end.
  Kokkos::View<int*, MemorySpace> chunk_split;
  Kokkos::View<int*, MemorySpace> chunk_begin;
  /// The long split rows of more than one chunk (their j), and a sum per chunk of theirs.
  Kokkos::View<int*, MemorySpace> chunked_splits;
  Kokkos::View<vector_type_t<Entry>*, MemorySpace> chunk_sums;
  int tiles = 0;
  int empty_count = 0;
  int short_splits = 0;
  int long_splits = 0;
  int chunks = 0;
  int chunked_count = 0;
};

template <class Entry, class Outer, class Inner,
          class MemorySpace = typename Kokkos::DefaultExecutionSpace::memory_space>
struct SparseMatrix {
  static_assert(is_packed_compound<Entry>(),
                "entry type must be trivially copyable and consist of exactly "
                "component_traits<Entry>::size scalars");
  using entry_type = Entry;
  using outer_layout = Outer;
  using inner_layout = Inner;
  using memory_space = MemorySpace;
  using execution_space = typename MemorySpace::execution_space;
  using scalar_type = typename component_traits<Entry>::scalar_type;
  static constexpr int components = component_traits<Entry>::size;
  using index_view = Kokkos::View<int*, MemorySpace>;
  /// Column index of each slot: int, or a 16-bit offset from the slice's base column.
  using column_view = Kokkos::View<column_index_t<Outer>*, MemorySpace>;
  /// [slot][component]; LayoutRight for Aos, LayoutLeft for Soa.
  using values_view = Kokkos::View<scalar_type* [components], typename Inner::kokkos_layout, MemorySpace>;

  int num_rows = 0;
  int num_cols = 0;
  std::size_t num_entries = 0;  ///< compound non-zeros, padding excluded
  std::size_t num_slots = 0;    ///< stored (column, entry) slots, padding included
  int ell_width = 0;            ///< Ell: longest row
  int ell_stride = 0;           ///< Ell: num_rows rounded up to a multiple of 32

  index_view offsets;
  index_view row_lengths;
  column_view col_indices;
  /// SlicedEll<C, 16> only: each slice's smallest column, ⌈n/C⌉ of them.
  index_view column_bases;
  values_view values;
  /// Ell and SlicedEll: where each row of the CSR the matrix was built from starts
  /// (num_rows + 1 offsets), which refresh_values (refresh.hpp) writes new values through.
  /// Empty until the first refresh computes it from row_lengths; then kept, shared like the
  /// views above. Not counted in memory_bytes (4 bytes a row).
  mutable index_view source_offsets;
  /// Work counter of the dynamic schedules. Shared by all spmv calls on this
  /// matrix, so two dynamically scheduled products on the same matrix must not
  /// run concurrently on different execution space instances.
  Kokkos::View<unsigned, MemorySpace> work_counter;
  /// Csr only: the merge-path schedule's index and carries, each about
  /// (rows + non-zeros) / 32 long (impl::merge_path_index_length). The carries
  /// are, like work_counter, shared by the products on this matrix. Not counted
  /// in memory_bytes: for complex<double> they add about 3% to the CSR arrays.
  MergePathState<Entry, MemorySpace> merge_path;
  /// Csr only: the segmented-sum schedule's bitmap, lists and partial sums (and
  /// the long rows' chunk lists: a chunk per long row, or one per 256 of its
  /// tiles where long rows are cut, with a sum each), shared like the carries. About 0.6 bytes per non-zero for
  /// complex<float>, plus 4 bytes per row where some rows are empty; not counted
  /// in memory_bytes.
  SegmentedSumState<Entry, MemorySpace> segmented;
  /// Csr only: the segmented-sum SpMM's partial sums (2 x tiles x k values, and the chunk
  /// sums of long rows, impl/segmented_sum_spmm.hpp), or the Soa copies of X and Y through
  /// which the merge path runs an SpMM on Aos multivectors (spmm.hpp), (columns + rows) x k
  /// values. Grown by the
  /// first product that needs more, then kept: allocating and freeing them in every
  /// product synchronised the device each time, so the product could not be queued
  /// (seen in an H100 bench). Shared like the carries; not counted in memory_bytes.
  mutable Kokkos::View<vector_type_t<Entry>*, MemorySpace> spmm_staging;
};

/// Bytes of device memory the matrix occupies, with the accounting of the
/// published memory table: 4-byte offsets, row lengths and base columns, 4-byte
/// (or 2-byte) column indices, every padding slot counted as an index plus an entry.
template <class Entry, class Outer, class Inner, class MemorySpace>
std::size_t memory_bytes(const SparseMatrix<Entry, Outer, Inner, MemorySpace>& a) {
  return (a.offsets.extent(0) + a.row_lengths.extent(0) + a.column_bases.extent(0)) * sizeof(int) +
         a.num_slots * (sizeof(column_index_t<Outer>) + sizeof(Entry));
}

}  // namespace compound_sparse
