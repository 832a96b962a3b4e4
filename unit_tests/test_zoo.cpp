// Matrix zoo generators: meshes, Loop subdivision, the quaternionic Dirac operator,
// elasticity and Helmholtz matrices (the symmetries and null spaces their
// constructions imply), the irregular family (reproducibility, the promised
// patterns, max/median row length at the small zoo's sizes), row statistics, and
// exact Matrix Market round trips.
#include <gtest/gtest.h>

#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/io/matrix_market.hpp>
#include <compound_sparse/zoo/circuit.hpp>
#include <compound_sparse/zoo/connection_laplacian.hpp>
#include <compound_sparse/zoo/dirac.hpp>
#include <compound_sparse/zoo/elasticity.hpp>
#include <compound_sparse/zoo/helmholtz.hpp>
#include <compound_sparse/zoo/rigid_links.hpp>
#include <compound_sparse/zoo/rmat.hpp>
#include <compound_sparse/zoo/row_statistics.hpp>
#include <compound_sparse/zoo/tet_mesh.hpp>
#include <compound_sparse/zoo/triangle_mesh.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
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

/// Same sizes, pattern and value bits.
template <class Entry>
bool identical(const cs::HostCsr<Entry>& a, const cs::HostCsr<Entry>& b) {
  return a.num_rows == b.num_rows && a.num_cols == b.num_cols && a.row_offsets == b.row_offsets &&
         a.col_indices == b.col_indices && a.values.size() == b.values.size() &&
         std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(Entry)) == 0;
}

/// FNV-1a over the pattern and the values' bytes: pins a generator's output, so that
/// a change of its draws (or a platform that computes them differently) shows.
template <class Entry>
std::uint64_t fingerprint(const cs::HostCsr<Entry>& a) {
  std::uint64_t h = 14695981039346656037ull;
  const auto mix = [&h](const void* data, std::size_t bytes) {
    for (std::size_t i = 0; i < bytes; ++i) h = (h ^ static_cast<const unsigned char*>(data)[i]) * 1099511628211ull;
  };
  mix(a.row_offsets.data(), a.row_offsets.size() * sizeof(int));
  mix(a.col_indices.data(), a.col_indices.size() * sizeof(int));
  mix(a.values.data(), a.values.size() * sizeof(Entry));
  return h;
}

/// Every row's columns strictly increase (sorted, no duplicate) and, unless told
/// otherwise, include the diagonal.
template <class Entry>
void expect_sorted_distinct_with_diagonal(const cs::HostCsr<Entry>& a, bool every_diagonal = true) {
  EXPECT_NO_THROW(cs::validate(a));
  int unsorted = 0, no_diagonal = 0;
  for (int r = 0; r < a.num_rows; ++r) {
    bool diagonal = false;
    for (int p = a.row_offsets[r]; p < a.row_offsets[r + 1]; ++p) {
      unsorted += p > a.row_offsets[r] && a.col_indices[p - 1] >= a.col_indices[p];
      diagonal = diagonal || a.col_indices[p] == r;
    }
    no_diagonal += !diagonal;
  }
  EXPECT_EQ(unsorted, 0);
  if (every_diagonal) {
    EXPECT_EQ(no_diagonal, 0);
  }
}

template <class Entry>
double max_over_median_row(const cs::HostCsr<Entry>& a) {
  const auto s = zoo::row_statistics(a).nnz_per_row;
  return static_cast<double>(s.max) / s.median;
}

/// Rows whose diagonal entry's magnitude exceeds the sum of the others' (complex).
int strictly_dominant_rows(const cs::HostCsr<C>& a) {
  int dominant = 0;
  for (int r = 0; r < a.num_rows; ++r) {
    double diagonal = 0, others = 0;
    for (int p = a.row_offsets[r]; p < a.row_offsets[r + 1]; ++p)
      (a.col_indices[p] == r ? diagonal : others) += Kokkos::abs(a.values[p]);
    dominant += diagonal > others;
  }
  return dominant;
}

double norm(const Q& q) {
  return std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
}

/// Re(x* L x) for quaternion vectors: sum_r conj(x_r) (L x)_r, real part.
double hermitian_form(const cs::HostCsr<Q>& l, const std::vector<Q>& x) {
  double form = 0;
  for (int r = 0; r < l.num_rows; ++r) {
    Q lx{0, 0, 0, 0};
    for (int p = l.row_offsets[r]; p < l.row_offsets[r + 1]; ++p) lx = lx + l.values[p] * x[l.col_indices[p]];
    form += (x[r].conjugate() * lx).w;
  }
  return form;
}

/// Entry (r, c) of a CSR matrix, or nullptr.
template <class Entry>
const Entry* find_entry(const cs::HostCsr<Entry>& a, int r, int c) {
  const auto begin = a.col_indices.begin() + a.row_offsets[r], end = a.col_indices.begin() + a.row_offsets[r + 1];
  const auto it = std::lower_bound(begin, end, c);
  return it != end && *it == c ? &a.values[it - a.col_indices.begin()] : nullptr;
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

// P2 (quadratic) elements: symmetric bit for bit, the rigid motions (interpolated at the points
// and the edges' midpoints) in the null space, and a constant strain's energy exact (the
// element's quadrature integrates the quadratic stiffness exactly), and a quadratic one's.
TEST(Elasticity, P2SymmetricWithRigidModesAndExactEnergies) {
  const double lambda = 1.3, mu = 0.7;
  for (const auto& mesh : {zoo::box_mesh(2, 2, 2), zoo::cylinder_mesh(3, 2), zoo::l_shape_mesh(4, 1)}) {
    const auto edges = zoo::mesh_edges(mesh);
    std::vector<zoo::Point3> nodes = mesh.points;
    for (const auto& e : edges) {
      zoo::Point3 mid;
      for (int d = 0; d < 3; ++d) mid[d] = (mesh.points[e[0]][d] + mesh.points[e[1]][d]) / 2;
      nodes.push_back(mid);
    }
    const int n = static_cast<int>(nodes.size());
    const auto k = cs::csr_from_coo(n, n, zoo::p2_elasticity_contributions(mesh, lambda, mu));
    EXPECT_NO_THROW(io::require_symmetry(k, io::Symmetry::symmetric));
    double scale = 0;
    for (const auto& b : k.values)
      for (double v : b.v) scale = std::max(scale, std::abs(v));
    for (int mode = 0; mode < 6; ++mode) {
      std::vector<zoo::Point3> u(n);
      for (int i = 0; i < n; ++i) {
        const auto& p = nodes[i];
        zoo::Point3 w{0, 0, 0};
        w[mode % 3] = 1;
        u[i] =
            mode < 3 ? w : zoo::Point3{w[1] * p[2] - w[2] * p[1], w[2] * p[0] - w[0] * p[2], w[0] * p[1] - w[1] * p[0]};
      }
      EXPECT_LT(max_abs(multiply(k, u)), 1e-12 * scale * (1 + max_abs(u))) << "mode " << mode;
    }
    // u = A x with A symmetric: the strain is A, the energy V (lambda tr(A)^2 + 2 mu A:A).
    const double a[3][3] = {{1, 0.5, 0}, {0.5, -0.3, 0.2}, {0, 0.2, 0.4}};
    std::vector<zoo::Point3> u(n);
    for (int i = 0; i < n; ++i)
      for (int r = 0; r < 3; ++r) u[i][r] = a[r][0] * nodes[i][0] + a[r][1] * nodes[i][1] + a[r][2] * nodes[i][2];
    const auto ku = multiply(k, u);
    double energy = 0;
    for (int i = 0; i < n; ++i) energy += u[i][0] * ku[i][0] + u[i][1] * ku[i][1] + u[i][2] * ku[i][2];
    const double trace = a[0][0] + a[1][1] + a[2][2];
    double contraction = 0;
    for (const auto& row : a)
      for (double v : row) contraction += v * v;
    const double want = total_volume(mesh) * (lambda * trace * trace + 2 * mu * contraction);
    EXPECT_NEAR(energy, want, 1e-12 * want);
    // u = (x^2, 0, 0), which P2 holds exactly: strain 2x, energy 4 (lambda + 2 mu) int x^2, the
    // integrand quadratic (a wrong quadrature point changes it); int_T x^2 = V/20 (sum x_i^2 + (sum x_i)^2).
    std::vector<zoo::Point3> quadratic(n);
    for (int i = 0; i < n; ++i) quadratic[i] = {nodes[i][0] * nodes[i][0], 0, 0};
    const auto kq = multiply(k, quadratic);
    double quadratic_energy = 0, integral = 0;
    for (int i = 0; i < n; ++i) quadratic_energy += quadratic[i][0] * kq[i][0];
    for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
      double squares = 0, sum = 0;
      for (int c : mesh.tets[t]) {
        squares += mesh.points[c][0] * mesh.points[c][0];
        sum += mesh.points[c][0];
      }
      integral += zoo::tet_volume(mesh, t) / 20 * (squares + sum * sum);
    }
    EXPECT_NEAR(quadratic_energy, 4 * (lambda + 2 * mu) * integral, 1e-12 * quadratic_energy);
  }
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

// ---- the irregular family --------------------------------------------------------

TEST(Circuit, ReproducibleDominantWithDenseNetRowsAndColumns) {
  const int n = 32768;  // compound-zoo --scale small's circuit-small
  const auto a = zoo::circuit_matrix(n, 14);
  EXPECT_TRUE(identical(a, zoo::circuit_matrix(n, 14)));
  EXPECT_FALSE(identical(a, zoo::circuit_matrix(n, 15)));
  ASSERT_EQ(a.num_rows, n);
  expect_sorted_distinct_with_diagonal(a);
  EXPECT_EQ(strictly_dominant_rows(a), n);
  EXPECT_THROW(io::require_symmetry(a, io::Symmetry::symmetric), cs::Error);  // a general pattern
  const auto stats = zoo::row_statistics(a).nnz_per_row;
  EXPECT_EQ(stats.min, 4);
  EXPECT_EQ(stats.median, 4);
  EXPECT_GE(max_over_median_row(a), 1000);
  // Most rows hold 4 to 6 entries; the 8 nets make 8 dense rows and 8 dense columns
  // (all but the two smallest over 1000 entries), the power-law tail a few long rows.
  int short_rows = 0, dense_rows = 0, long_rows = 0, dense_columns = 0;
  std::vector<int> column_count(n, 0);
  for (int r = 0; r < n; ++r) {
    const int length = a.row_length(r);
    short_rows += length >= 4 && length <= 6;
    dense_rows += length > 1000;
    long_rows += length > 50 && length <= 1000;
  }
  for (int c : a.col_indices) ++column_count[c];
  for (int c = 0; c < n; ++c) dense_columns += column_count[c] > 1000;
  EXPECT_GT(short_rows, 0.8 * n);
  EXPECT_EQ(dense_rows, 7);
  EXPECT_EQ(dense_columns, 7);
  EXPECT_GT(long_rows, 2);
  EXPECT_GE(column_count[n / 16], n / 4);  // ground: net 0 at row n / 16
  EXPECT_GE(a.row_length(n / 16), n / 4);
  EXPECT_THROW(zoo::circuit_matrix(1000), cs::Error);
  expect_round_trip_exact(zoo::circuit_matrix(2048), io::Symmetry::general);
}

TEST(Rmat, ReproducibleScaleFreeWithADominantDiagonal) {
  const auto a = zoo::rmat_matrix(15, 4, 1401);  // compound-zoo --scale small's rmat-small
  EXPECT_TRUE(identical(a, zoo::rmat_matrix(15, 4, 1401)));
  EXPECT_FALSE(identical(a, zoo::rmat_matrix(15, 4, 1402)));
  ASSERT_EQ(a.num_rows, 32768);
  expect_sorted_distinct_with_diagonal(a);  // duplicate edges merged
  EXPECT_EQ(strictly_dominant_rows(a), a.num_rows);
  // 4 n edges and n diagonal entries, less the merged duplicates and self loops.
  EXPECT_LT(a.num_entries(), 5u * 32768);
  EXPECT_GT(a.num_entries(), 4u * 32768);
  int diagonal_only = 0;
  for (int r = 0; r < a.num_rows; ++r) diagonal_only += a.row_length(r) == 1;
  EXPECT_GT(diagonal_only, a.num_rows / 2);  // vertices without out-edges
  EXPECT_GE(max_over_median_row(a), 1000);
  // The relabelling scatters the hubs: without it the longest row would be row 0.
  int longest = 0;
  for (int r = 1; r < a.num_rows; ++r)
    if (a.row_length(r) > a.row_length(longest)) longest = r;
  EXPECT_NE(longest, 0);
  EXPECT_THROW(zoo::rmat_matrix(0, 4), cs::Error);
  expect_round_trip_exact(zoo::rmat_matrix(10, 4), io::Symmetry::general);
}

TEST(ConnectionLaplacian, HermitianPositiveSemidefiniteWithHubs) {
  const int n = 32768;  // compound-zoo --scale small's connection-hubs-small
  const auto l = zoo::hub_connection_laplacian(n, 3, 1402);
  EXPECT_TRUE(identical(l, zoo::hub_connection_laplacian(n, 3, 1402)));
  EXPECT_FALSE(identical(l, zoo::hub_connection_laplacian(n, 3, 1403)));
  ASSERT_EQ(l.num_rows, n);
  expect_sorted_distinct_with_diagonal(l);
  // L_ji = conj(L_ij) exactly, |L_ij| = w_ij in [1/2, 3/2), and the diagonal is real
  // and sum_j w_ij; checked independently of io::require_symmetry.
  int not_mirrored = 0, bad_weight = 0, bad_diagonal = 0;
  for (int r = 0; r < n; ++r) {
    double sum = 0;
    const Q* diagonal = nullptr;
    for (int p = l.row_offsets[r]; p < l.row_offsets[r + 1]; ++p) {
      const int c = l.col_indices[p];
      if (c == r) {
        diagonal = &l.values[p];
        continue;
      }
      const Q* mirror = find_entry(l, c, r);
      not_mirrored += !mirror || !(*mirror == l.values[p].conjugate());
      const double w = norm(l.values[p]);
      bad_weight += !(w >= 0.5 - 1e-15 && w < 1.5 + 1e-15);
      sum += w;
    }
    if (!diagonal) continue;  // expect_sorted_distinct_with_diagonal reported it
    bad_diagonal +=
        !(diagonal->x == 0 && diagonal->y == 0 && diagonal->z == 0 && std::abs(diagonal->w - sum) <= 1e-12 * sum);
  }
  EXPECT_EQ(not_mirrored, 0);
  EXPECT_EQ(bad_weight, 0);
  EXPECT_EQ(bad_diagonal, 0);
  EXPECT_NO_THROW(io::require_symmetry(l, io::Symmetry::hermitian));
  EXPECT_THROW(io::require_symmetry(l, io::Symmetry::symmetric), cs::Error);
  // Every vertex has at least m = 3 neighbours; four hubs make the ratio.
  EXPECT_GE(zoo::row_statistics(l).nnz_per_row.min, 4);
  EXPECT_GE(max_over_median_row(l), 1000);
  // x* L x = sum over edges of w |x_i - q_ij x_j|^2 >= 0. A constant x is not in the
  // null space (it would be for a graph Laplacian, q = 1): the connection is not trivial.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> uni(-1, 1);
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<Q> x(n);
    for (auto& q : x) q = {uni(rng), uni(rng), uni(rng), uni(rng)};
    EXPECT_GT(hermitian_form(l, x), 0);
  }
  const double constant = hermitian_form(l, std::vector<Q>(n, Q{1, 0, 0, 0}));
  EXPECT_GT(constant, 0.1 * n);
  EXPECT_THROW(zoo::hub_connection_laplacian(100), cs::Error);
  expect_round_trip_exact(zoo::hub_connection_laplacian(512), io::Symmetry::hermitian);
}

TEST(RigidLinks, PenaltyTermIsSymmetricWithRigidMotionsInItsNullSpace) {
  // Eight nodes on a skewed grid; two links share node 3.
  std::vector<zoo::Point3> points;
  for (int i = 0; i < 8; ++i) points.push_back({0.3 * i, 0.1 * i * i, 1.0 - 0.2 * (i % 3)});
  cs::HostCsr<B3> empty;
  empty.num_rows = empty.num_cols = 8;
  empty.row_offsets.assign(9, 0);
  const std::vector<zoo::RigidLink> links = {{{0.5, 0.2, 2.0}, {0, 1, 2, 3}}, {{-1.0, 0.0, 0.0}, {3, 5, 6}}};
  const auto k = zoo::add_rigid_links(empty, points, links, 7.0);
  ASSERT_EQ(k.num_rows, 8 + 4);
  expect_sorted_distinct_with_diagonal(k, false);  // nodes 4 and 7 are in no link: empty rows
  EXPECT_NO_THROW(io::require_symmetry(k, io::Symmetry::symmetric));
  EXPECT_EQ(k.row_length(8), 4 + 2);  // link 0's translation: its slaves, itself, its rotation
  EXPECT_EQ(k.row_length(11), 3 + 2);
  // Both links move rigidly and together (a motion of everything): K x = 0.
  const zoo::Point3 t{0.4, -1.3, 0.7}, w{0.9, 0.2, -0.5};
  const auto rigid = [&](const zoo::Point3& p, const zoo::Point3& centre) {
    const zoo::Point3 r{p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]};
    return zoo::Point3{t[0] + w[1] * r[2] - w[2] * r[1], t[1] + w[2] * r[0] - w[0] * r[2],
                       t[2] + w[0] * r[1] - w[1] * r[0]};
  };
  std::vector<zoo::Point3> x(12);
  for (int i = 0; i < 8; ++i) x[i] = rigid(points[i], {0, 0, 0});
  for (int l = 0; l < 2; ++l) {
    x[8 + 2 * l] = rigid(links[l].master, {0, 0, 0});  // the master's translation follows the motion
    x[9 + 2 * l] = w;                                  // its rotation is the motion's
  }
  EXPECT_LT(max_abs(multiply(k, x)), 1e-12);
  // Moving one slave off the motion costs energy.
  x[5][1] += 0.1;
  EXPECT_GT(max_abs(multiply(k, x)), 0.1);
  EXPECT_THROW(zoo::add_rigid_links(empty, points, {{{0, 0, 0}, {8}}}, 1.0), cs::Error);
}

TEST(RigidLinks, AddsThePenaltyToTheStiffnessEntries) {
  const auto mesh = zoo::box_mesh(3, 3, 3);
  const auto lame = zoo::lame_parameters(1.0, 0.3);
  const auto k = zoo::elasticity_matrix(mesh, lame.first, lame.second);
  const std::vector<zoo::RigidLink> links = {{{0.5, 0.5, 1.5}, {48, 49, 50, 63}}, {{-0.5, 0.5, 0.5}, {0, 4, 16, 63}}};
  const auto sum = zoo::add_rigid_links(k, mesh.points, links, 3.0);
  cs::HostCsr<B3> empty;
  empty.num_rows = empty.num_cols = k.num_rows;
  empty.row_offsets.assign(k.num_rows + 1, 0);
  const auto penalty = zoo::add_rigid_links(empty, mesh.points, links, 3.0);
  expect_sorted_distinct_with_diagonal(sum);
  EXPECT_NO_THROW(io::require_symmetry(sum, io::Symmetry::symmetric));
  ASSERT_EQ(sum.num_entries(), k.num_entries() + penalty.num_entries() - 7);  // shared: the 7 slaves' diagonals
  int wrong = 0;
  for (int r = 0; r < sum.num_rows; ++r)
    for (int p = sum.row_offsets[r]; p < sum.row_offsets[r + 1]; ++p) {
      const int c = sum.col_indices[p];
      const B3* a = r < k.num_rows ? find_entry(k, r, c) : nullptr;
      const B3* b = find_entry(penalty, r, c);
      for (int i = 0; i < 9; ++i) wrong += sum.values[p].v[i] != (a ? a->v[i] : 0.0) + (b ? b->v[i] : 0.0);
    }
  EXPECT_EQ(wrong, 0);
}

TEST(RigidLinks, ZooMatrixIsSymmetricDefiniteWithMasterRowsOverAThousandTimesTheMedian) {
  const auto k = zoo::rigid_link_elasticity(26, 0.89);  // compound-zoo --scale small's elasticity-rigid-small
  ASSERT_EQ(k.num_rows, 27 * 27 * 27 + 10);
  expect_sorted_distinct_with_diagonal(k);
  EXPECT_NO_THROW(io::require_symmetry(k, io::Symmetry::symmetric));
  EXPECT_GE(max_over_median_row(k), 1000);
  EXPECT_EQ(k.row_length(k.num_rows - 10), 24 * 27 * 27 + 2);  // the cap: the top 24 of 27 layers
  // Clamped bottom and penalty terms: positive definite.
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> uni(-1, 1);
  std::vector<zoo::Point3> x(k.num_rows);
  for (auto& p : x) p = {uni(rng), uni(rng), uni(rng)};
  const auto y = multiply(k, x);
  double energy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) energy += x[i][0] * y[i][0] + x[i][1] * y[i][1] + x[i][2] * y[i][2];
  EXPECT_GT(energy, 0);
  // The full zoo's proportions keep the median at 15 (most nodes are not slaves).
  EXPECT_EQ(zoo::row_statistics(zoo::rigid_link_elasticity(16, 0.45)).nnz_per_row.median, 15);
}

TEST(IrregularZoo, OutputIsPinned) {
  // Fixed seeds must give the same files on every platform and with every standard
  // library: these fingerprints change only when a generator's draws or arithmetic
  // change (or where a compiler fuses multiply-adds: docs/zoo.md).
  EXPECT_EQ(fingerprint(zoo::circuit_matrix(2048, 7)), 3686374542424251381u);
  EXPECT_EQ(fingerprint(zoo::rmat_matrix(11, 4, 7)), 1084887037439707513u);
  EXPECT_EQ(fingerprint(zoo::hub_connection_laplacian(2048, 3, 7)), 13473867483132516656u);
  EXPECT_EQ(fingerprint(zoo::rigid_link_elasticity(5, 0.45)), 13222685556645794534u);
}
