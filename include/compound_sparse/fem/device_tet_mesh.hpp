#pragma once
// A tetrahedral mesh on the device, the input of finite-element assembly there: points and
// cells as Kokkos Views, checked by device kernels, and the vertex-to-cell relation built from
// it by counting, a scan and a fill, with no sort of the mesh (each vertex's few cells are put in
// increasing order by one thread, so that what is built from them is deterministic).
//
//   const auto mesh = make_device_tet_mesh(points, cells);  // View<double*[3]>, View<int*[4]>
//   const auto incident = vertex_cells(mesh);              // cells of vertex v: [offsets(v), offsets(v + 1))

#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>
#include <utility>

#include "../error.hpp"
#include "../impl/device_scan_sort.hpp"
#include "../impl/kokkos_compat.hpp"  // atomic_increment

namespace compound_sparse {

template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
struct DeviceTetMesh {
  using memory_space = MemorySpace;
  int num_points = 0;
  Kokkos::View<const double* [3], Kokkos::LayoutRight, MemorySpace> points;
  Kokkos::View<const int* [4], Kokkos::LayoutRight, MemorySpace> cells;  ///< 0-based point indices
  int num_cells() const { return static_cast<int>(cells.extent(0)); }
};

/// The cells around each vertex, as a CSR: cells(offsets(v)) .. cells(offsets(v + 1) - 1) in
/// increasing order. A vertex no cell uses has none.
template <class MemorySpace>
struct VertexCells {
  Kokkos::View<int*, MemorySpace> offsets;  ///< num_points + 1
  Kokkos::View<int*, MemorySpace> cells;    ///< 4 per cell in all
};

namespace impl {

/// Why cell t is unusable (0: it is fine): a vertex outside the points (1), a vertex twice (2),
/// no volume (3: |det| of its edge vectors at most 1e-12 of its longest edge cubed, or not a
/// number).
template <class Points, class Cells>
KOKKOS_INLINE_FUNCTION int cell_defect(const Points& points, const Cells& cells, int num_points, int t) {
  int v[4];
  for (int q = 0; q < 4; ++q) {
    v[q] = cells(t, q);
    if (v[q] < 0 || v[q] >= num_points) return 1;
  }
  for (int q = 0; q < 4; ++q)
    for (int p = 0; p < q; ++p)
      if (v[p] == v[q]) return 2;
  double e[3][3];
  double longest = 0;
  for (int q = 1; q < 4; ++q)
    for (int d = 0; d < 3; ++d) e[q - 1][d] = points(v[q], d) - points(v[0], d);
  for (int q = 0; q < 4; ++q)
    for (int p = 0; p < q; ++p) {
      double squared = 0;
      for (int d = 0; d < 3; ++d) {
        const double diff = points(v[q], d) - points(v[p], d);
        squared += diff * diff;
      }
      if (squared > longest) longest = squared;
    }
  const double det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                     e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                     e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
  // |det| > 1e-12 L^3 for the longest edge L, squared (no square root: the same bits everywhere).
  return det * det > 1e-24 * longest * longest * longest ? 0 : 3;
}

/// The first unusable cell (Kokkos::Min of its index; num_cells where there is none).
template <class Points, class Cells>
struct FirstDefectiveCell {
  Points points;
  Cells cells;
  int num_points;
  KOKKOS_INLINE_FUNCTION void operator()(int t, int& first) const {
    if (t < first && cell_defect(points, cells, num_points, t) != 0) first = t;
  }
};

/// counts(v + 1) += 1 for each vertex v of each cell.
template <class Cells, class Counts>
struct CountVertexCells {
  Cells cells;
  Counts counts;
  KOKKOS_INLINE_FUNCTION void operator()(int t) const {
    for (int q = 0; q < 4; ++q) compound_sparse::impl::atomic_increment(&counts(cells(t, q) + 1));
  }
};

/// Each cell into the lists of its four vertices, at their next free places.
template <class Cells, class Cursors, class List>
struct FillVertexCells {
  Cells cells;
  Cursors cursors;
  List list;
  KOKKOS_INLINE_FUNCTION void operator()(int t) const {
    for (int q = 0; q < 4; ++q) list(Kokkos::atomic_fetch_add(&cursors(cells(t, q)), 1)) = t;
  }
};

/// Each vertex's cells in increasing order (the fill's order depends on the threads').
template <class Offsets, class List>
struct SortVertexCells {
  Offsets offsets;
  List list;
  KOKKOS_INLINE_FUNCTION void operator()(int v) const { heap_sort(list, offsets(v), offsets(v + 1)); }
};

}  // namespace impl

/// The mesh of `points` (x, y, z per point) and `cells` (four point indices per tetrahedron),
/// Views in one memory space. Throws InvalidInput naming the first cell that has a vertex outside
/// the points, a vertex twice, or no volume; nothing is built then.
template <class Points, class Cells>
DeviceTetMesh<typename Cells::memory_space> make_device_tet_mesh(const Points& points, const Cells& cells) {
  using memory_space = typename Cells::memory_space;
  using execution_space = typename memory_space::execution_space;
  static_assert(std::is_same<typename Points::memory_space, memory_space>::value,
                "make_device_tet_mesh: points and cells must be in the same memory space");
  DeviceTetMesh<memory_space> mesh;
  mesh.num_points = static_cast<int>(points.extent(0));
  mesh.points = points;
  mesh.cells = cells;
  const int num_cells = mesh.num_cells();
  int first = num_cells;
  Kokkos::parallel_reduce(
      "compound_sparse::check_tet_mesh", Kokkos::RangePolicy<execution_space>(0, num_cells),
      impl::FirstDefectiveCell<decltype(mesh.points), decltype(mesh.cells)>{mesh.points, mesh.cells, mesh.num_points},
      Kokkos::Min<int>(first));
  if (num_cells == 0 || first >= num_cells) return mesh;
  // The message is made on the host from a copy of the bad cell and the mesh's points.
  const auto cell = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), Kokkos::subview(mesh.cells, std::make_pair(first, first + 1), Kokkos::ALL()));
  const auto host_points = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.points);
  const int why = impl::cell_defect(host_points, cell, mesh.num_points, 0);
  const char* reasons[] = {"", "has a vertex outside the mesh's points", "has a vertex twice", "has no volume"};
  COMPOUND_SPARSE_REQUIRE(false, "tetrahedral mesh: cell " << first << " (" << cell(0, 0) << ", " << cell(0, 1) << ", "
                                                           << cell(0, 2) << ", " << cell(0, 3) << ") " << reasons[why]
                                                           << " (" << mesh.num_points << " points)");
  return mesh;
}

/// The vertex-to-cell relation of a checked mesh, by device kernels: counts, a scan, a fill.
template <class MemorySpace>
VertexCells<MemorySpace> vertex_cells(const DeviceTetMesh<MemorySpace>& mesh) {
  using execution_space = typename MemorySpace::execution_space;
  const int num_cells = mesh.num_cells();
  VertexCells<MemorySpace> r;
  r.offsets = Kokkos::View<int*, MemorySpace>("compound_sparse::vertex_cell_offsets", mesh.num_points + 1);
  Kokkos::parallel_for("compound_sparse::count_vertex_cells", Kokkos::RangePolicy<execution_space>(0, num_cells),
                       impl::CountVertexCells<decltype(mesh.cells), decltype(r.offsets)>{mesh.cells, r.offsets});
  impl::exclusive_sum_in_place<execution_space>(r.offsets, mesh.num_points);
  Kokkos::View<int*, MemorySpace> cursors(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::cursors"),
                                          mesh.num_points);
  Kokkos::deep_copy(cursors, Kokkos::subview(r.offsets, std::make_pair(0, mesh.num_points)));
  r.cells =
      Kokkos::View<int*, MemorySpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::vertex_cells"),
                                      4 * static_cast<std::size_t>(num_cells));
  Kokkos::parallel_for(
      "compound_sparse::fill_vertex_cells", Kokkos::RangePolicy<execution_space>(0, num_cells),
      impl::FillVertexCells<decltype(mesh.cells), decltype(cursors), decltype(r.cells)>{mesh.cells, cursors, r.cells});
  Kokkos::parallel_for("compound_sparse::sort_vertex_cells", Kokkos::RangePolicy<execution_space>(0, mesh.num_points),
                       impl::SortVertexCells<decltype(r.offsets), decltype(r.cells)>{r.offsets, r.cells});
  return r;
}

}  // namespace compound_sparse
