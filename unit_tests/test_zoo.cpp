// Matrix zoo generators: meshes, Loop subdivision, the quaternionic Dirac operator,
// elasticity and Helmholtz matrices (the symmetries and null spaces their
// constructions imply), row statistics, and exact Matrix Market round trips.
#include <gtest/gtest.h>

#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/io/matrix_market.hpp>
#include <compound_sparse/zoo/dirac.hpp>
#include <compound_sparse/zoo/elasticity.hpp>
#include <compound_sparse/zoo/helmholtz.hpp>
#include <compound_sparse/zoo/row_statistics.hpp>
#include <compound_sparse/zoo/tet_mesh.hpp>
#include <compound_sparse/zoo/triangle_mesh.hpp>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>

namespace cs = compound_sparse;
namespace io = compound_sparse::io;
namespace zoo = compound_sparse::zoo;
using C = Kokkos::complex<double>;
using Q = cs::Quaternion<double>;
using B3 = cs::Block<double, 3>;

namespace {

std::string error_of_obj(const std::string& text) {
  std::istringstream in(text);
  try {
    zoo::read_obj(in, "bad.obj");
  } catch (const cs::Error& e) {
    return e.what();
  }
  return "no exception";
}

template <class Entry>
void expect_round_trip_exact(const cs::HostCsr<Entry>& a, io::Symmetry s) {
  std::stringstream file;
  io::write_matrix_market(file, a, s);
  const auto b = io::read_matrix_market<Entry>(file, "zoo.mtx");
  EXPECT_EQ(a.row_offsets, b.row_offsets);
  EXPECT_EQ(a.col_indices, b.col_indices);
  ASSERT_EQ(a.values.size(), b.values.size());
  EXPECT_EQ(std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(Entry)), 0);
}

/// y = K x for a block matrix and point-wise 3-vectors.
std::vector<zoo::Point3> multiply(const cs::HostCsr<B3>& k, const std::vector<zoo::Point3>& x) {
  std::vector<zoo::Point3> y(k.num_rows, zoo::Point3{0, 0, 0});
  for (int r = 0; r < k.num_rows; ++r)
    for (int p = k.row_offsets[r]; p < k.row_offsets[r + 1]; ++p)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) y[r][i] += k.values[p](i, j) * x[k.col_indices[p]][j];
  return y;
}

double max_abs(const std::vector<zoo::Point3>& v) {
  double m = 0;
  for (const auto& p : v)
    for (double c : p) m = std::max(m, std::abs(c));
  return m;
}

double total_volume(const zoo::TetMesh& m) {
  double v = 0;
  for (int t = 0; t < static_cast<int>(m.tets.size()); ++t) v += zoo::tet_volume(m, t);
  return v;
}

zoo::TriangleMesh octahedron() {
  zoo::TriangleMesh m;
  m.vertices = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  m.triangles = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
  return m;
}

}  // namespace

TEST(Obj, ReadsVerticesAndFaces) {
  std::istringstream in(
      "# comment\nmtllib x.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\r\nv 0 1 0 1.0\nvt 0 0\nvn 0 0 1\n"
      "f 1/1/1 2/1/1 3/1/1\nf -4//1 -2//1 -1//1\ng quads\nf 1 2 3 4\n");
  const auto m = zoo::read_obj(in, "ok.obj");
  ASSERT_EQ(m.vertices.size(), 4u);
  EXPECT_EQ(m.vertices[2], (zoo::Point3{1, 1, 0}));
  ASSERT_EQ(m.triangles.size(), 4u);
  EXPECT_EQ(m.triangles[1], (std::array<int, 3>{0, 2, 3}));
  EXPECT_EQ(m.triangles[3], (std::array<int, 3>{0, 2, 3}));  // quad split into a fan
}

TEST(Obj, MalformedFilesNameFileLineAndReason) {
  EXPECT_NE(error_of_obj("v 0 0\n").find("bad.obj:1: vertex needs 3 coordinates, got 2"), std::string::npos);
  EXPECT_NE(error_of_obj("v 0 0 nan\n").find("bad.obj:1: 'nan' is not a finite coordinate"), std::string::npos);
  EXPECT_NE(error_of_obj("v 0 0 0\nv 1 0 0\nf 1 2\n").find("bad.obj:3: face needs at least 3 corners, got 2"),
            std::string::npos);
  EXPECT_NE(error_of_obj("v 0 0 0\nf 1 2 3\n").find("bad.obj:2: face corner '2' refers to vertex 2 of 1"),
            std::string::npos);
  EXPECT_NE(error_of_obj("v 0 0 0\nf 1 0 1\n").find("bad.obj:2: face corner '0'"), std::string::npos);
  EXPECT_NE(error_of_obj("v 0 0 0\nf a/1 1 1\n").find("bad.obj:2: face corner 'a/1'"), std::string::npos);
  EXPECT_NE(error_of_obj("v 0 0 0\n").find("bad.obj: no faces"), std::string::npos);
}

TEST(Obj, ErrorsQuoteBinaryInputEscapedAndNameDirectories) {
  const std::string garbage =
      error_of_obj("v 0 0 0\nf 1 " + std::string("\x1b[2J\x00\xff", 6) + std::string(100, 'x') + "\n");
  EXPECT_NE(garbage.find("bad.obj:2: face corner '\\x1b[2J\\x00\\xff" + std::string(34, 'x') + "...' does not start"),
            std::string::npos)
      << garbage;
  try {
    zoo::read_obj(::testing::TempDir());
    FAIL() << "expected an exception";
  } catch (const cs::IoError& e) {
    EXPECT_NE(std::string(e.what()).find("it is a directory, not a file"), std::string::npos) << e.what();
  }
}

TEST(TriangleMesh, CleanDropsDegenerateTrianglesAndUnusedVertices) {
  zoo::TriangleMesh m;
  m.vertices = {{9, 9, 9}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {2, 0, 0}};
  m.triangles = {{1, 2, 3}, {1, 2, 4}, {1, 1, 3}};  // second: collinear; third: repeated corner
  const auto c = zoo::clean_mesh(m);
  ASSERT_EQ(c.triangles.size(), 1u);
  EXPECT_EQ(c.triangles[0], (std::array<int, 3>{0, 1, 2}));
  EXPECT_EQ(c.vertices.size(), 3u);
  EXPECT_EQ(c.vertices[0], (zoo::Point3{0, 0, 0}));
}

TEST(TriangleMesh, LoopSubdivisionRules) {
  const auto s = zoo::loop_subdivide(octahedron());
  ASSERT_EQ(s.vertices.size(), 6u + 12u);  // old vertices, then one per edge
  EXPECT_EQ(s.triangles.size(), 32u);
  EXPECT_EQ(zoo::count_boundary_edges(s), 0);
  // Valence 4: beta = (5/8 - (3/8 + cos(pi/2)/4)^2) / 4; the neighbours sum to zero.
  const double beta = (0.625 - 0.375 * 0.375) / 4;
  EXPECT_NEAR(s.vertices[4][2], 1 - 4 * beta, 1e-15);
  EXPECT_NEAR(s.vertices[4][0], 0, 1e-15);
  // Edge (0, 4): 3/8 of each end, 1/8 of the opposite corners 2 and 3 (which cancel).
  bool found = false;
  for (std::size_t v = 6; v < s.vertices.size(); ++v)
    found = found || (std::abs(s.vertices[v][0] - 0.375) < 1e-15 && std::abs(s.vertices[v][1]) < 1e-15 &&
                      std::abs(s.vertices[v][2] - 0.375) < 1e-15);
  EXPECT_TRUE(found);

  // Open mesh: a square of two triangles keeps its boundary on the cubic B-spline rules.
  zoo::TriangleMesh square;
  square.vertices = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
  square.triangles = {{0, 1, 2}, {0, 2, 3}};
  const auto q = zoo::loop_subdivide(square);
  EXPECT_EQ(q.vertices.size(), 4u + 5u);
  EXPECT_EQ(zoo::count_boundary_edges(q), 8);
  // Corner 1 has two boundary neighbours (0 and 2): 3/4 (1,0) + 1/8 ((0,0) + (1,1)).
  EXPECT_DOUBLE_EQ(q.vertices[1][0], 0.875);
  EXPECT_DOUBLE_EQ(q.vertices[1][1], 0.125);
  for (const auto& p : q.vertices) EXPECT_EQ(p[2], 0.0);

  const auto torus = zoo::torus_mesh(12, 6);
  const auto t2 = zoo::loop_subdivide(torus);
  EXPECT_EQ(t2.vertices.size(), 72u + 216u);  // V + E, E = 3F/2 on a closed surface
  EXPECT_EQ(zoo::count_boundary_edges(t2), 0);
}

TEST(Dirac, IsQuaternionHermitianWithLaplacianSparsity) {
  const auto mesh = zoo::loop_subdivide(zoo::torus_mesh(16, 8));
  std::vector<double> rho(mesh.triangles.size());
  for (std::size_t f = 0; f < rho.size(); ++f) rho[f] = std::sin(0.37 * f);
  const auto e = zoo::dirac_operator(mesh, rho);
  ASSERT_EQ(e.num_rows, static_cast<int>(mesh.vertices.size()));
  EXPECT_NO_THROW(cs::validate(e));
  // E_ji = conj(E_ij) exactly, checked independently of io::require_symmetry.
  for (int r = 0; r < e.num_rows; ++r)
    for (int p = e.row_offsets[r]; p < e.row_offsets[r + 1]; ++p) {
      const int c = e.col_indices[p];
      const auto begin = e.col_indices.begin() + e.row_offsets[c], end = e.col_indices.begin() + e.row_offsets[c + 1];
      const auto it = std::lower_bound(begin, end, r);
      ASSERT_TRUE(it != end && *it == r);
      EXPECT_EQ(e.values[it - e.col_indices.begin()], e.values[p].conjugate()) << r << ", " << c;
      if (r == c) {
        EXPECT_GT(e.values[p].w, 0);
      }
    }
  EXPECT_NO_THROW(io::require_symmetry(e, io::Symmetry::hermitian));
  EXPECT_THROW(io::require_symmetry(e, io::Symmetry::symmetric), cs::Error);  // not symmetric: it is hermitian
  // The torus after one Loop step is regular: every vertex has 6 neighbours.
  const auto stats = zoo::row_statistics(e);
  EXPECT_EQ(stats.nnz_per_row.min, 7);
  EXPECT_EQ(stats.nnz_per_row.max, 7);
  expect_round_trip_exact(e, io::Symmetry::hermitian);
}

TEST(Dirac, RhoZeroIsTheCotangentLaplacianOnItsRealPart) {
  auto mesh = octahedron();
  mesh.vertices[4][2] = 1.7;  // not symmetric, so different angles
  mesh.vertices[0][1] = 0.2;
  const auto e = zoo::dirac_operator(mesh);
  // Constant functions are in the null space: every row sums to zero.
  for (int r = 0; r < e.num_rows; ++r) {
    Q sum{0, 0, 0, 0};
    for (int p = e.row_offsets[r]; p < e.row_offsets[r + 1]; ++p) sum = sum + e.values[p];
    EXPECT_NEAR(sum.w, 0, 1e-13);
    EXPECT_NEAR(sum.x, 0, 1e-13);
    EXPECT_NEAR(sum.y, 0, 1e-13);
    EXPECT_NEAR(sum.z, 0, 1e-13);
  }
  // Off-diagonal real part: -(cot alpha + cot beta) / 2 over the two triangles of edge (i, j).
  const auto cot_at = [&](int k, int i, int j) {
    zoo::Point3 u, v;
    for (int c = 0; c < 3; ++c) {
      u[c] = mesh.vertices[i][c] - mesh.vertices[k][c];
      v[c] = mesh.vertices[j][c] - mesh.vertices[k][c];
    }
    const double dot = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    const double cx = u[1] * v[2] - u[2] * v[1], cy = u[2] * v[0] - u[0] * v[2], cz = u[0] * v[1] - u[1] * v[0];
    return dot / std::sqrt(cx * cx + cy * cy + cz * cz);
  };
  std::vector<double> expected(36, 0);
  for (const auto& t : mesh.triangles)
    for (int a = 0; a < 3; ++a) {
      const int i = t[a], j = t[(a + 1) % 3], k = t[(a + 2) % 3];
      expected[i * 6 + j] -= cot_at(k, i, j) / 2;
      expected[j * 6 + i] -= cot_at(k, i, j) / 2;
    }
  int checked = 0;
  for (int r = 0; r < 6; ++r)
    for (int p = e.row_offsets[r]; p < e.row_offsets[r + 1]; ++p)
      if (e.col_indices[p] != r) {
        EXPECT_NEAR(e.values[p].w, expected[r * 6 + e.col_indices[p]], 1e-14);
        ++checked;
      }
  EXPECT_EQ(checked, 24);  // 12 edges, both directions
}

TEST(TetMesh, StructuredMeshesConformAndFill) {
  const auto box = zoo::box_mesh(3, 2, 2, 1, 2, 3);
  EXPECT_EQ(box.points.size(), 4u * 3 * 3);
  EXPECT_EQ(box.tets.size(), 6u * 12);
  EXPECT_NEAR(total_volume(box), 6.0, 1e-12);
  // Conforming: only the outer squares (two triangles each) are boundary faces.
  EXPECT_EQ(zoo::boundary_faces(box).size(), 2u * 2 * (3 * 2 + 3 * 2 + 2 * 2));
  const auto l = zoo::l_shape_mesh(4, 2);
  EXPECT_NEAR(total_volume(l), 0.75, 1e-12);
  EXPECT_EQ(l.points.size(), 3u * (25 - 4));
  const auto cyl = zoo::cylinder_mesh(16, 2);
  EXPECT_NEAR(total_volume(cyl), 2 * std::acos(-1.0), 0.05);  // polygonal approximation of pi r^2 h
  EXPECT_THROW(zoo::l_shape_mesh(3, 2), cs::Error);
}

TEST(TetMesh, TetgenFillsAClosedSurface) {
  // The unit cube's surface, outward-oriented.
  zoo::TriangleMesh cube;
  for (int i = 0; i < 8; ++i) cube.vertices.push_back({double(i & 1), double((i >> 1) & 1), double((i >> 2) & 1)});
  cube.triangles = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                    {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
  const auto dir = std::filesystem::path(::testing::TempDir()) / "compound_sparse_tetgen";
  std::filesystem::create_directories(dir);
  const auto mesh = zoo::tetgen_mesh(cube, 0.01, dir.string());
  EXPECT_GE(mesh.tets.size(), 100u);
  EXPECT_NEAR(total_volume(mesh), 1.0, 1e-12);
  for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) EXPECT_LE(zoo::tet_volume(mesh, t), 0.01 + 1e-12);
  std::filesystem::remove_all(dir);
  // An open surface cannot be filled: an error, not a crash.
  cube.triangles.pop_back();
  std::filesystem::create_directories(dir);
  EXPECT_THROW(zoo::tetgen_mesh(cube, 0.01, dir.string()), cs::Error);
  std::filesystem::remove_all(dir);
}

TEST(Elasticity, SymmetricWithRigidBodyModesInTheNullSpace) {
  for (const auto& mesh : {zoo::box_mesh(3, 3, 3), zoo::cylinder_mesh(4, 3), zoo::l_shape_mesh(4, 2)}) {
    const auto lame = zoo::lame_parameters(200.0, 0.3);
    auto k = zoo::elasticity_matrix(mesh, lame.first, lame.second);
    EXPECT_NO_THROW(io::require_symmetry(k, io::Symmetry::symmetric));  // K_ba = K_ab^T, bit for bit
    double scale = 0;
    for (const auto& b : k.values)
      for (double v : b.v) scale = std::max(scale, std::abs(v));
    // Three translations and three rotations u = w x p.
    for (int mode = 0; mode < 6; ++mode) {
      std::vector<zoo::Point3> u(mesh.points.size());
      for (std::size_t i = 0; i < u.size(); ++i) {
        const auto& p = mesh.points[i];
        zoo::Point3 w{0, 0, 0};
        w[mode % 3] = 1;
        u[i] =
            mode < 3 ? w : zoo::Point3{w[1] * p[2] - w[2] * p[1], w[2] * p[0] - w[0] * p[2], w[0] * p[1] - w[1] * p[0]};
      }
      EXPECT_LT(max_abs(multiply(k, u)), 1e-12 * scale * (1 + max_abs(u))) << "mode " << mode;
    }
    // A stretch is not a rigid motion: K u != 0 (so the check above can fail).
    std::vector<zoo::Point3> stretch(mesh.points.size());
    for (std::size_t i = 0; i < stretch.size(); ++i) stretch[i] = {mesh.points[i][0], 0, 0};
    EXPECT_GT(max_abs(multiply(k, stretch)), 1e-3 * scale);
    // Clamping keeps the symmetry and makes K definite.
    std::vector<char> fixed(mesh.points.size());
    for (std::size_t i = 0; i < fixed.size(); ++i) fixed[i] = mesh.points[i][2] == 0;
    zoo::apply_dirichlet(k, fixed);
    EXPECT_NO_THROW(io::require_symmetry(k, io::Symmetry::symmetric));
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> uni(-1, 1);
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<zoo::Point3> x(mesh.points.size());
      for (auto& p : x) p = {uni(rng), uni(rng), uni(rng)};
      const auto y = multiply(k, x);
      double energy = 0;
      for (std::size_t i = 0; i < x.size(); ++i) energy += x[i][0] * y[i][0] + x[i][1] * y[i][1] + x[i][2] * y[i][2];
      EXPECT_GT(energy, 0);
    }
    expect_round_trip_exact(k, io::Symmetry::symmetric);
  }
}

TEST(Helmholtz, ComplexSymmetricWithTheExpectedTotals) {
  const auto mesh = zoo::box_mesh(4, 4, 4, 1, 1, 2);
  const double k = 3;
  const auto a = zoo::helmholtz_matrix(mesh, k);
  EXPECT_NO_THROW(io::require_symmetry(a, io::Symmetry::symmetric));          // A = A^T exactly
  EXPECT_THROW(io::require_symmetry(a, io::Symmetry::hermitian), cs::Error);  // absorbing: not hermitian
  // 1^T K 1 = 0, 1^T M 1 = volume, 1^T M_Γ 1 = boundary area: sum = -k^2 |Ω| - i k |Γ|.
  C sum(0, 0);
  for (const auto& v : a.values) sum += v;
  EXPECT_NEAR(sum.real(), -k * k * 2, 1e-11);
  EXPECT_NEAR(sum.imag(), -k * 10, 1e-11);
  // k = 0: the Laplacian, rows sum to zero.
  const auto l = zoo::helmholtz_matrix(mesh, 0);
  for (int r = 0; r < l.num_rows; ++r) {
    C row(0, 0);
    for (int p = l.row_offsets[r]; p < l.row_offsets[r + 1]; ++p) row += l.values[p];
    EXPECT_NEAR(row.real(), 0, 1e-13);
    EXPECT_EQ(row.imag(), 0);
  }
  expect_round_trip_exact(a, io::Symmetry::symmetric);
}

TEST(RowStatistics, QuartilesOfNonzerosAndBandwidth) {
  // Rows: {0}, {0,1,4}, {}, {1,3}, {0,2,3,4}.
  cs::HostCsr<double> a;
  a.num_rows = 5;
  a.num_cols = 5;
  a.row_offsets = {0, 1, 4, 4, 6, 10};
  a.col_indices = {0, 0, 1, 4, 1, 3, 0, 2, 3, 4};
  a.values.assign(10, 1.0);
  const auto s = zoo::row_statistics(a);
  // nnz per row 1 3 0 2 4, bandwidth per row 0 3 0 2 4.
  EXPECT_EQ(s.nnz_per_row.min, 0);
  EXPECT_EQ(s.nnz_per_row.q1, 1);
  EXPECT_EQ(s.nnz_per_row.median, 2);
  EXPECT_EQ(s.nnz_per_row.q3, 3);
  EXPECT_EQ(s.nnz_per_row.max, 4);
  EXPECT_EQ(s.bandwidth_per_row.min, 0);
  EXPECT_EQ(s.bandwidth_per_row.q1, 0);
  EXPECT_EQ(s.bandwidth_per_row.median, 2);
  EXPECT_EQ(s.bandwidth_per_row.q3, 3);
  EXPECT_EQ(s.bandwidth_per_row.max, 4);
}
