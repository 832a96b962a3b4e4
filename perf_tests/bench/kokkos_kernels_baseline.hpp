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

#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#include <Kokkos_Core.hpp>
#include <compound_sparse/host_csr.hpp>

#include "baseline.hpp"
#include "cusparse_baseline.hpp"  // expansion_refusal
#include "real_expansion.hpp"

namespace compound_sparse_bench {

template <class Entry, class Reference>
BaselineResult kokkos_kernels_baseline(const compound_sparse::HostCsr<Entry>& a,
                                       const std::vector<compound_sparse::vector_type_t<Entry>>& x,
                                       const std::vector<Reference>& reference,
                                       const compound_sparse::TimingOptions& timing, int rotation, double tolerance,
                                       compound_sparse::Op op = compound_sparse::Op::N) {
  using scalar = typename compound_sparse::component_traits<Entry>::scalar_type;
  using value = compound_sparse::vector_type_t<Entry>;
  constexpr bool is_complex = std::is_same<Entry, Kokkos::complex<scalar>>::value;
  using kk_scalar = std::conditional_t<is_complex, Kokkos::complex<scalar>, scalar>;
  using device = Kokkos::DefaultExecutionSpace::device_type;
  using matrix = KokkosSparse::CrsMatrix<kk_scalar, int, device, void, unsigned>;
  BaselineResult result;
  result.method = "kokkos_kernels";
  result.variant = is_complex ? "crs" : "scalar_crs";
  const std::string refused = expansion_refusal<Entry>(op);
  if (!refused.empty()) {
    result.ok = false;
    result.error = refused;
    return result;
  }
  const bool transposing = op != compound_sparse::Op::N;
  // Complex: KokkosSparse's own modes; real expansions: the transpose.
  const char* mode = !transposing ? "N" : (is_complex && op == compound_sparse::Op::H) ? "H" : "T";
  try {
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
    std::vector<matrix> matrices;
    std::vector<Kokkos::View<scalar*>> xs, ys;
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
      matrices.emplace_back("bench::kk", rows, num_cols, static_cast<unsigned>(values.size()), vals, row_map, entries);
      xs.push_back(flat_device_copy<scalar>(x));
      ys.push_back(flat_device_copy<scalar>(std::vector<value>(transposing ? a.num_cols : a.num_rows)));
    }
    // KokkosSparse::spmv wants Views of its own scalar type over the same memory.
    const auto as_kk = [](const Kokkos::View<scalar*>& v) {
      return Kokkos::View<kk_scalar*, Kokkos::MemoryUnmanaged>(reinterpret_cast<kk_scalar*>(v.data()),
                                                               v.extent(0) * sizeof(scalar) / sizeof(kk_scalar));
    };
    // Its transposed products scale y by beta instead of overwriting it when beta = 0, so
    // the NaNs check_and_time writes into y would survive: y is zeroed first, inside the
    // timing (one write of y).
    const auto run = [&](int r) {
      // On the execution space's stream: a deep_copy without one synchronises, and queued
      // timing refuses a batch that waits (tuning/timing.hpp), as the H200 run showed.
      if (transposing) Kokkos::deep_copy(Kokkos::DefaultExecutionSpace(), ys[r], scalar(0));
      KokkosSparse::spmv(mode, kk_scalar(1), matrices[r], as_kk(xs[r]), kk_scalar(0), as_kk(ys[r]));
    };
    check_and_time<value>(result, reference, ys, run, timing, tolerance);
  } catch (const std::exception& err) {
    result.ok = false;
    result.error = err.what();
  }
  return result;
}

}  // namespace compound_sparse_bench
