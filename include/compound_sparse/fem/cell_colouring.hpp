#pragma once
// A colouring of a tetrahedral mesh's cells in which no two cells of one colour share a vertex,
// so that the cells of a colour can add their element matrices into the matrix at once without
// atomics (P1Assembly's coloured scatter).
//
// Built on the device in rounds (Jones and Plassmann's scheme with first-fit colours): in each
// round, every uncoloured cell whose priority (a hash of its index) beats that of every
// uncoloured cell it shares a vertex with takes the smallest colour that none of its coloured
// neighbours has. Each round reads the colours of the rounds before it only, so the colouring
// does not depend on the order the device's threads ran in, and neither do the sums of a
// coloured assembly.

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "../error.hpp"
#include "../impl/device_scan_sort.hpp"
#include "../impl/kokkos_compat.hpp"  // atomic_increment
#include "device_tet_mesh.hpp"

namespace compound_sparse {

/// The cells of colour c are cells(offsets[c]) .. cells(offsets[c + 1] - 1), in no particular
/// order: no two of them add into the same place, so their order changes no sum.
template <class MemorySpace>
struct CellColouring {
  std::vector<int> offsets;  ///< on the host: num_colours() + 1
  Kokkos::View<int*, MemorySpace> cells;
  int num_colours() const { return static_cast<int>(offsets.size()) - 1; }
};

namespace impl {

/// The most colours a cell can choose from: 256, far more than a mesh needs (a cell of a box
/// mesh meets about 70 others).
constexpr int max_cell_colours = 256;

/// A cell's priority in the rounds: a hash of its index (a multiplicative one and a xor shift),
/// ties broken by the index.
KOKKOS_INLINE_FUNCTION bool outranks(int s, int t) {
  const auto hash = [](int i) {
    std::uint32_t x = static_cast<std::uint32_t>(i) * 2654435761u;
    x ^= x >> 16;
    return x * 2246822519u;
  };
  const std::uint32_t hs = hash(s), ht = hash(t);
  return hs != ht ? hs > ht : s > t;
}

/// One round: next(t) for the uncoloured cells t that outrank their uncoloured neighbours in
/// `previous`; -2 where all max_cell_colours colours are taken.
template <class Cells, class Incident, class Colours>
struct ColourRound {
  Cells cells;
  Incident incident;
  Colours previous;
  Colours next;
  KOKKOS_INLINE_FUNCTION void operator()(int t) const {
    if (previous(t) != -1) return;
    std::uint64_t taken[max_cell_colours / 64] = {};
    for (int q = 0; q < 4; ++q) {
      const int v = cells(t, q);
      for (int j = incident.offsets(v); j < incident.offsets(v + 1); ++j) {
        const int s = incident.cells(j);
        if (s == t) continue;
        const int colour = previous(s);
        if (colour < 0) {
          if (outranks(s, t)) return;  // waits for s
        } else {
          taken[colour / 64] |= std::uint64_t(1) << (colour % 64);
        }
      }
    }
    for (int word = 0; word < max_cell_colours / 64; ++word)
      if (~taken[word] != 0) {
        int bit = 0;
        while ((taken[word] >> bit) & 1) ++bit;
        next(t) = word * 64 + bit;
        return;
      }
    next(t) = -2;
  }
};

/// Cells still uncoloured (-1), and whether one ran out of colours (-2).
template <class Colours>
struct CountUncoloured {
  Colours colours;
  KOKKOS_INLINE_FUNCTION void operator()(int t, int& uncoloured, int& stuck) const {
    if (colours(t) == -1) ++uncoloured;
    if (colours(t) == -2) ++stuck;
  }
};

/// counts(colour + 1) += 1 per cell.
template <class Colours, class Counts>
struct CountColour {
  Colours colours;
  Counts counts;
  KOKKOS_INLINE_FUNCTION void operator()(int t) const {
    compound_sparse::impl::atomic_increment(&counts(colours(t) + 1));
  }
};

/// The number of colours: the largest colour + 1 (Kokkos::Max).
template <class Colours>
struct ColourCount {
  Colours colours;
  KOKKOS_INLINE_FUNCTION void operator()(int t, int& count) const {
    if (colours(t) + 1 > count) count = colours(t) + 1;
  }
};

/// Each cell into its colour's list.
template <class Colours, class Cursors, class List>
struct FillColour {
  Colours colours;
  Cursors cursors;
  List list;
  KOKKOS_INLINE_FUNCTION void operator()(int t) const { list(Kokkos::atomic_fetch_add(&cursors(colours(t)), 1)) = t; }
};
}  // namespace impl

/// The colouring of a checked mesh's cells, from its vertex-to-cell relation. Throws
/// InvalidInput if a cell would need more than 256 colours.
template <class MemorySpace>
CellColouring<MemorySpace> colour_cells(const DeviceTetMesh<MemorySpace>& mesh,
                                        const VertexCells<MemorySpace>& incident) {
  using execution_space = typename MemorySpace::execution_space;
  using colours_view = Kokkos::View<int*, MemorySpace>;
  const int num_cells = mesh.num_cells();
  const Kokkos::RangePolicy<execution_space> all(0, num_cells);
  colours_view previous(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::colours"), num_cells);
  colours_view next(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::next_colours"), num_cells);
  Kokkos::deep_copy(previous, -1);
  Kokkos::deep_copy(next, -1);
  const impl::ColourRound<decltype(mesh.cells), VertexCells<MemorySpace>, colours_view> round{mesh.cells, incident,
                                                                                              previous, next};
  // Every round colours the highest-ranked uncoloured cell at least, so this ends.
  for (int uncoloured = num_cells; uncoloured > 0;) {
    Kokkos::parallel_for("compound_sparse::colour_round", all, round);
    Kokkos::deep_copy(previous, next);
    int stuck = 0;
    Kokkos::parallel_reduce("compound_sparse::count_uncoloured", all, impl::CountUncoloured<colours_view>{previous},
                            uncoloured, stuck);
    COMPOUND_SPARSE_REQUIRE(
        stuck == 0, "colour_cells: " << stuck << " cells meet cells of all " << impl::max_cell_colours << " colours");
  }
  int num_colours = 0;
  Kokkos::parallel_reduce("compound_sparse::count_colours", all, impl::ColourCount<colours_view>{previous},
                          Kokkos::Max<int>(num_colours));
  if (num_cells == 0) num_colours = 0;  // Max over nothing is the lowest int
  CellColouring<MemorySpace> r;
  Kokkos::View<int*, MemorySpace> offsets("compound_sparse::colour_offsets", num_colours + 1);
  Kokkos::parallel_for("compound_sparse::count_colour", all,
                       impl::CountColour<colours_view, decltype(offsets)>{previous, offsets});
  impl::exclusive_sum_in_place<execution_space>(offsets, num_colours);
  Kokkos::deep_copy(next, -1);  // the cursors, in the buffer of the last round
  const auto cursors = Kokkos::subview(next, std::make_pair(0, num_colours));
  Kokkos::deep_copy(cursors, Kokkos::subview(offsets, std::make_pair(0, num_colours)));
  r.cells =
      colours_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::cells_by_colour"), num_cells);
  Kokkos::parallel_for("compound_sparse::fill_colours", all,
                       impl::FillColour<colours_view, decltype(cursors), colours_view>{previous, cursors, r.cells});
  const auto host_offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), offsets);
  r.offsets.assign(host_offsets.data(), host_offsets.data() + num_colours + 1);
  return r;
}

}  // namespace compound_sparse
