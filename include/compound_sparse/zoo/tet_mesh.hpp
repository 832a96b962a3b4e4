#pragma once
// Tetrahedral meshes for the FEM matrices of the zoo (elasticity, Helmholtz):
// deterministic structured meshes of simple solids, and TetGen on closed
// surface meshes.

#include <array>
#include <string>
#include <vector>

#include "triangle_mesh.hpp"

namespace compound_sparse {
namespace zoo {

struct TetMesh {
  std::vector<Point3> points;
  std::vector<std::array<int, 4>> tets;  ///< 0-based point indices
};

/// The box [0,lx] x [0,ly] x [0,lz] on an nx x ny x nz grid of cubes, each cut into
/// six tetrahedra around its main diagonal (Kuhn), so neighbouring cubes conform.
/// Points are numbered x fastest.
TetMesh box_mesh(int nx, int ny, int nz, double lx = 1.0, double ly = 1.0, double lz = 1.0);

/// An extruded L: the n x n x nz box grid on [0,1]^2 x [0,lz] without the cubes
/// with x > 1/2 and y > 1/2 (n even).
TetMesh l_shape_mesh(int n, int nz, double lz = 1.0);

/// A cylinder of radius 1 and height lz: the [-1,1]^2 x [0,lz] box grid mapped onto
/// the disk by (x, y) -> (x sqrt(1 - y^2/2), y sqrt(1 - x^2/2)).
TetMesh cylinder_mesh(int n, int nz, double lz = 2.0);

/// Tetrahedralizes the inside of a closed, consistently oriented surface with the
/// TetGen program (Debian package tetgen) run in `work_dir`: quality bound
/// -q1.4, maximum tetrahedron volume `max_volume` (<= 0: none). Throws IoError if
/// tetgen is missing or fails (for example on a surface that is not closed).
TetMesh tetgen_mesh(const TriangleMesh& surface, double max_volume, const std::string& work_dir);

/// Reads TetGen's output files base.node and base.ele (0-based, as tetgen -z writes them).
/// Throws IoError naming the file and line of anything it cannot read.
TetMesh read_tetgen_mesh(const std::string& base);

/// Boundary triangles (faces of exactly one tetrahedron).
std::vector<std::array<int, 3>> boundary_faces(const TetMesh& mesh);

/// Volume of tetrahedron t (positive for any orientation).
double tet_volume(const TetMesh& mesh, int t);

}  // namespace zoo
}  // namespace compound_sparse
