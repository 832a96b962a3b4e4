// Conjugate gradients on the elasticity beam of elasticity_cg.cpp with its rows spread over
// MPI ranks, one device per rank: the product is DistributedSpmv (each rank's diagonal and
// off-diagonal blocks tuned by TunedSpmv, the halo of x exchanged while the diagonal block
// multiplies), the dot products are MPI_Allreduce sums of the ranks' parts.
//
//   mpiexec -n 2 example_distributed_cg [n] [rcm]      n cubes across the beam (default 4)
//   mpiexec -n 2 example_distributed_cg FILE [rcm]     a symmetric positive definite matrix of
//                                                      3x3 blocks (.csrb or .mtx), e.g. the
//                                                      zoo's elasticity-box-xl; b = A (1, 1, 1)
//
// With "rcm" the matrix is reordered by reverse Cuthill-McKee before it is partitioned
// (partition.hpp), which shrinks the halos. Rank 0 prints the partition (rows, halo per
// rank), the iterations, the final residual recomputed with the distributed product, the
// time per iteration and per product, the dot products' share of the solve, the product's
// phases, and checks the gathered solution against the host reference product: exit code 0
// when the solve converged there too (every rank returns it).

#include <mpi.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/distributed/distributed_spmv.hpp>
#include <compound_sparse/io/binary_csr.hpp>
#include <compound_sparse/io/matrix_market.hpp>
#include <compound_sparse/zoo/elasticity.hpp>
#include <compound_sparse/zoo/tet_mesh.hpp>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>

#include "common/compare.hpp"  // print_device
#include "common/problem_size.hpp"
#include "common/vector_ops.hpp"

namespace cs = compound_sparse;
using B = cs::Block<double, 3>;
using V = cs::BlockVector<double, 3>;

namespace {

int rank_of(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

/// Σ over the ranks of the local real inner products; adds its time to `seconds`.
template <class Vector>
double global_dot(const Vector& x, const Vector& y, double& seconds) {
  const auto start = std::chrono::steady_clock::now();
  const double mine = examples::real_dot(x, y);  // on the host when it returns
  double all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return all;
}

/// A matrix file of 3x3 blocks and b = A (1, 1, 1): a right-hand side in A's range.
void from_file(const std::string& path, cs::HostCsr<B>& k, std::vector<V>& load) {
  const bool binary = path.size() > 5 && path.compare(path.size() - 5, 5, ".csrb") == 0;
  k = binary ? cs::io::read_binary_csr<B>(path) : cs::io::read_matrix_market<B>(path);
  COMPOUND_SPARSE_REQUIRE(k.num_rows == k.num_cols,
                          path << " is " << k.num_rows << " x " << k.num_cols << ": CG needs a square matrix");
  load = cs::reference_spmv<double>(1.0, k, std::vector<V>(k.num_rows, V{{1, 1, 1}}), 0.0, std::vector<V>(k.num_rows));
}

/// The beam's stiffness matrix, clamped at x = 0, and its load (own weight).
void beam(int n, cs::HostCsr<B>& k, std::vector<V>& load) {
  const cs::zoo::TetMesh mesh = cs::zoo::box_mesh(4 * n, n, n, 4.0, 1.0, 1.0);
  const auto [lambda, mu] = cs::zoo::lame_parameters(1.0, 0.3);
  k = cs::zoo::elasticity_matrix(mesh, lambda, mu);
  std::vector<char> clamped(mesh.points.size());
  load.assign(mesh.points.size(), V{{0, 0, 0}});
  const double weight = -1.0 / static_cast<double>(mesh.points.size());
  for (std::size_t i = 0; i < mesh.points.size(); ++i) {
    clamped[i] = mesh.points[i][0] == 0.0;
    if (!clamped[i]) load[i] = V{{0, 0, weight}};
  }
  cs::zoo::apply_dirichlet(k, clamped);
}

/// `n` cubes across the beam, or the matrix of `path` where it is not empty.
int solve(int n, const std::string& path, bool reorder) {
  const int rank = rank_of(MPI_COMM_WORLD);
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  cs::HostCsr<B> k;
  std::vector<V> load;
  // Every rank the same (a large run would assemble or read its own rows only).
  if (path.empty())
    beam(n, k, load);
  else
    from_file(path, k, load);
  if (reorder) {
    const auto order = cs::reverse_cuthill_mckee(k);
    k = cs::permuted(k, order);
    load = cs::permuted_vector(load, order);
  }
  const auto partition = cs::balanced_row_partition(k, ranks);
  const auto halos = cs::halo_sizes(k, partition);
  if (rank == 0) {
    examples::print_device("Distributed CG (3x3 blocks)");
    if (path.empty())
      std::printf("beam %d x %d x %d cubes: ", 4 * n, n, n);
    else
      std::printf("%s, b = A (1, 1, 1): ", path.c_str());
    std::printf("%d block rows, %zu blocks, %d rank(s)%s\n", k.num_rows, k.num_entries(), ranks,
                reorder ? ", reverse Cuthill-McKee order" : "");
    for (int p = 0; p < ranks; ++p)
      std::printf("  rank %d: rows %d to %d, halo %lld values (%.1f%% of its rows)\n", p, partition.begin(p),
                  partition.end(p), static_cast<long long>(halos[p]),
                  partition.size(p) > 0 ? 100.0 * halos[p] / partition.size(p) : 0.0);
  }
  cs::TunedSpmvOptions options;
  options.quick_tune = cs::QuickTune::Never;  // the ranks would time candidates at once
  const cs::DistributedSpmv<B> a(MPI_COMM_WORLD, partition, cs::local_rows(k, partition, rank), options);
  if (rank == 0)
    std::printf("rank 0: diagonal block %s; off-diagonal block %s (%zu boundary rows); halo exchange: %s\n",
                a.diagonal().variant().name().c_str(),
                a.off_diagonal() ? a.off_diagonal()->variant().name().c_str() : "(none)", a.boundary_rows(),
                a.exchange().c_str());
  using vector = cs::DistributedSpmv<B>::vector_type;
  const std::vector<V> own_load(load.begin() + partition.begin(rank), load.begin() + partition.end(rank));
  const vector b = a.make_vector(own_load), x = a.make_vector(std::vector<V>(own_load.size(), V{{0, 0, 0}}));
  const vector r = examples::zeros_like(b, "r"), p = examples::zeros_like(b, "p"), ap = examples::zeros_like(b, "ap");
  const double one = 1, zero = 0;       // the coefficients of a block product are real
  std::vector<double> product_seconds;  // this rank's, each product fenced
  const auto apply = [&](const vector& in, const vector& out) {
    MPI_Barrier(MPI_COMM_WORLD);
    Kokkos::fence();
    const auto start = std::chrono::steady_clock::now();
    a.apply(one, in, zero, out);
    Kokkos::fence();
    product_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  };
  // The first product pays for what is set up on first use (NCCL connects the GPUs of a
  // communicator lazily, CUDA loads modules): timed apart, before the solve. On two H100s
  // the two-rank mean over the solve was 4.3x the one-rank one, 1.1 s more in all: one slow
  // first product would explain it (not yet confirmed; the median below would show it).
  apply(b, ap);
  const double first_seconds = product_seconds.front();
  product_seconds.clear();
  // CG from x = 0: r = p = b.
  examples::copy(b, r);
  examples::copy(b, p);
  double dot_seconds = 0;  // the dot products' share of the solve (each waits for the device)
  const double tolerance = 1e-8, b_norm = std::sqrt(global_dot(b, b, dot_seconds));
  double rr = global_dot(r, r, dot_seconds);
  dot_seconds = 0;
  int iterations = 0;
  const auto start = std::chrono::steady_clock::now();
  while (std::sqrt(rr) > tolerance * b_norm && iterations < 20 * k.num_rows + 100) {
    apply(p, ap);
    const double alpha = rr / global_dot(p, ap, dot_seconds);
    examples::axpby(alpha, p, 1.0, x);
    examples::axpby(-alpha, ap, 1.0, r);
    const double rr_next = global_dot(r, r, dot_seconds);
    examples::axpby(1.0, r, rr_next / rr, p);
    rr = rr_next;
    ++iterations;
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Where a product's time goes (each phase alone, then whole): the solve's time per product
  // is only the total.
  const auto phases = a.time_phases(one, p, zero, ap);
  // The residual from a fresh distributed product, then from the host reference.
  apply(x, r);
  examples::axpby(1.0, b, -1.0, r);
  double unused = 0;
  const double residual = std::sqrt(global_dot(r, r, unused)) / b_norm;
  const std::vector<V> solution = cs::allgathered(MPI_COMM_WORLD, partition, cs::to_host(x));
  const auto ax = cs::reference_spmv<double>(one, k, solution, zero, std::vector<V>(k.num_rows));
  double diff = 0, norm = 0;
  for (int i = 0; i < k.num_rows; ++i)
    for (int c = 0; c < 3; ++c) {
      diff += (load[i].v[c] - ax[i].v[c]) * (load[i].v[c] - ax[i].v[c]);
      norm += load[i].v[c] * load[i].v[c];
    }
  const double host_residual = std::sqrt(diff / norm);
  const bool ok = residual <= 10 * tolerance && host_residual <= 10 * tolerance;
  if (rank == 0) {
    std::printf("%d iterations, relative residual %.3e (distributed product), %.3e (host reference)\n", iterations,
                residual, host_residual);
    std::vector<double> sorted = product_seconds;
    std::sort(sorted.begin(), sorted.end());
    const double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
    std::printf(
        "first product %.2f us; per product in the solve: median %.2f us, mean %.2f us (%zu products); solve "
        "%.3f s, %.2f us per iteration, dot products %.1f%% of it\n",
        1e6 * first_seconds, 1e6 * sorted[sorted.size() / 2], 1e6 * mean, sorted.size(), total,
        1e6 * total / std::max(iterations, 1), 100 * dot_seconds / total);
    std::printf(
        "product phases alone (median, slowest rank): exchange %.2f us, diagonal block %.2f us, "
        "off-diagonal block %.2f us; whole product %.2f us, %.0f%% of the exchange hidden\n",
        1e6 * phases.exchange_seconds, 1e6 * phases.local_seconds, 1e6 * phases.remote_seconds,
        1e6 * phases.product_seconds, 100 * phases.hidden_fraction);
    std::printf("%s\n", ok ? "PASSED" : "FAILED");
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const bool root = rank_of(MPI_COMM_WORLD) == 0;
    // A first argument that is not a number is a matrix file.
    const bool file = argc > 1 && argv[1][0] != '\0' && !std::isdigit(static_cast<unsigned char>(argv[1][0])) &&
                      argv[1][0] != '-' && argv[1][0] != '+';
    const std::string path = file ? argv[1] : "";
    const long long size = file ? 0 : examples::size_argument(argc, argv, 1, 4, 1, 10000000);  // says why when bad
    const bool reorder = argc > 2 && std::strcmp(argv[2], "rcm") == 0;
    // Anything else is a mistake, said before the usage rather than ignored.
    if (root && argc > 2 && !reorder) std::fprintf(stderr, "%s: '%s' is not rcm\n", argv[0], argv[2]);
    if (root && argc > 3) std::fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[3]);
    if (size < 0 || (argc > 2 && !reorder) || argc > 3) {
      if (root) std::fprintf(stderr, "usage: %s [cubes across the beam > 0 | matrix file] [rcm]\n", argv[0]);
      rc = 2;
    } else if (file) {
      try {
        rc = solve(0, path, reorder);
      } catch (const std::exception& e) {  // an unreadable file: the reason, on every rank
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        rc = 1;
      }
    } else {
      const examples::ProblemSize asked{"n = " + std::to_string(size), (4.0 * size + 1) * (size + 1.0) * (size + 1.0),
                                        15, sizeof(B) + 4};
      rc = examples::run_sized(argv[0], asked, [&] { return solve(static_cast<int>(size), "", reorder); });
    }
  }
  MPI_Finalize();
  return rc;
}
