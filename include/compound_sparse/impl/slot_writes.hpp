#pragma once
// Writing one value per source non-zero into a layout's slots, for the device build
// (device_build.hpp), refresh_values (refresh.hpp) and CooAssembly::assemble
// (coo_assembly.hpp): the kernels whose speed is memory bandwidth.
//
// Csr's slots are the source positions: a flat copy, which for Aos values from a View is a
// plain device copy of the same bytes, and otherwise a thread per entry.
//
// A padded layout (Ell, SlicedEll) puts a row's k-th entry at first + k*step
// (row_slots): consecutive entries of a row land `step` slots apart, while consecutive
// slots hold consecutive rows. A thread per row or per entry therefore leaves either its
// loads or its stores scattered. TiledSlotWrite stages through team scratch instead: a
// team takes a group of rows (one slice; 32 rows of Ell) and a band of columns, loads each
// row's band (contiguous in the source) into scratch, then stores the band's slots, which
// are contiguous in a slice (runs of 32 in Ell), in the inner layout's order. The device
// build also writes the row lengths, the columns and the padding (column 0, value zero)
// in the same pass, so the layout is written once.
//
// The scratch tile is skewed (tile_index, column_index): in the load, a warp's threads
// hold one or two rows' consecutive entries, which an unskewed tile puts a multiple of 32
// banks apart, so every store of a component was serialised up to 32 ways.
//
// Every value is copied or summed exactly as before, component by component in the same
// order: the results are bit for bit those of the host conversion.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "../entries/components.hpp"
#include "../layouts/layout_tags.hpp"
#include "team_launch.hpp"

namespace compound_sparse {
namespace impl {

/// Source entry p: values(p), from a values View (or impl::ZeroValues).
template <class Values>
struct EntryComponents {
  using entry_type = typename Values::non_const_value_type;
  Values values;
  KOKKOS_INLINE_FUNCTION entry_type entry(std::size_t p) const { return values(p); }
};

/// Non-zero p of a COO list: the sum of its contributions' values, first to last
/// (CooAssembly's order, which is csr_from_coo's).
template <class Index, class Values>
struct SummedContributions {
  using entry_type = typename Values::non_const_value_type;
  Index first;          ///< nnz + 1, into contributions
  Index contributions;  ///< list indices, by non-zero
  Values values;
  KOKKOS_INLINE_FUNCTION entry_type entry(std::size_t p) const {
    using traits = component_traits<entry_type>;
    const int begin = first(p), end = first(p + 1);
    entry_type sum = values(contributions(begin));
    for (int t = begin + 1; t < end; ++t) {
      const entry_type v = values(contributions(t));
      for (int c = 0; c < traits::size; ++c) traits::get(sum, c) += traits::get(v, c);
    }
    return sum;
  }
};

/// vals(p, c) = component c of source.entry(p): a thread per entry.
template <class ValuesView, class Source>
struct CopyEntries {
  ValuesView vals;
  Source source;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t p) const {
    using traits = component_traits<typename Source::entry_type>;
    const auto e = source.entry(p);
    for (int c = 0; c < traits::size; ++c) vals(p, c) = traits::get(e, c);
  }
};

template <class Source>
struct is_view_source : std::false_type {};
template <class Values>
struct is_view_source<EntryComponents<Values>> : Kokkos::is_view<Values> {};

/// The first `count` entries of a Csr layout's values from `source`. Aos values copied from
/// a contiguous View are the same bytes (a packed compound is its components in order,
/// entries/components.hpp), so they go as one device copy at copy bandwidth; everything
/// else takes a thread per entry.
template <class ExecutionSpace, class ValuesView, class Source>
void copy_csr_values(const char* label, const ValuesView& vals, const Source& source, std::size_t count) {
  using scalar_type = typename ValuesView::non_const_value_type;
  using memory_space = typename ValuesView::memory_space;
  constexpr std::size_t size = component_traits<typename Source::entry_type>::size;
  if constexpr (is_view_source<Source>::value &&
                std::is_same<typename ValuesView::array_layout, Kokkos::LayoutRight>::value) {
    if (source.values.span_is_contiguous()) {
      using flat = Kokkos::View<scalar_type*, memory_space, Kokkos::MemoryUnmanaged>;
      using const_flat = Kokkos::View<const scalar_type*, memory_space, Kokkos::MemoryUnmanaged>;
      Kokkos::deep_copy(ExecutionSpace(), flat(vals.data(), count * size),
                        const_flat(reinterpret_cast<const scalar_type*>(source.values.data()), count * size));
      return;
    }
  }
  Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecutionSpace>(0, count),
                       CopyEntries<ValuesView, Source>{vals, source});
}

/// Rows per team of TiledSlotWrite: one slice, or 32 rows of Ell (its stride unit).
template <class Outer>
constexpr int tile_rows() {
  if constexpr (is_sliced_ell<Outer>::value)
    return Outer::slice_size;
  else
    return Ell::stride_multiple;
}

/// The pattern half of a device build: the layout's row lengths and columns, written by
/// TiledSlotWrite with the values (its Build form).
template <class Lengths, class Columns, class Bases, class Entries>
struct PatternWrite {
  Lengths lengths;  ///< num_rows, written
  Columns cols;     ///< per slot, written (offsets from the slice's base for 16-bit columns)
  Bases bases;      ///< per slice, read (16-bit columns only)
  Entries entries;  ///< source columns, by source position
};
/// TiledSlotWrite without a pattern: refresh and assembly write values only.
struct NoPatternWrite {};

/// Writes source(p, c) for every non-zero of an Ell or SlicedEll matrix into its slots,
/// staged through team scratch (header comment); one team per tile_rows<Outer>() rows.
/// With a PatternWrite it is the build: lengths, columns and padding too; without, only
/// the non-zeros' slots are written and the padding is left as it is.
template <class Outer, class Matrix, class RowMap, class Source, class Pattern = NoPatternWrite>
struct TiledSlotWrite {
  using execution_space = typename Matrix::execution_space;
  using member_type = typename Kokkos::TeamPolicy<execution_space>::member_type;
  using scratch_space = typename execution_space::scratch_memory_space;
  using scalar_type = typename Matrix::scalar_type;
  using entry_type = typename Matrix::entry_type;
  static constexpr bool builds = !std::is_same<Pattern, NoPatternWrite>::value;
  static constexpr int size = Matrix::components;
  static constexpr int rows = tile_rows<Outer>();
  /// Columns per band: 2048 scalars of scratch per team, so that several teams fit a
  /// multiprocessor while each row's band is a contiguous run of 256 bytes or more.
  static constexpr int band = std::max(1, 2048 / (rows * size));
  static constexpr bool aos = std::is_same<typename Matrix::inner_layout, Aos>::value;
  using scalar_scratch = Kokkos::View<scalar_type*, scratch_space, Kokkos::MemoryUnmanaged>;
  using int_scratch = Kokkos::View<int*, scratch_space, Kokkos::MemoryUnmanaged>;

  int num_rows;
  int ell_stride;
  int ell_width;
  typename Matrix::index_view offsets;  ///< slice offsets (SlicedEll)
  typename Matrix::values_view vals;
  RowMap row_map;  ///< where each row's source entries start, num_rows + 1
  Source source;
  Pattern pattern;

  /// Scalars of the skewed tile, and ints of the skewed column tile.
  static constexpr int tile_scalars = aos ? rows * band * size + band : size * band * (rows + 1);
  static constexpr int column_ints = builds ? band * (rows + 1) : 0;

  static std::size_t scratch_bytes() {
    // The last element of each tile is inside its scratch: the skew must not run past it.
    static_assert(tile_index(rows - 1, band - 1, size - 1) < tile_scalars, "the skewed tile overruns its scratch");
    static_assert(!builds || column_index(rows - 1, band - 1) < column_ints,
                  "the skewed column tile overruns its scratch");
    return scalar_scratch::shmem_size(tile_scalars) + int_scratch::shmem_size(2 * rows + column_ints);
  }
  /// Teams: one per slice, or per 32 rows of Ell's stride.
  int league_size() const {
    if constexpr (is_sliced_ell<Outer>::value)
      return static_cast<int>(offsets.extent(0)) - 1;
    else
      return ell_stride / rows;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int group = team.league_rank();
    const int first_row = group * rows;
    scalar_scratch tile(team.team_scratch(0), tile_scalars);
    int_scratch begins(team.team_scratch(0), rows);
    int_scratch lengths(team.team_scratch(0), rows);
    int_scratch columns(team.team_scratch(0), column_ints);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](int i) {
      const int r = first_row + i;
      const int begin = r < num_rows ? static_cast<int>(row_map(r)) : 0;
      const int length = r < num_rows ? static_cast<int>(row_map(r + 1)) - begin : 0;
      begins(i) = begin;
      lengths(i) = length;
      if constexpr (builds)
        if (r < num_rows) pattern.lengths(r) = length;
    });
    team.team_barrier();
    // The build writes every slot of the group, padding included; the others only up to
    // the group's longest row.
    int width = 0;
    int slice_first_slot = 0;
    if constexpr (is_sliced_ell<Outer>::value) {
      slice_first_slot = offsets(group);
      width = (offsets(group + 1) - slice_first_slot) / rows;
    } else {
      width = ell_width;
    }
    if constexpr (!builds) {
      width = 0;
      for (int i = 0; i < rows; ++i) width = lengths(i) > width ? lengths(i) : width;
    }
    int base = 0;
    if constexpr (builds && has_column_bases_v<Outer>) base = pattern.bases(group);
    for (int k0 = 0; k0 < width; k0 += band) {
      const int columns_here = width - k0 < band ? width - k0 : band;
      // Load: each row's run of the band, an entry per thread (contiguous in the source).
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows * columns_here), [&](int t) {
        const int kk = t % columns_here;
        const int i = t / columns_here;
        if (k0 + kk >= lengths(i)) return;
        const std::size_t p = static_cast<std::size_t>(begins(i)) + static_cast<std::size_t>(k0 + kk);
        const auto e = source.entry(p);
        for (int c = 0; c < size; ++c) tile(tile_index(i, kk, c)) = component_traits<entry_type>::get(e, c);
        if constexpr (builds) columns(column_index(i, kk)) = static_cast<int>(pattern.entries(p)) - base;
      });
      team.team_barrier();
      // Store: the band's slots in the inner layout's order.
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows * columns_here * size), [&](int t) {
        int i, kk, c;
        if constexpr (aos) {
          c = t % size;
          i = (t / size) % rows;
          kk = t / (size * rows);
        } else {
          i = t % rows;
          kk = (t / rows) % columns_here;
          c = t / (rows * columns_here);
        }
        const bool stored = k0 + kk < lengths(i);
        if (!builds && !stored) return;
        const int slot = slot_of(slice_first_slot, first_row, i, k0 + kk);
        vals(slot, c) = stored ? tile(tile_index(i, kk, c)) : scalar_type(0);
      });
      if constexpr (builds)
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows * columns_here), [&](int t) {
          const int i = t % rows, kk = t / rows;
          const int slot = slot_of(slice_first_slot, first_row, i, k0 + kk);
          using column_type = typename decltype(pattern.cols)::non_const_value_type;
          pattern.cols(slot) = static_cast<column_type>(k0 + kk < lengths(i) ? columns(column_index(i, kk)) : 0);
        });
      team.team_barrier();
    }
  }

  /// Where component c of row i's band entry kk sits in scratch: in the order the store
  /// loop reads it, with one scalar of skew per band column (Aos) or per run of rows (Soa)
  /// so that the load's writes of consecutive kk fall in different banks.
  KOKKOS_INLINE_FUNCTION static constexpr int tile_index(int i, int kk, int c) {
    if constexpr (aos)
      return (kk * rows + i) * size + c + kk;
    else
      return (c * band + kk) * (rows + 1) + i;
  }
  /// Where row i's band column kk sits in the column tile, skewed as tile_index.
  KOKKOS_INLINE_FUNCTION static constexpr int column_index(int i, int kk) { return kk * (rows + 1) + i; }
  KOKKOS_INLINE_FUNCTION int slot_of(int slice_first_slot, int first_row, int i, int k) const {
    if constexpr (is_sliced_ell<Outer>::value)
      return slice_first_slot + k * rows + i;
    else
      return k * ell_stride + first_row + i;
  }
};

/// Runs a TiledSlotWrite on ExecutionSpace: teams of 256 threads on GPUs (as many as the
/// host backend allows elsewhere), its scratch per team.
template <class Write>
void run_tiled_slot_write(const char* label, const Write& write) {
  using execution_space = typename Write::execution_space;
  using policy = Kokkos::TeamPolicy<execution_space>;
  const int teams = write.league_size();
  if (teams == 0) return;
  const int threads = launch_team_size<policy>(execution_space(), write, 256);
  Kokkos::parallel_for(label, policy(teams, threads).set_scratch_size(0, Kokkos::PerTeam(Write::scratch_bytes())),
                       write);
}

/// Writes source(p, c) into the non-zeros' slots of the padded matrix `a`, values only,
/// where row r's source entries start at row_map(r): the one values write of refresh and
/// assembly, so that each of them stages its loads the same way.
template <class Matrix, class RowMap, class Source>
void write_slot_values(const char* label, const Matrix& a, const RowMap& row_map, const Source& source) {
  run_tiled_slot_write(label, TiledSlotWrite<typename Matrix::outer_layout, Matrix, RowMap, Source>{
                                  a.num_rows, a.ell_stride, a.ell_width, a.offsets, a.values, row_map, source, {}});
}

}  // namespace impl
}  // namespace compound_sparse
