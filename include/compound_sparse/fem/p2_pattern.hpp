#pragma once
// The pattern of a P2 (quadratic Lagrange) finite-element matrix on a tetrahedral mesh, built on
// the device with exact allocation. Its nodes are the mesh's points (0 .. num_points - 1), then
// its edges (num_points + e, numbered as mesh_edges numbers them). A node's row holds every node
// of every cell that has it, and its length is counted from the topology before anything is
// allocated, by the method's formulas:
//
//   vertex v     1 + 2 |E_v| + |F_v|     (itself, its edges' other ends and the edges, and the
//                                         edge opposite v in each face of v)
//   edge e       3 + 3 |F_e| + |T_e|     (its two ends, itself; per face on e its third vertex
//                                         and two edges; per cell on e the opposite edge)
//
// with E_v, F_v the edges and faces at v, F_e, T_e the faces and cells on e. The counts come
// from the edges and faces (mesh_edges.hpp, mesh_faces.hpp); a scan makes them offsets; each
// row is then written in place from its cells by a team, each node once and in increasing order
// (as p1_pattern's rows). The fill checks that every row came out at its counted length.

#include <Kokkos_Core.hpp>
#include <limits>

#include "../error.hpp"
#include "../impl/device_scan_sort.hpp"
#include "../impl/kokkos_compat.hpp"  // atomic_increment
#include "device_tet_mesh.hpp"
#include "mesh_edges.hpp"
#include "mesh_faces.hpp"
#include "p1_pattern.hpp"

namespace compound_sparse {

/// A mesh's P2 pattern and the edges that number its edge nodes.
template <class MemorySpace>
struct P2Pattern {
  DevicePattern<MemorySpace> pattern;  ///< (num_points + num_edges) squared
  MeshEdges<MemorySpace> edges;
};

namespace impl {

/// counts(v) += 1 per face at v, counts(num_points + e) += 1 per face on e.
template <class FaceVertices, class Pattern, class EdgeOffsets, class Counts>
struct CountFaceIncidence {
  FaceVertices faces;
  Pattern p1;
  EdgeOffsets edge_offsets;
  Counts faces_at;  ///< per node
  int num_points;
  KOKKOS_INLINE_FUNCTION void operator()(int f) const {
    for (int i = 0; i < 3; ++i) {
      compound_sparse::impl::atomic_increment(&faces_at(faces(f, i)));
      const int e = edge_number(p1, edge_offsets, faces(f, i), faces(f, (i + 1) % 3));
      compound_sparse::impl::atomic_increment(&faces_at(num_points + e));
    }
  }
};

/// cells_on(e) += 1 per cell on edge e.
template <class CellEdges, class Counts>
struct CountEdgeCells {
  CellEdges cell_edges;
  Counts cells_on;
  KOKKOS_INLINE_FUNCTION void operator()(int t) const {
    for (int k = 0; k < 6; ++k) compound_sparse::impl::atomic_increment(&cells_on(cell_edges(t, k)));
  }
};

/// row_map(n + 1) = node n's row length by the formulas (0 for a point no cell uses).
template <class Pattern, class Counts, class RowMap>
struct P2RowLength {
  Pattern p1;
  Counts faces_at;
  Counts cells_on;
  RowMap row_map;
  int num_points;
  KOKKOS_INLINE_FUNCTION void operator()(int n) const {
    if (n < num_points) {
      const int neighbours = p1.row_map(n + 1) - p1.row_map(n);  // 1 + |E_v|, or 0
      row_map(n + 1) = neighbours == 0 ? 0 : 1 + 2 * (neighbours - 1) + faces_at(n);
    } else {
      row_map(n + 1) = 3 + 3 * faces_at(n) + cells_on(n - num_points);
    }
  }
};

/// Node n's row by a team, written in increasing order into its counted place; wrong_rows()
/// counts the rows whose distinct nodes are not their counted length. The candidates are the
/// ten nodes of each of n's cells, kept and ranked in scratch as p1_pattern's. A vertex's cells
/// are its incident cells; an edge's are those of its first end that have its second, listed
/// in scratch first: ranking the ten nodes of all of its first end's cells (about five times as
/// many, most of them not in the row) costs quadratically more. A node of more than
/// capacity / 10 cells is written by one thread of its team (walk_row).
template <class ExecutionSpace, class Cells, class Incident, class EdgeVertices, class CellEdges, class RowMap,
          class Entries, class Count>
struct P2RowByTeam {
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  using int_scratch = Kokkos::View<int*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  static constexpr int capacity = 1024;
  static constexpr int max_cells = capacity / 10;  ///< cells of a row ranked in scratch
  Cells cells;
  Incident incident;
  EdgeVertices edge_vertices;
  CellEdges cell_edges;
  RowMap row_map;
  Entries entries;
  Count wrong_rows;
  int num_points;
  KOKKOS_INLINE_FUNCTION int node(int t, int b) const {
    return b < 4 ? cells(t, b) : num_points + cell_edges(t, b - 4);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int n = team.league_rank();
    const bool edge = n >= num_points;
    const int v = edge ? edge_vertices(n - num_points, 0) : n;
    const int w = edge ? edge_vertices(n - num_points, 1) : n;
    const int begin = incident.offsets(v), cells_of_v = incident.offsets(v + 1) - begin;
    const int row_begin = row_map(n), row_end = row_map(n + 1);
    const int_scratch row_cells(team.team_scratch(0), max_cells), listed(team.team_scratch(0), 1);
    int num_cells = cells_of_v;
    if (edge && cells_of_v > 0) {
      Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, cells_of_v), [&](int j, int& before, bool final) {
        const int t = incident.cells(begin + j);
        const bool on_edge = has_both(cells, t, v, w);
        if (final && on_edge && before < max_cells) row_cells(before) = t;
        before += on_edge ? 1 : 0;
        if (final && j == cells_of_v - 1) listed(0) = before;
      });
      team.team_barrier();
      num_cells = listed(0);
    }
    const int candidates = 10 * num_cells;
    int length = 0;
    if (candidates > capacity) {
      Kokkos::single(
          Kokkos::PerTeam(team), [&](int& written) { written = walk_row(v, w, row_begin, row_end); }, length);
    } else {
      const int_scratch values(team.team_scratch(0), capacity), kept(team.team_scratch(0), capacity);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, candidates), [&](int i) {
        const int t = edge ? row_cells(i / 10) : incident.cells(begin + i / 10);
        values(i) = node(t, i % 10);
      });
      team.team_barrier();
      length = team_keep_first_occurrences(team, values, kept, candidates);
      team_write_kept_in_order(team, values, kept, candidates, entries, row_begin, row_end);
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      if (length != row_end - row_begin) compound_sparse::impl::atomic_increment(&wrong_rows());
    });
  }
  /// The row of the node with ends v, w by one thread: the nodes of its cells, each once, then
  /// sorted; returns how many there were (those past row_end are not written).
  KOKKOS_INLINE_FUNCTION int walk_row(int v, int w, int row_begin, int row_end) const {
    int at = row_begin;
    const auto add = [&](int node) {
      for (int i = row_begin; i < at && i < row_end; ++i)
        if (entries(i) == node) return;
      if (at < row_end) entries(at) = node;
      ++at;
    };
    for (int j = incident.offsets(v); j < incident.offsets(v + 1); ++j) {
      const int t = incident.cells(j);
      if (!has_both(cells, t, v, w)) continue;
      for (int b = 0; b < 10; ++b) add(node(t, b));
    }
    heap_sort(entries, row_begin, at < row_end ? at : row_end);
    return at - row_begin;
  }
  static std::size_t scratch_bytes() {
    return int_scratch::shmem_size(max_cells) + int_scratch::shmem_size(1) + 2 * int_scratch::shmem_size(capacity);
  }
};

}  // namespace impl

/// The P2 pattern of a checked mesh (make_device_tet_mesh) with its vertex-to-cell relation
/// (vertex_cells), and its edges. Throws InvalidInput for a mesh whose pattern 32-bit offsets do
/// not hold.
template <class MemorySpace>
P2Pattern<MemorySpace> p2_pattern(const DeviceTetMesh<MemorySpace>& mesh, const VertexCells<MemorySpace>& incident) {
  using execution_space = typename MemorySpace::execution_space;
  using counts_view = Kokkos::View<int*, MemorySpace>;
  const auto p1 = p1_pattern(mesh, incident);
  P2Pattern<MemorySpace> r;
  r.edges = mesh_edges(mesh, p1);
  const int num_points = mesh.num_points;
  COMPOUND_SPARSE_REQUIRE(static_cast<long long>(num_points) + r.edges.num_edges < std::numeric_limits<int>::max(),
                          "P2 pattern: " << num_points << " points and " << r.edges.num_edges
                                         << " edges are more nodes than 32-bit indices hold");
  const int nodes = num_points + r.edges.num_edges;
  {
    const auto faces = mesh_faces(mesh, incident);
    counts_view faces_at("compound_sparse::p2_faces_at", nodes);
    counts_view cells_on("compound_sparse::p2_cells_on", r.edges.num_edges);
    Kokkos::parallel_for(
        "compound_sparse::p2_face_counts", Kokkos::RangePolicy<execution_space>(0, faces.num_faces),
        impl::CountFaceIncidence<decltype(faces.vertices), DevicePattern<MemorySpace>, counts_view, counts_view>{
            faces.vertices, p1, r.edges.offsets, faces_at, num_points});
    Kokkos::parallel_for("compound_sparse::p2_edge_cells", Kokkos::RangePolicy<execution_space>(0, mesh.num_cells()),
                         impl::CountEdgeCells<decltype(r.edges.cell_edges), counts_view>{r.edges.cell_edges, cells_on});
    r.pattern.row_map = counts_view("compound_sparse::p2_row_map", static_cast<std::size_t>(nodes) + 1);
    Kokkos::parallel_for("compound_sparse::p2_row_lengths", Kokkos::RangePolicy<execution_space>(0, nodes),
                         impl::P2RowLength<DevicePattern<MemorySpace>, counts_view, counts_view>{
                             p1, faces_at, cells_on, r.pattern.row_map, num_points});
  }
  long long total = 0;
  Kokkos::parallel_reduce("compound_sparse::p2_non_zeros", Kokkos::RangePolicy<execution_space>(0, nodes),
                          impl::SumRowLengths<counts_view>{r.pattern.row_map}, total);
  COMPOUND_SPARSE_REQUIRE(total <= std::numeric_limits<int>::max(), "P2 pattern of a mesh of "
                                                                        << num_points << " points and "
                                                                        << mesh.num_cells() << " cells has " << total
                                                                        << " non-zeros, more than 32-bit offsets hold");
  impl::exclusive_sum_in_place<execution_space>(r.pattern.row_map, nodes);
  r.pattern.num_rows = r.pattern.num_cols = nodes;
  r.pattern.entries = counts_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::p2_entries"),
                                  static_cast<std::size_t>(total));
  const Kokkos::View<int, MemorySpace> wrong("compound_sparse::p2_wrong_rows");
  using row_kernel =
      impl::P2RowByTeam<execution_space, decltype(mesh.cells), VertexCells<MemorySpace>, decltype(r.edges.vertices),
                        decltype(r.edges.cell_edges), counts_view, counts_view, Kokkos::View<int, MemorySpace>>;
  using team_policy = Kokkos::TeamPolicy<execution_space>;
  // A warp a row: a vertex's row has a few hundred candidates (ten per cell), an edge's tens.
  const int threads = impl::launch_team_size<team_policy>(execution_space(), row_kernel{}, 32);
  if (nodes > 0)
    Kokkos::parallel_for("compound_sparse::p2_fill",
                         team_policy(nodes, threads).set_scratch_size(0, Kokkos::PerTeam(row_kernel::scratch_bytes())),
                         row_kernel{mesh.cells, incident, r.edges.vertices, r.edges.cell_edges, r.pattern.row_map,
                                    r.pattern.entries, wrong, num_points});
  int wrong_rows = 0;
  Kokkos::deep_copy(wrong_rows, wrong);
  // A row is the union of its node's cells' nodes, and each face or cell through a node adds
  // nodes that no other does, unless two cells have the same four vertices: then an edge of
  // theirs counts one cell too many. Such a mesh is refused rather than written short.
  COMPOUND_SPARSE_REQUIRE(wrong_rows == 0, "P2 pattern: " << wrong_rows
                                                          << " rows differ from their counted lengths; does a cell "
                                                             "repeat another's four vertices?");
  return r;
}

/// The same, building the vertex-to-cell relation.
template <class MemorySpace>
P2Pattern<MemorySpace> p2_pattern(const DeviceTetMesh<MemorySpace>& mesh) {
  return p2_pattern(mesh, vertex_cells(mesh));
}

}  // namespace compound_sparse
