#pragma once
// Constant operators of high-order schemes, for operators/constant_operator.hpp: the matrices a
// flux-reconstruction or DG solver applies to every element's values. Lagrange bases on Gauss
// points for quadrilaterals and hexahedra (tensor products, so each row reads one line of
// points: sparse), and on interior lattice points for triangles and tetrahedra (dense).

#include <cstdint>
#include <string>
#include <vector>

namespace compound_sparse {
namespace zoo {

/// A real operator, row-major.
struct RealOperator {
  std::string name;  ///< e.g. "hex-p6-gradient"
  int rows = 0;
  int cols = 0;
  std::vector<double> values;
  double density() const;
};

enum class ElementShape { Quadrilateral, Hexahedron, Triangle, Tetrahedron };
std::string to_string(ElementShape shape);  // "quad", "hex", "tri", "tet"

/// The two operators of order `order` (1-6) on one element shape, with the solution points
/// as columns:
///   "<shape>-p<order>-interpolate": the values at the flux points of every face (Gauss
///     points of each edge in 2D; of each face, tensor Gauss or lattice points, in 3D);
///   "<shape>-p<order>-gradient": each derivative at the solution points, one block of rows
///     per dimension.
/// A hexahedron of order 6 gives 294 x 343 and 1029 x 343, the shapes of PyFR's largest.
std::vector<RealOperator> fr_operators(ElementShape shape, int order);

/// The solution points of fr_operators (reference coordinates, `dimension` per point) and a
/// way to check the operators: the values at the flux points (interpolate's rows) in the same
/// order as interpolate's rows.
std::vector<double> fr_solution_points(ElementShape shape, int order);
std::vector<double> fr_flux_points(ElementShape shape, int order);
int dimension(ElementShape shape);

/// A rows x cols operator whose entries are non-zero with probability `density`, values in
/// [-1, 1) (never zero), from a seeded generator that gives the same operator on every platform.
RealOperator random_sparse_operator(int rows, int cols, double density, std::uint64_t seed);

}  // namespace zoo
}  // namespace compound_sparse
