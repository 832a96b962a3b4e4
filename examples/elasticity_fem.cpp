// The cantilever of example_elasticity_cg assembled from its mesh on the device, every step,
// and solved with TunedSpmv: no contribution list and no CSR on the host.
//
//   - the mesh's points and cells go to the device once (make_device_tet_mesh checks them);
//   - the P1 pattern is counted from the mesh's topology, and TunedSpmv chooses its layout
//     from the pattern's features and builds it, before any value exists
//     (fem/tuned_assembly.hpp);
//   - P1Assembly writes into that matrix: each step a kernel sets every tetrahedron's Lamé
//     parameters (the modulus changes per step and tetrahedron, as in
//     example_elasticity_reassembly), assemble() computes and sums the element matrices
//     straight into the tuned layout's slots, apply_dirichlet() clamps the end x = 0; CG solves
//     with the tuned product. No CSR of values, no refresh.
//
// The first and last steps' matrices are checked against the host path (the zoo's contributions
// with the same Lamé parameters, csr_from_coo, apply_dirichlet): bit for bit for the gathers,
// within rounding for the scatters. Prints each step's times, and once the host path's. Exit
// code 0 when every step converges and both checks hold.
//
//   example_elasticity_fem [n] [steps] [summation]   n cubes across the beam (default 3), steps
//                                                    (default 3), and one of per_entry, per_node,
//                                                    per_node_inline (default), atomic_scatter,
//                                                    coloured_scatter

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/zoo/elasticity.hpp>
#include <compound_sparse/zoo/tet_mesh.hpp>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "common/beam_reassembly.hpp"
#include "common/compare.hpp"
#include "common/device_data.hpp"
#include "common/krylov.hpp"
#include "common/problem_size.hpp"

namespace cs = compound_sparse;
using B = cs::Block<double, 3>;
using V = cs::BlockVector<double, 3>;
using memory_space = Kokkos::DefaultExecutionSpace::memory_space;

namespace fem {

double seconds_since(std::chrono::steady_clock::time_point start) {
  Kokkos::fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Every tetrahedron's Lamé parameters at `step`: the unit-modulus pair times its modulus.
void set_lame(const Kokkos::View<double*, memory_space>& lambda, const Kokkos::View<double*, memory_space>& mu,
              double unit_lambda, double unit_mu, int step) {
  Kokkos::parallel_for(
      "example::lame", Kokkos::RangePolicy<>(0, static_cast<int>(lambda.extent(0))), KOKKOS_LAMBDA(int t) {
        lambda(t) = unit_lambda * examples::modulus(t, step);
        mu(t) = unit_mu * examples::modulus(t, step);
      });
}

/// The host path's matrix at `step`.
cs::HostCsr<B> host_matrix(const cs::zoo::TetMesh& mesh, const std::vector<char>& clamped, double unit_lambda,
                           double unit_mu, int step) {
  std::vector<double> lambda(mesh.tets.size()), mu(mesh.tets.size());
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    lambda[t] = unit_lambda * examples::modulus(static_cast<int>(t), step);
    mu[t] = unit_mu * examples::modulus(static_cast<int>(t), step);
  }
  const int n = static_cast<int>(mesh.points.size());
  auto k = cs::csr_from_coo(n, n, cs::zoo::elasticity_contributions(mesh, lambda, mu));
  cs::zoo::apply_dirichlet(k, clamped);
  return k;
}

/// Whether the device matrix is the host path's converted to its layout: bit for bit, or
/// (exact false) its values within 1e-13 of the largest (P1Assembly checked the pattern).
template <class Matrix>
bool matches_host(const Matrix& k, const cs::HostCsr<B>& host, bool exact) {
  const auto want = cs::to_device<typename Matrix::outer_layout, typename Matrix::inner_layout>(host);
  if (exact) return examples::bytes_of(k) == examples::bytes_of(want);
  const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k.values);
  const auto expected = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), want.values);
  double largest = 0, worst = 0;
  for (std::size_t i = 0; i < expected.extent(0); ++i)
    for (int c = 0; c < 9; ++c) {
      largest = std::max(largest, std::abs(expected(i, c)));
      worst = std::max(worst, std::abs(got(i, c) - expected(i, c)));
    }
  return worst <= 1e-13 * largest;
}

int run(int n, int steps, cs::Summation how) {
  examples::print_device("Elasticity assembled from its mesh on the device (3x3 blocks)");
  const cs::zoo::TetMesh host_mesh = cs::zoo::box_mesh(4 * n, n, n, 4.0, 1.0, 1.0);
  const int num_nodes = static_cast<int>(host_mesh.points.size());
  const int num_cells = static_cast<int>(host_mesh.tets.size());
  const auto lame = cs::zoo::lame_parameters(1.0, 0.3);
  const double unit_lambda = lame.first, unit_mu = lame.second;  // named: lambdas below capture them
  std::vector<char> clamped(num_nodes);
  std::vector<V> load(num_nodes);
  const double weight = -1.0 / num_nodes;  // unit total weight, down, on the free nodes
  for (int i = 0; i < num_nodes; ++i) {
    clamped[i] = host_mesh.points[i][0] == 0.0;
    load[i] = clamped[i] ? V{{0, 0, 0}} : V{{0, 0, weight}};
  }

  // What an application has on the device: the mesh, and a flag per clamped node.
  auto start = std::chrono::steady_clock::now();
  Kokkos::View<double* [3], Kokkos::LayoutRight, memory_space> points("points", num_nodes);
  Kokkos::View<int* [4], Kokkos::LayoutRight, memory_space> cells("cells", num_cells);
  Kokkos::deep_copy(
      points,
      Kokkos::View<const double* [3], Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          &host_mesh.points[0][0], num_nodes));
  Kokkos::deep_copy(
      cells,
      Kokkos::View<const int* [4], Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          &host_mesh.tets[0][0], num_cells));
  const auto mesh = cs::make_device_tet_mesh(points, cells);
  const auto fixed = examples::device_view(clamped, "clamped");
  const double mesh_seconds = seconds_since(start);

  // The layout TunedSpmv chooses from the pattern's features, built before any value exists.
  cs::TunedSpmvOptions options;
  options.vector_layout = "aos";  // the solver's vectors
  start = std::chrono::steady_clock::now();
  // The nodes and pattern, built once: the choice reads the pattern, the assembly both.
  const auto topology = cs::lagrange_topology<1>(mesh);
  const auto tuned = cs::tuned_spmv_of_pattern<B>(topology.pattern, options);
  const double selection_seconds = seconds_since(start);
  std::printf("beam %d x %d x %d cubes: %d block rows, %d tetrahedra; mesh to the device and checked %.3f ms\n", 4 * n,
              n, n, num_nodes, num_cells, 1e3 * mesh_seconds);
  std::printf("pattern from the topology, TunedSpmv's choice and its layout, before any value: %.3f ms\n",
              1e3 * selection_seconds);
  std::printf("TunedSpmv: %s\n", tuned.explanation().c_str());

  // The host path this replaces: the zoo's contributions, csr_from_coo, the clamp, a TunedSpmv.
  start = std::chrono::steady_clock::now();
  const auto first_matrix = host_matrix(host_mesh, clamped, unit_lambda, unit_mu, 0);
  const cs::TunedSpmv<B> host_tuned(first_matrix, options);
  const double host_path_seconds = seconds_since(start);
  std::printf("host path per step (contributions + csr_from_coo + TunedSpmv): %.3f ms; its choice %s (rule %s)\n",
              1e3 * host_path_seconds, host_tuned.variant().name().c_str(), host_tuned.rule().c_str());

  B identity{};
  for (int d = 0; d < 3; ++d) identity(d, d) = 1;
  const Kokkos::View<double*, memory_space> lambda("lambda", num_cells), mu("mu", num_cells);
  const cs::P1Elasticity<memory_space> problem{lambda, mu};
  using vector = cs::CompoundVector<V, cs::Aos>;
  const auto op = examples::product_operator([&tuned](const vector& x, const vector& y) {
    tuned.apply(cs::real_value<cs::coefficient_type_t<B>>(1), x, cs::real_value<cs::coefficient_type_t<B>>(0), y);
  });
  const vector b = examples::make_vector<vector>(load);
  const bool exact =
      how == cs::Summation::per_entry || how == cs::Summation::per_node || how == cs::Summation::per_node_inline;
  bool ok = true;
  // The assembly writes into the tuned operator's own matrix, of the layout it chose.
  cs::with_tuned_layout(tuned, [&](const auto& matrix) {
    using M = std::decay_t<decltype(matrix)>;
    start = std::chrono::steady_clock::now();
    const cs::P1Assembly<B, typename M::outer_layout, typename M::inner_layout> assembly(mesh, topology, how, matrix);
    std::printf("P1Assembly (%s) into %s: %.3f ms; %zu blocks\n", cs::summation_name(how),
                tuned.matrix().layout().c_str(), 1e3 * seconds_since(start), matrix.num_entries);
    std::printf("%5s %12s %12s %10s %14s\n", "step", "assemble", "solve", "iterations", "rel. residual");
    for (int step = 0; step < steps; ++step) {
      start = std::chrono::steady_clock::now();
      set_lame(lambda, mu, unit_lambda, unit_mu, step);
      assembly.assemble(problem);
      assembly.apply_dirichlet(fixed, identity);
      const double assemble_seconds = seconds_since(start);
      if (step == 0 || step == steps - 1) {
        const bool same = matches_host(matrix, host_matrix(host_mesh, clamped, unit_lambda, unit_mu, step), exact);
        std::printf("step %d: assembled matrix %s the host path's%s\n", step, same ? "is" : "is NOT",
                    exact ? ", bit for bit" : ", within rounding");
        ok &= same;
      }
      const vector u = examples::zeros_like(b, "u");
      start = std::chrono::steady_clock::now();
      const auto solve = examples::cg(op, b, u, 1e-8, 20 * num_nodes + 100);
      const double solve_seconds = seconds_since(start);
      std::printf("%5d %9.3f ms %9.3f ms %10d %14.3e  %s\n", step, 1e3 * assemble_seconds, 1e3 * solve_seconds,
                  solve.iterations, solve.relative_residual, solve.converged ? "converged" : "NOT CONVERGED");
      ok &= solve.converged;
    }
  });
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}

}  // namespace fem

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const long long size = examples::size_argument(argc, argv, 1, 3, 1, 10000000);
  const long long steps = examples::size_argument(argc, argv, 2, 3, 1, 100000);
  cs::Summation how = cs::Summation::per_node_inline;
  bool known = argc <= 3;
  for (const auto way : {cs::Summation::per_entry, cs::Summation::per_node, cs::Summation::per_node_inline,
                         cs::Summation::atomic_scatter, cs::Summation::coloured_scatter})
    if (argc > 3 && std::strcmp(argv[3], cs::summation_name(way)) == 0) {
      how = way;
      known = true;
    }
  if (size < 0 || steps < 0 || !known || argc > 4) {
    std::fprintf(stderr,
                 "usage: %s [cubes across the beam > 0] [steps > 0] "
                 "[per_entry|per_node|per_node_inline|atomic_scatter|coloured_scatter]\n",
                 argv[0]);
    return 2;
  }
  // (4n+1)(n+1)^2 points, about 15 blocks per row; the mesh and the assembly's arrays besides:
  // counted as 6 more blocks a row.
  const examples::ProblemSize asked{"n = " + std::to_string(size), (4.0 * size + 1) * (size + 1.0) * (size + 1.0), 21,
                                    sizeof(B) + 4};
  return examples::run_sized(argv[0], asked,
                             [&] { return fem::run(static_cast<int>(size), static_cast<int>(steps), how); });
}
