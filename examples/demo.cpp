// CompoundSparse demo: builds a small complex-valued 2-D Helmholtz-type matrix
// (5-point stencil, complex shift), runs y = A x in every outer x inner layout
// with three schedules, checks each result against the double host reference
// and prints time per product and layout memory.
//
//   compound_sparse_demo [grid_size]      (default 256 -> 65536 rows)

#include <chrono>
#include <compound_sparse.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/problem_size.hpp"

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;

namespace {

cs::HostCsr<C> helmholtz_2d(int n, double wavenumber) {
  std::vector<cs::CooEntry<C>> coo;
  const auto id = [n](int i, int j) { return i * n + j; };
  const double h = 1.0 / (n + 1);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      // -Laplace - k^2 with a small absorbing (imaginary) part near the boundary
      const bool boundary = i == 0 || j == 0 || i == n - 1 || j == n - 1;
      coo.push_back({id(i, j), id(i, j), C(4.0 / (h * h) - wavenumber * wavenumber, boundary ? wavenumber / h : 0.0)});
      if (i > 0) coo.push_back({id(i, j), id(i - 1, j), C(-1.0 / (h * h), 0)});
      if (i < n - 1) coo.push_back({id(i, j), id(i + 1, j), C(-1.0 / (h * h), 0)});
      if (j > 0) coo.push_back({id(i, j), id(i, j - 1), C(-1.0 / (h * h), 0)});
      if (j < n - 1) coo.push_back({id(i, j), id(i, j + 1), C(-1.0 / (h * h), 0)});
    }
  return cs::csr_from_coo(n * n, n * n, std::move(coo));
}

template <class Outer, class Inner, class ScheduleType>
bool run(const cs::HostCsr<C>& host, const std::vector<C>& x_host, const std::vector<C>& ref, ScheduleType schedule) {
  const auto a = cs::to_device<Outer, Inner>(host);
  const auto x = cs::to_device<cs::Aos>(x_host);
  const auto y = cs::to_device<cs::Aos>(std::vector<C>(host.num_rows));
  cs::spmv(schedule, C(1, 0), a, x, C(0, 0), y);  // warm-up
  Kokkos::fence();
  constexpr int repetitions = 20;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repetitions; ++r) cs::spmv(schedule, C(1, 0), a, x, C(0, 0), y);
  Kokkos::fence();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double error = cs::relative_error(cs::to_host(y), ref);
  const bool ok = error < 1e-12;
  std::printf("%-7s %-4s %-13s %10.1f us  %9.2f MB  rel.err %8.1e  %s\n", Outer::name().c_str(), Inner::name().c_str(),
              cs::to_string(ScheduleType::kind).c_str(), 1e6 * seconds / repetitions, cs::memory_bytes(a) / 1e6, error,
              ok ? "ok" : "WRONG");
  return ok;
}

template <class Outer, class Inner>
bool run_schedules(const cs::HostCsr<C>& host, const std::vector<C>& x, const std::vector<C>& ref) {
  bool ok = run<Outer, Inner>(host, x, ref, cs::StaticSchedule{});
  ok &= run<Outer, Inner>(host, x, ref, cs::DynamicTeamSchedule{});
  ok &= run<Outer, Inner>(host, x, ref, cs::DynamicWarpSchedule{});
  return ok;
}

template <class Outer>
bool run_layout(const cs::HostCsr<C>& host, const std::vector<C>& x, const std::vector<C>& ref) {
  return run_schedules<Outer, cs::Aos>(host, x, ref) && run_schedules<Outer, cs::Soa>(host, x, ref);
}

}  // namespace

int run_demo(int n);

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const long long size = examples::size_argument(argc, argv, 1, 256, 1, 100000000);
  if (size < 0) {
    std::fprintf(stderr, "usage: %s [grid_size > 0]\n", argv[0]);
    return 2;
  }
  // The 5-point stencil on an n x n grid.
  const examples::ProblemSize asked{"n = " + std::to_string(size), double(size) * size, 5, sizeof(C) + 4};
  return examples::run_sized(argv[0], asked, [&] { return run_demo(static_cast<int>(size)); });
}

int run_demo(int n) {
  const auto& device = cs::default_device_info();
  const auto host = helmholtz_2d(n, 20.0);
  std::printf("CompoundSparse demo on %s (%s): complex Helmholtz, %d rows, %zu non-zeros\n", device.name.c_str(),
              device.backend.c_str(), host.num_rows, host.num_entries());
  std::vector<C> x(host.num_cols);
  for (int i = 0; i < host.num_cols; ++i) x[i] = C(std::cos(0.01 * i), std::sin(0.02 * i));
  const auto ref = cs::reference_spmv<double>(C(1, 0), host, x, C(0, 0), std::vector<C>(host.num_rows));
  std::printf("%-7s %-4s %-13s %13s  %12s\n", "layout", "vals", "schedule", "time/SpMV", "memory");
  bool ok = run_layout<cs::Csr>(host, x, ref);
  ok &= run_layout<cs::Ell>(host, x, ref);
  ok &= run_layout<cs::SlicedEll<16>>(host, x, ref);
  ok &= run_layout<cs::SlicedEll<32>>(host, x, ref);
  std::printf(ok ? "all variants match the reference\n" : "SOME VARIANTS ARE WRONG\n");
  return ok ? 0 : 1;
}
