// Assembly on each rank's device, with no global matrix anywhere. Every rank writes the
// contributions of its own rows of a complex shifted graph Laplacian on an N x N x N grid
// (a Helmholtz operator with damping) straight into COO Views on its device: per grid point,
// a diagonal and an off-diagonal contribution for each of its six neighbours (zeros where the
// grid ends), and the shift, so that the diagonal position repeats seven times. The rank
// then makes its DeviceCsr of them (device_csr_from_coo, repeats summed in list order) and
// builds DistributedSpmv from it: the split into the two blocks, the halo's columns and both
// blocks' layouts are computed on the device, and only the halo's columns reach the host.
//
//   mpiexec -n R example_distributed_assembly [N]     N grid points a side (default 24)
//
// One product is checked on every rank against a host reference of the rank's own rows
// computed from the stencil. x is a formula of the global index, so no rank needs another's
// values for it. Then time_phases times the product. Rank 0 prints each rank's rows,
// contributions, non-zeros and halo, the times to assemble, to sum and to build, and the
// product's phases. Exit code 0 when every rank's rows agree with the reference to 1e-12.

#include <mpi.h>

#include <chrono>
#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/distributed/distributed_spmv.hpp>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "common/compare.hpp"  // print_device
#include "common/problem_size.hpp"

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;
using memory_space = cs::DistributedSpmv<C>::memory_space;

// A named namespace: nvcc compiles a device lambda only in a function with external linkage.
namespace assembly {

constexpr int contributions_per_point = 13;  // six neighbours x (diagonal, off-diagonal), the shift
constexpr double shift_real = -0.5, shift_imag = 0.1;

struct Contributions {
  Kokkos::View<int*, memory_space> rows, cols;  ///< rows local, columns global
  Kokkos::View<C*, memory_space> values;
};

/// The contributions of points [first, first + count) of the n^3 grid, written by a
/// device thread per point (header comment).
Contributions assemble_own_rows(int n, int first, int count) {
  const std::size_t total = static_cast<std::size_t>(count) * contributions_per_point;
  const auto uninitialized = [](const char* label) {
    return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
  };
  Contributions c{Kokkos::View<int*, memory_space>(uninitialized("rows"), total),
                  Kokkos::View<int*, memory_space>(uninitialized("cols"), total),
                  Kokkos::View<C*, memory_space>(uninitialized("values"), total)};
  const auto rows = c.rows;
  const auto cols = c.cols;
  const auto values = c.values;
  const int per_point = contributions_per_point;  // captured by value: the device sees no globals
  const C shift(shift_real, shift_imag);
  Kokkos::parallel_for(
      "example::assemble_own_rows", Kokkos::RangePolicy<memory_space::execution_space>(0, count),
      KOKKOS_LAMBDA(int local) {
        const int g = first + local;
        const int coordinate[3] = {g % n, (g / n) % n, g / (n * n)};
        const int step[3] = {1, n, n * n};
        std::size_t at = static_cast<std::size_t>(per_point) * local;
        for (int axis = 0; axis < 3; ++axis)
          for (int side = -1; side <= 1; side += 2) {
            const int moved = coordinate[axis] + side;
            const bool inside = moved >= 0 && moved < n;
            rows(at) = local;
            cols(at) = g;
            values(at++) = C(inside ? 1.0 : 0.0, 0.0);
            rows(at) = local;
            cols(at) = inside ? g + side * step[axis] : g;
            values(at++) = C(inside ? -1.0 : 0.0, 0.0);
          }
        rows(at) = local;
        cols(at) = g;
        values(at) = shift;
      });
  Kokkos::fence();
  return c;
}

}  // namespace assembly

namespace {
using namespace assembly;

/// x at global point g: a formula, so that every rank knows every value.
C x_at(long long g) {
  return C(std::cos(0.01 * static_cast<double>(g)), std::sin(0.02 * static_cast<double>(g)));
}

/// y = A x on points [first, first + count), from the stencil, on the host.
std::vector<C> reference_rows(int n, int first, int count) {
  std::vector<C> y(count);
  for (int local = 0; local < count; ++local) {
    const long long g = first + local;
    const long long coordinate[3] = {g % n, (g / n) % n, g / (static_cast<long long>(n) * n)};
    const long long step[3] = {1, n, static_cast<long long>(n) * n};
    C sum = C(shift_real, shift_imag) * x_at(g);
    for (int axis = 0; axis < 3; ++axis)
      for (int side = -1; side <= 1; side += 2) {
        const long long moved = coordinate[axis] + side;
        if (moved >= 0 && moved < n) sum += x_at(g) - x_at(g + side * step[axis]);
      }
    y[local] = sum;
  }
  return y;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run(int n) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int rows = n * n * n;
  cs::RowPartition partition;  // even blocks of points
  for (int p = 1; p <= ranks; ++p)
    partition.starts.push_back(static_cast<int>(static_cast<long long>(rows) * p / ranks));
  const int first = partition.begin(rank), count = partition.size(rank);
  // Checked alike on every rank (from the largest part), so that all stop together.
  const long long largest = (static_cast<long long>(rows) + ranks - 1) / ranks;
  COMPOUND_SPARSE_REQUIRE(largest * contributions_per_point < std::numeric_limits<int>::max(),
                          n << "^3 points on " << ranks << " rank(s) make up to " << largest * contributions_per_point
                            << " contributions a rank, over the 2^31 - 2 of 32-bit indices: use more ranks");
  if (rank == 0) {
    examples::print_device("distributed assembly");
    std::printf("%d^3 grid, %d rows on %d rank(s)\n", n, rows, ranks);
  }

  MPI_Barrier(MPI_COMM_WORLD);
  auto start = std::chrono::steady_clock::now();
  const Contributions c = assemble_own_rows(n, first, count);
  const double assemble_seconds = seconds_since(start);
  start = std::chrono::steady_clock::now();
  const auto own = cs::device_csr_from_coo(count, rows, c.rows, c.cols, c.values);
  const double sum_seconds = seconds_since(start);
  cs::TunedSpmvOptions options;
  options.quick_tune = cs::QuickTune::Never;  // every rank would time candidates at once
  options.use_cache = false;
  MPI_Barrier(MPI_COMM_WORLD);
  start = std::chrono::steady_clock::now();
  const cs::DistributedSpmv<C> op(MPI_COMM_WORLD, partition, own, options);
  const double build_seconds = seconds_since(start);

  std::vector<C> x_own(count);
  for (int local = 0; local < count; ++local) x_own[local] = x_at(first + local);
  const auto x = op.make_vector(x_own);
  const auto y = op.make_vector(std::vector<C>(count));
  op.apply(C(1, 0), x, C(0, 0), y);
  const std::vector<C> got = cs::to_host(y), want = reference_rows(n, first, count);
  double difference = 0, size = 0;
  for (int local = 0; local < count; ++local) {
    difference += Kokkos::abs(got[local] - want[local]) * Kokkos::abs(got[local] - want[local]);
    size += Kokkos::abs(want[local]) * Kokkos::abs(want[local]);
  }
  const double mine[2] = {size > 0 ? std::sqrt(difference / size) : std::sqrt(difference), 0};
  double worst[2] = {0, 0};
  MPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const auto phases = op.time_phases(C(1, 0), x, C(0, 0), y, 20);

  // Each rank's part, on rank 0.
  const double part[6] = {double(first),          double(count), double(c.rows.extent(0)), double(own.num_entries()),
                          double(op.halo_size()), build_seconds};
  std::vector<double> parts(6 * static_cast<std::size_t>(ranks));
  MPI_Gather(part, 6, MPI_DOUBLE, parts.data(), 6, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  const bool ok = worst[0] <= 1e-12;
  if (rank == 0) {
    for (int p = 0; p < ranks; ++p) {
      const double* q = parts.data() + 6 * p;
      std::printf("rank %d: rows [%.0f, %.0f), %.0f contributions -> %.0f non-zeros, halo %.0f, built in %.3f s\n", p,
                  q[0], q[0] + q[1], q[2], q[3], q[4], q[5]);
    }
    std::printf("rank 0: assembled in %.4f s, summed in %.4f s; exchange %s\n", assemble_seconds, sum_seconds,
                op.exchange().c_str());
    std::printf("product %.1f us (diagonal block %.1f, off-diagonal %.1f, exchange %.1f, %.0f%% of it hidden)\n",
                phases.product_seconds * 1e6, phases.local_seconds * 1e6, phases.remote_seconds * 1e6,
                phases.exchange_seconds * 1e6, phases.hidden_fraction * 100);
    std::printf("largest relative difference from the host reference of a rank's rows: %.3g: %s\n", worst[0],
                ok ? "PASSED" : "FAILED");
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const long long n = examples::size_argument(argc, argv, 1, 24, 2, 1290);  // says why when bad
    if (rank == 0 && argc > 2) std::fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[2]);
    if (n < 0 || argc > 2) {
      if (rank == 0) std::fprintf(stderr, "usage: %s [grid points a side, 2 to 1290]\n", argv[0]);
      rc = 2;
    } else {
      try {
        rc = run(static_cast<int>(n));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s (rank %d): %s\n", argv[0], rank, e.what());
        rc = 1;
      }
    }
  }
  MPI_Finalize();
  return rc;
}
