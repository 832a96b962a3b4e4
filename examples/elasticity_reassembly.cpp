// A matrix re-assembled every step on the device, solved each step with TunedSpmv: the
// cantilever of example_elasticity_cg, whose Young's modulus changes from step to step and
// from tetrahedron to tetrahedron (a damage or temperature field, say).
//
// Set-up, once:
//   - the element stiffness blocks at unit modulus (zoo::elasticity_contributions, 16 per
//     tetrahedron), the clamped nodes' rows and columns zeroed and an identity block added on
//     their diagonals, copied to the device;
//   - CooAssembly<Block<double, 3>, Csr, Aos>: the pattern built on the device;
//   - TunedSpmv of the first step's matrix, assembled on the device and handed over as a
//     DeviceCsr: the variant chosen for the pattern without the matrix leaving the device.
// Each step, on the device:
//   - a kernel scales each tetrahedron's blocks by its modulus (1 + ((t + step) mod 5) / 10);
//   - assembly.assemble(values) sums them into CSR order (no sort, no atomics);
//   - tuned.refresh(those values) moves them into the chosen layout;
//   - CG solves K u = f with tuned.apply.
// The first and last steps' matrices are compared bit for bit with the host path
// (csr_from_coo of the same scaled list, then to_device). Prints each step's times, and
// once the time of the host path it replaces (csr_from_coo and a TunedSpmv of it). Exit code 0
// when every step converges and both checks hold.
//
//   example_elasticity_reassembly [n] [steps]   n cubes across the beam (default 3), steps (default 3)

#include <Kokkos_Core.hpp>
#include <chrono>
#include <compound_sparse.hpp>
#include <cstdio>
#include <cstring>
#include <string>
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

namespace reassembly {

using examples::scale_on_device;
using examples::scaled_on_host;

double seconds_since(std::chrono::steady_clock::time_point start) {
  Kokkos::fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run(int n, int steps) {
  const examples::Beam beam = examples::clamped_beam(n);
  const int num_nodes = beam.num_nodes;
  const auto& list = beam.list;
  const int num_element_contributions = beam.num_element_contributions;
  const auto& load = beam.load;

  examples::print_device("Elasticity re-assembled every step (3x3 blocks)");
  const int count = static_cast<int>(list.size());
  std::vector<int> rows(count), cols(count);
  std::vector<B> base(count);
  for (int i = 0; i < count; ++i) {
    rows[i] = list[i].row;
    cols[i] = list[i].col;
    base[i] = list[i].value;
  }
  const auto d_rows = examples::device_view(rows, "rows"), d_cols = examples::device_view(cols, "cols");
  const Kokkos::View<const B*, memory_space> d_base = examples::device_view(base, "base");
  const Kokkos::View<B*, memory_space> d_values("values", count);

  auto start = std::chrono::steady_clock::now();
  const cs::CooAssembly<B, cs::Csr, cs::Aos> assembly(num_nodes, num_nodes, d_rows, d_cols);
  const double pattern_seconds = seconds_since(start);
  const auto& k = assembly.matrix();
  // The assembled values in CSR order, whole blocks: Csr with Aos stores them so.
  const Kokkos::View<const B*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> csr_values(
      reinterpret_cast<const B*>(k.values.data()), k.num_entries);
  std::printf(
      "beam %d x %d x %d cubes: %d block rows, %zu blocks from %d contributions; pattern on the device %.3f ms\n",
      4 * n, n, n, num_nodes, k.num_entries, count, 1e3 * pattern_seconds);

  // The tuned operator from the device: the first step assembled there, then TunedSpmv of
  // that CSR as a DeviceCsr (features, selection and layout computed on the device).
  cs::TunedSpmvOptions options;
  options.vector_layout = "aos";  // the solver's vectors
  start = std::chrono::steady_clock::now();
  scale_on_device(d_base, d_values, num_element_contributions, 0);
  assembly.assemble(d_values);
  const cs::TunedSpmv<B> tuned(cs::make_device_csr(num_nodes, k.offsets, k.col_indices, csr_values), options);
  const double device_path_seconds = seconds_since(start);
  std::printf("TunedSpmv: %s\n", tuned.explanation().c_str());
  std::printf("device path, once (assemble + TunedSpmv of the device CSR): %.3f ms\n", 1e3 * device_path_seconds);

  // The host path this replaces: csr_from_coo of the list and a TunedSpmv of the HostCsr. Its
  // fingerprint is the device's, so where quick tuning stored its choice, this finds it.
  const auto first_list = scaled_on_host(list, num_element_contributions, 0);
  start = std::chrono::steady_clock::now();
  const auto first_matrix = cs::csr_from_coo(num_nodes, num_nodes, first_list);
  const cs::TunedSpmv<B> host_tuned(first_matrix, options);
  const double host_path_seconds = seconds_since(start);
  std::printf("host path per step (csr_from_coo + TunedSpmv): %.3f ms; its choice %s (rule %s)\n",
              1e3 * host_path_seconds, host_tuned.variant().name().c_str(), host_tuned.rule().c_str());

  using vector = cs::CompoundVector<V, cs::Aos>;
  const auto op = examples::product_operator([&tuned](const vector& x, const vector& y) {
    tuned.apply(cs::real_value<cs::coefficient_type_t<B>>(1), x, cs::real_value<cs::coefficient_type_t<B>>(0), y);
  });
  const vector b = examples::make_vector<vector>(load);
  bool ok = true;
  std::printf("%5s %12s %12s %12s %10s %14s\n", "step", "assemble", "refresh", "solve", "iterations", "rel. residual");
  for (int step = 0; step < steps; ++step) {
    start = std::chrono::steady_clock::now();
    scale_on_device(d_base, d_values, num_element_contributions, step);
    assembly.assemble(d_values);
    const double assemble_seconds = seconds_since(start);
    start = std::chrono::steady_clock::now();
    tuned.refresh(csr_values);
    const double refresh_seconds = seconds_since(start);
    if (step == 0 || step == steps - 1) {
      const auto host = cs::to_device<cs::Csr, cs::Aos>(
          cs::csr_from_coo(num_nodes, num_nodes, scaled_on_host(list, num_element_contributions, step)));
      const bool same = examples::bytes_of(k) == examples::bytes_of(host);
      std::printf("step %d: assembled matrix %s the host path's, bit for bit\n", step, same ? "is" : "is NOT");
      ok &= same;
    }
    const vector u = examples::zeros_like(b, "u");
    start = std::chrono::steady_clock::now();
    const auto solve = examples::cg(op, b, u, 1e-8, 20 * num_nodes + 100);
    const double solve_seconds = seconds_since(start);
    std::printf("%5d %9.3f ms %9.3f ms %9.3f ms %10d %14.3e  %s\n", step, 1e3 * assemble_seconds, 1e3 * refresh_seconds,
                1e3 * solve_seconds, solve.iterations, solve.relative_residual,
                solve.converged ? "converged" : "NOT CONVERGED");
    ok &= solve.converged;
  }
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}

}  // namespace reassembly

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const long long size = examples::size_argument(argc, argv, 1, 3, 1, 10000000);
  const long long steps = examples::size_argument(argc, argv, 2, 3, 1, 100000);
  if (size < 0 || steps < 0) {
    std::fprintf(stderr, "usage: %s [cubes across the beam > 0] [steps > 0]\n", argv[0]);
    return 2;
  }
  // (4n+1)(n+1)^2 points, about 15 blocks per row, and 16 contributions per tetrahedron
  // (6 per cube) besides: counted as 6 more blocks a row.
  const examples::ProblemSize asked{"n = " + std::to_string(size), (4.0 * size + 1) * (size + 1.0) * (size + 1.0), 21,
                                    sizeof(B) + 4};
  return examples::run_sized(argv[0], asked,
                             [&] { return reassembly::run(static_cast<int>(size), static_cast<int>(steps)); });
}
