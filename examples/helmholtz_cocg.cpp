// COCG on a complex Helmholtz system: -Δu - k²u = f on the unit cube of P1
// tetrahedra with an impedance (absorbing) boundary, a point source in the
// middle. The matrix is complex symmetric (A = A^T), which is what COCG needs.
// The solve runs with the default SpMV configuration (Csr/Aos, static
// schedule) and with the second one of common/compare.hpp (SlicedEll<32>/Soa,
// dynamic warp schedule); both print iterations, residual and time per SpMV.
// Exit code 0 when both converge to the same field.
//
//   example_helmholtz_cocg [n] [wavelengths]   n cubes per side (default 12),
//                                               wavelengths across the cube (default 2)
//
// On the host the default (2.2k rows) takes a second; on a GPU try n = 100 and 8 wavelengths.

#include <compound_sparse.hpp>
#include <compound_sparse/zoo/helmholtz.hpp>
#include <compound_sparse/zoo/tet_mesh.hpp>
#include <cstdio>
#include <cstdlib>

#include "common/compare.hpp"
#include "common/problem_size.hpp"

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;

int solve_cube(int n, double wavelengths);

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const long long size = examples::size_argument(argc, argv, 1, 12, 1, 10000000);
  const double wavelengths = argc > 2 ? std::atof(argv[2]) : 2.0;
  if (size < 0 || !(wavelengths > 0)) {
    std::fprintf(stderr, "usage: %s [cubes per side > 0] [wavelengths > 0]\n", argv[0]);
    return 2;
  }
  const int n = static_cast<int>(size);
  // A P1 tetrahedral mesh of the cube: (n+1)^3 points, about 15 entries per row.
  const examples::ProblemSize asked{"n = " + std::to_string(size), std::pow(size + 1.0, 3), 15, sizeof(C) + 4};
  return examples::run_sized(argv[0], asked, [&] { return solve_cube(n, wavelengths); });
}

int solve_cube(int n, double wavelengths) {
  const double wavenumber = 2 * M_PI * wavelengths;
  const cs::zoo::TetMesh mesh = cs::zoo::box_mesh(n, n, n);
  const cs::HostCsr<C> a = cs::zoo::helmholtz_matrix(mesh, wavenumber);
  std::vector<C> source(a.num_rows, C(0, 0));
  const int centre = (n / 2) * (n + 1) * (n + 1) + (n / 2) * (n + 1) + n / 2;  // points numbered x fastest
  source[centre] = C(1, 0);

  examples::print_device("Helmholtz COCG (complex symmetric)");
  std::printf(
      "unit cube, %d^3 cubes, k = %.2f (%.1f wavelengths, %.1f points per wavelength): %d rows, %zu non-zeros\n", n,
      wavenumber, wavelengths, n / wavelengths, a.num_rows, a.num_entries());
  const auto solve = examples::linear_solve(source, examples::Cocg{}, 1e-8, 20 * a.num_rows + 100);
  return examples::compare_configurations(a, solve);
}
