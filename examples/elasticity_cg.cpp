// Conjugate gradients on a 3-D linear elasticity system in 3x3 blocks (BSR):
// a cantilever beam [0,4] x [0,1] x [0,1] of P1 tetrahedra, clamped at x = 0,
// loaded by its own weight. The solve runs twice, with the default SpMV
// configuration (Csr/Aos, static schedule) and with the second one of
// common/compare.hpp (SlicedEll<32>/Soa, dynamic warp schedule), and prints
// iterations, residual and time per SpMV of each. Exit code 0 when both
// converge to the same displacement.
//
//   example_elasticity_cg [n]     n cubes across the beam (default 4; 4n along it)
//
// On the host n = 4 (1.2k block rows) takes a second; on a GPU try n = 40 (1M block rows).

#include <compound_sparse.hpp>
#include <compound_sparse/zoo/elasticity.hpp>
#include <compound_sparse/zoo/tet_mesh.hpp>
#include <cstdio>
#include <cstdlib>

#include "common/compare.hpp"
#include "common/problem_size.hpp"

namespace cs = compound_sparse;
using V = cs::BlockVector<double, 3>;

int solve_beam(int n);

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const long long size = examples::size_argument(argc, argv, 1, 4, 1, 10000000);
  if (size < 0) {
    std::fprintf(stderr, "usage: %s [cubes across the beam > 0]\n", argv[0]);
    return 2;
  }
  const int n = static_cast<int>(size);
  // A P1 tetrahedral mesh of the beam: (4n+1)(n+1)^2 points, about 15 blocks per row.
  const examples::ProblemSize asked{"n = " + std::to_string(size), (4.0 * size + 1) * (size + 1.0) * (size + 1.0), 15,
                                    sizeof(cs::Block<double, 3>) + 4};
  return examples::run_sized(argv[0], asked, [&] { return solve_beam(n); });
}

int solve_beam(int n) {
  const cs::zoo::TetMesh mesh = cs::zoo::box_mesh(4 * n, n, n, 4.0, 1.0, 1.0);
  const auto [lambda, mu] = cs::zoo::lame_parameters(1.0, 0.3);
  cs::HostCsr<cs::Block<double, 3>> k = cs::zoo::elasticity_matrix(mesh, lambda, mu);
  std::vector<char> clamped(mesh.points.size());
  std::vector<V> load(mesh.points.size());
  const double weight = -1.0 / static_cast<double>(mesh.points.size());  // unit total weight
  for (std::size_t i = 0; i < mesh.points.size(); ++i) {
    clamped[i] = mesh.points[i][0] == 0.0;
    load[i] = clamped[i] ? V{{0, 0, 0}} : V{{0, 0, weight}};
  }
  cs::zoo::apply_dirichlet(k, clamped);

  examples::print_device("Elasticity CG (3x3 blocks)");
  std::printf("beam %d x %d x %d cubes: %d block rows, %zu blocks\n", 4 * n, n, n, k.num_rows, k.num_entries());
  const auto solve = examples::linear_solve(load, examples::Cg{}, 1e-8, 20 * k.num_rows + 100);
  return examples::compare_configurations(k, solve);
}
