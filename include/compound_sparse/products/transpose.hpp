#pragma once
// op(A) for op in {N, T, H}: the matrix whose products the solvers that need Aᵀx or Aᴴx
// (BiCG, QMR, least squares) run, built on the host as a HostCsr and converted like any
// other matrix (to_device), so every layout and schedule applies to it:
//
//   const auto ah = to_device<SlicedEll<32>, Aos>(transposed(a, Op::H));
//   spmv(schedule, alpha, ah, y, beta, x);   // x = alpha Aᴴ y + beta x
//
// A deterministic product with op(A) needs op(A)'s rows, the columns of A: summing a
// column of A in a fixed order is not possible from A's rows without atomics (whose
// order, and bits, change from run to run). So op(A) is a copy, built once; it takes the
// memory of A again (memory_bytes of the converted matrix counts it).
//
// H conjugates each entry: the complex conjugate, the quaternion conjugate, the
// transposed block (real blocks: conjugate transpose = transpose). T transposes the
// pattern and, for blocks, each block; complex and quaternion entries are kept. A
// user-defined entry type provides transposed_entry(e) and conjugate_transposed_entry(e)
// as free functions found by argument-dependent lookup.
//
// A matrix on the device (DeviceCsr) is transposed there, to the same bits: its entries are
// counted per column and placed, then each column's list is sorted by position in A (one
// thread's sort per column, cheap for the columns of a mesh; a dense column takes its thread
// longer), which is increasing row order, as on the host.

#include <Kokkos_Core.hpp>
#include <utility>
#include <vector>

#include "../entries/block.hpp"
#include "../entries/mixed_precision.hpp"
#include "../entries/quaternion.hpp"
#include "../error.hpp"
#include "../impl/device_scan_sort.hpp"
#include "../impl/kokkos_compat.hpp"  // atomic_increment
#include "../layouts/device_csr.hpp"
#include "../layouts/host_csr.hpp"

namespace compound_sparse {

/// The operation applied to A: none, transpose, conjugate transpose.
enum class Op { N, T, H };

inline const char* to_string(Op op) {
  return op == Op::N ? "N" : op == Op::T ? "T" : "H";
}

/// An entry of Aᵀ (the entry of A at the mirrored position, transformed). Callable on the
/// device: TunedSpmv::refresh moves new values into its transposed copies there.
template <class T>
KOKKOS_INLINE_FUNCTION Kokkos::complex<T> transposed_entry(const Kokkos::complex<T>& e) {
  return e;
}
template <class T>
KOKKOS_INLINE_FUNCTION Quaternion<T> transposed_entry(const Quaternion<T>& e) {
  return e;
}
template <class T, int E>
KOKKOS_INLINE_FUNCTION Block<T, E> transposed_entry(const Block<T, E>& e) {
  Block<T, E> t;
  for (int i = 0; i < E; ++i)
    for (int j = 0; j < E; ++j) t(i, j) = e(j, i);
  return t;
}

/// An entry of Aᴴ.
template <class T>
KOKKOS_INLINE_FUNCTION Kokkos::complex<T> conjugate_transposed_entry(const Kokkos::complex<T>& e) {
  return Kokkos::complex<T>(e.real(), -e.imag());
}
template <class T>
KOKKOS_INLINE_FUNCTION Quaternion<T> conjugate_transposed_entry(const Quaternion<T>& e) {
  return e.conjugate();
}
template <class T, int E>
KOKKOS_INLINE_FUNCTION Block<T, E> conjugate_transposed_entry(const Block<T, E>& e) {
  return transposed_entry(e);
}
template <class Entry>
KOKKOS_INLINE_FUNCTION Mixed<Entry> transposed_entry(const Mixed<Entry>& e) {
  return {transposed_entry(e.stored)};
}
template <class Entry>
KOKKOS_INLINE_FUNCTION Mixed<Entry> conjugate_transposed_entry(const Mixed<Entry>& e) {
  return {conjugate_transposed_entry(e.stored)};
}

/// Where each entry of A lands in op(A) (transposed, for Op::T and Op::H alike):
/// positions[k] is the position in op(A)'s CSR arrays of A's k-th entry. Row c of op(A)
/// holds A's column c in increasing row order.
template <class Entry>
std::vector<int> transposed_positions(const HostCsr<Entry>& a) {
  std::vector<int> next(static_cast<std::size_t>(a.num_cols) + 1, 0);
  for (const int c : a.col_indices) ++next[c + 1];
  for (int c = 0; c < a.num_cols; ++c) next[c + 1] += next[c];
  std::vector<int> positions(a.num_entries());
  for (std::size_t k = 0; k < positions.size(); ++k) positions[k] = next[a.col_indices[k]]++;
  return positions;
}

/// op(A) as a new HostCsr (A itself for Op::N): op(A) has A's columns as rows; row c
/// holds the entries of A's column c in increasing row order, each transformed. Throws
/// compound_sparse::InvalidInput for an inconsistent `a` (validate).
template <class Entry>
HostCsr<Entry> transposed(const HostCsr<Entry>& a, Op op) {
  validate(a);
  if (op == Op::N) return a;
  HostCsr<Entry> t;
  t.num_rows = a.num_cols;
  t.num_cols = a.num_rows;
  t.row_offsets.assign(static_cast<std::size_t>(a.num_cols) + 1, 0);
  for (const int c : a.col_indices) ++t.row_offsets[c + 1];
  for (int c = 0; c < a.num_cols; ++c) t.row_offsets[c + 1] += t.row_offsets[c];
  t.col_indices.resize(a.num_entries());
  t.values.resize(a.num_entries());
  const std::vector<int> positions = transposed_positions(a);
  for (int r = 0; r < a.num_rows; ++r)
    for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k) {
      t.col_indices[positions[k]] = r;
      t.values[positions[k]] = op == Op::T ? transposed_entry(a.values[k]) : conjugate_transposed_entry(a.values[k]);
    }
  return t;
}

namespace impl {
/// op(A)'s row map (A's entries counted per column, then scanned) and where each of A's
/// entries lands in op(A) (transposed_positions), for a matrix on the device.
template <class Entry, class MemorySpace>
std::pair<Kokkos::View<int*, MemorySpace>, Kokkos::View<int*, MemorySpace>> transpose_map(
    const DeviceCsr<Entry, MemorySpace>& a) {
  using execution_space = typename MemorySpace::execution_space;
  const int nnz = static_cast<int>(a.num_entries());
  const auto entries = a.entries;
  const Kokkos::View<int*, MemorySpace> offsets("compound_sparse::transposed_row_map",
                                                static_cast<std::size_t>(a.num_cols) + 1);
  Kokkos::parallel_for(
      "compound_sparse::transpose_counts", Kokkos::RangePolicy<execution_space>(0, nnz),
      KOKKOS_LAMBDA(int k) { compound_sparse::impl::atomic_increment(&offsets(entries(k) + 1)); });
  exclusive_sum_in_place<execution_space>(offsets, a.num_cols);
  // Each column's entries in any order, then sorted by their position in A.
  const Kokkos::View<int*, MemorySpace> next(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::next"),
                                             static_cast<std::size_t>(a.num_cols));
  Kokkos::deep_copy(next, Kokkos::subview(offsets, std::make_pair(0, a.num_cols)));
  const Kokkos::View<int*, MemorySpace> sources(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::transpose_sources"), nnz);
  Kokkos::parallel_for(
      "compound_sparse::transpose_place", Kokkos::RangePolicy<execution_space>(0, nnz),
      KOKKOS_LAMBDA(int k) { sources(Kokkos::atomic_fetch_add(&next(entries(k)), 1)) = k; });
  Kokkos::parallel_for(
      "compound_sparse::transpose_sort", Kokkos::RangePolicy<execution_space>(0, a.num_cols),
      KOKKOS_LAMBDA(int c) { heap_sort(sources, offsets(c), offsets(c + 1)); });
  const Kokkos::View<int*, MemorySpace> positions(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::transposed_positions"), nnz);
  Kokkos::parallel_for(
      "compound_sparse::transpose_positions", Kokkos::RangePolicy<execution_space>(0, nnz),
      KOKKOS_LAMBDA(int p) { positions(sources(p)) = p; });
  Kokkos::fence();
  return {offsets, positions};
}
}  // namespace impl

/// transposed_positions of a matrix on the device, computed there.
template <class Entry, class MemorySpace>
Kokkos::View<int*, MemorySpace> transposed_positions(const DeviceCsr<Entry, MemorySpace>& a) {
  return impl::transpose_map(a).second;
}

/// op(A) of a matrix on the device, built there: the same matrix as transposed of its
/// HostCsr. Op::N gives `a` itself.
template <class Entry, class MemorySpace>
DeviceCsr<Entry, MemorySpace> transposed(const DeviceCsr<Entry, MemorySpace>& a, Op op) {
  if (op == Op::N) return a;
  using execution_space = typename MemorySpace::execution_space;
  const int nnz = static_cast<int>(a.num_entries());
  // Not a structured binding: C++17 lambdas cannot capture one.
  const auto map = impl::transpose_map(a);
  const Kokkos::View<int*, MemorySpace> t_row_map = map.first, positions = map.second;
  const auto row_map = a.row_map;
  const auto values = a.values;
  const Kokkos::View<int*, MemorySpace> t_entries(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::transposed_entries"), nnz);
  const Kokkos::View<Entry*, MemorySpace> t_values(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::transposed_values"), nnz);
  const bool conjugate = op == Op::H;
  Kokkos::parallel_for(
      "compound_sparse::transposed_fill", Kokkos::RangePolicy<execution_space>(0, a.num_rows), KOKKOS_LAMBDA(int r) {
        for (int k = row_map(r); k < row_map(r + 1); ++k) {
          t_entries(positions(k)) = r;
          t_values(positions(k)) = conjugate ? conjugate_transposed_entry(values(k)) : transposed_entry(values(k));
        }
      });
  Kokkos::fence();
  DeviceCsr<Entry, MemorySpace> t;
  t.num_rows = a.num_cols;
  t.num_cols = a.num_rows;
  t.row_map = t_row_map;
  t.entries = t_entries;
  t.values = t_values;
  return t;
}

}  // namespace compound_sparse
