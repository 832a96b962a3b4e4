// Several eigenvectors of the quaternionic Dirac operator on a torus at once: the m smallest
// eigenpairs of E = D - ρ (the operator of dirac_inverse_iteration.cpp, Crane, Pinkall,
// Schröder 2011) by block LOBPCG (common/block_eigen.hpp), one product with m vectors per
// iteration. E is quaternion-linear, so every eigenvalue appears four times over the real
// numbers (x q is an eigenvector with x, for every unit quaternion q): m = 8 finds the two
// smallest, four copies each.
//
// The same solve runs twice over one TunedSpmv: with its SpMM (the variant the tuning
// database ranks for m vectors, on the matrix layout chosen for that many) and with its SpMV
// once per vector. Each prints the eigenvalues, the products, the worst residual relative to
// ||E|| and the operator's time per vector; the eigenvalues must agree. Converged when
// every ||E x_j - γ_j x_j|| <= 1e-8 ||E|| (||E|| bounded by the largest absolute row sum).
// Exit code 0 when both converge to the same eigenvalues.
//
//   example_dirac_eigenvectors [n] [m]   torus of 2n x n quads (default 12), m eigenvectors (default 8)
//
// On the host the default (288 vertices) takes seconds; on a GPU try n = 300.

#include <algorithm>
#include <cmath>
#include <compound_sparse.hpp>
#include <cstdio>
#include <memory>
#include <random>

#include "common/block_eigen.hpp"
#include "common/block_krylov.hpp"  // spmm_operator, columnwise_operator
#include "common/compare.hpp"       // print_device, signature_difference
#include "common/dirac_problem.hpp"
#include "common/problem_size.hpp"

namespace cs = compound_sparse;
using Q = cs::Quaternion<double>;

int find_eigenvectors(int n, int m);

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const long long size = examples::size_argument(argc, argv, 1, 12, 3, 10000000);
  const long long count = examples::size_argument(argc, argv, 2, 8, 1, 16);
  if (size < 0 || count < 0) {
    std::fprintf(stderr, "usage: %s [torus resolution >= 3] [eigenvectors, 1 to 16]\n", argv[0]);
    return 2;
  }
  // A 2n x n torus: 2n^2 vertices, 7 quaternions per row, and the solver's 10 multivectors of m.
  const examples::ProblemSize asked{"n = " + std::to_string(size), 2.0 * size * size, 7,
                                    sizeof(Q) + 4 + 10.0 * count * sizeof(Q) / 7};
  return examples::run_sized(argv[0], asked,
                             [&] { return find_eigenvectors(static_cast<int>(size), static_cast<int>(count)); });
}

int find_eigenvectors(int n, int m) {
  using multi = cs::MultiVector<Q, cs::Soa>;
  const cs::HostCsr<Q> e = examples::dirac_problem(n);
  const double scale = examples::row_sum_bound(e);  // ||E|| <= scale
  examples::print_device("Dirac operator, the smallest eigenpairs by block LOBPCG with SpMM (quaternions)");
  std::printf("torus %d x %d: %d vertices, %zu quaternion non-zeros, ||E|| <= %.4g, %d eigenvectors\n", 2 * n, n,
              e.num_rows, e.num_entries(), scale, m);
  cs::TunedSpmvOptions options;
  options.vectors = m;                 // the matrix layout is chosen for the SpMM with m vectors
  options.vector_layout = "aos";       // the columns of an soa multivector are aos vectors (vector_of)
  options.multivector_layout = "soa";  // the solver's multivectors
  options.quick_tune = cs::QuickTune::Never;
  const auto tuned = std::make_shared<const cs::TunedSpmv<Q>>(e, options);
  std::printf("TunedSpmv: %s\n", tuned->explanation().c_str());

  // The start block: random components in [-1, 1] from mt19937, whose output the standard
  // fixes, so every run starts alike. (Smooth functions of i and j made a block of rank 4.)
  std::mt19937 rng(2011);
  const auto uniform = [&rng] { return 2.0 * (static_cast<double>(rng()) / 4294967296.0) - 1.0; };
  std::vector<std::vector<Q>> start(m, std::vector<Q>(e.num_rows));
  for (auto& vector : start)
    for (auto& q : vector) q = Q{uniform(), uniform(), uniform(), uniform()};
  const double tolerance = 1e-8;
  const int max_iterations = 1000000;
  struct Run {
    std::string name;
    examples::BlockEigenResult result;
    double seconds_per_vector = 0, total_seconds = 0;
  };
  const auto run = [&](const std::string& name, const auto& op) {
    Run r;
    r.name = name;
    const multi x = examples::make_multivector<multi>(start);
    const auto begin = std::chrono::steady_clock::now();
    r.result = examples::lobpcg_smallest_block(op, x, scale, tolerance, max_iterations);
    Kokkos::fence();
    r.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    r.seconds_per_vector = examples::seconds_per_vector(op, m);
    return r;
  };
  const auto spmm = examples::spmm_operator<Q>(tuned);
  const auto columns = examples::columnwise_operator<Q>(tuned);
  const Run runs[] = {run("SpMM:  " + tuned->spmm_variant(m).name(), spmm),
                      run("SpMVs: " + tuned->variant().name(), columns)};
  std::printf("%-50s %10s %14s %14s %10s\n", "operator", "products", "worst residual", "time/vector", "total");
  bool ok = true;
  for (const auto& r : runs) {
    const double worst = *std::max_element(r.result.residuals.begin(), r.result.residuals.end());
    std::printf("%-50s %10d %14.3e %11.2f us %8.3f s  %s\n", r.name.c_str(), r.result.iterations, worst,
                1e6 * r.seconds_per_vector, r.total_seconds, r.result.converged ? "converged" : "NOT CONVERGED");
    ok &= r.result.converged;
  }
  std::printf("eigenvalues (SpMM):");
  for (const double v : runs[0].result.values) std::printf(" %.10g", v);
  std::printf("\n");
  const double difference = examples::signature_difference(runs[0].result.values, runs[1].result.values);
  std::printf("operator time per vector, SpMVs / SpMM: %.2fx; eigenvalues agree to %.1e (%s)\n",
              runs[1].seconds_per_vector / runs[0].seconds_per_vector, difference,
              difference <= 1e-6 ? "ok" : "DIFFERENT");
  ok &= difference <= 1e-6;
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
