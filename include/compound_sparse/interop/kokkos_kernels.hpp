#pragma once
// Interop with Kokkos Kernels' sparse matrices. Not part of compound_sparse.hpp:
// include it only where Kokkos Kernels is available, and link
// CompoundSparse::kokkoskernels (CMake creates it when Kokkos Kernels is found;
// downstream set CompoundSparse_WITH_KOKKOS_KERNELS ON before find_package).
//
//   KokkosSparse::CrsMatrix<C, int, Device> k = ...;
//   auto a = from_kokkos_crs<SlicedEll<32>, Soa>(k);      // our layouts
//   auto back = to_kokkos_crs(to_device<Csr, Aos>(host));  // and back
//   TunedSpmv<C> op(make_device_csr(k));                  // tuned, without leaving the GPU
//
// Vectors need no conversion: values_view(x) of an Aos CompoundVector is the
// View<C*> that KokkosSparse::spmv takes, and wrap_values goes the other way.

// Kokkos Kernels 3.4's headers need Kokkos_Core.hpp included before them.
#include <Kokkos_Core.hpp>
//
#include <KokkosKernels_config.h>  // KOKKOSKERNELS_VERSION (from 4.0; 3.4 defines none)

#include <KokkosSparse_CrsMatrix.hpp>
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40000
#include <KokkosSparse_BsrMatrix.hpp>
#else
#include <KokkosSparse_BlockCrsMatrix.hpp>
#endif

#include "../entries/block.hpp"
#include "../layouts/device_csr.hpp"
#include "kokkos_views.hpp"

namespace compound_sparse {

/// Kokkos Kernels' matrix of dense blocks: BlockCrsMatrix in 3.x; 4.x (4.6.01 tested) has
/// none, and its BsrMatrix offers the block-row views, replaceValues and constructor that the
/// functions below use. Both are reached by the names below (from_kokkos_block_crs,
/// KokkosBlockCrsMatrix).
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40000
template <class... P>
using kokkos_block_matrix = KokkosSparse::Experimental::BsrMatrix<P...>;
#else
template <class... P>
using kokkos_block_matrix = KokkosSparse::Experimental::BlockCrsMatrix<P...>;
#endif

/// Builds our matrix in layout <Outer, Inner> from a KokkosSparse::CrsMatrix
/// whose scalar is an entry type (Kokkos::complex<T>, or a type you registered),
/// on the same memory space. Csr is built on the device without a host round trip.
template <class Outer, class Inner, class Scalar, class Ordinal, class Device, class MemoryTraits, class Size>
auto from_kokkos_crs(const KokkosSparse::CrsMatrix<Scalar, Ordinal, Device, MemoryTraits, Size>& a,
                     MemoryBudget budget = {}) {
  return matrix_from_csr_views<Outer, Inner>(a.numCols(), a.graph.row_map, a.graph.entries, a.values, budget);
}

/// The matrix as a DeviceCsr (TunedSpmv's input for device data), sharing its Views where
/// its ordinals and offsets are int, else with 32-bit copies made on the device.
template <class Scalar, class Ordinal, class Device, class MemoryTraits, class Size>
DeviceCsr<Scalar, typename Device::memory_space> make_device_csr(
    const KokkosSparse::CrsMatrix<Scalar, Ordinal, Device, MemoryTraits, Size>& a) {
  return make_device_csr(a.numCols(), a.graph.row_map, a.graph.entries, a.values);
}

/// The KokkosSparse::CrsMatrix type to_kokkos_crs returns: 32-bit ordinals and offsets.
template <class Entry, class MemorySpace>
using KokkosCrsMatrix =
    KokkosSparse::CrsMatrix<Entry, int, Kokkos::Device<typename MemorySpace::execution_space, MemorySpace>, void, int>;

/// Hands a Csr matrix back as a KokkosSparse::CrsMatrix (for KokkosSparse
/// algorithms). Row map and column indices are shared with `a`; values are copied.
template <class Entry, class Inner, class MemorySpace>
KokkosCrsMatrix<Entry, MemorySpace> to_kokkos_crs(const SparseMatrix<Entry, Csr, Inner, MemorySpace>& a) {
  const CsrViews<Entry, MemorySpace> v = csr_views(a);
  return KokkosCrsMatrix<Entry, MemorySpace>("compound_sparse", v.num_rows, v.num_cols, static_cast<int>(a.num_entries),
                                             v.values, v.row_map, v.entries);
}

/// A Kokkos Kernels block matrix (kokkos_block_matrix) with blockDim() == E (throws otherwise) as a
/// DeviceCsr of E×E blocks, its blocks gathered on the device. Blocks are read through the
/// matrix's own block-row view, so this does not depend on how a Kokkos Kernels version
/// orders the values inside a block row (3.4 interleaves the blocks' rows).
template <int E, class Scalar, class Ordinal, class Device, class MemoryTraits, class Size>
DeviceCsr<Block<Scalar, E>, typename Device::memory_space> make_device_csr(
    const kokkos_block_matrix<Scalar, Ordinal, Device, MemoryTraits, Size>& a) {
  using memory_space = typename Device::memory_space;
  COMPOUND_SPARSE_REQUIRE(a.blockDim() == E, "make_device_csr: the block matrix has "
                                                 << a.blockDim() << "x" << a.blockDim() << " blocks, expected " << E
                                                 << "x" << E);
  Kokkos::View<Block<Scalar, E>*, memory_space> blocks(Kokkos::view_alloc(Kokkos::WithoutInitializing, "blocks"),
                                                       a.graph.entries.extent(0));
  const auto row_map = a.graph.row_map;
  Kokkos::parallel_for(
      "compound_sparse::block_crs_blocks", Kokkos::RangePolicy<typename memory_space::execution_space>(0, a.numRows()),
      KOKKOS_LAMBDA(int r) {
        const auto row = a.block_row_Const(r);
        const auto first = row_map(r);
        for (int k = 0; k < row.length; ++k)
          for (int i = 0; i < E; ++i)
            for (int j = 0; j < E; ++j) blocks(first + k)(i, j) = row.local_block_value(k, i, j);
      });
  return make_device_csr(a.numCols(), a.graph.row_map, a.graph.entries, blocks);
}

/// Builds a matrix of E×E blocks from a Kokkos Kernels block matrix (kokkos_block_matrix) with
/// blockDim() == E (throws otherwise; make_device_csr), on the device.
template <int E, class Outer, class Inner, class Scalar, class Ordinal, class Device, class MemoryTraits, class Size>
SparseMatrix<Block<Scalar, E>, Outer, Inner, typename Device::memory_space> from_kokkos_block_crs(
    const kokkos_block_matrix<Scalar, Ordinal, Device, MemoryTraits, Size>& a, MemoryBudget budget = {}) {
  return to_layout<Outer, Inner>(make_device_csr<E>(a), budget);
}

/// The Kokkos Kernels block matrix type to_kokkos_block_crs returns (kokkos_block_matrix).
template <class Scalar, class MemorySpace>
using KokkosBlockCrsMatrix =
    kokkos_block_matrix<Scalar, int, Kokkos::Device<typename MemorySpace::execution_space, MemorySpace>, void, int>;

/// Hands a Csr matrix of E×E blocks back as a BlockCrsMatrix. Row
/// map and column indices are shared with `a`; values are copied into the
/// block matrix's own order through its block-row view.
template <class Scalar, int E, class Inner, class MemorySpace>
KokkosBlockCrsMatrix<Scalar, MemorySpace> to_kokkos_block_crs(
    const SparseMatrix<Block<Scalar, E>, Csr, Inner, MemorySpace>& a) {
  using matrix_type = KokkosBlockCrsMatrix<Scalar, MemorySpace>;
  const CsrViews<Block<Scalar, E>, MemorySpace> v = csr_views(a);
  typename matrix_type::values_type values("compound_sparse::block_values", a.num_entries * E * E);
  const matrix_type k("compound_sparse", v.num_rows, v.num_cols, static_cast<int>(a.num_entries * E * E), values,
                      v.row_map, v.entries, E);
  const auto blocks = v.values;
  const auto row_map = v.row_map;
  Kokkos::parallel_for(
      "compound_sparse::to_kokkos_block_crs", Kokkos::RangePolicy<typename MemorySpace::execution_space>(0, v.num_rows),
      KOKKOS_LAMBDA(int r) {
        const auto row = k.block_row(r);
        const int first = row_map(r);
        for (int b = 0; b < row.length; ++b)
          for (int i = 0; i < E; ++i)
            for (int j = 0; j < E; ++j) row.local_block_value(b, i, j) = blocks(first + b)(i, j);
      });
  Kokkos::fence();
  return k;
}

}  // namespace compound_sparse
