// The smallest eigenvector of the quaternionic Dirac operator on a torus, by
// inverse iteration, as in Crane, Pinkall, Schröder, "Spin transformations of
// discrete surfaces" (2011): E λ = γ λ with E = D - ρ, ρ a prescribed change
// of curvature per triangle (here a smooth, symmetry-breaking function of position).
//
// Linear solves: E is a sum of squares per triangle (see zoo/dirac.hpp), so it
// is quaternion-hermitian and positive semi-definite; as a real 4n x 4n matrix it
// is symmetric. Each inverse-iteration step therefore solves (E + σI) y = x with
// plain CG in the real inner product, σ > 0 a small shift that makes the matrix
// definite (constant functions are in E's null space when ρ = 0) and keeps the
// convergence rate (γ1 + σ) / (γ2 + σ) close to the unshifted one.
//
// Everything runs with the default SpMV configuration (Csr/Aos, static
// schedule) and with the second one of common/compare.hpp (SlicedEll<32>/Soa,
// dynamic warp schedule); each prints CG iterations (all steps), the final
// eigen-residual ||Eλ - γλ|| / (γ ||λ||) and time per SpMV. Exit code 0 when
// both converge to the same eigenvalue.
//
//   example_dirac_inverse_iteration [n]   torus of 2n x n quads (default 16)
//
// On the host the default (512 vertices) takes a second; on a GPU try n = 700 (1M vertices).

#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/zoo/dirac.hpp>
#include <compound_sparse/zoo/triangle_mesh.hpp>
#include <cstdio>
#include <cstdlib>

#include "common/compare.hpp"
#include "common/problem_size.hpp"

namespace cs = compound_sparse;
using Q = cs::Quaternion<double>;

namespace {

/// y = (E + sigma I) x, counting E's products in E's timer.
template <class Operator>
struct Shifted {
  using vector = typename Operator::vector;
  const Operator& op;
  double sigma;
  void apply(const vector& x, const vector& y) const {
    op.apply(x, y);
    examples::axpby(sigma, x, 1.0, y);
  }
};

/// Curvature change per triangle: smooth in the centroid, without the torus' symmetries.
std::vector<double> curvature_change(const cs::zoo::TriangleMesh& mesh) {
  std::vector<double> rho;
  for (const auto& t : mesh.triangles) {
    double c[3] = {0, 0, 0};
    for (int corner : t)
      for (int d = 0; d < 3; ++d) c[d] += mesh.vertices[corner][d] / 3;
    rho.push_back(2.0 * c[2] + std::sin(3.0 * c[0]) + 0.5 * c[1]);
  }
  return rho;
}

}  // namespace

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
  const cs::zoo::TriangleMesh mesh = cs::zoo::torus_mesh(2 * n, n);
  const cs::HostCsr<Q> e = cs::zoo::dirac_operator(mesh, curvature_change(mesh));
  double mean_diagonal = 0;
  for (int r = 0; r < e.num_rows; ++r)
    for (int k = e.row_offsets[r]; k < e.row_offsets[r + 1]; ++k)
      if (e.col_indices[k] == r) mean_diagonal += e.values[k].w / e.num_rows;
  const double sigma = 1e-3 * mean_diagonal;

  examples::print_device("Dirac operator inverse iteration (quaternions)");
  std::printf("torus %d x %d: %d vertices, %zu quaternion non-zeros, shift sigma = %.3g\n", 2 * n, n, e.num_rows,
              e.num_entries(), sigma);
  const double eigen_tolerance = 1e-8;
  const int max_steps = 200;
  const auto solve = [&](const auto& op) {
    using vector = typename std::decay_t<decltype(op)>::vector;
    const Shifted<std::decay_t<decltype(op)>> shifted{op, sigma};
    std::vector<Q> start(e.num_rows);
    for (int i = 0; i < e.num_rows; ++i) start[i] = Q{1.0, 0.1 * std::sin(i), 0.1 * std::cos(3.0 * i), 0.0};
    const vector x = examples::make_vector<vector>(start);
    const vector y = examples::zeros_like(x, "y"), ex = examples::zeros_like(x, "Ex");
    examples::axpby(1.0 / examples::norm2(x), x, 0.0, x);
    examples::Outcome outcome;
    double gamma = 0;
    int steps = 0;
    while (steps < max_steps) {
      ++steps;
      Kokkos::deep_copy(y.data, 0.0);
      const examples::SolveResult inner = examples::cg(shifted, x, y, 1e-10, 20 * e.num_rows + 100);
      outcome.solve.iterations += inner.iterations;
      if (!inner.converged) break;
      examples::axpby(1.0 / examples::norm2(y), y, 0.0, x);  // x = y / ||y||
      op.apply(x, ex);
      gamma = examples::real_dot(x, ex);  // Rayleigh quotient, ||x|| = 1
      examples::axpby(-gamma, x, 1.0, ex);
      outcome.solve.relative_residual = examples::norm2(ex) / gamma;
      if (outcome.solve.relative_residual <= eigen_tolerance) {
        outcome.solve.converged = true;
        break;
      }
    }
    std::printf("  %d inverse-iteration steps: smallest eigenvalue gamma = %.12g\n", steps, gamma);
    outcome.signature = {gamma};
    return outcome;
  };
  return examples::compare_configurations(e, solve);
}
