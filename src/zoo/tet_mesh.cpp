#include "compound_sparse/zoo/tet_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "compound_sparse/error.hpp"
#include "compound_sparse/io/text_input.hpp"

namespace compound_sparse {
namespace zoo {

namespace {

// The six tetrahedra of the unit cube sharing the diagonal from corner 0 to corner 7
// (corner bits: x = 1, y = 2, z = 4); each is a monotone path 0 -> 7 through the cube.
constexpr int kKuhn[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};

// Box grid restricted to the cubes `keep(i, j, k)` accepts; unused points are dropped.
template <class Keep>
TetMesh grid_mesh(int nx, int ny, int nz, double x0, double y0, double lx, double ly, double lz, Keep keep) {
  COMPOUND_SPARSE_REQUIRE(nx >= 1 && ny >= 1 && nz >= 1, "grid needs at least one cube per direction");
  const auto id = [&](int i, int j, int k) { return (static_cast<long long>(k) * (ny + 1) + j) * (nx + 1) + i; };
  std::vector<int> number(static_cast<std::size_t>(id(0, 0, nz + 1)), -1);
  TetMesh mesh;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        if (!keep(i, j, k)) continue;
        for (const auto& t : kKuhn) {
          std::array<int, 4> tet;
          for (int c = 0; c < 4; ++c) {
            const int b = t[c];
            const long long g = id(i + (b & 1), j + ((b >> 1) & 1), k + ((b >> 2) & 1));
            tet[c] = static_cast<int>(g);  // grid index for now, renumbered below
            number[g] = 0;
          }
          mesh.tets.push_back(tet);
        }
      }
  for (std::size_t g = 0; g < number.size(); ++g)
    if (number[g] == 0) {
      number[g] = static_cast<int>(mesh.points.size());
      const long long i = g % (nx + 1), j = (g / (nx + 1)) % (ny + 1),
                      k = g / (static_cast<long long>(nx + 1) * (ny + 1));
      mesh.points.push_back({x0 + lx * i / nx, y0 + ly * j / ny, lz * k / nz});
    }
  for (auto& t : mesh.tets)
    for (auto& c : t) c = number[c];
  return mesh;
}

}  // namespace

TetMesh box_mesh(int nx, int ny, int nz, double lx, double ly, double lz) {
  return grid_mesh(nx, ny, nz, 0, 0, lx, ly, lz, [](int, int, int) { return true; });
}

TetMesh l_shape_mesh(int n, int nz, double lz) {
  COMPOUND_SPARSE_REQUIRE(n >= 2 && n % 2 == 0, "L-shape needs an even number of cubes per side, got " << n);
  return grid_mesh(n, n, nz, 0, 0, 1, 1, lz, [n](int i, int j, int) { return i < n / 2 || j < n / 2; });
}

TetMesh cylinder_mesh(int n, int nz, double lz) {
  TetMesh mesh = grid_mesh(n, n, nz, -1, -1, 2, 2, lz, [](int, int, int) { return true; });
  for (auto& p : mesh.points) {
    const double x = p[0], y = p[1];
    p[0] = x * std::sqrt(1 - y * y / 2);
    p[1] = y * std::sqrt(1 - x * x / 2);
  }
  return mesh;
}

TetMesh tetgen_mesh(const TriangleMesh& surface, double max_volume, const std::string& work_dir) {
  const std::string base = work_dir + "/surface";
  {
    std::ofstream off(base + ".off");
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, off, "cannot write '" << base << ".off'");
    off.precision(17);
    off << "OFF\n" << surface.vertices.size() << " " << surface.triangles.size() << " 0\n";
    for (const auto& p : surface.vertices) off << p[0] << " " << p[1] << " " << p[2] << "\n";
    for (const auto& t : surface.triangles) off << "3 " << t[0] << " " << t[1] << " " << t[2] << "\n";
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, off, "writing '" << base << ".off' failed");
  }
  std::ostringstream command;
  command.precision(17);
  // -p: tetrahedralize a piecewise linear complex; -q1.4: radius-edge ratio bound;
  // -a: volume bound; -z: number from 0; -Q: quiet. Output: surface.1.node/.ele.
  command << "tetgen -pq1.4" << (max_volume > 0 ? "a" : "");
  if (max_volume > 0) command << max_volume;
  command << "zQ '" << base << ".off' > '" << base << ".log' 2>&1";
  const int status = std::system(command.str().c_str());
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, status == 0,
                               "'" << command.str() << "' failed (status " << status
                                   << "): is tetgen installed (scripts/setup.sh) and the surface closed? See " << base
                                   << ".log");
  return read_tetgen_mesh(base + ".1");
}

TetMesh read_tetgen_mesh(const std::string& base) {
  TetMesh mesh;
  std::string line, token;
  {
    std::ifstream file(base + ".node");
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, file, "cannot read '" << base << ".node'");
    io::LineReader in(file, base + ".node");
    long long n = -1;
    while (in.next(line)) {
      std::size_t pos = 0;
      if (!io::next_token(line, pos, token) || token[0] == '#') continue;
      long long v = 0;
      COMPOUND_SPARSE_PARSE_REQUIRE(in, io::parse_integer(token, v), "expected an integer, got " << io::quote(token));
      if (n < 0) {
        n = v;
        continue;
      }
      Point3 p;
      for (auto& x : p)
        COMPOUND_SPARSE_PARSE_REQUIRE(in, io::next_token(line, pos, token) && io::parse_real(token, x),
                                      "expected 3 coordinates");
      COMPOUND_SPARSE_PARSE_REQUIRE(in, v == static_cast<long long>(mesh.points.size()),
                                    "node " << v << " out of order");
      mesh.points.push_back(p);
    }
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, n == static_cast<long long>(mesh.points.size()),
                                 base << ".node: expected " << n << " nodes");
  }
  {
    std::ifstream file(base + ".ele");
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, file, "cannot read '" << base << ".ele'");
    io::LineReader in(file, base + ".ele");
    bool header = true;
    while (in.next(line)) {
      std::size_t pos = 0;
      if (!io::next_token(line, pos, token) || token[0] == '#') continue;
      if (header) {
        header = false;
        continue;
      }
      std::array<int, 4> t;
      for (auto& c : t) {
        long long v = -1;
        COMPOUND_SPARSE_PARSE_REQUIRE(in,
                                      io::next_token(line, pos, token) && io::parse_integer(token, v) && v >= 0 &&
                                          v < static_cast<long long>(mesh.points.size()),
                                      "expected 4 node indices");
        c = static_cast<int>(v);
      }
      mesh.tets.push_back(t);
    }
  }
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, !mesh.tets.empty(), base << ".ele holds no tetrahedra");
  return mesh;
}

std::vector<std::array<int, 3>> boundary_faces(const TetMesh& mesh) {
  // Faces as (sorted corners, original orientation); a face seen once is on the boundary.
  std::vector<std::pair<std::array<int, 3>, std::array<int, 3>>> faces;
  faces.reserve(mesh.tets.size() * 4);
  for (const auto& t : mesh.tets)
    for (int skip = 0; skip < 4; ++skip) {
      std::array<int, 3> f;
      int n = 0;
      for (int c = 0; c < 4; ++c)
        if (c != skip) f[n++] = t[c];
      auto key = f;
      std::sort(key.begin(), key.end());
      faces.push_back({key, f});
    }
  std::sort(faces.begin(), faces.end());
  std::vector<std::array<int, 3>> out;
  for (std::size_t i = 0; i < faces.size();) {
    std::size_t j = i;
    while (j < faces.size() && faces[j].first == faces[i].first) ++j;
    if (j - i == 1) out.push_back(faces[i].second);
    i = j;
  }
  return out;
}

double tet_volume(const TetMesh& mesh, int t) {
  const auto& p = mesh.points;
  const auto& c = mesh.tets[t];
  double d[3][3];
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) d[i][k] = p[c[i + 1]][k] - p[c[0]][k];
  const double det = d[0][0] * (d[1][1] * d[2][2] - d[1][2] * d[2][1]) -
                     d[0][1] * (d[1][0] * d[2][2] - d[1][2] * d[2][0]) +
                     d[0][2] * (d[1][0] * d[2][1] - d[1][1] * d[2][0]);
  return std::abs(det) / 6;
}

}  // namespace zoo
}  // namespace compound_sparse
