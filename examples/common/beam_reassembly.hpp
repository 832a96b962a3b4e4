#pragma once
// The re-assembled cantilever of example_elasticity_reassembly, shared with
// compound-assembly-bench's reassembly:N case so that the bench times the example's loop:
// the beam of example_elasticity_cg (box_mesh(4n, n, n) on 4 x 1 x 1, clamped at x = 0) as a
// contribution list, and the per-step modulus that scales each tetrahedron's blocks on the
// device and, for the checks, on the host.

#include <Kokkos_Core.hpp>
#include <compound_sparse.hpp>
#include <compound_sparse/zoo/elasticity.hpp>
#include <compound_sparse/zoo/tet_mesh.hpp>
#include <vector>

namespace examples {

namespace cs = compound_sparse;

struct Beam {
  int num_nodes = 0;
  int cubes = 0;                                         ///< n: the beam is 4n x n x n cubes
  std::vector<cs::CooEntry<cs::Block<double, 3>>> list;  ///< the contributions at unit modulus
  int num_element_contributions = 0;                     ///< list[0, this) are 16 per tetrahedron
  std::vector<cs::BlockVector<double, 3>> load;          ///< unit total weight, down, on the free nodes
};

/// Unit-modulus element blocks (zoo::elasticity_contributions); the clamped nodes' (x = 0)
/// rows and columns zeroed, and an identity block appended on each clamped diagonal, so the
/// matrix is symmetric positive definite.
inline Beam clamped_beam(int n) {
  using B = cs::Block<double, 3>;
  Beam beam;
  beam.cubes = n;
  const cs::zoo::TetMesh mesh = cs::zoo::box_mesh(4 * n, n, n, 4.0, 1.0, 1.0);
  beam.num_nodes = static_cast<int>(mesh.points.size());
  const auto [lambda, mu] = cs::zoo::lame_parameters(1.0, 0.3);
  beam.list = cs::zoo::elasticity_contributions(mesh, lambda, mu);
  beam.num_element_contributions = static_cast<int>(beam.list.size());
  std::vector<char> clamped(beam.num_nodes);
  beam.load.resize(beam.num_nodes);
  const double weight = -1.0 / beam.num_nodes;
  for (int i = 0; i < beam.num_nodes; ++i) {
    clamped[i] = mesh.points[i][0] == 0.0;
    beam.load[i] = clamped[i] ? cs::BlockVector<double, 3>{{0, 0, 0}} : cs::BlockVector<double, 3>{{0, 0, weight}};
  }
  for (auto& e : beam.list)
    if (clamped[e.row] || clamped[e.col]) e.value = B{};
  B identity{};
  for (int d = 0; d < 3; ++d) identity(d, d) = 1;
  for (int i = 0; i < beam.num_nodes; ++i)
    if (clamped[i]) beam.list.push_back({i, i, identity});
  return beam;
}

/// The modulus of tetrahedron t at `step`: exact in binary on host and device alike (one
/// correctly rounded division), so both paths scale by the same bits.
KOKKOS_INLINE_FUNCTION double modulus(int t, int step) {
  return (10 + (t + step) % 5) / 10.0;
}

/// values(i) = base(i) scaled by its tetrahedron's modulus (16 contributions each; those
/// past the tetrahedra, the clamped diagonals, unscaled).
template <class MemorySpace>
void scale_on_device(const Kokkos::View<const cs::Block<double, 3>*, MemorySpace>& base,
                     const Kokkos::View<cs::Block<double, 3>*, MemorySpace>& values, int num_element_contributions,
                     int step) {
  using execution_space = typename MemorySpace::execution_space;
  Kokkos::parallel_for(
      "example::scale", Kokkos::RangePolicy<execution_space>(0, static_cast<int>(base.extent(0))),
      KOKKOS_LAMBDA(int i) {
        cs::Block<double, 3> b = base(i);
        if (i < num_element_contributions) {
          const double m = modulus(i / 16, step);
          for (int c = 0; c < 9; ++c) b.v[c] *= m;
        }
        values(i) = b;
      });
}

/// The same list scaled on the host.
inline std::vector<cs::CooEntry<cs::Block<double, 3>>> scaled_on_host(
    std::vector<cs::CooEntry<cs::Block<double, 3>>> list, int num_element_contributions, int step) {
  for (int i = 0; i < num_element_contributions; ++i) {
    const double m = modulus(i / 16, step);
    for (int c = 0; c < 9; ++c) list[i].value.v[c] *= m;
  }
  return list;
}

}  // namespace examples
