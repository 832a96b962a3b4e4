#pragma once
// The pattern of a P1 (linear Lagrange) finite-element matrix on a tetrahedral mesh, built on the
// device from the mesh's topology with exact allocation: row v holds v and every vertex that
// shares a cell with v, so its length is 1 + the degree of v (0 for a vertex no cell uses).
// The lengths are counted first, from the vertex-to-cell relation (device_tet_mesh.hpp), by a
// team per vertex: the corners of v's cells go to scratch, and a corner counts where no earlier
// corner is the same vertex. That needs no list of the (row, column) pairs of the element
// matrices (16 per cell, the intermediate that CooAssembly sorts). A scan makes the lengths
// offsets; the same team then writes each counted vertex at its rank among them, so the row
// comes out in increasing order without a sort.
//
// The result is the pattern that csr_from_coo makes of the element matrices' positions, array
// for array; matrix_from_csr_views (or TunedSpmv's make_device_csr) takes it to any layout.

#include <Kokkos_Core.hpp>
#include <limits>

#include "../error.hpp"
#include "../impl/device_scan_sort.hpp"
#include "../impl/team_launch.hpp"
#include "device_tet_mesh.hpp"

namespace compound_sparse {

/// A CSR pattern on the device: the columns of row r are entries(row_map(r)) ..
/// entries(row_map(r + 1) - 1), in increasing order.
template <class MemorySpace>
struct DevicePattern {
  int num_rows = 0;
  int num_cols = 0;
  Kokkos::View<int*, MemorySpace> row_map;
  Kokkos::View<int*, MemorySpace> entries;
};

namespace impl {

/// The k with entries(begin + k) == column in a sorted row of a CSR pattern (the row has it).
template <class Entries>
KOKKOS_INLINE_FUNCTION int pattern_position(const Entries& entries, int begin, int end, int column) {
  return partition_point(begin, end, [&](int i) { return entries(i) < column; }) - begin;
}

/// Walks the distinct vertices of vertex v's cells, each once, in the order of v's cells (and of
/// the vertices within a cell): `visit(w)` for each. A vertex counts at its first cell, the
/// earlier cells of v being searched for it: quadratic in the number of v's cells, tens on a mesh.
template <class Cells, class Incident, class Visit>
KOKKOS_INLINE_FUNCTION void for_each_neighbour(const Cells& cells, const Incident& incident, int v,
                                               const Visit& visit) {
  const int begin = incident.offsets(v), end = incident.offsets(v + 1);
  for (int j = begin; j < end; ++j) {
    const int t = incident.cells(j);
    for (int q = 0; q < 4; ++q) {
      const int w = cells(t, q);
      bool seen = false;
      for (int i = begin; i < j && !seen; ++i) {
        const int s = incident.cells(i);
        seen = cells(s, 0) == w || cells(s, 1) == w || cells(s, 2) == w || cells(s, 3) == w;
      }
      if (!seen) visit(w);
    }
  }
}

/// A row's distinct nodes from the team's scratch: kept(i) = 1 where values(i) is a node (not
/// negative) and no earlier value is the same; returns how many were kept. The comparisons are
/// quadratic in the row's candidates (tens to hundreds on a mesh) but run in parallel from
/// scratch, where one thread's walk would be a chain of dependent loads.
template <class Member, class Scratch>
KOKKOS_INLINE_FUNCTION int team_keep_first_occurrences(const Member& team, const Scratch& values, const Scratch& kept,
                                                       int n) {
  int count = 0;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, n),
      [&](int i, int& kept_so_far) {
        int j = 0;
        while (j < i && values(j) != values(i)) ++j;
        kept(i) = j == i && values(i) >= 0 ? 1 : 0;
        kept_so_far += kept(i);
      },
      count);
  team.team_barrier();
  return count;
}

/// Each kept value written at entries(start + its rank among the kept values): the row in
/// increasing order, without a sort. Writes nothing at or past `end`.
template <class Member, class Scratch, class Entries>
KOKKOS_INLINE_FUNCTION void team_write_kept_in_order(const Member& team, const Scratch& values, const Scratch& kept,
                                                     int n, const Entries& entries, int start, int end) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](int i) {
    if (!kept(i)) return;
    int rank = 0;
    for (int j = 0; j < n; ++j) rank += kept(j) && values(j) < values(i) ? 1 : 0;
    if (start + rank < end) entries(start + rank) = values(i);
  });
}

/// Row v of the pattern by a team: counted (fill false: row_map(v + 1) = its length) or written
/// in increasing order from row_map(v) (fill true). The corners of v's cells are copied to
/// scratch; a corner is kept where no earlier corner is the same vertex, and a kept vertex's
/// place in the row is the number of kept vertices smaller than it. A vertex of more than
/// capacity / 4 cells (a fan) is walked by one thread of its team and its row heap-sorted.
template <class ExecutionSpace, class Cells, class Incident, class RowMap, class Entries>
struct P1RowByTeam {
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  using int_scratch = Kokkos::View<int*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  static constexpr int capacity = 512;
  Cells cells;
  Incident incident;
  RowMap row_map;
  Entries entries;
  bool fill;
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int v = team.league_rank();
    const int begin = incident.offsets(v), n = 4 * (incident.offsets(v + 1) - begin);
    if (n > capacity) {
      Kokkos::single(Kokkos::PerTeam(team), [&]() { walk_row(v); });
      return;
    }
    const int_scratch corner(team.team_scratch(0), capacity), kept(team.team_scratch(0), capacity);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n),
                         [&](int i) { corner(i) = cells(incident.cells(begin + i / 4), i % 4); });
    team.team_barrier();
    const int length = team_keep_first_occurrences(team, corner, kept, n);
    if (fill)
      team_write_kept_in_order(team, corner, kept, n, entries, row_map(v), row_map(v + 1));
    else
      Kokkos::single(Kokkos::PerTeam(team), [&]() { row_map(v + 1) = length; });
  }
  /// Row v by one thread: each vertex of v's cells at its first cell, then sorted.
  KOKKOS_INLINE_FUNCTION void walk_row(int v) const {
    if (!fill) {
      int length = 0;
      for_each_neighbour(cells, incident, v, [&](int) { ++length; });
      row_map(v + 1) = length;
      return;
    }
    int at = row_map(v);
    for_each_neighbour(cells, incident, v, [&](int w) { entries(at++) = w; });
    heap_sort(entries, row_map(v), row_map(v + 1));
  }
  static std::size_t scratch_bytes() { return 2 * int_scratch::shmem_size(capacity); }
};

/// The sum of the rows' lengths in 64 bits: whether 32-bit offsets hold the pattern.
template <class RowMap>
struct SumRowLengths {
  RowMap row_map;
  KOKKOS_INLINE_FUNCTION void operator()(int v, long long& sum) const { sum += row_map(v + 1); }
};

}  // namespace impl

/// The P1 pattern of a checked mesh (make_device_tet_mesh) with its vertex-to-cell relation
/// (vertex_cells): num_points x num_points.
template <class MemorySpace>
DevicePattern<MemorySpace> p1_pattern(const DeviceTetMesh<MemorySpace>& mesh,
                                      const VertexCells<MemorySpace>& incident) {
  using execution_space = typename MemorySpace::execution_space;
  DevicePattern<MemorySpace> p;
  p.num_rows = p.num_cols = mesh.num_points;
  p.row_map = Kokkos::View<int*, MemorySpace>("compound_sparse::p1_row_map", mesh.num_points + 1);
  const Kokkos::RangePolicy<execution_space> vertices(0, mesh.num_points);
  using row_kernel = impl::P1RowByTeam<execution_space, decltype(mesh.cells), VertexCells<MemorySpace>,
                                       decltype(p.row_map), decltype(p.entries)>;
  using team_policy = Kokkos::TeamPolicy<execution_space>;
  // A warp a row: an interior vertex of a tetrahedral mesh has 20-30 cells, 80-120 corners.
  const int threads = impl::launch_team_size<team_policy>(execution_space(), row_kernel{}, 32);
  const auto rows = [&](const row_kernel& kernel) {
    if (mesh.num_points > 0)
      Kokkos::parallel_for(
          kernel.fill ? "compound_sparse::p1_fill" : "compound_sparse::p1_row_lengths",
          team_policy(mesh.num_points, threads).set_scratch_size(0, Kokkos::PerTeam(row_kernel::scratch_bytes())),
          kernel);
  };
  rows(row_kernel{mesh.cells, incident, p.row_map, {}, false});
  long long total = 0;
  Kokkos::parallel_reduce("compound_sparse::p1_non_zeros", vertices,
                          impl::SumRowLengths<decltype(p.row_map)>{p.row_map}, total);
  COMPOUND_SPARSE_REQUIRE(total <= std::numeric_limits<int>::max(), "P1 pattern of a mesh of "
                                                                        << mesh.num_points << " points and "
                                                                        << mesh.num_cells() << " cells has " << total
                                                                        << " non-zeros, more than 32-bit offsets hold");
  impl::exclusive_sum_in_place<execution_space>(p.row_map, mesh.num_points);
  p.entries = Kokkos::View<int*, MemorySpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::p1_entries"), static_cast<std::size_t>(total));
  rows(row_kernel{mesh.cells, incident, p.row_map, p.entries, true});
  return p;
}

/// The same, building the vertex-to-cell relation.
template <class MemorySpace>
DevicePattern<MemorySpace> p1_pattern(const DeviceTetMesh<MemorySpace>& mesh) {
  return p1_pattern(mesh, vertex_cells(mesh));
}

}  // namespace compound_sparse
