#pragma once
// The boundary of a tetrahedral mesh on the device: its faces that lie on one cell only, in the
// order of their sorted vertex triples (mesh_faces.hpp), each with its corners in the order its
// cell lists them (the orientation zoo::boundary_faces gives, on which a face's computed area
// depends in its last bits), and for each vertex its boundary faces in increasing order: what a
// boundary term (P1Helmholtz's absorbing boundary) is gathered from, row by row.

#include <Kokkos_Core.hpp>

#include "../impl/device_scan_sort.hpp"
#include "../impl/kokkos_compat.hpp"  // atomic_increment
#include "../layouts/device_build.hpp"
#include "device_tet_mesh.hpp"
#include "mesh_faces.hpp"

namespace compound_sparse {

/// Boundary face b has corners corners(b, 0..2); vertex v's boundary faces are
/// vertex_faces(vertex_offsets(v)) .. vertex_faces(vertex_offsets(v + 1) - 1), increasing.
template <class MemorySpace>
struct BoundaryFaces {
  int num_faces = 0;
  Kokkos::View<int* [3], Kokkos::LayoutRight, MemorySpace> corners;
  Kokkos::View<int*, MemorySpace> vertex_offsets;
  Kokkos::View<int*, MemorySpace> vertex_faces;
};

namespace impl {

/// number(f) = the boundary faces before face f (a scan of the faces on one cell).
template <class Counts, class Numbers>
struct NumberBoundaryFaces {
  Counts cells_on;
  Numbers number;
  KOKKOS_INLINE_FUNCTION void operator()(int f, int& before, bool final) const {
    if (final) number(f) = before;
    if (cells_on(f) == 1) ++before;
  }
};

/// A boundary face's corners from its cell, skipping the corner opposite it.
template <class Cells, class CellFaces, class Counts, class Numbers, class Corners>
struct BoundaryCorners {
  Cells cells;
  CellFaces cell_faces;
  Counts cells_on;
  Numbers number;
  Corners corners;
  KOKKOS_INLINE_FUNCTION void operator()(int t) const {
    for (int q = 0; q < 4; ++q) {
      const int f = cell_faces(t, q);
      if (cells_on(f) != 1) continue;
      int k = 0;
      for (int a = 0; a < 4; ++a)
        if (a != q) corners(number(f), k++) = cells(t, a);
    }
  }
};

/// counts(v + 1) += 1 per boundary face at v (fill false), or the face into v's list.
template <class Corners, class Offsets>
struct VertexBoundaryFaces {
  Corners corners;
  Offsets offsets;
  Offsets cursors;
  Offsets list;
  bool fill;
  KOKKOS_INLINE_FUNCTION void operator()(int b) const {
    for (int i = 0; i < 3; ++i) {
      const int v = corners(b, i);
      if (fill)
        list(Kokkos::atomic_fetch_add(&cursors(v), 1)) = b;
      else
        compound_sparse::impl::atomic_increment(&offsets(v + 1));
    }
  }
};

/// Each vertex's boundary faces in increasing order (the fill's order is the threads').
template <class Offsets>
struct SortVertexBoundaryFaces {
  Offsets offsets;
  Offsets list;
  KOKKOS_INLINE_FUNCTION void operator()(int v) const { heap_sort(list, offsets(v), offsets(v + 1)); }
};

}  // namespace impl

/// The boundary faces of a checked mesh, from its vertex-to-cell relation (vertex_cells).
template <class MemorySpace>
BoundaryFaces<MemorySpace> boundary_faces(const DeviceTetMesh<MemorySpace>& mesh,
                                          const VertexCells<MemorySpace>& incident) {
  using execution_space = typename MemorySpace::execution_space;
  using index_view = Kokkos::View<int*, MemorySpace>;
  const auto faces = mesh_faces(mesh, incident);
  BoundaryFaces<MemorySpace> r;
  index_view number(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::boundary_numbers"),
                    faces.num_faces);
  Kokkos::parallel_scan("compound_sparse::number_boundary_faces",
                        Kokkos::RangePolicy<execution_space>(0, faces.num_faces),
                        impl::NumberBoundaryFaces<index_view, index_view>{faces.num_cells, number}, r.num_faces);
  r.corners = decltype(r.corners)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::boundary_corners"),
                                  r.num_faces);
  Kokkos::parallel_for(
      "compound_sparse::boundary_corners", Kokkos::RangePolicy<execution_space>(0, mesh.num_cells()),
      impl::BoundaryCorners<decltype(mesh.cells), decltype(faces.cell_faces), index_view, index_view,
                            decltype(r.corners)>{mesh.cells, faces.cell_faces, faces.num_cells, number, r.corners});
  r.vertex_offsets = index_view("compound_sparse::boundary_vertex_offsets", mesh.num_points + 1);
  const Kokkos::RangePolicy<execution_space> boundary(0, r.num_faces);
  using walk = impl::VertexBoundaryFaces<decltype(r.corners), index_view>;
  Kokkos::parallel_for("compound_sparse::count_boundary_faces", boundary,
                       walk{r.corners, r.vertex_offsets, {}, {}, false});
  impl::exclusive_sum_in_place<execution_space>(r.vertex_offsets, mesh.num_points);
  index_view cursors(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::boundary_cursors"),
                     mesh.num_points);
  Kokkos::deep_copy(cursors, Kokkos::subview(r.vertex_offsets, std::make_pair(0, mesh.num_points)));
  r.vertex_faces = index_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::boundary_faces"),
                              3 * static_cast<std::size_t>(r.num_faces));
  Kokkos::parallel_for("compound_sparse::fill_boundary_faces", boundary,
                       walk{r.corners, r.vertex_offsets, cursors, r.vertex_faces, true});
  Kokkos::parallel_for("compound_sparse::sort_boundary_faces", Kokkos::RangePolicy<execution_space>(0, mesh.num_points),
                       impl::SortVertexBoundaryFaces<index_view>{r.vertex_offsets, r.vertex_faces});
  return r;
}

}  // namespace compound_sparse
