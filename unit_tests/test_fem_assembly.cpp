// Finite-element assembly on the device (fem/): the tetrahedral mesh's checks, the
// vertex-to-cell relation, the P1 pattern from the mesh's topology, and P1Assembly's every way
// of summing on every layout, each against what the host makes of the same mesh (the pattern:
// csr_from_coo of the element matrices' positions; the matrices: the zoo's assembly, converted).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/fem/lagrange_assembly.hpp>
#include <compound_sparse/fem/problems.hpp>
#include <compound_sparse/fem/tuned_assembly.hpp>
#include <compound_sparse/layouts/host_csr.hpp>
#include <compound_sparse/zoo/elasticity.hpp>
#include <compound_sparse/zoo/helmholtz.hpp>
#include <compound_sparse/zoo/tet_mesh.hpp>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "device_arrays.hpp"
#include "error_helpers.hpp"

namespace cs = compound_sparse;
namespace zoo = compound_sparse::zoo;
using memory_space = compound_sparse_test::device_memory_space;
using compound_sparse_test::same_arrays;
using compound_sparse_test::same_bytes;

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

/// A fan: `spokes` points on a circle around a centre, each pair of neighbours joined to the
/// centre and to a point above and one below. The centre has 2 spokes cells, more than a team's
/// scratch takes when spokes > 64 (p1_pattern's one-thread walk): a single huge row.
zoo::TetMesh fan(int spokes) {
  zoo::TetMesh m{{{0, 0, 0}, {0, 0, 1}, {0, 0, -1}}, {}};
  for (int i = 0; i < spokes; ++i) {
    const double angle = 2 * 3.141592653589793 * i / spokes;
    m.points.push_back({std::cos(angle), std::sin(angle), 0});
  }
  for (int i = 0; i < spokes; ++i) {
    const int a = 3 + i, b = 3 + (i + 1) % spokes;
    m.tets.push_back({0, a, b, 1});
    m.tets.push_back({0, b, a, 2});
  }
  return m;
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
  expect_p1_pattern_as_sorted(fan(70));
  expect_p1_pattern_as_sorted(shuffled(fan(40), 3u));
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

namespace {

using Block3 = cs::Block<double, 3>;
using C = Kokkos::complex<double>;
constexpr cs::Summation all_summations[] = {cs::Summation::per_entry, cs::Summation::per_node,
                                            cs::Summation::per_node_inline, cs::Summation::atomic_scatter,
                                            cs::Summation::coloured_scatter};

bool bit_for_bit(cs::Summation how) {
  return how == cs::Summation::per_entry || how == cs::Summation::per_node || how == cs::Summation::per_node_inline;
}

/// The meshes every way of summing is checked on: one cell, two sharing a face with a point no
/// cell uses, boxes (with row counts that are no multiple of a slice), an L, a cylinder, a
/// box with its cells shuffled and turned, and a fan (one huge row).
std::vector<std::pair<std::string, zoo::TetMesh>> assembly_meshes() {
  return {{"one tetrahedron", one_tetrahedron()},
          {"two tetrahedra", two_tetrahedra_and_an_unused_point()},
          {"box 3x2x2", zoo::box_mesh(3, 2, 2)},
          {"box 5x4x3", zoo::box_mesh(5, 4, 3, 2.0, 1.0, 0.5)},
          {"L", zoo::l_shape_mesh(4, 2)},
          {"cylinder", zoo::cylinder_mesh(4, 3)},
          {"shuffled box", shuffled(zoo::box_mesh(4, 3, 3), 5u)},
          {"fan", fan(70)}};
}

/// Whether two matrices of one layout have the same pattern and values that differ by at most
/// `tolerance` times the largest value (what an atomic or coloured sum's rounding allows).
template <class Matrix>
::testing::AssertionResult same_within(const Matrix& got, const Matrix& want, double tolerance) {
  if (!same_bytes(got.offsets, want.offsets) || !same_bytes(got.row_lengths, want.row_lengths) ||
      !same_bytes(got.col_indices, want.col_indices) || !same_bytes(got.column_bases, want.column_bases))
    return ::testing::AssertionFailure() << "the patterns differ";
  const auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got.values);
  const auto w = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), want.values);
  double largest = 0, worst = 0;
  for (std::size_t i = 0; i < w.extent(0); ++i)
    for (std::size_t c = 0; c < w.extent(1); ++c) {
      largest = std::max(largest, std::abs(w(i, c)));
      worst = std::max(worst, std::abs(g(i, c) - w(i, c)));
    }
  if (worst <= tolerance * largest) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "values differ by " << worst << " of " << largest;
}

/// Every way of summing elements of order Order on every layout gives `want` converted: bit
/// for bit for the gathers, within 1e-14 of the largest value for the scatters; a coloured
/// scatter gives the same bits every time.
template <int Order, class Entry, class Problem>
void expect_every_way_gives(const std::string& name, const zoo::TetMesh& m, const Problem& problem,
                            const cs::HostCsr<Entry>& want) {
  const auto mesh = on_device(m);
  cs::for_each_type(cs::OuterLayouts{}, [&](auto outer) {
    using Outer = typename decltype(outer)::type;
    ASSERT_EQ(cs::layout_refusal<Outer>(want), "") << name;
    cs::for_each_type(cs::InnerLayouts{}, [&](auto inner) {
      using Inner = typename decltype(inner)::type;
      const auto expected = cs::to_device<Outer, Inner>(want);
      for (const auto how : all_summations) {
        const std::string what = name + " in " + Outer::name() + "." + Inner::name() + " by " + cs::summation_name(how);
        const cs::LagrangeAssembly<Order, Entry, Outer, Inner, memory_space> assembly(mesh, how);
        assembly.assemble(problem);
        if (bit_for_bit(how)) {
          EXPECT_TRUE(same_arrays(assembly.matrix(), expected)) << what;
          continue;
        }
        EXPECT_TRUE(same_within(assembly.matrix(), expected, 1e-14)) << what;
        if (how != cs::Summation::coloured_scatter) continue;
        const auto first = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), assembly.matrix().values);
        assembly.assemble(problem);
        EXPECT_TRUE(same_bytes(first, assembly.matrix().values)) << what << ": a second assembly differs";
      }
    });
  });
}

}  // namespace

// The per-non-zero kernels (the per-entry map, P2's per_node gather) find their row by a
// search of the offsets, which must step over empty rows, first, inner and last.
TEST(fem_assembly, RowOfEntrySkipsEmptyRows) {
  const std::vector<int> offsets_list{0, 0, 2, 2, 2, 5, 6, 6};
  Kokkos::View<int*, Kokkos::HostSpace> offsets("offsets", offsets_list.size());
  for (std::size_t i = 0; i < offsets_list.size(); ++i) offsets(i) = offsets_list[i];
  const int num_rows = static_cast<int>(offsets_list.size()) - 1;
  const std::vector<int> want{1, 1, 4, 4, 4, 5};
  for (int p = 0; p < 6; ++p) EXPECT_EQ(cs::impl::row_of_entry(offsets, num_rows, p), want[p]) << "entry " << p;
}

TEST(fem_assembly, EveryWayGivesTheZoosElasticityMatrixOnEveryLayout) {
  const double lambda = 1.7, mu = 0.45;
  for (const auto& named : assembly_meshes())
    expect_every_way_gives<1>(
        named.first, named.second,
        cs::uniform_elasticity<memory_space>(static_cast<int>(named.second.tets.size()), lambda, mu),
        zoo::elasticity_matrix(named.second, lambda, mu));
}

TEST(fem_assembly, EveryWayGivesTheZoosHelmholtzMatrixOnEveryLayout) {
  // The cells' terms and the absorbing boundary's, on every boundary face.
  for (const auto& named : assembly_meshes())
    expect_every_way_gives<1>(named.first, named.second, cs::P1Helmholtz{2.5},
                              zoo::helmholtz_matrix(named.second, 2.5));
}

// A refresh with new coefficients (Young's modulus per cell) reuses the assembly: pattern,
// layout and map; its matrix is the host's for the new coefficients.
TEST(fem_assembly, NewCoefficientsPerCellReuseTheAssembly) {
  const auto m = shuffled(zoo::box_mesh(5, 3, 4), 3u);
  const int cells = static_cast<int>(m.tets.size());
  std::vector<double> lambda(cells), mu(cells);
  for (int t = 0; t < cells; ++t) {
    const auto lame = zoo::lame_parameters(1.0 + 0.5 * std::sin(t), 0.3);
    lambda[t] = lame.first;
    mu[t] = lame.second;
  }
  const cs::P1Elasticity<memory_space> varying{compound_sparse_test::device_copy(lambda),
                                               compound_sparse_test::device_copy(mu)};
  const int n = static_cast<int>(m.points.size());
  const auto want = cs::csr_from_coo(n, n, zoo::elasticity_contributions(m, lambda, mu));
  const auto mesh = on_device(m);
  for (const auto how : all_summations) {
    if (!bit_for_bit(how)) continue;
    const cs::P1Assembly<Block3, cs::SlicedEll<32>, cs::Soa, memory_space> assembly(mesh, how);
    assembly.assemble(cs::uniform_elasticity<memory_space>(cells, 2.0, 1.0));
    EXPECT_TRUE(
        same_arrays(assembly.matrix(), cs::to_device<cs::SlicedEll<32>, cs::Soa>(zoo::elasticity_matrix(m, 2.0, 1.0))))
        << cs::summation_name(how);
    assembly.assemble(varying);
    EXPECT_TRUE(same_arrays(assembly.matrix(), cs::to_device<cs::SlicedEll<32>, cs::Soa>(want)))
        << cs::summation_name(how);
  }
}

TEST(fem_assembly, DirichletRowsAsTheZoosOnTheDevice) {
  const auto m = zoo::box_mesh(4, 3, 5);
  std::vector<char> fixed(m.points.size());
  for (std::size_t p = 0; p < m.points.size(); ++p) fixed[p] = m.points[p][2] == 0 || m.points[p][0] == 1;
  auto want = zoo::elasticity_matrix(m, 1.0, 0.5);
  zoo::apply_dirichlet(want, fixed);
  Block3 identity{};
  for (int i = 0; i < 3; ++i) identity(i, i) = 1;
  const auto mesh = on_device(m);
  const auto flags = compound_sparse_test::device_copy(fixed);
  const cs::P1Assembly<Block3, cs::SlicedEll<32, 16>, cs::Aos, memory_space> padded(mesh, cs::Summation::per_entry);
  padded.assemble(cs::uniform_elasticity<memory_space>(mesh.num_cells(), 1.0, 0.5));
  padded.apply_dirichlet(flags, identity);
  EXPECT_TRUE(same_arrays(padded.matrix(), cs::to_device<cs::SlicedEll<32, 16>, cs::Aos>(want)));
  const cs::P1Assembly<Block3, cs::Csr, cs::Soa, memory_space> csr(mesh, cs::Summation::per_node_inline);
  csr.assemble(cs::uniform_elasticity<memory_space>(mesh.num_cells(), 1.0, 0.5));
  csr.apply_dirichlet(flags, identity);
  EXPECT_TRUE(same_arrays(csr.matrix(), cs::to_device<cs::Csr, cs::Soa>(want)));
}

TEST(fem_assembly, WrongCoefficientsAndFlagsAreRefusedBeforeAnyWrite) {
  const auto m = two_tetrahedra_and_an_unused_point();
  const auto mesh = on_device(m);
  const cs::P1Assembly<Block3, cs::Csr, cs::Aos, memory_space> assembly(mesh, cs::Summation::per_node);
  assembly.assemble(cs::uniform_elasticity<memory_space>(2, 1.0, 0.5));
  const auto before = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), assembly.matrix().values);
  const std::string e = compound_sparse_test::error_of_kind<cs::InvalidInput>(
      [&] { assembly.assemble(cs::uniform_elasticity<memory_space>(3, 1.0, 0.5)); });
  EXPECT_NE(e.find("P1Elasticity: 3 lambdas and 3 mus for 2 cells"), std::string::npos) << e;
  const std::string flags = compound_sparse_test::error_of_kind<cs::InvalidInput>(
      [&] { assembly.apply_dirichlet(compound_sparse_test::device_copy(std::vector<char>(5, 1)), Block3{}); });
  EXPECT_NE(flags.find("apply_dirichlet: 5 flags for 6 nodes"), std::string::npos) << flags;
  const std::string way = compound_sparse_test::error_of_kind<cs::InvalidInput>(
      [&] { cs::P1Assembly<Block3, cs::Csr, cs::Aos, memory_space>(mesh, static_cast<cs::Summation>(7)); });
  EXPECT_NE(way.find("summation 7 is none of Summation's values"), std::string::npos) << way;
  EXPECT_TRUE(same_bytes(before, assembly.matrix().values));
}

TEST(fem_assembly, NoTwoCellsOfAColourShareAVertex) {
  const auto m = shuffled(zoo::box_mesh(6, 5, 4), 9u);
  const auto mesh = on_device(m);
  const auto colouring = cs::colour_cells(mesh, cs::vertex_cells(mesh));
  const auto cells = to_host(colouring.cells);
  ASSERT_EQ(colouring.offsets.front(), 0);
  ASSERT_EQ(colouring.offsets.back(), static_cast<int>(m.tets.size()));
  EXPECT_EQ(std::set<int>(cells.begin(), cells.end()).size(), m.tets.size());  // each cell once
  EXPECT_LT(colouring.num_colours(), 100);
  for (int c = 0; c < colouring.num_colours(); ++c) {
    std::set<int> vertices;
    for (int i = colouring.offsets[c]; i < colouring.offsets[c + 1]; ++i)
      for (int v : m.tets[cells[i]]) EXPECT_TRUE(vertices.insert(v).second) << "colour " << c << " vertex " << v;
  }
}

namespace {

/// The P2 pattern built by sorting: csr_from_coo of every pair of each cell's ten nodes (its
/// points, then its edges as num_points + their index in zoo::mesh_edges).
cs::HostCsr<double> sorted_p2_pattern(const zoo::TetMesh& m) {
  const auto edges = zoo::mesh_edges(m);
  const int n = static_cast<int>(m.points.size());
  std::vector<cs::CooEntry<double>> pairs;
  for (const auto& t : m.tets) {
    std::vector<int> nodes(t.begin(), t.end());
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) {
        const std::array<int, 2> e{std::min(t[a], t[b]), std::max(t[a], t[b])};
        nodes.push_back(n + static_cast<int>(std::lower_bound(edges.begin(), edges.end(), e) - edges.begin()));
      }
    for (int i : nodes)
      for (int j : nodes) pairs.push_back({i, j, 1.0});
  }
  const int size = n + static_cast<int>(edges.size());
  return cs::csr_from_coo(size, size, std::move(pairs));
}

template <class View>
std::vector<int> flat_to_host(const View& view) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  return std::vector<int>(host.data(), host.data() + host.span());
}

}  // namespace

TEST(fem_assembly, P2PatternIsTheSortedPatternOfTheElementMatrices) {
  for (const auto& named : assembly_meshes()) {
    const auto& m = named.second;
    const auto p2 = cs::p2_pattern(on_device(m));
    const auto want = sorted_p2_pattern(m);
    EXPECT_EQ(p2.pattern.num_rows, want.num_rows) << named.first;
    EXPECT_EQ(to_host(p2.pattern.row_map), want.row_offsets) << named.first;  // the counting formulas
    EXPECT_EQ(to_host(p2.pattern.entries), want.col_indices) << named.first;
    // The edges, in the order of their vertex pairs, and each cell's.
    const auto edges = zoo::mesh_edges(m);
    ASSERT_EQ(p2.edges.num_edges, static_cast<int>(edges.size())) << named.first;
    const auto vertices = flat_to_host(p2.edges.vertices);
    const auto cell_edges = flat_to_host(p2.edges.cell_edges);
    for (std::size_t e = 0; e < edges.size(); ++e)
      EXPECT_TRUE(vertices[2 * e] == edges[e][0] && vertices[2 * e + 1] == edges[e][1]) << named.first << " edge " << e;
    for (std::size_t t = 0; t < m.tets.size(); ++t)
      for (int a = 0; a < 4; ++a)
        for (int b = a + 1; b < 4; ++b) {
          const int e = cell_edges[6 * t + cs::tet_edge_index(a, b)];
          EXPECT_EQ(std::min(vertices[2 * e], vertices[2 * e + 1]), std::min(m.tets[t][a], m.tets[t][b]));
          EXPECT_EQ(std::max(vertices[2 * e], vertices[2 * e + 1]), std::max(m.tets[t][a], m.tets[t][b]));
        }
  }
}

TEST(fem_assembly, EveryWayGivesTheZoosP2ElasticityMatrixOnEveryLayout) {
  // Rows: the points, then the edges; each slot sums its cells' entries in cell order, as the
  // host's csr_from_coo of zoo::p2_elasticity_contributions does.
  const double lambda = 1.7, mu = 0.45;
  for (const auto& named : assembly_meshes()) {
    const auto& m = named.second;
    const int nodes = static_cast<int>(m.points.size() + zoo::mesh_edges(m).size());
    const auto p1 = cs::uniform_elasticity<memory_space>(static_cast<int>(m.tets.size()), lambda, mu);
    expect_every_way_gives<2>(named.first, m, cs::P2Elasticity<memory_space>{p1.lambda, p1.mu},
                              cs::csr_from_coo(nodes, nodes, zoo::p2_elasticity_contributions(m, lambda, mu)));
  }
}

// New coefficients per cell and Dirichlet rows on P2 nodes (points and edges), as the host's.
TEST(fem_assembly, P2CoefficientsPerCellAndDirichletRowsAsTheHosts) {
  const auto m = shuffled(zoo::box_mesh(3, 4, 2), 7u);
  const int cells = static_cast<int>(m.tets.size()), n = static_cast<int>(m.points.size());
  const auto edges = zoo::mesh_edges(m);
  const int nodes = n + static_cast<int>(edges.size());
  const auto mesh = on_device(m);
  const cs::P2Assembly<Block3, cs::SlicedEll<16>, cs::Soa, memory_space> assembly(mesh, cs::Summation::per_entry);
  EXPECT_EQ(assembly.matrix().num_rows, nodes);
  // A node is fixed where it lies on the face z = 0: a point there, or an edge with both ends there.
  std::vector<char> fixed(nodes);
  for (int p = 0; p < n; ++p) fixed[p] = m.points[p][2] == 0;
  for (std::size_t e = 0; e < edges.size(); ++e) fixed[n + e] = fixed[edges[e][0]] && fixed[edges[e][1]];
  Block3 identity{};
  for (int i = 0; i < 3; ++i) identity(i, i) = 1;
  for (int step = 0; step < 2; ++step) {
    std::vector<double> lambda(cells), mu(cells);
    for (int t = 0; t < cells; ++t) {
      const auto lame = zoo::lame_parameters(1.0 + 0.5 * std::sin(t + 3.0 * step), 0.3);
      lambda[t] = lame.first;
      mu[t] = lame.second;
    }
    assembly.assemble(cs::P2Elasticity<memory_space>{compound_sparse_test::device_copy(lambda),
                                                     compound_sparse_test::device_copy(mu)});
    assembly.apply_dirichlet(compound_sparse_test::device_copy(fixed), identity);
    auto want = cs::csr_from_coo(nodes, nodes, zoo::p2_elasticity_contributions(m, lambda, mu));
    zoo::apply_dirichlet(want, fixed);
    EXPECT_TRUE(same_arrays(assembly.matrix(), cs::to_device<cs::SlicedEll<16>, cs::Soa>(want))) << "step " << step;
  }
  // A P2 assembly adopts a matrix with the P2 pattern, and refuses the P1 one (its size).
  const cs::P2Assembly<Block3, cs::SlicedEll<16>, cs::Soa, memory_space> adopted(mesh, cs::Summation::atomic_scatter,
                                                                                 assembly.matrix());
  const cs::P1Assembly<Block3, cs::SlicedEll<16>, cs::Soa, memory_space> p1(mesh, cs::Summation::per_node);
  const std::string e = compound_sparse_test::error_of_kind<cs::InvalidInput>([&] {
    cs::P2Assembly<Block3, cs::SlicedEll<16>, cs::Soa, memory_space>(mesh, cs::Summation::per_node, p1.matrix());
  });
  EXPECT_NE(e.find("matrix for a mesh of " + std::to_string(nodes) + " nodes"), std::string::npos) << e;
}

TEST(fem_assembly, P2RowLengthsFollowTheCountingFormulas) {
  // One tetrahedron: a vertex sees 4 vertices and 6 edges (1 + 2*3 + 3), an edge the same (3 +
  // 3*2 + 1). Two sharing face (1, 2, 3): vertex 1 has 4 edges and 5 faces, 1 + 8 + 5 = 14; the
  // shared edge (1, 2) has 3 faces and 2 cells, 3 + 9 + 2 = 14; edge (0, 1) 3 + 6 + 1 = 10.
  const auto one = cs::p2_pattern(on_device(one_tetrahedron()));
  const auto lengths = [](const std::vector<int>& row_map) {
    std::vector<int> l;
    for (std::size_t i = 0; i + 1 < row_map.size(); ++i) l.push_back(row_map[i + 1] - row_map[i]);
    return l;
  };
  EXPECT_EQ(lengths(to_host(one.pattern.row_map)), std::vector<int>(10, 10));
  const auto two = cs::p2_pattern(on_device(two_tetrahedra_and_an_unused_point()));
  const auto l = lengths(to_host(two.pattern.row_map));
  // Points 0..5 (4 unused), then the edges in order: (0,1) (0,2) (0,3) (1,2) (1,3) (1,5) (2,3) (2,5) (3,5).
  EXPECT_EQ(l, (std::vector<int>{10, 14, 14, 14, 0, 10, 10, 10, 10, 14, 14, 10, 14, 10, 10}));
}

TEST(fem_assembly, P2PatternRefusesACellGivenTwice) {
  // A copy of cell 0 with its vertices in another (even) order: each of cell 0's six edges
  // counts one cell more than its row holds.
  auto m = two_tetrahedra_and_an_unused_point();
  const auto t = m.tets[0];
  m.tets.push_back({t[1], t[2], t[0], t[3]});
  const std::string e = compound_sparse_test::error_of_kind<cs::InvalidInput>([&] { cs::p2_pattern(on_device(m)); });
  EXPECT_NE(e.find("P2 pattern: 6 rows differ from their counted lengths; does a cell repeat another's four "
                   "vertices?"),
            std::string::npos)
      << e;
}

TEST(fem_assembly, FacesAreTheSortedTriplesWithTheirCells) {
  const auto m = shuffled(zoo::box_mesh(3, 3, 2), 13u);
  const auto mesh = on_device(m);
  const auto faces = cs::mesh_faces(mesh, cs::vertex_cells(mesh));
  std::vector<std::array<int, 3>> all;
  for (const auto& t : m.tets)
    for (int q = 0; q < 4; ++q) {
      std::array<int, 3> f;
      int k = 0;
      for (int a = 0; a < 4; ++a)
        if (a != q) f[k++] = t[a];
      std::sort(f.begin(), f.end());
      all.push_back(f);
    }
  std::sort(all.begin(), all.end());
  std::vector<std::array<int, 3>> unique_faces = all;
  unique_faces.erase(std::unique(unique_faces.begin(), unique_faces.end()), unique_faces.end());
  ASSERT_EQ(faces.num_faces, static_cast<int>(unique_faces.size()));
  const auto vertices = flat_to_host(faces.vertices);
  const auto cells_on = to_host(faces.num_cells);
  int boundary = 0;
  for (std::size_t f = 0; f < unique_faces.size(); ++f) {
    EXPECT_TRUE(vertices[3 * f] == unique_faces[f][0] && vertices[3 * f + 1] == unique_faces[f][1] &&
                vertices[3 * f + 2] == unique_faces[f][2])
        << "face " << f;
    EXPECT_EQ(cells_on[f], std::count(all.begin(), all.end(), unique_faces[f])) << "face " << f;
    boundary += cells_on[f] == 1;
  }
  EXPECT_EQ(boundary, static_cast<int>(zoo::boundary_faces(m).size()));
}

TEST(fem_assembly, AMeshWithoutCellsAssemblesToEmptyRows) {
  zoo::TetMesh m;
  m.points = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  const auto mesh = on_device(m);
  for (const auto how : all_summations) {
    const cs::P1Assembly<C, cs::SlicedEll<32>, cs::Aos, memory_space> assembly(mesh, how);
    assembly.assemble(cs::P1Helmholtz{1.0});
    EXPECT_EQ(assembly.matrix().num_rows, 3) << cs::summation_name(how);
    EXPECT_EQ(assembly.matrix().num_entries, 0u) << cs::summation_name(how);
    EXPECT_EQ(assembly.num_colours(), 0) << cs::summation_name(how);
  }
  const auto p2 = cs::p2_pattern(mesh);
  EXPECT_EQ(p2.edges.num_edges, 0);
  EXPECT_EQ(to_host(p2.pattern.row_map), (std::vector<int>{0, 0, 0, 0}));
}

TEST(fem_assembly, ALayoutOverTheBudgetIsRefusedBeforeAnyValue) {
  const auto mesh = on_device(zoo::box_mesh(3, 3, 3));
  const std::string e = compound_sparse_test::error_of_kind<cs::BudgetExceeded>([&] {
    cs::P1Assembly<Block3, cs::Ell, cs::Soa, memory_space>(mesh, cs::Summation::per_entry, cs::MemoryBudget{1000});
  });
  EXPECT_NE(e.find("1000"), std::string::npos) << e;
}

// The layout TunedSpmv chooses from the P1 pattern alone (no values yet) is the one it chooses
// for the assembled host matrix; P1Assembly writes straight into it, and the tuned product then
// multiplies with the assembled values.
TEST(fem_assembly, TheTunedLayoutChosenFromThePatternTakesTheAssembly) {
  const auto m = shuffled(zoo::box_mesh(5, 3, 4), 17u);
  const auto mesh = on_device(m);
  const auto host = zoo::elasticity_matrix(m, 1.2, 0.6);
  cs::TunedSpmvOptions options;
  options.vector_layout = "aos";
  const auto topology = cs::lagrange_topology<1>(mesh);  // for the choice and the assembly
  const auto tuned = cs::tuned_spmv_of_pattern<Block3>(topology.pattern, options);
  const cs::TunedSpmv<Block3> from_host(host, options);
  EXPECT_EQ(tuned.variant().name(), from_host.variant().name());
  int calls = 0;
  cs::with_tuned_layout(tuned, [&](const auto& matrix) {
    using M = std::decay_t<decltype(matrix)>;
    using Outer = typename M::outer_layout;
    using Inner = typename M::inner_layout;
    ++calls;
    const cs::P1Assembly<Block3, Outer, Inner, memory_space> assembly(mesh, topology, cs::Summation::per_node_inline,
                                                                      matrix);
    assembly.assemble(cs::uniform_elasticity<memory_space>(mesh.num_cells(), 1.2, 0.6));
    EXPECT_TRUE(same_arrays(matrix, cs::to_device<Outer, Inner>(host)));
    // The constructor that builds the topology itself writes the same matrix, from zeros.
    auto zeros = host;
    std::fill(zeros.values.begin(), zeros.values.end(), Block3{});
    const auto copy = cs::to_device<Outer, Inner>(zeros);
    const cs::P1Assembly<Block3, Outer, Inner, memory_space> own(mesh, cs::Summation::per_entry, copy);
    own.assemble(cs::uniform_elasticity<memory_space>(mesh.num_cells(), 1.2, 0.6));
    EXPECT_TRUE(same_arrays(copy, matrix));
    // The topology of another mesh is refused.
    const auto twin = on_device(m);  // the same cells in other Views
    const std::string wrong_mesh = compound_sparse_test::error_of_kind<cs::InvalidInput>(
        [&] { cs::P1Assembly<Block3, Outer, Inner, memory_space>(twin, topology, cs::Summation::per_entry, matrix); });
    EXPECT_NE(wrong_mesh.find("the topology given is not of this mesh"), std::string::npos) << wrong_mesh;
    // A matrix of another pattern (another box of as many points) is refused, naming the row.
    const auto other =
        cs::to_device<Outer, Inner>(zoo::elasticity_matrix(zoo::box_mesh(3, 4, 5), 1.0, 1.0));  // 120 points too
    const std::string e = compound_sparse_test::error_of_kind<cs::InvalidInput>(
        [&] { cs::P1Assembly<Block3, Outer, Inner, memory_space>(mesh, cs::Summation::per_entry, other); });
    EXPECT_NE(e.find("of the matrix differs from the mesh's P1 pattern"), std::string::npos) << e;
  });
  EXPECT_EQ(calls, 1);
  std::vector<cs::BlockVector<double, 3>> x(m.points.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = {{1.0 + i % 3, -0.5, 0.25 * (i % 7)}};
  const auto y = tuned.make_vector(std::vector<cs::BlockVector<double, 3>>(x.size()));
  const auto y_host = from_host.make_vector(std::vector<cs::BlockVector<double, 3>>(x.size()));
  tuned.apply(1.0, tuned.make_vector(x), 0.0, y);
  from_host.apply(1.0, from_host.make_vector(x), 0.0, y_host);
  const auto got = y.to_host(), want = y_host.to_host();
  EXPECT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(got[0])));
  const std::string refused = compound_sparse_test::error_of_kind<cs::InvalidInput>([&] {
    cs::TunedSpmvOptions with_transposes;
    with_transposes.transposes = {cs::Op::T};
    cs::tuned_spmv_of_pattern<Block3>(cs::p1_pattern(mesh), with_transposes);
  });
  EXPECT_NE(refused.find("transposed copies"), std::string::npos) << refused;
}
