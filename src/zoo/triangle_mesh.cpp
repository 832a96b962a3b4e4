#include "compound_sparse/zoo/triangle_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include "compound_sparse/io/text_input.hpp"

namespace compound_sparse {
namespace zoo {

namespace {

struct HalfEdge {
  int a, b;      // undirected key, a < b
  int opposite;  // the triangle's third vertex
};

// Triangle corners as undirected edges sorted by key: equal keys are adjacent.
std::vector<HalfEdge> sorted_edges(const TriangleMesh& m) {
  std::vector<HalfEdge> e;
  e.reserve(m.triangles.size() * 3);
  for (const auto& t : m.triangles)
    for (int i = 0; i < 3; ++i) {
      const int u = t[i], v = t[(i + 1) % 3];
      e.push_back({std::min(u, v), std::max(u, v), t[(i + 2) % 3]});
    }
  std::sort(e.begin(), e.end(), [](const HalfEdge& x, const HalfEdge& y) {
    return x.a != y.a ? x.a < y.a : x.b != y.b ? x.b < y.b : x.opposite < y.opposite;
  });
  return e;
}

Point3 cross(const Point3& u, const Point3& v) {
  return {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
}

}  // namespace

TriangleMesh read_obj(std::istream& stream, const std::string& source) {
  io::LineReader in(stream, source);
  TriangleMesh mesh;
  std::string line, token;
  std::vector<int> corners;
  while (in.next(line)) {
    std::size_t pos = 0;
    if (!io::next_token(line, pos, token)) continue;
    if (token == "v") {
      Point3 p;
      for (int i = 0; i < 3; ++i) {
        COMPOUND_SPARSE_PARSE_REQUIRE(in, io::next_token(line, pos, token), "vertex needs 3 coordinates, got " << i);
        COMPOUND_SPARSE_PARSE_REQUIRE(in, io::parse_real(token, p[i]) && std::isfinite(p[i]),
                                      io::quote(token) << " is not a finite coordinate");
      }
      mesh.vertices.push_back(p);  // an optional w coordinate or vertex colours follow: ignored
    } else if (token == "f") {
      corners.clear();
      while (io::next_token(line, pos, token)) {
        const std::string index = token.substr(0, token.find('/'));
        long long v = 0;
        COMPOUND_SPARSE_PARSE_REQUIRE(in, io::parse_integer(index, v) && v != 0,
                                      "face corner " << io::quote(token) << " does not start with a vertex index");
        const long long n = static_cast<long long>(mesh.vertices.size());
        if (v < 0) v += n + 1;  // relative index: -1 is the last vertex so far
        COMPOUND_SPARSE_PARSE_REQUIRE(in, v >= 1 && v <= n,
                                      "face corner " << io::quote(token) << " refers to vertex " << v << " of " << n);
        corners.push_back(static_cast<int>(v - 1));
      }
      COMPOUND_SPARSE_PARSE_REQUIRE(in, corners.size() >= 3, "face needs at least 3 corners, got " << corners.size());
      for (std::size_t i = 1; i + 1 < corners.size(); ++i)
        mesh.triangles.push_back({corners[0], corners[i], corners[i + 1]});
    }
  }
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, !mesh.triangles.empty(), source << ": no faces");
  return mesh;
}

TriangleMesh read_obj(const std::string& path) {
  std::ifstream file = io::open_input(path);
  return read_obj(file, path);
}

TriangleMesh clean_mesh(const TriangleMesh& mesh) {
  TriangleMesh out;
  std::vector<int> renumber(mesh.vertices.size(), -1);
  for (const auto& t : mesh.triangles) {
    if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) continue;
    const auto& p = mesh.vertices;
    Point3 u, v;
    for (int i = 0; i < 3; ++i) {
      u[i] = p[t[1]][i] - p[t[0]][i];
      v[i] = p[t[2]][i] - p[t[0]][i];
    }
    const Point3 n = cross(u, v);
    if (n[0] == 0 && n[1] == 0 && n[2] == 0) continue;
    out.triangles.push_back(t);
    for (int c : t) renumber[c] = 0;
  }
  for (std::size_t i = 0; i < renumber.size(); ++i)
    if (renumber[i] == 0) {
      renumber[i] = static_cast<int>(out.vertices.size());
      out.vertices.push_back(mesh.vertices[i]);
    }
  for (auto& t : out.triangles)
    for (auto& c : t) c = renumber[c];
  return out;
}

TriangleMesh loop_subdivide(const TriangleMesh& mesh) {
  const int nv = static_cast<int>(mesh.vertices.size());
  const auto edges = sorted_edges(mesh);
  TriangleMesh out;
  out.vertices.assign(mesh.vertices.begin(), mesh.vertices.end());
  // Per old vertex: sum and count of neighbours, and boundary neighbours.
  std::vector<Point3> neighbour_sum(nv, Point3{0, 0, 0}), boundary_sum(nv, Point3{0, 0, 0});
  std::vector<int> valence(nv, 0), boundary_count(nv, 0);
  std::vector<char> pinned(nv, 0);  // on a non-manifold edge
  std::map<std::pair<int, int>, int> edge_vertex;
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i;
    while (j < edges.size() && edges[j].a == edges[i].a && edges[j].b == edges[i].b) ++j;
    const int a = edges[i].a, b = edges[i].b, faces = static_cast<int>(j - i);
    const auto& pa = mesh.vertices[a];
    const auto& pb = mesh.vertices[b];
    Point3 q;
    for (int c = 0; c < 3; ++c) {
      if (faces == 2)
        q[c] = 0.375 * (pa[c] + pb[c]) +
               0.125 * (mesh.vertices[edges[i].opposite][c] + mesh.vertices[edges[i + 1].opposite][c]);
      else
        q[c] = 0.5 * (pa[c] + pb[c]);
      neighbour_sum[a][c] += pb[c];
      neighbour_sum[b][c] += pa[c];
      if (faces == 1) {
        boundary_sum[a][c] += pb[c];
        boundary_sum[b][c] += pa[c];
      }
    }
    ++valence[a];
    ++valence[b];
    if (faces == 1) ++boundary_count[a], ++boundary_count[b];
    if (faces > 2) pinned[a] = pinned[b] = 1;
    edge_vertex[{a, b}] = static_cast<int>(out.vertices.size());
    out.vertices.push_back(q);
    i = j;
  }
  const double pi = std::acos(-1.0);
  for (int v = 0; v < nv; ++v) {
    const auto& p = mesh.vertices[v];
    auto& q = out.vertices[v];
    if (pinned[v] || valence[v] == 0 || (boundary_count[v] != 0 && boundary_count[v] != 2)) continue;
    if (boundary_count[v] == 2) {
      for (int c = 0; c < 3; ++c) q[c] = 0.75 * p[c] + 0.125 * boundary_sum[v][c];
      continue;
    }
    const int n = valence[v];
    const double t = 0.375 + 0.25 * std::cos(2 * pi / n);
    const double beta = (0.625 - t * t) / n;
    for (int c = 0; c < 3; ++c) q[c] = (1 - n * beta) * p[c] + beta * neighbour_sum[v][c];
  }
  out.triangles.reserve(mesh.triangles.size() * 4);
  for (const auto& t : mesh.triangles) {
    int m[3];
    for (int i = 0; i < 3; ++i) {
      const int u = t[i], w = t[(i + 1) % 3];
      m[i] = edge_vertex.at({std::min(u, w), std::max(u, w)});  // midpoint of edge (t[i], t[i+1])
    }
    out.triangles.push_back({t[0], m[0], m[2]});
    out.triangles.push_back({t[1], m[1], m[0]});
    out.triangles.push_back({t[2], m[2], m[1]});
    out.triangles.push_back({m[0], m[1], m[2]});
  }
  return out;
}

TriangleMesh torus_mesh(int n_major, int n_minor, double major_radius, double minor_radius) {
  COMPOUND_SPARSE_REQUIRE(n_major >= 3 && n_minor >= 3, "torus needs at least 3 x 3 vertices");
  TriangleMesh m;
  const double pi = std::acos(-1.0);
  for (int i = 0; i < n_major; ++i)
    for (int j = 0; j < n_minor; ++j) {
      const double u = 2 * pi * i / n_major, v = 2 * pi * j / n_minor;
      const double r = major_radius + minor_radius * std::cos(v);
      m.vertices.push_back({r * std::cos(u), r * std::sin(u), minor_radius * std::sin(v)});
    }
  auto id = [&](int i, int j) { return (i % n_major) * n_minor + (j % n_minor); };
  for (int i = 0; i < n_major; ++i)
    for (int j = 0; j < n_minor; ++j) {
      m.triangles.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      m.triangles.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
  return m;
}

long long count_boundary_edges(const TriangleMesh& mesh) {
  const auto e = sorted_edges(mesh);
  long long n = 0;
  for (std::size_t i = 0; i < e.size();) {
    std::size_t j = i;
    while (j < e.size() && e[j].a == e[i].a && e[j].b == e[i].b) ++j;
    n += j - i == 1;
    i = j;
  }
  return n;
}

}  // namespace zoo
}  // namespace compound_sparse
