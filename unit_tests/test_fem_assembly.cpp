// Finite-element assembly on the device (fem/): the tetrahedral mesh's checks, the
// vertex-to-cell relation, and the P1 pattern from the mesh's topology, each against what the
// host makes of the same mesh (the P1 pattern: csr_from_coo of the element matrices' positions,
// 16 per cell).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <compound_sparse/fem/p1_pattern.hpp>
#include <compound_sparse/layouts/host_csr.hpp>
#include <compound_sparse/zoo/tet_mesh.hpp>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "device_arrays.hpp"
#include "error_helpers.hpp"

namespace cs = compound_sparse;
namespace zoo = compound_sparse::zoo;
using memory_space = compound_sparse_test::device_memory_space;

namespace {

using Points = Kokkos::View<double* [3], Kokkos::LayoutRight, memory_space>;
using Cells = Kokkos::View<int* [4], Kokkos::LayoutRight, memory_space>;

Points device_points(const zoo::TetMesh& m) {
  Points points("points", m.points.size());
  const auto host = Kokkos::create_mirror_view(points);
  for (std::size_t i = 0; i < m.points.size(); ++i) {
    for (int d = 0; d < 3; ++d) host(i, d) = m.points[i][d];
  }
  Kokkos::deep_copy(points, host);
  return points;
}

Cells device_cells(const zoo::TetMesh& m) {
  Cells cells("cells", m.tets.size());
  const auto host = Kokkos::create_mirror_view(cells);
  for (std::size_t t = 0; t < m.tets.size(); ++t)
    for (int q = 0; q < 4; ++q) host(t, q) = m.tets[t][q];
  Kokkos::deep_copy(cells, host);
  return cells;
}

cs::DeviceTetMesh<memory_space> on_device(const zoo::TetMesh& m) {
  return cs::make_device_tet_mesh(device_points(m), device_cells(m));
}

/// The pattern built by sorting: csr_from_coo of every (vertex, vertex) pair of every cell.
cs::HostCsr<double> sorted_pattern(const zoo::TetMesh& m) {
  std::vector<cs::CooEntry<double>> pairs;
  for (const auto& t : m.tets)
    for (int a : t)
      for (int b : t) pairs.push_back({a, b, 1.0});
  const int n = static_cast<int>(m.points.size());
  return cs::csr_from_coo(n, n, std::move(pairs));
}

std::vector<int> to_host(const Kokkos::View<int*, memory_space>& view) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  return std::vector<int>(host.data(), host.data() + host.extent(0));
}

void expect_p1_pattern_as_sorted(const zoo::TetMesh& m) {
  const auto pattern = cs::p1_pattern(on_device(m));
  const auto want = sorted_pattern(m);
  EXPECT_EQ(pattern.num_rows, want.num_rows);
  EXPECT_EQ(pattern.num_cols, want.num_cols);
  EXPECT_EQ(to_host(pattern.row_map), want.row_offsets);
  EXPECT_EQ(to_host(pattern.entries), want.col_indices);
}

zoo::TetMesh one_tetrahedron() {
  return {{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {{0, 1, 2, 3}}};
}

/// Two tetrahedra sharing the face (1, 2, 3), and a point (4) that no cell uses.
zoo::TetMesh two_tetrahedra_and_an_unused_point() {
  return {{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {5, 5, 5}, {1, 1, 1}}, {{0, 1, 2, 3}, {5, 3, 2, 1}}};
}

/// The mesh with its cells in another order and each cell's vertices rotated: the same
/// element matrices' positions, so the same pattern.
zoo::TetMesh shuffled(zoo::TetMesh m, unsigned seed) {
  std::mt19937 rng(seed);
  std::shuffle(m.tets.begin(), m.tets.end(), rng);
  for (auto& t : m.tets) std::rotate(t.begin(), t.begin() + rng() % 4, t.end());
  return m;
}

std::string error_of(const zoo::TetMesh& m) {
  return compound_sparse_test::error_of_kind<cs::InvalidInput>([&] { on_device(m); });
}

}  // namespace

TEST(fem_assembly, P1PatternIsTheSortedPatternOfTheElementMatrices) {
  expect_p1_pattern_as_sorted(one_tetrahedron());
  expect_p1_pattern_as_sorted(two_tetrahedra_and_an_unused_point());
  expect_p1_pattern_as_sorted(zoo::box_mesh(3, 2, 2));
  expect_p1_pattern_as_sorted(zoo::box_mesh(5, 4, 3, 2.0, 1.0, 0.5));
  expect_p1_pattern_as_sorted(zoo::l_shape_mesh(4, 2));
  expect_p1_pattern_as_sorted(zoo::cylinder_mesh(4, 3));
  expect_p1_pattern_as_sorted(shuffled(zoo::box_mesh(4, 3, 3), 7u));
}

TEST(fem_assembly, P1RowLengthsAreOnePlusTheVertexDegree) {
  // The corner of one tetrahedron sees the other three; in two that share a face the two
  // apexes see four, the face's vertices five, and the unused point none.
  const auto one = cs::p1_pattern(on_device(one_tetrahedron()));
  EXPECT_EQ(to_host(one.row_map), (std::vector<int>{0, 4, 8, 12, 16}));
  const auto two = cs::p1_pattern(on_device(two_tetrahedra_and_an_unused_point()));
  EXPECT_EQ(to_host(two.row_map), (std::vector<int>{0, 4, 9, 14, 19, 19, 23}));
  // A box's interior vertex of the Kuhn cut has 14 neighbours.
  const auto box = zoo::box_mesh(2, 2, 2);
  const auto pattern = cs::p1_pattern(on_device(box));
  const auto row_map = to_host(pattern.row_map);
  const int centre = 1 + 3 * (1 + 3 * 1);
  EXPECT_EQ(row_map[centre + 1] - row_map[centre], 15);
}

TEST(fem_assembly, VertexCellsListEachVertexsCellsInOrder) {
  const auto m = shuffled(zoo::box_mesh(3, 3, 2), 11u);
  const auto incident = cs::vertex_cells(on_device(m));
  std::vector<std::vector<int>> want(m.points.size());
  for (std::size_t t = 0; t < m.tets.size(); ++t)
    for (int v : m.tets[t]) want[v].push_back(static_cast<int>(t));
  const auto offsets = to_host(incident.offsets);
  const auto cells = to_host(incident.cells);
  ASSERT_EQ(offsets.size(), m.points.size() + 1);
  for (std::size_t v = 0; v < m.points.size(); ++v)
    EXPECT_EQ(std::vector<int>(cells.begin() + offsets[v], cells.begin() + offsets[v + 1]), want[v]) << v;
}

TEST(fem_assembly, EmptyMeshHasEmptyRows) {
  zoo::TetMesh m;
  m.points = {{0, 0, 0}, {1, 0, 0}};
  const auto pattern = cs::p1_pattern(on_device(m));
  EXPECT_EQ(to_host(pattern.row_map), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(pattern.entries.extent(0), 0u);
}

TEST(fem_assembly, BadCellsAreRefusedNamingTheFirst) {
  auto m = two_tetrahedra_and_an_unused_point();
  m.tets.push_back({0, 1, 2, 6});  // cell 2: point 6 of 6
  m.tets.push_back({0, 1, 1, 3});  // cell 3: vertex 1 twice
  std::string e = error_of(m);
  EXPECT_NE(e.find("cell 2 (0, 1, 2, 6) has a vertex outside the mesh's points (6 points)"), std::string::npos) << e;

  m = two_tetrahedra_and_an_unused_point();
  m.tets.push_back({3, 1, 1, 0});
  e = error_of(m);
  EXPECT_NE(e.find("cell 2 (3, 1, 1, 0) has a vertex twice"), std::string::npos) << e;

  m = two_tetrahedra_and_an_unused_point();
  m.points.push_back({0.5, 0.5, 0});  // point 6, in the plane of points 0, 1 and 2
  m.tets.push_back({0, 1, 2, 6});
  e = error_of(m);
  EXPECT_NE(e.find("cell 2 (0, 1, 2, 6) has no volume"), std::string::npos) << e;

  m = one_tetrahedron();
  m.points[3][2] = std::numeric_limits<double>::quiet_NaN();
  e = error_of(m);
  EXPECT_NE(e.find("cell 0 (0, 1, 2, 3) has no volume"), std::string::npos) << e;

  m = one_tetrahedron();
  m.tets[0][2] = -1;
  e = error_of(m);
  EXPECT_NE(e.find("cell 0 (0, 1, -1, 3) has a vertex outside"), std::string::npos) << e;
}
