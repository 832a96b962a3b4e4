// COCG on a complex Helmholtz system: -Δu - k²u = f on the unit cube of P1
// tetrahedra with an impedance (absorbing) boundary, a point source in the
// middle. The matrix is complex symmetric (A = A^T), which is what COCG needs.
// It is assembled on the device: the element and boundary-face terms
// (zoo::helmholtz_contributions), as an application's kernel would leave them in
// device Views, summed by CooAssembly into Csr/Aos, and checked bit for bit against
// the host path (csr_from_coo of the same list, then to_device).
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
#include "common/device_data.hpp"
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
  const int rows = static_cast<int>(mesh.points.size());
  const std::vector<cs::CooEntry<C>> contributions = cs::zoo::helmholtz_contributions(mesh, wavenumber);
  std::vector<int> contribution_rows, contribution_cols;
  std::vector<C> contribution_values;
  for (const auto& e : contributions) {
    contribution_rows.push_back(e.row);
    contribution_cols.push_back(e.col);
    contribution_values.push_back(e.value);
  }
  // Where an application's element kernel would have left them.
  const auto d_rows = examples::device_view(contribution_rows, "rows");
  const auto d_cols = examples::device_view(contribution_cols, "cols");
  const auto d_values = examples::device_view(contribution_values, "values");
  const cs::CooAssembly<C, cs::Csr, cs::Aos> assembly(rows, rows, d_rows, d_cols);
  assembly.assemble(d_values);
  const auto& a = assembly.matrix();
  std::vector<C> source(rows, C(0, 0));
  const int centre = (n / 2) * (n + 1) * (n + 1) + (n / 2) * (n + 1) + n / 2;  // points numbered x fastest
  source[centre] = C(1, 0);

  examples::print_device("Helmholtz COCG (complex symmetric)");
  std::printf(
      "unit cube, %d^3 cubes, k = %.2f (%.1f wavelengths, %.1f points per wavelength): %d rows, %zu non-zeros\n", n,
      wavenumber, wavelengths, n / wavelengths, rows, a.num_entries);
  const bool same = examples::bytes_of(a) ==
                    examples::bytes_of(cs::to_device<cs::Csr, cs::Aos>(cs::csr_from_coo(rows, rows, contributions)));
  std::printf("assembled on the device from %zu contributions: %s the host path's matrix, bit for bit\n",
              contributions.size(), same ? "is" : "is NOT");
  const auto solve = examples::linear_solve(source, examples::Cocg{}, 1e-8, 20 * rows + 100);
  const int status = examples::compare_configurations(a, solve);
  return same ? status : 1;
}
