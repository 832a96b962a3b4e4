#pragma once
// Compound entries as small real matrices, the form vendor libraries understand:
// a quaternion q acts on a quaternion x (left multiplication) as a 4x4 real
// matrix on (w, x, y, z); a Block<T, E> is already an E x E real matrix. The
// baselines store these as BSR (cuSPARSE) or expand them to scalar CSR (Kokkos
// Kernels, which has no block SpMV in 3.4.01). Complex entries need no
// expansion: every library has complex CSR.

#include <Kokkos_Macros.hpp>
#include <compound_sparse/entries/block.hpp>
#include <compound_sparse/entries/quaternion.hpp>
#include <compound_sparse/layouts/host_csr.hpp>
#include <vector>

namespace compound_sparse_bench {

namespace cs = compound_sparse;

template <class Entry>
struct real_block;  ///< block_size and fill(entry, row-major out[block_size^2]), on the host and the device

template <class T>
struct real_block<cs::Quaternion<T>> {
  static constexpr int block_size = 4;
  // Rows are the Hamilton product's components (see entry_traits<Quaternion>).
  KOKKOS_INLINE_FUNCTION static void fill(const cs::Quaternion<T>& q, T* out) {
    const T m[16] = {q.w, -q.x, -q.y, -q.z, q.x, q.w, -q.z, q.y, q.y, q.z, q.w, -q.x, q.z, -q.y, q.x, q.w};
    for (int i = 0; i < 16; ++i) out[i] = m[i];
  }
};

template <class T, int E>
struct real_block<cs::Block<T, E>> {
  static constexpr int block_size = E;
  KOKKOS_INLINE_FUNCTION static void fill(const cs::Block<T, E>& b, T* out) {
    for (int i = 0; i < E * E; ++i) out[i] = b.v[i];
  }
};

/// BSR values: the matrix's real blocks in CSR order, row-major within a block
/// (row_offsets and col_indices of the HostCsr serve as the BSR arrays).
template <class Entry, class T = typename cs::component_traits<Entry>::scalar_type>
std::vector<T> bsr_values(const cs::HostCsr<Entry>& a) {
  constexpr int e = real_block<Entry>::block_size;
  std::vector<T> values(a.num_entries() * e * e);
  for (std::size_t k = 0; k < a.num_entries(); ++k) real_block<Entry>::fill(a.values[k], &values[k * e * e]);
  return values;
}

/// The same matrix as scalar CSR of size (e*rows) x (e*cols).
template <class T>
struct ScalarCsr {
  int num_rows = 0, num_cols = 0;
  std::vector<int> row_offsets{0};
  std::vector<int> col_indices;
  std::vector<T> values;
};

template <class Entry, class T = typename cs::component_traits<Entry>::scalar_type>
ScalarCsr<T> expand_to_scalar_csr(const cs::HostCsr<Entry>& a) {
  constexpr int e = real_block<Entry>::block_size;
  const auto blocks = bsr_values(a);
  ScalarCsr<T> s;
  s.num_rows = e * a.num_rows;
  s.num_cols = e * a.num_cols;
  s.col_indices.reserve(a.num_entries() * e * e);
  s.values.reserve(a.num_entries() * e * e);
  for (int r = 0; r < a.num_rows; ++r)
    for (int i = 0; i < e; ++i) {
      for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
        for (int j = 0; j < e; ++j) {
          s.col_indices.push_back(e * a.col_indices[k] + j);
          s.values.push_back(blocks[(static_cast<std::size_t>(k) * e + i) * e + j]);
        }
      s.row_offsets.push_back(static_cast<int>(s.col_indices.size()));
    }
  return s;
}

}  // namespace compound_sparse_bench
