// The smallest eigenvector of the quaternionic Dirac operator on a torus (the
// problem Crane, Pinkall, Schröder solve by inverse iteration in "Spin transformations of
// discrete surfaces" (2011): E λ = γ λ with E = D - ρ, ρ a prescribed change
// of curvature per triangle (here a smooth, symmetry-breaking function of position).
//
// E is a sum of squares per triangle (see zoo/dirac.hpp), so it is
// quaternion-hermitian and positive semi-definite; as a real 4n x 4n matrix it is
// symmetric, and its smallest eigenpair is found by LOBPCG in the real inner
// product (common/eigen.hpp): one SpMV per iteration, no shift, no inner solve.
// (Inverse iteration with CG on E + σI, σ fixed against the diagonal, stalled at
// fine tori: the rate (γ1 + σ) / (γ2 + σ) tends to 1 once γ1, γ2 << σ.)
// Converged when ||E x - γ x|| <= 1e-10 ||E|| (||E|| bounded by the largest
// absolute row sum, ||x|| = 1).
//
// Everything runs with the default SpMV configuration (Csr/Aos, static
// schedule) and with TunedSpmv's choice (common/compare.hpp); each prints the
// SpMVs (iterations), the final residual relative to ||E|| and time per SpMV.
// Exit code 0 when both converge to the same eigenvalue.
//
//   example_dirac_inverse_iteration [n]   torus of 2n x n quads (default 16)
//   (the name is the example's first method's; it keeps it for scripts and tests)
//
// On the host the default (512 vertices) takes a second; on a GPU try n = 700 (1M vertices).

#include <algorithm>
#include <cmath>
#include <compound_sparse.hpp>
#include <cstdio>
#include <cstdlib>

#include "common/compare.hpp"
#include "common/dirac_problem.hpp"
#include "common/eigen.hpp"
#include "common/problem_size.hpp"

namespace cs = compound_sparse;
using Q = cs::Quaternion<double>;

int find_eigenvector(int n);

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const long long size = examples::size_argument(argc, argv, 1, 16, 3, 10000000);
  if (size < 0) {
    std::fprintf(stderr, "usage: %s [torus resolution >= 3]\n", argv[0]);
    return 2;
  }
  // A 2n x n torus: 2n^2 vertices, 7 quaternions per row (a vertex and its six neighbours).
  const examples::ProblemSize asked{"n = " + std::to_string(size), 2.0 * size * size, 7, sizeof(Q) + 4};
  return examples::run_sized(argv[0], asked, [&] { return find_eigenvector(static_cast<int>(size)); });
}

int find_eigenvector(int n) {
  const cs::HostCsr<Q> e = examples::dirac_problem(n);
  const double scale = examples::row_sum_bound(e);  // ||E|| <= scale

  examples::print_device("Dirac operator, smallest eigenpair by LOBPCG (quaternions)");
  std::printf("torus %d x %d: %d vertices, %zu quaternion non-zeros, ||E|| <= %.4g\n", 2 * n, n, e.num_rows,
              e.num_entries(), scale);
  const double tolerance = 1e-10;  // ||E x - gamma x|| <= tolerance * ||E|| (bound), ||x|| = 1
  const int max_iterations = 1000000;
  const auto solve = [&](const auto& op) {
    using vector = typename std::decay_t<decltype(op)>::vector;
    std::vector<Q> start(e.num_rows);
    for (int i = 0; i < e.num_rows; ++i) start[i] = Q{1.0, 0.1 * std::sin(i), 0.1 * std::cos(3.0 * i), 0.0};
    const vector x = examples::make_vector<vector>(start);
    const examples::EigenResult eigen = examples::lobpcg_smallest(op, x, scale, tolerance, max_iterations);
    examples::Outcome outcome;
    outcome.solve.iterations = eigen.iterations;
    outcome.solve.relative_residual = eigen.residual;
    outcome.solve.converged = eigen.converged;
    std::printf("  smallest eigenvalue gamma = %.12g (||E x - gamma x|| = %.2e gamma)\n", eigen.value,
                eigen.value > 0 ? eigen.residual * scale / eigen.value : 0.0);
    outcome.signature = {eigen.value};
    return outcome;
  };
  return examples::compare_configurations(e, solve);
}
