#pragma once
// Kokkos Kernels baseline: KokkosSparse::spmv on a CrsMatrix. Complex
// matrices are complex CrsMatrix; Kokkos Kernels 3.4.01 has no SpMV for its
// block matrix, so quaternion and 3x3-block matrices are expanded to scalar CSR
// (4x4 or 3x3 real blocks written out entry by entry). The offset type is
// unsigned so that Kokkos Kernels runs its own kernel rather than handing the
// product to its cuSPARSE TPL (which only takes int or size_t offsets).
// With op T or H, KokkosSparse::spmv runs mode "T" or "H" on A (for the real expansions
// "T": Aᵀ = Aᴴ for blocks, Aᴴ for quaternions; quaternion Aᵀ has no such form,
// cusparse_baseline.hpp's expansion_refusal); y is zeroed inside the timing first (below).
// With k > 1 vectors (compound-bench --k, op N), kokkos_kernels_spmm_baseline runs the same
// KokkosSparse::spmv on rank-2 Views, X and Y LayoutLeft (its multivector, vector after
// vector): on the same CrsMatrix, so the same kernel family as for one vector, its
// multivector form.

#include <Kokkos_Core.hpp>
#include <compound_sparse/layouts/host_csr.hpp>

#include "baseline.hpp"
#include "cusparse_baseline.hpp"    // expansion_refusal
#include "kokkos_kernels_spmv.hpp"  // the spmv itself, compiled in its own objects
#include "real_expansion.hpp"

namespace compound_sparse_bench {

/// The Kokkos Kernels form of a compound matrix: its scalar type, its CrsMatrix type, and
/// `rotation` device copies of A (complex CSR, or the scalar CSR of the real expansion).
template <class Entry>
struct KokkosKernelsMatrix {
  using scalar = typename compound_sparse::component_traits<Entry>::scalar_type;
  static constexpr bool is_complex = std::is_same<Entry, Kokkos::complex<scalar>>::value;
  using kk_scalar = std::conditional_t<is_complex, Kokkos::complex<scalar>, scalar>;
  // Unsigned offsets: Kokkos Kernels' own kernel, not its cuSPARSE TPL (above).
  using matrix = KokkosKernelsCrs<kk_scalar>;
  static const char* variant() { return is_complex ? "crs" : "scalar_crs"; }

  std::vector<matrix> copies;

  KokkosKernelsMatrix(const compound_sparse::HostCsr<Entry>& a, int rotation) {
    std::vector<unsigned> offsets;
    std::vector<int> cols;
    std::vector<kk_scalar> values;
    int rows = 0, num_cols = 0;
    if constexpr (is_complex) {
      offsets.assign(a.row_offsets.begin(), a.row_offsets.end());
      cols = a.col_indices;
      values = a.values;
      rows = a.num_rows;
      num_cols = a.num_cols;
    } else {
      auto s = expand_to_scalar_csr(a);
      offsets.assign(s.row_offsets.begin(), s.row_offsets.end());
      cols = std::move(s.col_indices);
      values = std::move(s.values);
      rows = s.num_rows;
      num_cols = s.num_cols;
    }
    for (int r = 0; r < rotation; ++r) {
      typename matrix::row_map_type::non_const_type row_map("bench::kk_rows", offsets.size());
      typename matrix::index_type::non_const_type entries("bench::kk_cols", cols.size());
      typename matrix::values_type::non_const_type vals("bench::kk_values", values.size());
      Kokkos::deep_copy(row_map, Kokkos::View<const unsigned*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                     offsets.data(), offsets.size()));
      Kokkos::deep_copy(entries,
                        Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(cols.data(), cols.size()));
      Kokkos::deep_copy(vals, Kokkos::View<const kk_scalar*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                  values.data(), values.size()));
      copies.emplace_back("bench::kk", rows, num_cols, static_cast<unsigned>(values.size()), vals, row_map, entries);
    }
  }
};

template <class Entry, class Reference>
BaselineResult kokkos_kernels_baseline(const compound_sparse::HostCsr<Entry>& a,
                                       const std::vector<compound_sparse::vector_type_t<Entry>>& x,
                                       const std::vector<Reference>& reference,
                                       const compound_sparse::TimingOptions& timing, int rotation, double tolerance,
                                       compound_sparse::Op op = compound_sparse::Op::N) {
  using kk = KokkosKernelsMatrix<Entry>;
  using scalar = typename kk::scalar;
  using kk_scalar = typename kk::kk_scalar;
  using value = compound_sparse::vector_type_t<Entry>;
  BaselineResult result;
  result.method = "kokkos_kernels";
  result.variant = kk::variant();
  const std::string refused = expansion_refusal<Entry>(op);
  if (!refused.empty()) {
    result.ok = false;
    result.error = refused;
    return result;
  }
  const bool transposing = op != compound_sparse::Op::N;
  // Complex: KokkosSparse's own modes; real expansions: the transpose.
  const char* mode = !transposing ? "N" : (kk::is_complex && op == compound_sparse::Op::H) ? "H" : "T";
  try {
    const kk matrices(a, rotation);
    std::vector<Kokkos::View<scalar*>> xs, ys;
    for (int r = 0; r < rotation; ++r) {
      xs.push_back(flat_device_copy<scalar>(x));
      ys.push_back(flat_device_copy<scalar>(std::vector<value>(transposing ? a.num_cols : a.num_rows)));
    }
    // KokkosSparse::spmv wants Views of its own scalar type over the same memory.
    const auto as_kk = [](const Kokkos::View<scalar*>& v) {
      return KokkosKernelsVector<kk_scalar>(reinterpret_cast<kk_scalar*>(v.data()),
                                            v.extent(0) * sizeof(scalar) / sizeof(kk_scalar));
    };
    // Its transposed products scale y by beta instead of overwriting it when beta = 0, so
    // the NaNs check_and_time writes into y would survive: y is zeroed first, inside the
    // timing (one write of y).
    const auto run = [&](int r) {
      // On the execution space's stream: a deep_copy without one synchronises, and queued
      // timing refuses a batch that waits (tuning/timing.hpp), as the H200 run showed.
      if (transposing) Kokkos::deep_copy(Kokkos::DefaultExecutionSpace(), ys[r], scalar(0));
      kokkos_kernels_spmv(mode, kk_scalar(1), matrices.copies[r], as_kk(xs[r]), kk_scalar(0), as_kk(ys[r]));
    };
    check_and_time<value>(result, reference, ys, run, timing, tolerance);
  } catch (const std::exception& err) {
    result.ok = false;
    result.error = err.what();
  }
  return result;
}

/// Y = A X for the k vectors `x_vectors` (x_vectors[j][i]): KokkosSparse::spmv with X and Y
/// rank-2 LayoutLeft Views of n (complex) or e n (real expansion) rows and k columns, each
/// a flat device array holding the k vectors one after the other (DenseOrder column-major),
/// checked against `reference`, the k references one after the other
/// (MeasureInputs::multi_reference), and timed over `rotation` copies. Op N only: the
/// bench's SpMM runs with A (compound_bench.cpp refuses --k with --ops T or H).
template <class Entry, class Reference>
BaselineResult kokkos_kernels_spmm_baseline(
    const compound_sparse::HostCsr<Entry>& a,
    const std::vector<std::vector<compound_sparse::vector_type_t<Entry>>>& x_vectors,
    const std::vector<Reference>& reference, const compound_sparse::TimingOptions& timing, int rotation,
    double tolerance) {
  using kk = KokkosKernelsMatrix<Entry>;
  using scalar = typename kk::scalar;
  using kk_scalar = typename kk::kk_scalar;
  using value = compound_sparse::vector_type_t<Entry>;
  constexpr int components = compound_sparse::component_traits<value>::size;
  const int k = static_cast<int>(x_vectors.size());
  BaselineResult result;
  result.method = "kokkos_kernels";
  result.variant = std::string(kk::variant()) + "_mv";
  result.k = k;
  try {
    const kk matrices(a, rotation);
    // Column-major: the LayoutLeft multivector's memory, whatever the element type.
    const DenseOrder order{false, kk::is_complex ? 2 : 1};
    std::vector<Kokkos::View<scalar*>> xs, ys;
    const std::vector<std::vector<value>> zero(k, std::vector<value>(a.num_rows));
    for (int r = 0; r < rotation; ++r) {
      xs.push_back(dense_device_copy<scalar>(x_vectors, order));
      ys.push_back(dense_device_copy<scalar>(zero, order));
    }
    // Rows of the dense matrices in Kokkos Kernels' scalar: a complex value is one, a
    // real expansion's value `components` reals.
    constexpr int per_value = kk::is_complex ? 1 : components;
    const auto as_kk = [k](const Kokkos::View<scalar*>& v, std::size_t values) {
      return KokkosKernelsMultiVector<kk_scalar>(reinterpret_cast<kk_scalar*>(v.data()), values * per_value,
                                                 static_cast<std::size_t>(k));
    };
    const auto run = [&](int r) {
      kokkos_kernels_spmm(kk_scalar(1), matrices.copies[r], as_kk(xs[r], a.num_cols), kk_scalar(0),
                          as_kk(ys[r], a.num_rows));
    };
    const auto read = [&](const Kokkos::View<scalar*>& y) {
      return concatenated_from_dense<value>(y, a.num_rows, k, order);
    };
    check_and_time_read(result, reference, ys, read, run, timing, tolerance);
  } catch (const std::exception& err) {
    result.ok = false;
    result.error = err.what();
  }
  return result;
}

}  // namespace compound_sparse_bench
