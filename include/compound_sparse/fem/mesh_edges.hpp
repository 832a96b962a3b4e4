#pragma once
// The edges of a tetrahedral mesh on the device, numbered in the order of their sorted vertex
// pairs (v, w), v < w: the nodes P2 elements add (p2_pattern.hpp). They are read off the P1
// pattern, whose row v holds v's neighbours in increasing order: v's edges to larger vertices
// are the row's entries after v, so their number per vertex, a scan, and each edge's number
// need no sort and no search of a list of pairs.

#include <Kokkos_Core.hpp>

#include "../impl/device_scan_sort.hpp"
#include "../layouts/device_build.hpp"
#include "device_tet_mesh.hpp"
#include "p1_pattern.hpp"

namespace compound_sparse {

/// Edge e joins vertices(e, 0) < vertices(e, 1); cell t's edge between its corners a < b is
/// cell_edges(t, tet_edge_index(a, b)).
template <class MemorySpace>
struct MeshEdges {
  int num_edges = 0;
  Kokkos::View<int*, MemorySpace> offsets;  ///< num_points + 1: vertex v's edges to larger vertices start here
  Kokkos::View<int* [2], Kokkos::LayoutRight, MemorySpace> vertices;
  Kokkos::View<int* [6], Kokkos::LayoutRight, MemorySpace> cell_edges;
};

/// The local number of a tetrahedron's edge between corners a != b: (0,1) (0,2) (0,3) (1,2)
/// (1,3) (2,3) are 0..5.
KOKKOS_INLINE_FUNCTION int tet_edge_index(int a, int b) {
  if (a > b) {
    const int t = a;
    a = b;
    b = t;
  }
  return a == 0 ? b - 1 : a + b;
}

namespace impl {

/// Where v sits in its own row of the P1 pattern, and the row's bounds.
template <class Pattern>
KOKKOS_INLINE_FUNCTION int own_position(const Pattern& p1, int v) {
  return pattern_position(p1.entries, p1.row_map(v), p1.row_map(v + 1), v);
}

/// The number of the edge between vertices v != w.
template <class Pattern, class Offsets>
KOKKOS_INLINE_FUNCTION int edge_number(const Pattern& p1, const Offsets& offsets, int v, int w) {
  const int low = v < w ? v : w, high = v < w ? w : v;
  const int begin = p1.row_map(low), end = p1.row_map(low + 1);
  return offsets(low) + pattern_position(p1.entries, begin, end, high) - own_position(p1, low) - 1;
}

/// offsets(v + 1) = v's edges to larger vertices (fill false), or those edges' vertices.
template <class Pattern, class Offsets, class Vertices>
struct VertexEdges {
  Pattern p1;
  Offsets offsets;
  Vertices vertices;
  bool fill;
  KOKKOS_INLINE_FUNCTION void operator()(int v) const {
    const int begin = p1.row_map(v), end = p1.row_map(v + 1);
    if (begin == end) {  // a vertex no cell uses
      if (!fill) offsets(v + 1) = 0;
      return;
    }
    const int own = own_position(p1, v);
    if (!fill) {
      offsets(v + 1) = end - begin - own - 1;
      return;
    }
    for (int k = own + 1; k < end - begin; ++k) {
      const int e = offsets(v) + k - own - 1;
      vertices(e, 0) = v;
      vertices(e, 1) = p1.entries(begin + k);
    }
  }
};

/// Each cell's six edge numbers.
template <class Cells, class Pattern, class Offsets, class CellEdges>
struct CellEdgeNumbers {
  Cells cells;
  Pattern p1;
  Offsets offsets;
  CellEdges cell_edges;
  KOKKOS_INLINE_FUNCTION void operator()(int t) const {
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b)
        cell_edges(t, tet_edge_index(a, b)) = edge_number(p1, offsets, cells(t, a), cells(t, b));
  }
};

}  // namespace impl

/// The edges of a checked mesh from its P1 pattern (p1_pattern).
template <class MemorySpace>
MeshEdges<MemorySpace> mesh_edges(const DeviceTetMesh<MemorySpace>& mesh, const DevicePattern<MemorySpace>& p1) {
  using execution_space = typename MemorySpace::execution_space;
  using offsets_view = Kokkos::View<int*, MemorySpace>;
  using vertices_view = decltype(MeshEdges<MemorySpace>::vertices);
  MeshEdges<MemorySpace> r;
  r.offsets = offsets_view("compound_sparse::edge_offsets", mesh.num_points + 1);
  const Kokkos::RangePolicy<execution_space> points(0, mesh.num_points);
  using count_kernel = impl::VertexEdges<DevicePattern<MemorySpace>, offsets_view, vertices_view>;
  Kokkos::parallel_for("compound_sparse::count_edges", points, count_kernel{p1, r.offsets, {}, false});
  impl::exclusive_sum_in_place<execution_space>(r.offsets, mesh.num_points);
  r.num_edges = static_cast<int>(impl::read_element(r.offsets, static_cast<std::size_t>(mesh.num_points)));
  r.vertices = vertices_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::edges"), r.num_edges);
  Kokkos::parallel_for("compound_sparse::fill_edges", points, count_kernel{p1, r.offsets, r.vertices, true});
  r.cell_edges = decltype(r.cell_edges)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::cell_edges"),
                                        mesh.num_cells());
  Kokkos::parallel_for(
      "compound_sparse::cell_edges", Kokkos::RangePolicy<execution_space>(0, mesh.num_cells()),
      impl::CellEdgeNumbers<decltype(mesh.cells), DevicePattern<MemorySpace>, offsets_view, decltype(r.cell_edges)>{
          mesh.cells, p1, r.offsets, r.cell_edges});
  return r;
}

}  // namespace compound_sparse
