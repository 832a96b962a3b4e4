// Helmholtz with several point sources solved together: k COCG recurrences (one per
// source) that share one product per iteration, Y = A X for the k search directions
// (common/block_krylov.hpp). The matrix and mesh are those of helmholtz_cocg.cpp: -Δu - k²u
// = f on the unit cube of P1 tetrahedra with an impedance boundary, complex symmetric. The
// sources sit on a diagonal through the cube.
//
// The same solve runs twice over one TunedSpmv: with its SpMM (the variant the tuning
// database ranks for the number of sources, on the matrix layout chosen for that many
// vectors) and with its SpMV once per source. Each prints the iterations per source, the
// worst final residual, and the operator's time per vector; the fields must agree.
// Exit code 0 when both converge to the same fields.
//
//   example_helmholtz_multisource [n] [wavelengths] [sources]   n cubes per side (default 12),
//                                     wavelengths across the cube (default 2), sources (default 8)
//
// On the host the default (2.2k rows, 8 sources) takes seconds; on a GPU try n = 100.

#include <algorithm>
#include <compound_sparse.hpp>
#include <compound_sparse/zoo/helmholtz.hpp>
#include <compound_sparse/zoo/tet_mesh.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "common/block_krylov.hpp"
#include "common/compare.hpp"  // print_device, signature_difference
#include "common/problem_size.hpp"

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;

int solve_sources(int n, double wavelengths, int sources);

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const long long size = examples::size_argument(argc, argv, 1, 12, 1, 10000000);
  const double wavelengths = argc > 2 ? std::atof(argv[2]) : 2.0;
  const long long sources = examples::size_argument(argc, argv, 3, 8, 1, 64);
  if (size < 0 || sources < 0 || !(wavelengths > 0)) {
    std::fprintf(stderr, "usage: %s [cubes per side > 0] [wavelengths > 0] [sources, 1 to 64]\n", argv[0]);
    return 2;
  }
  // A P1 tetrahedral mesh of the cube: (n+1)^3 points, about 15 entries per row, and the
  // solvers' 5 multivectors of `sources` vectors.
  const examples::ProblemSize asked{"n = " + std::to_string(size), std::pow(size + 1.0, 3), 15,
                                    sizeof(C) + 4 + 5.0 * sources * sizeof(C) / 15};
  return examples::run_sized(argv[0], asked,
                             [&] { return solve_sources(static_cast<int>(size), wavelengths, int(sources)); });
}

int solve_sources(int n, double wavelengths, int sources) {
  using multi = cs::MultiVector<C, cs::Soa>;
  const double wavenumber = 2 * M_PI * wavelengths;
  const cs::zoo::TetMesh mesh = cs::zoo::box_mesh(n, n, n);
  const cs::HostCsr<C> a = cs::zoo::helmholtz_matrix(mesh, wavenumber);
  // Source s at the point (i, j, l) = ((s + 1) n / (k + 1), n / 2, (k - s) n / (k + 1)); points
  // are numbered x fastest. Sources that fall on the same point (k > n) add up there.
  std::vector<std::vector<C>> rhs(sources, std::vector<C>(a.num_rows, C(0, 0)));
  for (int s = 0; s < sources; ++s) {
    const int i = (s + 1) * n / (sources + 1), j = n / 2, l = (sources - s) * n / (sources + 1);
    rhs[s][(l * (n + 1) + j) * (n + 1) + i] += C(1, 0);
  }

  examples::print_device("Helmholtz, several sources by COCG with one SpMM per iteration");
  std::printf("unit cube, %d^3 cubes, k = %.2f (%.1f wavelengths): %d rows, %zu non-zeros, %d sources\n", n, wavenumber,
              wavelengths, a.num_rows, a.num_entries(), sources);
  cs::TunedSpmvOptions options;
  options.vectors = sources;           // the matrix layout is chosen for the SpMM with this many vectors
  options.vector_layout = "aos";       // the columns of an soa multivector are aos vectors (vector_of)
  options.multivector_layout = "soa";  // the solver's multivectors
  options.quick_tune = cs::QuickTune::Never;
  const auto tuned = std::make_shared<const cs::TunedSpmv<C>>(a, options);
  std::printf("TunedSpmv: %s\n", tuned->explanation().c_str());

  const double tolerance = 1e-8;
  const int max_iterations = 20 * a.num_rows + 100;
  struct Run {
    std::string name;
    examples::BlockSolveResult result;
    double seconds_per_vector = 0, total_seconds = 0;
    std::vector<double> field;
  };
  const auto run = [&](const std::string& name, const auto& op) {
    Run r;
    r.name = name;
    const multi b = examples::make_multivector<multi>(rhs);
    const multi x = examples::zero_multivector_like(b, "x");
    const auto start = std::chrono::steady_clock::now();
    r.result = examples::block_cocg(op, b, x, tolerance, max_iterations);
    Kokkos::fence();
    r.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.seconds_per_vector = examples::seconds_per_vector(op, sources);
    for (const auto& v : cs::to_host(x))
      for (const C& c : v) r.field.insert(r.field.end(), {c.real(), c.imag()});
    return r;
  };
  const auto spmm = examples::spmm_operator<C>(tuned);
  const auto columns = examples::columnwise_operator<C>(tuned);
  const Run runs[] = {run("SpMM:  " + tuned->spmm_variant(sources).name(), spmm),
                      run("SpMVs: " + tuned->variant().name(), columns)};
  std::printf("%-50s %16s %14s %14s %10s\n", "operator", "iterations", "worst residual", "time/vector", "total");
  bool ok = true;
  for (const auto& r : runs) {
    const auto [fewest, most] = std::minmax_element(r.result.iterations.begin(), r.result.iterations.end());
    const double worst = *std::max_element(r.result.relative_residual.begin(), r.result.relative_residual.end());
    std::printf("%-50s %7d to %6d %14.3e %11.2f us %8.3f s  %s\n", r.name.c_str(), *fewest, *most, worst,
                1e6 * r.seconds_per_vector, r.total_seconds, r.result.converged ? "converged" : "NOT CONVERGED");
    ok &= r.result.converged;
  }
  const double difference = examples::signature_difference(runs[0].field, runs[1].field);
  std::printf("operator time per vector, SpMVs / SpMM: %.2fx; fields agree to %.1e (%s)\n",
              runs[1].seconds_per_vector / runs[0].seconds_per_vector, difference,
              difference <= 1e-6 ? "ok" : "DIFFERENT");
  ok &= difference <= 1e-6;
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
