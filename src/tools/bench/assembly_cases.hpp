#pragma once
// compound-assembly-bench's matrices, each as the contribution list an application would hand
// to COO assembly (rows, columns and values with repeated positions, in no particular order)
// and the matrix the host path makes of it:
//
//   elasticity:N   Block<double, 3>: the element stiffness blocks of a box of N^3 cubes
//                  (zoo::elasticity_contributions), 16 per tetrahedron
//   helmholtz:N    complex<double>: the element and boundary-face terms of the same box
//                  (zoo::helmholtz_contributions)
//   stencil:N      Quaternion<double>: a 27-point stencil on an N^3 grid, every entry given
//                  as two halves, the first halves from the last row to the first and the
//                  second halves from the first to the last. The halves are dyadic, so they sum
//                  exactly, and the host path is the CSR built directly (csr_from_coo of 2x55M
//                  entries at N = 128 would take most of a run); stencil:128 has 55M non-zeros.

#include <chrono>
#include <compound_sparse/entries/block.hpp>
#include <compound_sparse/entries/quaternion.hpp>
#include <compound_sparse/layouts/host_csr.hpp>
#include <compound_sparse/zoo/elasticity.hpp>
#include <compound_sparse/zoo/helmholtz.hpp>
#include <compound_sparse/zoo/tet_mesh.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace compound_bench {

template <class Entry>
struct AssemblyCase {
  std::string name;  ///< as given: "elasticity:48"
  int num_rows = 0;
  int num_cols = 0;
  std::vector<int> rows, cols;             ///< the contributions' positions
  std::vector<Entry> values;               ///< and values
  compound_sparse::HostCsr<Entry> matrix;  ///< the host path's matrix of them
  /// csr_from_coo's time for `matrix` (the host path's assembly); negative where the CSR was
  /// built directly (stencil).
  double host_assembly_seconds = -1;
};

/// Splits a CooEntry list into the case's arrays and times csr_from_coo of it.
template <class Entry>
AssemblyCase<Entry> case_of_contributions(std::string name, int n, std::vector<compound_sparse::CooEntry<Entry>> list) {
  AssemblyCase<Entry> c;
  c.name = std::move(name);
  c.num_rows = c.num_cols = n;
  c.rows.reserve(list.size());
  c.cols.reserve(list.size());
  c.values.reserve(list.size());
  for (const auto& e : list) {
    c.rows.push_back(e.row);
    c.cols.push_back(e.col);
    c.values.push_back(e.value);
  }
  const auto start = std::chrono::steady_clock::now();
  c.matrix = compound_sparse::csr_from_coo(n, n, std::move(list));
  c.host_assembly_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

inline AssemblyCase<compound_sparse::Block<double, 3>> elasticity_case(const std::string& name, int n) {
  namespace zoo = compound_sparse::zoo;
  const zoo::TetMesh mesh = zoo::box_mesh(n, n, n);
  const auto [lambda, mu] = zoo::lame_parameters(1.0, 0.3);
  return case_of_contributions(name, static_cast<int>(mesh.points.size()),
                               zoo::elasticity_contributions(mesh, lambda, mu));
}

inline AssemblyCase<Kokkos::complex<double>> helmholtz_case(const std::string& name, int n) {
  namespace zoo = compound_sparse::zoo;
  const zoo::TetMesh mesh = zoo::box_mesh(n, n, n);
  // About 10 grid points per wavelength, as the zoo's Helmholtz boxes.
  const double wavenumber = 2 * 3.141592653589793 * n / 10;
  return case_of_contributions(name, static_cast<int>(mesh.points.size()),
                               zoo::helmholtz_contributions(mesh, wavenumber));
}

/// The stencil's entry at (r, c): dyadic components (so halves are exact), diagonally dominant.
inline compound_sparse::Quaternion<double> stencil_entry(long long r, long long c) {
  compound_sparse::Quaternion<double> q;
  q.w = r == c ? 32.0 : -(1 + (r + 3 * c) % 7) / 8.0;
  q.x = ((r + c) % 5) / 16.0 - 0.125;
  q.y = ((2 * r + c) % 3) / 4.0;
  q.z = ((r * c) % 9) / 32.0;
  return q;
}

inline AssemblyCase<compound_sparse::Quaternion<double>> stencil_case(const std::string& name, int n) {
  using Q = compound_sparse::Quaternion<double>;
  AssemblyCase<Q> c;
  c.name = name;
  const long long rows = static_cast<long long>(n) * n * n;
  if (rows * 27 > 2000000000LL) throw std::invalid_argument(name + ": more non-zeros than 32-bit indices hold");
  c.num_rows = c.num_cols = static_cast<int>(rows);
  auto& a = c.matrix;
  a.num_rows = a.num_cols = c.num_rows;
  a.row_offsets.reserve(rows + 1);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        const long long r = (static_cast<long long>(i) * n + j) * n + k;
        for (int di = -1; di <= 1; ++di)
          for (int dj = -1; dj <= 1; ++dj)
            for (int dk = -1; dk <= 1; ++dk) {
              const int ni = i + di, nj = j + dj, nk = k + dk;
              if (ni < 0 || nj < 0 || nk < 0 || ni >= n || nj >= n || nk >= n) continue;
              const long long col = (static_cast<long long>(ni) * n + nj) * n + nk;  // increasing in (di, dj, dk)
              a.col_indices.push_back(static_cast<int>(col));
              a.values.push_back(stencil_entry(r, col));
            }
        a.row_offsets.push_back(static_cast<int>(a.col_indices.size()));
      }
  const std::size_t nnz = a.col_indices.size();
  std::vector<int> row_of(nnz);
  for (int r = 0; r < a.num_rows; ++r)
    for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k) row_of[k] = r;
  c.rows.resize(2 * nnz);
  c.cols.resize(2 * nnz);
  c.values.resize(2 * nnz);
  for (std::size_t i = 0; i < 2 * nnz; ++i) {
    const std::size_t k = i < nnz ? nnz - 1 - i : i - nnz;
    Q half = a.values[k];
    half.w /= 2;
    half.x /= 2;
    half.y /= 2;
    half.z /= 2;
    c.rows[i] = row_of[k];
    c.cols[i] = a.col_indices[k];
    c.values[i] = half;
  }
  return c;
}

}  // namespace compound_bench
