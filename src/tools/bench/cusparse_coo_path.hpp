#pragma once
// cuSPARSE's device path from a contribution list (COO with repeated positions, in any order)
// to a matrix it multiplies with, the baseline of compound-assembly-bench:
//
//   first   cusparseXcoosortByRow of copies of the rows and columns with a permutation,
//           the values gathered through it (for blocks and quaternions, as the e x e real
//           blocks cuSPARSE's BSR takes), cusparseXcoo2csr, and the SpMV set-up:
//           descriptors, cusparseSpMV_bufferSize and cusparseSpMV_preprocess of
//             complex                 CSR of complex values, CUSPARSE_SPMV_CSR_ALG1
//             Block<T, E>, quaternion BSR of E x E (4 x 4) real blocks, CUSPARSE_SPMV_BSR_ALG1
//   step    the gather of new values through the kept permutation (the pattern has not
//           changed, so nothing else needs redoing)
//
// cuSPARSE has no reduce-by-key, so the repeated positions stay as repeated entries of its
// CSR: that saves this path the merge that assembly does (and costs its products instead).
// Its fastest SpMV forms on these classes (expanded scalar CSR for blocks, SELL for complex
// meshes, 2x2 complex BSR for quaternions) need a conversion cuSPARSE has no device routine
// for; the forms above need none, so this set-up is the cheapest of cuSPARSE's. Every run is
// checked: one SpMV against the double host reference. Without CUDA every result says so.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <compound_sparse/entries/block.hpp>
#include <compound_sparse/entries/quaternion.hpp>
#include <compound_sparse/layouts/host_csr.hpp>
#include <compound_sparse/products/reference.hpp>
#include <compound_sparse/tuning/timing.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "coo_path_result.hpp"
#include "device_memory_high_water.hpp"
#include "max_relative_error.hpp"
#include "real_expansion.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include "cusparse_baseline.hpp"  // BENCH_CUSPARSE, CusparseHandle, complex_type, real_type, flat_*_copy
#endif

namespace compound_bench {

/// How cuSPARSE stores an entry: `scalars` reals (a complex as two; a block or a
/// quaternion's left multiplication as a row-major real block of `block_size`).
template <class Entry>
struct CusparseEntry;
template <class T>
struct CusparseEntry<Kokkos::complex<T>> {
  static constexpr int block_size = 1;
  static constexpr int scalars = 2;
  static constexpr int vector_scalars = 2;
  KOKKOS_INLINE_FUNCTION static void write(const Kokkos::complex<T>& v, T* out) {
    out[0] = v.real();
    out[1] = v.imag();
  }
};
template <class T, int E>
struct CusparseEntry<compound_sparse::Block<T, E>> {
  static constexpr int block_size = E;
  static constexpr int scalars = E * E;
  static constexpr int vector_scalars = E;
  KOKKOS_INLINE_FUNCTION static void write(const compound_sparse::Block<T, E>& b, T* out) {
    compound_sparse_bench::real_block<compound_sparse::Block<T, E>>::fill(b, out);
  }
};
template <class T>
struct CusparseEntry<compound_sparse::Quaternion<T>> {
  static constexpr int block_size = 4;
  static constexpr int scalars = 16;
  static constexpr int vector_scalars = 4;
  // The Hamilton product q x on (w, x, y, z), row by row.
  KOKKOS_INLINE_FUNCTION static void write(const compound_sparse::Quaternion<T>& q, T* out) {
    compound_sparse_bench::real_block<compound_sparse::Quaternion<T>>::fill(q, out);
  }
};

/// out[k] = cuSPARSE's form of values(perm[k]): the gather through the sort's permutation.
template <class Entry, class Scalar>
struct GatherForCusparse {
  Kokkos::View<const Entry*> values;
  Kokkos::View<const int*> perm;
  Kokkos::View<Scalar*> out;
  KOKKOS_INLINE_FUNCTION void operator()(int k) const {
    CusparseEntry<Entry>::write(values(perm(k)), &out(static_cast<std::size_t>(k) * CusparseEntry<Entry>::scalars));
  }
};

#ifdef KOKKOS_ENABLE_CUDA

/// One build of cuSPARSE's matrix from the contributions, kept for the steps and the check.
template <class Entry>
struct CusparseCooMatrix {
  using scalar = typename compound_sparse::component_traits<Entry>::scalar_type;
  using traits = CusparseEntry<Entry>;
  Kokkos::View<int*> sorted_rows, sorted_cols, perm, offsets;
  Kokkos::View<char*> sort_buffer, spmv_buffer;
  Kokkos::View<scalar*> values;
  cusparseSpMatDescr_t matrix = nullptr;
  cusparseDnVecDescr_t x = nullptr, y = nullptr;

  CusparseCooMatrix() = default;
  CusparseCooMatrix(const CusparseCooMatrix&) = delete;
  CusparseCooMatrix& operator=(const CusparseCooMatrix&) = delete;
  ~CusparseCooMatrix() {
    if (matrix) cusparseDestroySpMat(matrix);
    if (x) cusparseDestroyDnVec(x);
    if (y) cusparseDestroyDnVec(y);
  }

  static constexpr cudaDataType data_type() {
    return traits::block_size == 1 ? compound_sparse_bench::complex_type<scalar>()
                                   : compound_sparse_bench::real_type<scalar>();
  }
  static constexpr cusparseSpMVAlg_t algorithm() {
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12600
    return traits::block_size == 1 ? CUSPARSE_SPMV_CSR_ALG1 : CUSPARSE_SPMV_BSR_ALG1;
#else
    return CUSPARSE_SPMV_CSR_ALG1;
#endif
  }

  void gather(const Kokkos::View<const Entry*>& contributions) const {
    Kokkos::parallel_for("bench::cusparse_gather", Kokkos::RangePolicy<>(0, static_cast<int>(perm.extent(0))),
                         GatherForCusparse<Entry, scalar>{contributions, perm, values});
  }

  /// The whole first path; x_values and y_values are the SpMV's vectors (made by the caller).
  void build(cusparseHandle_t handle, int num_rows, int num_cols, const Kokkos::View<const int*>& rows,
             const Kokkos::View<const int*>& cols, const Kokkos::View<const Entry*>& contributions,
             const Kokkos::View<scalar*>& x_values, const Kokkos::View<scalar*>& y_values) {
    const int nnz = static_cast<int>(rows.extent(0));
    // coo2csr keeps the contributions' duplicates, and cuSPARSE's descriptors refuse more stored
    // entries than a matrix has positions, which the contributions of a toy mesh can exceed.
    if (static_cast<std::int64_t>(nnz) > static_cast<std::int64_t>(num_rows) * num_cols)
      throw std::runtime_error("cuSPARSE's COO path keeps duplicate contributions, and its " + std::to_string(nnz) +
                               " exceed the " + std::to_string(static_cast<std::int64_t>(num_rows) * num_cols) +
                               " positions of a " + std::to_string(num_rows) + " x " + std::to_string(num_cols) +
                               " matrix, which its descriptors refuse");
    const auto uninitialized = [](const char* label) {
      return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
    };
    sorted_rows = Kokkos::View<int*>(uninitialized("bench::cusparse_rows"), nnz);
    sorted_cols = Kokkos::View<int*>(uninitialized("bench::cusparse_cols"), nnz);
    Kokkos::deep_copy(sorted_rows, rows);
    Kokkos::deep_copy(sorted_cols, cols);
    std::size_t sort_bytes = 0;
    BENCH_CUSPARSE(cusparseXcoosort_bufferSizeExt(handle, num_rows, num_cols, nnz, sorted_rows.data(),
                                                  sorted_cols.data(), &sort_bytes));
    sort_buffer = Kokkos::View<char*>(uninitialized("bench::cusparse_sort_buffer"), sort_bytes);
    perm = Kokkos::View<int*>(uninitialized("bench::cusparse_permutation"), nnz);
    BENCH_CUSPARSE(cusparseCreateIdentityPermutation(handle, nnz, perm.data()));
    BENCH_CUSPARSE(cusparseXcoosortByRow(handle, num_rows, num_cols, nnz, sorted_rows.data(), sorted_cols.data(),
                                         perm.data(), sort_buffer.data()));
    sort_buffer = {};  // the steps need only the permutation
    values =
        Kokkos::View<scalar*>(uninitialized("bench::cusparse_values"), static_cast<std::size_t>(nnz) * traits::scalars);
    gather(contributions);
    offsets = Kokkos::View<int*>(uninitialized("bench::cusparse_offsets"), static_cast<std::size_t>(num_rows) + 1);
    BENCH_CUSPARSE(
        cusparseXcoo2csr(handle, sorted_rows.data(), nnz, num_rows, offsets.data(), CUSPARSE_INDEX_BASE_ZERO));
    sorted_rows = {};  // the CSR offsets replace them
    const int e = traits::block_size;
    if (e == 1) {
      BENCH_CUSPARSE(cusparseCreateCsr(&matrix, num_rows, num_cols, nnz, offsets.data(), sorted_cols.data(),
                                       values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                       data_type()));
    } else {
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12600
      BENCH_CUSPARSE(cusparseCreateBsr(&matrix, num_rows, num_cols, nnz, e, e, offsets.data(), sorted_cols.data(),
                                       values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                       data_type(), CUSPARSE_ORDER_ROW));
#else
      throw std::runtime_error("cusparseSpMV of BSR needs cuSPARSE 12.6 or later; this is cuSPARSE " +
                               std::to_string(CUSPARSE_VERSION));
#endif
    }
    const int vector_length = e == 1 ? 1 : e;
    BENCH_CUSPARSE(
        cusparseCreateDnVec(&x, static_cast<int64_t>(num_cols) * vector_length, x_values.data(), data_type()));
    BENCH_CUSPARSE(
        cusparseCreateDnVec(&y, static_cast<int64_t>(num_rows) * vector_length, y_values.data(), data_type()));
    const scalar one[2] = {1, 0}, zero[2] = {0, 0};
    std::size_t spmv_bytes = 0;
    BENCH_CUSPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, one, matrix, x, zero, y,
                                           data_type(), algorithm(), &spmv_bytes));
    spmv_buffer = Kokkos::View<char*>(uninitialized("bench::cusparse_spmv_buffer"), spmv_bytes);
    BENCH_CUSPARSE(cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, one, matrix, x, zero, y,
                                           data_type(), algorithm(), spmv_buffer.data()));
    Kokkos::fence();
  }

  void multiply(cusparseHandle_t handle) const {
    const scalar one[2] = {1, 0}, zero[2] = {0, 0};
    BENCH_CUSPARSE(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, one, matrix, x, zero, y, data_type(),
                                algorithm(), spmv_buffer.data()));
    Kokkos::fence();
  }

  std::int64_t bytes() const {
    return static_cast<std::int64_t>((offsets.extent(0) + sorted_cols.extent(0) + perm.extent(0)) * sizeof(int) +
                                     values.extent(0) * sizeof(scalar));
  }
};

/// cuSPARSE's path on the contributions (rows, cols, contributions), checked with one SpMV
/// against `reference` (the host path's matrix of the same list); `samples` timed firsts.
template <class Entry>
CooPathResult cusparse_coo_path(int num_rows, int num_cols, const Kokkos::View<const int*>& rows,
                                const Kokkos::View<const int*>& cols, const Kokkos::View<const Entry*>& contributions,
                                const compound_sparse::HostCsr<Entry>& reference, int samples) {
  namespace cs = compound_sparse;
  using scalar = typename cs::component_traits<Entry>::scalar_type;
  using vector = cs::vector_type_t<Entry>;
  using vtraits = cs::component_traits<vector>;
  using matrix = CusparseCooMatrix<Entry>;
  CooPathResult result;
  result.form = std::string("coosortByRow+gather+coo2csr+") +
                (CusparseEntry<Entry>::block_size == 1 ? "CSR_ALG1" : "BSR_ALG1") + "_preprocess";
  try {
    compound_sparse_bench::CusparseHandle handle;
    // x in cuSPARSE's order: a vector entry's components together (w, x, y, z for a quaternion).
    std::vector<vector> x(num_cols);
    for (int i = 0; i < num_cols; ++i)
      for (int c = 0; c < vtraits::size; ++c)
        vtraits::get(x[i], c) = static_cast<scalar>(((7 * i + 3 * c) % 11) / 8.0 - 0.5);
    const Kokkos::View<scalar*> x_values = compound_sparse_bench::flat_device_copy<scalar>(x);
    const Kokkos::View<scalar*> y_values("bench::cusparse_y", static_cast<std::size_t>(num_rows) * vtraits::size);
    std::vector<double> firsts;
    for (int s = 0; s <= samples; ++s) {  // the first is a warm-up
      matrix m;
      Kokkos::fence();
      const auto start = std::chrono::steady_clock::now();
      m.build(handle, num_rows, num_cols, rows, cols, contributions, x_values, y_values);
      if (s > 0) firsts.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(firsts.begin(), firsts.end());
    result.first_seconds = firsts[firsts.size() / 2];
    matrix m;
    {
      DeviceMemoryHighWater memory;
      m.build(handle, num_rows, num_cols, rows, cols, contributions, x_values, y_values);
      result.peak_bytes = memory.peak_bytes();
    }
    result.matrix_bytes = m.bytes();
    cs::TimingOptions timing;
    timing.mode = cs::preferred_timing_mode();  // the gather does not synchronise
    timing.samples = 7;
    result.step_seconds = cs::time_launches([&](int) { m.gather(contributions); }, timing).median_seconds;
    // The check: one product of the last build against the host reference.
    m.multiply(handle);
    result.relative_error = max_relative_error(reference, x, compound_sparse_bench::flat_host_copy<vector>(y_values));
    result.ok = result.relative_error <= 1e-12;
    result.wrong = !result.ok;
    if (!result.ok) result.error = "its SpMV is off the host reference by " + std::to_string(result.relative_error);
  } catch (const std::exception& e) {
    result.ok = false;
    result.error = e.what();
  }
  return result;
}

#else

template <class Entry>
CooPathResult cusparse_coo_path(int, int, const Kokkos::View<const int*>&, const Kokkos::View<const int*>&,
                                const Kokkos::View<const Entry*>&, const compound_sparse::HostCsr<Entry>&, int) {
  CooPathResult result;
  result.form = "none";
  result.error = "cuSPARSE needs the CUDA backend";
  return result;
}

#endif

}  // namespace compound_bench
