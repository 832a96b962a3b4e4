#pragma once
// Triangle meshes for the matrix zoo: the input of the quaternionic Dirac
// operator and of the tetrahedral mesher. Read from Wavefront OBJ, refined by
// Loop subdivision to reach larger matrix sizes.

#include <array>
#include <istream>
#include <string>
#include <vector>

namespace compound_sparse {
namespace zoo {

using Point3 = std::array<double, 3>;

struct TriangleMesh {
  std::vector<Point3> vertices;
  std::vector<std::array<int, 3>> triangles;  ///< 0-based vertex indices, counter-clockwise
};

/// Reads the 'v' and 'f' records of an OBJ file (other records are ignored).
/// Face corners may be "i", "i/t", "i//n" or "i/t/n", 1-based or negative
/// (relative); polygons are split into fans of triangles. Malformed input throws
/// compound_sparse::IoError "<source>:<line>: <reason>".
TriangleMesh read_obj(std::istream& in, const std::string& source);
TriangleMesh read_obj(const std::string& path);

/// Drops triangles with a repeated corner or zero area and vertices no triangle
/// uses, renumbering the rest in order: every remaining vertex is a matrix row.
TriangleMesh clean_mesh(const TriangleMesh& mesh);

/// One step of Loop subdivision (Loop 1987: edge points 3/8, 3/8, 1/8, 1/8; vertex
/// weight beta = (5/8 - (3/8 + cos(2 pi / n) / 4)^2) / n). Boundary edges and
/// vertices use the cubic B-spline rules (1/2, 1/2 and 1/8, 3/4, 1/8); vertices on
/// non-manifold edges or boundary corners stay in place. New vertices: the old
/// ones first, then one per edge. Each triangle becomes four.
TriangleMesh loop_subdivide(const TriangleMesh& mesh);

/// A closed torus (major radius R, minor radius r) on an n_major x n_minor grid:
/// a generated mesh so that tests need no input files.
TriangleMesh torus_mesh(int n_major, int n_minor, double major_radius = 1.0, double minor_radius = 0.4);

/// Number of edges used by exactly one triangle (0 for a closed surface).
long long count_boundary_edges(const TriangleMesh& mesh);

}  // namespace zoo
}  // namespace compound_sparse
