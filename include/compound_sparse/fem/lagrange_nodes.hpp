#pragma once
// The nodes of linear (P1) and quadratic (P2) Lagrange elements on a tetrahedral mesh, as the
// assembly's kernels (lagrange_assembly.hpp) see them: the nodes of a cell, and the cells of a
// node with the node's place in each.
//
//   P1: a cell's nodes are its 4 corners; the nodes are the mesh's points.
//   P2: a cell's nodes are its 4 corners, then its 6 edges in tet_edge_index's order; the nodes
//       are the points, then the edges (num_points + e, numbered as mesh_edges numbers them).
//
// A node's cells come in increasing order, the order in which the host's csr_from_coo of the
// element contributions (emitted cell by cell) adds them: a gather in that order is the host's
// sum bit for bit. An edge's cells are those of its first end that also have its second.
//
// lagrange_topology<Order>(mesh) builds the nodes with the pattern of the order's matrix
// (p1_pattern.hpp, p2_pattern.hpp), from one vertex-to-cell relation.

#include <Kokkos_Core.hpp>
#include <cstddef>

#include "device_tet_mesh.hpp"
#include "mesh_edges.hpp"
#include "p1_pattern.hpp"
#include "p2_pattern.hpp"

namespace compound_sparse {

namespace impl {

/// Which corner of cell t is vertex v (the cell has it).
template <class Cells>
KOKKOS_INLINE_FUNCTION int corner_of(const Cells& cells, int t, int v) {
  int a = 0;
  while (cells(t, a) != v) ++a;
  return a;
}

/// Which corner of cell t is vertex v, -1 if the cell does not have it.
template <class Cells>
KOKKOS_INLINE_FUNCTION int corner_or_none(const Cells& cells, int t, int v) {
  for (int a = 0; a < 4; ++a)
    if (cells(t, a) == v) return a;
  return -1;
}

}  // namespace impl

template <int Order, class MemorySpace>
struct LagrangeNodes;

/// P1: the nodes are the points.
template <class MemorySpace>
struct LagrangeNodes<1, MemorySpace> {
  static constexpr int per_cell = 4;
  Kokkos::View<const int* [4], Kokkos::LayoutRight, MemorySpace> cells;
  VertexCells<MemorySpace> incident;

  KOKKOS_INLINE_FUNCTION int node(int t, int a) const { return cells(t, a); }
  /// Node n's place in cell t (the a with node(t, a) == n), -1 if t does not have it.
  KOKKOS_INLINE_FUNCTION int place(int t, int n) const { return impl::corner_or_none(cells, t, n); }
  /// visit(t, a) for each cell t of node n, in increasing order, a being n's place in t.
  template <class Visit>
  KOKKOS_INLINE_FUNCTION void for_each_cell(int n, const Visit& visit) const {
    for (int j = incident.offsets(n); j < incident.offsets(n + 1); ++j) {
      const int t = incident.cells(j);
      visit(t, impl::corner_of(cells, t, n));
    }
  }
  std::size_t bytes() const { return (incident.offsets.span() + incident.cells.span()) * sizeof(int); }
};

/// P2: the points, then the edges.
template <class MemorySpace>
struct LagrangeNodes<2, MemorySpace> {
  static constexpr int per_cell = 10;
  Kokkos::View<const int* [4], Kokkos::LayoutRight, MemorySpace> cells;
  VertexCells<MemorySpace> incident;
  MeshEdges<MemorySpace> edges;
  int num_points = 0;

  KOKKOS_INLINE_FUNCTION int node(int t, int a) const {
    return a < 4 ? cells(t, a) : num_points + edges.cell_edges(t, a - 4);
  }
  /// Node n's place in cell t (the a with node(t, a) == n), -1 if t does not have it: a point
  /// is looked for among the corners only, an edge among the edges only.
  KOKKOS_INLINE_FUNCTION int place(int t, int n) const {
    if (n < num_points) return impl::corner_or_none(cells, t, n);
    for (int e = 0; e < 6; ++e)
      if (edges.cell_edges(t, e) == n - num_points) return 4 + e;
    return -1;
  }
  /// visit(t, a) for each cell t of node n, in increasing order, a being n's place in t.
  template <class Visit>
  KOKKOS_INLINE_FUNCTION void for_each_cell(int n, const Visit& visit) const {
    const bool vertex = n < num_points;
    const int v = vertex ? n : edges.vertices(n - num_points, 0);
    const int w = vertex ? n : edges.vertices(n - num_points, 1);
    for (int j = incident.offsets(v); j < incident.offsets(v + 1); ++j) {
      const int t = incident.cells(j);
      if (vertex) {
        visit(t, impl::corner_of(cells, t, v));
        continue;
      }
      int a = -1, b = -1;
      for (int c = 0; c < 4; ++c) {
        if (cells(t, c) == v) a = c;
        if (cells(t, c) == w) b = c;
      }
      if (b >= 0) visit(t, 4 + tet_edge_index(a, b));
    }
  }
  std::size_t bytes() const {
    return (incident.offsets.span() + incident.cells.span() + edges.offsets.span() + edges.vertices.span() +
            edges.cell_edges.span()) *
           sizeof(int);
  }
};

/// A mesh's nodes of one order and the pattern of that order's matrix (nodes x nodes).
template <int Order, class MemorySpace>
struct LagrangeTopology {
  LagrangeNodes<Order, MemorySpace> nodes;
  DevicePattern<MemorySpace> pattern;
};

/// The nodes and pattern of order 1 or 2 of a checked mesh (make_device_tet_mesh).
template <int Order, class MemorySpace>
LagrangeTopology<Order, MemorySpace> lagrange_topology(const DeviceTetMesh<MemorySpace>& mesh) {
  static_assert(Order == 1 || Order == 2, "lagrange_topology: P1 and P2 elements only");
  LagrangeTopology<Order, MemorySpace> r;
  r.nodes.cells = mesh.cells;
  r.nodes.incident = vertex_cells(mesh);
  if constexpr (Order == 1) {
    r.pattern = p1_pattern(mesh, r.nodes.incident);
  } else {
    auto p2 = p2_pattern(mesh, r.nodes.incident);
    r.pattern = p2.pattern;
    r.nodes.edges = p2.edges;
    r.nodes.num_points = mesh.num_points;
  }
  return r;
}

}  // namespace compound_sparse
