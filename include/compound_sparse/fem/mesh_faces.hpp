#pragma once
// The triangular faces of a tetrahedral mesh on the device, numbered in the order of their
// sorted vertex triples (u, v, w), u < v < w, with the cells on each (one on the boundary).
// A face belongs to its smallest vertex u: u's faces are counted by walking u's cells (a face
// counts at its first cell, the earlier cells being searched for its other two vertices), a
// scan numbers them, and each vertex's few faces are sorted by their (v, w) keys in one thread:
// the only sort is of vertex tuples, as the method has it.

#include <Kokkos_Core.hpp>
#include <cstdint>

#include "../impl/device_scan_sort.hpp"
#include "../impl/kokkos_compat.hpp"  // atomic_increment
#include "../layouts/device_build.hpp"
#include "device_tet_mesh.hpp"

namespace compound_sparse {

/// Face f has corners vertices(f, 0) < vertices(f, 1) < vertices(f, 2) and lies on
/// num_cells(f) cells (1 or 2); cell t's face opposite its corner q is cell_faces(t, q).
template <class MemorySpace>
struct MeshFaces {
  int num_faces = 0;
  Kokkos::View<int*, MemorySpace> offsets;         ///< num_points + 1: the faces whose smallest vertex is u start here
  Kokkos::View<std::uint64_t*, MemorySpace> keys;  ///< face f's (v << 32 | w)
  Kokkos::View<int* [3], Kokkos::LayoutRight, MemorySpace> vertices;
  Kokkos::View<int* [4], Kokkos::LayoutRight, MemorySpace> cell_faces;
  Kokkos::View<int*, MemorySpace> num_cells;
};

namespace impl {

/// The sorted corners of cell t's face opposite corner q.
template <class Cells>
KOKKOS_INLINE_FUNCTION void face_corners(const Cells& cells, int t, int q, int (&f)[3]) {
  int n = 0;
  for (int a = 0; a < 4; ++a)
    if (a != q) f[n++] = cells(t, a);
  for (int i = 1; i < 3; ++i)
    for (int j = i; j > 0 && f[j - 1] > f[j]; --j) {
      const int s = f[j];
      f[j] = f[j - 1];
      f[j - 1] = s;
    }
}

KOKKOS_INLINE_FUNCTION std::uint64_t face_key(int v, int w) {
  return (static_cast<std::uint64_t>(v) << 32) | static_cast<std::uint64_t>(w);
}

/// Whether cell s has vertices v and w.
template <class Cells>
KOKKOS_INLINE_FUNCTION bool has_both(const Cells& cells, int s, int v, int w) {
  bool has_v = false, has_w = false;
  for (int a = 0; a < 4; ++a) {
    has_v = has_v || cells(s, a) == v;
    has_w = has_w || cells(s, a) == w;
  }
  return has_v && has_w;
}

/// u's faces (u their smallest vertex), each once: offsets(u + 1) = their number (fill false),
/// or their keys written from offsets(u) and sorted (fill true).
template <class Cells, class Incident, class Offsets, class Keys>
struct VertexFaces {
  Cells cells;
  Incident incident;
  Offsets offsets;
  Keys keys;
  bool fill;
  KOKKOS_INLINE_FUNCTION void operator()(int u) const {
    const int begin = incident.offsets(u), end = incident.offsets(u + 1);
    int count = 0;
    for (int j = begin; j < end; ++j) {
      const int t = incident.cells(j);
      for (int q = 0; q < 4; ++q) {
        int f[3];
        face_corners(cells, t, q, f);
        if (f[0] != u) continue;  // not u's face, or u is not its smallest vertex
        bool seen = false;
        for (int i = begin; i < j && !seen; ++i) seen = has_both(cells, incident.cells(i), f[1], f[2]);
        if (seen) continue;
        if (fill) keys(offsets(u) + count) = face_key(f[1], f[2]);
        ++count;
      }
    }
    if (fill)
      heap_sort(keys, offsets(u), offsets(u) + count);
    else
      offsets(u + 1) = count;
  }
};

/// The number of the face with sorted corners f.
template <class Offsets, class Keys>
KOKKOS_INLINE_FUNCTION int face_number(const Offsets& offsets, const Keys& keys, const int (&f)[3]) {
  const std::uint64_t key = face_key(f[1], f[2]);
  return partition_point(offsets(f[0]), offsets(f[0] + 1), [&](int i) { return keys(i) < key; });
}

/// Each face's corners, from its vertex and key.
template <class Offsets, class Keys, class Vertices>
struct FaceCorners {
  Offsets offsets;
  Keys keys;
  Vertices vertices;
  KOKKOS_INLINE_FUNCTION void operator()(int u) const {
    for (int f = offsets(u); f < offsets(u + 1); ++f) {
      vertices(f, 0) = u;
      vertices(f, 1) = static_cast<int>(keys(f) >> 32);
      vertices(f, 2) = static_cast<int>(keys(f) & 0xffffffffu);
    }
  }
};

/// Each cell's four face numbers, and one more cell on each of its faces.
template <class Cells, class Offsets, class Keys, class CellFaces, class Counts>
struct CellFaceNumbers {
  Cells cells;
  Offsets offsets;
  Keys keys;
  CellFaces cell_faces;
  Counts num_cells;
  KOKKOS_INLINE_FUNCTION void operator()(int t) const {
    for (int q = 0; q < 4; ++q) {
      int f[3];
      face_corners(cells, t, q, f);
      const int face = face_number(offsets, keys, f);
      cell_faces(t, q) = face;
      compound_sparse::impl::atomic_increment(&num_cells(face));
    }
  }
};

}  // namespace impl

/// The faces of a checked mesh, from its vertex-to-cell relation (vertex_cells).
template <class MemorySpace>
MeshFaces<MemorySpace> mesh_faces(const DeviceTetMesh<MemorySpace>& mesh, const VertexCells<MemorySpace>& incident) {
  using execution_space = typename MemorySpace::execution_space;
  using offsets_view = Kokkos::View<int*, MemorySpace>;
  using keys_view = Kokkos::View<std::uint64_t*, MemorySpace>;
  MeshFaces<MemorySpace> r;
  r.offsets = offsets_view("compound_sparse::face_offsets", mesh.num_points + 1);
  const Kokkos::RangePolicy<execution_space> points(0, mesh.num_points);
  using walk = impl::VertexFaces<decltype(mesh.cells), VertexCells<MemorySpace>, offsets_view, keys_view>;
  Kokkos::parallel_for("compound_sparse::count_faces", points, walk{mesh.cells, incident, r.offsets, {}, false});
  impl::exclusive_sum_in_place<execution_space>(r.offsets, mesh.num_points);
  r.num_faces = static_cast<int>(impl::read_element(r.offsets, static_cast<std::size_t>(mesh.num_points)));
  r.keys = keys_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::face_keys"), r.num_faces);
  Kokkos::parallel_for("compound_sparse::fill_faces", points, walk{mesh.cells, incident, r.offsets, r.keys, true});
  r.vertices =
      decltype(r.vertices)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::faces"), r.num_faces);
  Kokkos::parallel_for("compound_sparse::face_corners", points,
                       impl::FaceCorners<offsets_view, keys_view, decltype(r.vertices)>{r.offsets, r.keys, r.vertices});
  r.cell_faces = decltype(r.cell_faces)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::cell_faces"),
                                        mesh.num_cells());
  r.num_cells = offsets_view("compound_sparse::face_cells", r.num_faces);
  Kokkos::parallel_for(
      "compound_sparse::cell_faces", Kokkos::RangePolicy<execution_space>(0, mesh.num_cells()),
      impl::CellFaceNumbers<decltype(mesh.cells), offsets_view, keys_view, decltype(r.cell_faces), offsets_view>{
          mesh.cells, r.offsets, r.keys, r.cell_faces, r.num_cells});
  return r;
}

}  // namespace compound_sparse
