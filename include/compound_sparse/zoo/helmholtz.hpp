#pragma once
// Frequency-domain Helmholtz equation -Δu - k² u = f with linear tetrahedra and an
// impedance (first-order absorbing) condition ∂u/∂n - i k u = 0 on the whole
// boundary:  A = K - k² M - i k M_Γ, with K the stiffness matrix, M the mass
// matrix and M_Γ the boundary mass matrix. A is complex symmetric (A = A^T, not
// hermitian), bit for bit.

#include <Kokkos_Core.hpp>
#include <vector>

#include "../layouts/host_csr.hpp"
#include "tet_mesh.hpp"

namespace compound_sparse {
namespace zoo {

/// A for wavenumber k = `wavenumber` (2 pi / wavelength) on `mesh`: csr_from_coo of
/// helmholtz_contributions.
HostCsr<Kokkos::complex<double>> helmholtz_matrix(const TetMesh& mesh, double wavenumber);

/// A's element and boundary-face terms as contributions (row, column, value) with repeated
/// positions: 16 per tetrahedron, then 9 per boundary triangle. What an assembly
/// (CooAssembly, csr_from_coo) sums into A.
std::vector<CooEntry<Kokkos::complex<double>>> helmholtz_contributions(const TetMesh& mesh, double wavenumber);

}  // namespace zoo
}  // namespace compound_sparse
