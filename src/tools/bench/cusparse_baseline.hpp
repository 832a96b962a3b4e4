#pragma once
// cuSPARSE baselines: every cuSPARSE form that applies to the matrix, each checked
// against the double host reference and timed the same way (check_and_time), so that
// the comparison is against cuSPARSE's fastest form for that matrix in the same run
// (fastest_cusparse). The forms, by the name each result carries (BaselineResult::variant):
//
//   complex (CSR of complex values, x and y complex):
//     cusparseSpMV_CSR_default           generic SpMV, CUSPARSE_SPMV_ALG_DEFAULT
//     cusparseSpMV_CSR_ALG1_preprocess   CUSPARSE_SPMV_CSR_ALG1 after cusparseSpMV_preprocess
//     cusparseSpMV_CSR_ALG2_preprocess   CUSPARSE_SPMV_CSR_ALG2 after cusparseSpMV_preprocess
//     cusparseSpMV_SELL16_ALG1_preprocess  Sliced ELL (sliced_ell.hpp), slices of 16 rows,
//     cusparseSpMV_SELL32_ALG1_preprocess  and of 32, CUSPARSE_SPMV_SELL_ALG1; refused where
//                                          the padding passes 4x the non-zeros (it then reads
//                                          over 4x CSR's bytes and cannot be the fastest form)
//   quaternion and E x E blocks (each entry as its e x e real block, e = 4 for a
//   quaternion's left multiplication, real_expansion.hpp; x and y as e*n reals):
//     bsrmv<e>x<e>                                 legacy cusparse<t>bsrmv on the BSR
//     cusparseSpMV_BSR<e>x<e>_ALG1_preprocess      generic SpMV on the same BSR
//                                                  (cusparseCreateBsr, cuSPARSE >= 12.6)
//     cusparseSpMV_expandedCSR_ALG1_preprocess     generic SpMV on the scalar CSR of the
//     cusparseSpMV_expandedCSR_ALG2_preprocess     real expansion (e*rows x e*cols)
//   quaternions also as 2x2 complex blocks (complex_expansion.hpp; half the 4x4 real
//   block's bytes; x and y in the pair form that section describes):
//     bsrmv2x2complex                              legacy cusparse<C|Z>bsrmv
//     cusparseSpMV_BSR2x2complex_ALG1_preprocess   generic SpMV on the same BSR
//
// With op T or H (compound-bench --ops) every form multiplies the same A with cuSPARSE's
// operation (CUSPARSE_OPERATION_TRANSPOSE / _CONJUGATE_TRANSPOSE): what a cuSPARSE user does
// for Aᵀx and Aᴴx without building the transpose. The real expansions' transpose is the
// blocks' transpose, and for a quaternion's 4x4 real block L(q)ᵀ = L(q̄), so those forms give
// Aᵀ = Aᴴ for blocks and Aᴴ for quaternions; quaternion Aᵀ (no conjugate) has no cuSPARSE
// form, and those forms say so. cuSPARSE's own refusals (e.g. of an operation for a format)
// are recorded as the form's error.
//
// cusparseSpMV_preprocess runs once per rotation copy before the check and the timing,
// with that copy's descriptors and its own buffer, and every later cusparseSpMV on the
// copy gets the same descriptors and buffer (the buffer handed to preprocess must be
// the one handed to SpMV). Where cuSPARSE refuses preprocess for an algorithm, the form
// is timed without it, named without "_preprocess", and says why in `note`.
// Without the CUDA backend every form says so (ok = false).
//
// SpMM with k > 1 vectors (compound-bench --k, op N; cusparse_spmm_forms): every
// cusparseSpMM form that runs on these entry types, X and Y dense matrices of k columns
// (DenseOrder, baseline.hpp), row-major ("row": a row's k elements together) and
// column-major ("col": vector after vector):
//
//   complex (CSR of complex values, elements complex):
//     cusparseSpMM_CSR_<row|col>_<DEFAULT|CSR_ALG1|CSR_ALG2|CSR_ALG3>
//   quaternion and E x E blocks (the real expansion, e*n real rows):
//     cusparseSpMM_expandedCSR_<col|row>_<DEFAULT|CSR_ALG1|CSR_ALG2|CSR_ALG3>
//     cusparseSpMM_BSR<e>_<col|row>_BSR_ALG1    the BSR of e x e real blocks (cuSPARSE >= 12.6)
//     bsrmm<e>                                  legacy cusparse<t>bsrmm on the same BSR,
//                                               column-major; refused above 524,272 block rows
// CSR_ALG3 is in the set although it is no default: in the lab it was cuSPARSE's fastest
// form at k >= 2 on most complex matrices. cusparseSpMM_preprocess runs once per rotation
// copy, on its descriptors and buffer (as for SpMV); where cuSPARSE refuses it, the form is
// timed without it and its note says so (the lab's names carry no "_preprocess").

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <climits>
#include <compound_sparse/layouts/host_csr.hpp>
#include <compound_sparse/products/transpose.hpp>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "baseline.hpp"
#include "complex_expansion.hpp"
#include "real_expansion.hpp"
#include "sliced_ell.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <cusparse.h>
#endif

namespace compound_sparse_bench {

/// The forms cusparse_forms runs for `Entry`, in the order it runs them (names as above,
/// with preprocess; a run may drop "_preprocess" where cuSPARSE refuses it).
template <class Entry>
std::vector<std::string> cusparse_form_names() {
  using scalar = typename compound_sparse::component_traits<Entry>::scalar_type;
  if constexpr (std::is_same<Entry, Kokkos::complex<scalar>>::value) {
    return {"cusparseSpMV_CSR_default", "cusparseSpMV_CSR_ALG1_preprocess", "cusparseSpMV_CSR_ALG2_preprocess",
            "cusparseSpMV_SELL16_ALG1_preprocess", "cusparseSpMV_SELL32_ALG1_preprocess"};
  } else {
    const std::string e = std::to_string(real_block<Entry>::block_size);
    std::vector<std::string> names = {"bsrmv" + e + "x" + e, "cusparseSpMV_BSR" + e + "x" + e + "_ALG1_preprocess",
                                      "cusparseSpMV_expandedCSR_ALG1_preprocess",
                                      "cusparseSpMV_expandedCSR_ALG2_preprocess"};
    if constexpr (std::is_same<Entry, compound_sparse::Quaternion<scalar>>::value)
      names.insert(names.end(), {"bsrmv2x2complex", "cusparseSpMV_BSR2x2complex_ALG1_preprocess"});
    return names;
  }
}

/// The SpMM forms cusparse_spmm_forms runs for `Entry`, in the order it runs them (the
/// lab's names, above).
template <class Entry>
std::vector<std::string> cusparse_spmm_form_names() {
  using scalar = typename compound_sparse::component_traits<Entry>::scalar_type;
  const char* algs[] = {"DEFAULT", "CSR_ALG1", "CSR_ALG2", "CSR_ALG3"};
  std::vector<std::string> names;
  if constexpr (std::is_same<Entry, Kokkos::complex<scalar>>::value) {
    for (const char* order : {"row", "col"})
      for (const char* alg : algs) names.push_back(std::string("cusparseSpMM_CSR_") + order + "_" + alg);
  } else {
    const std::string e = std::to_string(real_block<Entry>::block_size);
    for (const char* order : {"col", "row"})
      for (const char* alg : algs) names.push_back(std::string("cusparseSpMM_expandedCSR_") + order + "_" + alg);
    for (const char* order : {"col", "row"}) names.push_back("cusparseSpMM_BSR" + e + "_" + order + "_BSR_ALG1");
    names.push_back("bsrmm" + e);
  }
  return names;
}

/// Block rows the legacy bsrmm takes at most (the lab's limit for blocks up to 4).
constexpr int bsrmm_max_block_rows = 524272;

/// The "cusparse" result of a matrix: the fastest form that ran correctly, under its
/// own name (variant). When none ran, ok = false with the reasons: the one reason if
/// all forms share it (e.g. no CUDA backend), else each form's.
inline BaselineResult fastest_cusparse(const std::vector<BaselineResult>& forms) {
  const BaselineResult* best = nullptr;
  for (const auto& f : forms)
    if (f.ok && (!best || f.seconds < best->seconds)) best = &f;
  if (best) {
    BaselineResult r = *best;
    r.method = "cusparse";
    return r;
  }
  BaselineResult r;
  r.method = "cusparse";
  r.variant = "none";
  r.k = forms.empty() ? 1 : forms.front().k;
  bool same = !forms.empty();
  for (const auto& f : forms) same = same && f.error == forms.front().error;
  if (forms.empty()) {
    r.error = "no cuSPARSE form was run";
  } else if (same) {
    r.error = forms.front().error;
  } else {
    r.error = "no cuSPARSE form ran:";
    for (const auto& f : forms) r.error += " " + f.variant + ": " + f.error + ";";
    r.error.pop_back();
  }
  return r;
}

#ifdef KOKKOS_ENABLE_CUDA
#define BENCH_CUSPARSE(call)                                                                 \
  do {                                                                                       \
    const cusparseStatus_t status_ = (call);                                                 \
    if (status_ != CUSPARSE_STATUS_SUCCESS)                                                  \
      throw std::runtime_error(std::string(#call) + ": " + cusparseGetErrorString(status_)); \
  } while (false)

/// One cuSPARSE handle on Kokkos' CUDA stream, so Kokkos fences cover its work.
class CusparseHandle {
 public:
  CusparseHandle() {
    BENCH_CUSPARSE(cusparseCreate(&handle_));
    BENCH_CUSPARSE(cusparseSetStream(handle_, Kokkos::Cuda().cuda_stream()));
  }
  ~CusparseHandle() { cusparseDestroy(handle_); }
  CusparseHandle(const CusparseHandle&) = delete;
  CusparseHandle& operator=(const CusparseHandle&) = delete;
  operator cusparseHandle_t() const { return handle_; }

 private:
  cusparseHandle_t handle_ = nullptr;
};

template <class T>
constexpr cudaDataType complex_type() {
  return std::is_same<T, float>::value ? CUDA_C_32F : CUDA_C_64F;
}
template <class T>
constexpr cudaDataType real_type() {
  return std::is_same<T, float>::value ? CUDA_R_32F : CUDA_R_64F;
}

inline cusparseStatus_t bsrmv(cusparseHandle_t h, cusparseOperation_t op, int mb, int nb, int nnzb, const float* alpha,
                              cusparseMatDescr_t d, const float* v, const int* rp, const int* ci, int e, const float* x,
                              const float* beta, float* y) {
  return cusparseSbsrmv(h, CUSPARSE_DIRECTION_ROW, op, mb, nb, nnzb, alpha, d, v, rp, ci, e, x, beta, y);
}
inline cusparseStatus_t bsrmv(cusparseHandle_t h, cusparseOperation_t op, int mb, int nb, int nnzb, const double* alpha,
                              cusparseMatDescr_t d, const double* v, const int* rp, const int* ci, int e,
                              const double* x, const double* beta, double* y) {
  return cusparseDbsrmv(h, CUSPARSE_DIRECTION_ROW, op, mb, nb, nnzb, alpha, d, v, rp, ci, e, x, beta, y);
}

inline cusparseStatus_t bsrmv(cusparseHandle_t h, cusparseOperation_t op, int mb, int nb, int nnzb,
                              const Kokkos::complex<float>* alpha, cusparseMatDescr_t d, const float* v, const int* rp,
                              const int* ci, int e, const float* x, const Kokkos::complex<float>* beta, float* y) {
  return cusparseCbsrmv(h, CUSPARSE_DIRECTION_ROW, op, mb, nb, nnzb, reinterpret_cast<const cuComplex*>(alpha), d,
                        reinterpret_cast<const cuComplex*>(v), rp, ci, e, reinterpret_cast<const cuComplex*>(x),
                        reinterpret_cast<const cuComplex*>(beta), reinterpret_cast<cuComplex*>(y));
}
inline cusparseStatus_t bsrmv(cusparseHandle_t h, cusparseOperation_t op, int mb, int nb, int nnzb,
                              const Kokkos::complex<double>* alpha, cusparseMatDescr_t d, const double* v,
                              const int* rp, const int* ci, int e, const double* x, const Kokkos::complex<double>* beta,
                              double* y) {
  return cusparseZbsrmv(h, CUSPARSE_DIRECTION_ROW, op, mb, nb, nnzb, reinterpret_cast<const cuDoubleComplex*>(alpha), d,
                        reinterpret_cast<const cuDoubleComplex*>(v), rp, ci, e,
                        reinterpret_cast<const cuDoubleComplex*>(x), reinterpret_cast<const cuDoubleComplex*>(beta),
                        reinterpret_cast<cuDoubleComplex*>(y));
}

/// Complex values as interleaved (re, im) scalars: CUDA_C_32F / CUDA_C_64F arrays.
template <class Scalar>
std::vector<Scalar> interleaved(const std::vector<Kokkos::complex<Scalar>>& values) {
  std::vector<Scalar> flat;
  flat.reserve(2 * values.size());
  for (const auto& v : values) flat.insert(flat.end(), {v.real(), v.imag()});
  return flat;
}

template <class T>
Kokkos::View<T*> to_device(const std::vector<T>& host, const char* label) {
  Kokkos::View<T*> d(std::string(label), host.size());
  Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(host.data(), host.size()));
  return d;
}

/// `rotation` device copies of one matrix's CSR (or BSR) arrays.
template <class Scalar>
struct DeviceMatrixCopies {
  std::vector<Kokkos::View<int*>> rows, cols;
  std::vector<Kokkos::View<Scalar*>> values;
  DeviceMatrixCopies(const std::vector<int>& r, const std::vector<int>& c, const std::vector<Scalar>& v, int rotation) {
    for (int i = 0; i < rotation; ++i) {
      rows.push_back(to_device(r, "bench::cusparse_rows"));
      cols.push_back(to_device(c, "bench::cusparse_cols"));
      values.push_back(to_device(v, "bench::cusparse_values"));
    }
  }

  /// What the SpMV and SpMM forms take to make copy r's generic-API descriptor
  /// (`make(r, &descr)`): these arrays as a CSR matrix of `num_rows` x `num_cols` of `type`,
  /// or (bsr_maker) as a BSR matrix of that many b x b blocks, row-major within a block.
  /// The copies must outlive the maker.
  auto csr_maker(int64_t num_rows, int64_t num_cols, cudaDataType type) const {
    return [this, num_rows, num_cols, type](int r, cusparseSpMatDescr_t* descr) {
      BENCH_CUSPARSE(cusparseCreateCsr(descr, num_rows, num_cols, static_cast<int64_t>(cols[r].extent(0)),
                                       rows[r].data(), cols[r].data(), values[r].data(), CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
    };
  }
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12600
  auto bsr_maker(int64_t num_rows, int64_t num_cols, int64_t b, cudaDataType type) const {
    return [this, num_rows, num_cols, b, type](int r, cusparseSpMatDescr_t* descr) {
      BENCH_CUSPARSE(cusparseCreateBsr(descr, num_rows, num_cols, static_cast<int64_t>(cols[r].extent(0)), b, b,
                                       rows[r].data(), cols[r].data(), values[r].data(), CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type, CUSPARSE_ORDER_ROW));
    };
  }
#endif
};

/// The scalar CSR of a's real expansion (real_expansion.hpp); std::runtime_error where it
/// has more entries than 32-bit indices hold.
template <class Entry>
auto checked_scalar_expansion(const cs::HostCsr<Entry>& a) {
  constexpr int64_t e = real_block<Entry>::block_size;
  const int64_t entries = static_cast<int64_t>(a.num_entries()) * e * e;
  if (entries > INT_MAX)
    throw std::runtime_error("the expanded scalar CSR has " + std::to_string(entries) +
                             " entries, more than 32-bit indices hold");
  return expand_to_scalar_csr(a);
}

#if !(defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12600)
/// The generic-BSR forms' result where cuSPARSE has no generic BSR SpMV.
inline BaselineResult generic_bsr_unavailable(const std::string& name) {
  BaselineResult r;
  r.method = "cusparse";
  r.variant = name;
  r.error = "this bench calls cusparseSpMV on BSR only with cuSPARSE 12.6 (CUDA 13) or later; this is cuSPARSE " +
            std::to_string(CUSPARSE_VERSION);
  return r;
}
#endif

/// A legacy bsrmv form on BSR copies `m` with blocks of `e` rows: checked and timed
/// like the generic forms.
template <class Value, class Scalar, class Coefficient, class Reference>
BaselineResult legacy_bsrmv_form(const std::string& name, cusparseHandle_t handle, cusparseOperation_t op,
                                 int block_rows, int block_cols, int nnzb, int e, const DeviceMatrixCopies<Scalar>& m,
                                 std::vector<Kokkos::View<Scalar*>>& xs, std::vector<Kokkos::View<Scalar*>>& ys,
                                 const Coefficient& alpha, const Coefficient& beta,
                                 const std::vector<Reference>& reference, const compound_sparse::TimingOptions& timing,
                                 double tolerance) {
  BaselineResult result;
  result.method = "cusparse";
  result.variant = name;
  cusparseMatDescr_t descr = nullptr;
  try {
    BENCH_CUSPARSE(cusparseCreateMatDescr(&descr));
    const auto run = [&](int r) {
      BENCH_CUSPARSE(bsrmv(handle, op, block_rows, block_cols, nnzb, &alpha, descr, m.values[r].data(),
                           m.rows[r].data(), m.cols[r].data(), e, xs[r].data(), &beta, ys[r].data()));
    };
    check_and_time<Value>(result, reference, ys, run, timing, tolerance);
  } catch (const std::exception& err) {
    result.ok = false;
    result.error = err.what();
  }
  if (descr) cusparseDestroyMatDescr(descr);
  return result;
}

inline void destroy_dense(cusparseDnVecDescr_t v) {
  cusparseDestroyDnVec(v);
}
inline void destroy_dense(cusparseDnMatDescr_t m) {
  cusparseDestroyDnMat(m);
}

/// The generic-API descriptors of every rotation copy of one form, destroyed with it: the
/// sparse matrix and the dense x and y (vectors for SpMV, matrices for SpMM).
template <class Dense>
struct GenericDescriptors {
  std::vector<cusparseSpMatDescr_t> mats;
  std::vector<Dense> xs, ys;
  GenericDescriptors() = default;
  GenericDescriptors(const GenericDescriptors&) = delete;
  GenericDescriptors& operator=(const GenericDescriptors&) = delete;
  ~GenericDescriptors() {
    for (auto m : mats) cusparseDestroySpMat(m);
    for (auto x : xs) destroy_dense(x);
    for (auto y : ys) destroy_dense(y);
  }
};
using SpmvDescriptors = GenericDescriptors<cusparseDnVecDescr_t>;
using SpmmDescriptors = GenericDescriptors<cusparseDnMatDescr_t>;

/// One generic cusparseSpMV form: `make_matrix(r, &descr)` creates the sparse matrix
/// descriptor of rotation copy r; x and y are the flat copies `xs`, `ys` with
/// `x_length`, `y_length` elements of `type`. With `preprocess`, cusparseSpMV_preprocess
/// runs once per copy, on that copy's descriptors and buffer, before check and timing.
template <class Value, class Scalar, class Reference, class MakeMatrix>
BaselineResult spmv_form(const std::string& name, cusparseHandle_t handle, cusparseOperation_t op,
                         MakeMatrix&& make_matrix, std::vector<Kokkos::View<Scalar*>>& xs,
                         std::vector<Kokkos::View<Scalar*>>& ys, int64_t x_length, int64_t y_length, cudaDataType type,
                         const void* alpha, const void* beta, cusparseSpMVAlg_t alg, bool preprocess,
                         const std::vector<Reference>& reference, const compound_sparse::TimingOptions& timing,
                         double tolerance) {
  BaselineResult result;
  result.method = "cusparse";
  result.variant = name;
  try {
    const int rotation = static_cast<int>(ys.size());
    SpmvDescriptors d;
    std::vector<Kokkos::View<char*>> buffers;  // one per copy: preprocess data lives in it
    for (int r = 0; r < rotation; ++r) {
      d.mats.push_back(nullptr);
      make_matrix(r, &d.mats.back());
      d.xs.push_back(nullptr);
      BENCH_CUSPARSE(cusparseCreateDnVec(&d.xs.back(), x_length, xs[r].data(), type));
      d.ys.push_back(nullptr);
      BENCH_CUSPARSE(cusparseCreateDnVec(&d.ys.back(), y_length, ys[r].data(), type));
      size_t bytes = 0;
      BENCH_CUSPARSE(cusparseSpMV_bufferSize(handle, op, alpha, d.mats[r], d.xs[r], beta, d.ys[r], type, alg, &bytes));
      buffers.emplace_back("bench::cusparse_buffer", std::max<size_t>(bytes, 1));
    }
    if (preprocess) {
      for (int r = 0; r < rotation; ++r) {
        const cusparseStatus_t status =
            cusparseSpMV_preprocess(handle, op, alpha, d.mats[r], d.xs[r], beta, d.ys[r], type, alg, buffers[r].data());
        if (status != CUSPARSE_STATUS_SUCCESS) {  // refused for this algorithm: time it without
          if (r > 0)
            throw std::runtime_error("cusparseSpMV_preprocess failed on a rotation copy only: " +
                                     std::string(cusparseGetErrorString(status)));
          const std::string suffix = "_preprocess";
          if (result.variant.size() > suffix.size() &&
              result.variant.compare(result.variant.size() - suffix.size(), suffix.size(), suffix) == 0)
            result.variant.erase(result.variant.size() - suffix.size());
          result.note = std::string("cusparseSpMV_preprocess: ") + cusparseGetErrorString(status) +
                        "; timed without preprocessing";
          break;
        }
      }
      Kokkos::fence();
    }
    const auto run = [&](int r) {
      BENCH_CUSPARSE(cusparseSpMV(handle, op, alpha, d.mats[r], d.xs[r], beta, d.ys[r], type, alg, buffers[r].data()));
    };
    check_and_time<Value>(result, reference, ys, run, timing, tolerance);
  } catch (const std::exception& err) {
    result.ok = false;
    result.error = err.what();
  }
  return result;
}

inline cusparseStatus_t bsrmm(cusparseHandle_t h, int mb, int n, int kb, int nnzb, const float* alpha,
                              cusparseMatDescr_t d, const float* v, const int* rp, const int* ci, int e, const float* b,
                              int ldb, const float* beta, float* c, int ldc) {
  return cusparseSbsrmm(h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                        mb, n, kb, nnzb, alpha, d, v, rp, ci, e, b, ldb, beta, c, ldc);
}
inline cusparseStatus_t bsrmm(cusparseHandle_t h, int mb, int n, int kb, int nnzb, const double* alpha,
                              cusparseMatDescr_t d, const double* v, const int* rp, const int* ci, int e,
                              const double* b, int ldb, const double* beta, double* c, int ldc) {
  return cusparseDbsrmm(h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                        mb, n, kb, nnzb, alpha, d, v, rp, ci, e, b, ldb, beta, c, ldc);
}

/// One cusparseSpMM form (op N on A and X): `make_matrix(r, &descr)` creates the sparse
/// matrix descriptor of rotation copy r; X and Y are the flat copies `xs`, `ys`, dense
/// matrices of `x_rows` and `y_rows` rows and k columns of `type` in `order` (leading
/// dimension k row-major, the rows column-major, as the lab's). cusparseSpMM_preprocess runs
/// once per copy on that copy's descriptors and buffer. `read(y)` gives y's values in the
/// reference's order (the k vectors one after the other).
template <class Scalar, class Reference, class MakeMatrix, class Read>
BaselineResult spmm_form(const std::string& name, cusparseHandle_t handle, MakeMatrix&& make_matrix,
                         std::vector<Kokkos::View<Scalar*>>& xs, std::vector<Kokkos::View<Scalar*>>& ys, int64_t x_rows,
                         int64_t y_rows, int k, cusparseOrder_t order, cudaDataType type, const void* alpha,
                         const void* beta, cusparseSpMMAlg_t alg, Read&& read, const std::vector<Reference>& reference,
                         const compound_sparse::TimingOptions& timing, double tolerance) {
  BaselineResult result;
  result.method = "cusparse";
  result.variant = name;
  result.k = k;
  const cusparseOperation_t none = CUSPARSE_OPERATION_NON_TRANSPOSE;
  try {
    const int rotation = static_cast<int>(ys.size());
    const bool row = order == CUSPARSE_ORDER_ROW;
    SpmmDescriptors d;
    std::vector<Kokkos::View<char*>> buffers;  // one per copy: preprocess data lives in it
    for (int r = 0; r < rotation; ++r) {
      d.mats.push_back(nullptr);
      make_matrix(r, &d.mats.back());
      d.xs.push_back(nullptr);
      BENCH_CUSPARSE(cusparseCreateDnMat(&d.xs.back(), x_rows, k, row ? k : x_rows, xs[r].data(), type, order));
      d.ys.push_back(nullptr);
      BENCH_CUSPARSE(cusparseCreateDnMat(&d.ys.back(), y_rows, k, row ? k : y_rows, ys[r].data(), type, order));
      size_t bytes = 0;
      BENCH_CUSPARSE(
          cusparseSpMM_bufferSize(handle, none, none, alpha, d.mats[r], d.xs[r], beta, d.ys[r], type, alg, &bytes));
      buffers.emplace_back("bench::cusparse_spmm_buffer", std::max<size_t>(bytes, 1));
    }
    for (int r = 0; r < rotation; ++r) {
      const cusparseStatus_t status = cusparseSpMM_preprocess(handle, none, none, alpha, d.mats[r], d.xs[r], beta,
                                                              d.ys[r], type, alg, buffers[r].data());
      if (status != CUSPARSE_STATUS_SUCCESS) {  // refused for this algorithm: time it without
        if (r > 0)
          throw std::runtime_error("cusparseSpMM_preprocess failed on a rotation copy only: " +
                                   std::string(cusparseGetErrorString(status)));
        result.note =
            std::string("cusparseSpMM_preprocess: ") + cusparseGetErrorString(status) + "; timed without preprocessing";
        break;
      }
    }
    Kokkos::fence();
    const auto run = [&](int r) {
      BENCH_CUSPARSE(
          cusparseSpMM(handle, none, none, alpha, d.mats[r], d.xs[r], beta, d.ys[r], type, alg, buffers[r].data()));
    };
    // The lab never gave cusparseSpMM a NaN-filled Y: should a form read Y although
    // beta = 0, it is checked on a zeroed Y and says so (check_and_time_read).
    check_and_time_read(result, reference, ys, read, run, timing, tolerance, true);
  } catch (const std::exception& err) {
    result.ok = false;
    result.error = err.what();
  }
  return result;
}

/// The legacy bsrmm on BSR copies `m` of e x e real blocks, X and Y column-major (ldb e
/// cols, ldc e rows): checked and timed like the generic forms.
template <class Scalar, class Reference, class Read>
BaselineResult legacy_bsrmm_form(const std::string& name, cusparseHandle_t handle, int block_rows, int block_cols,
                                 int nnzb, int e, int k, const DeviceMatrixCopies<Scalar>& m,
                                 std::vector<Kokkos::View<Scalar*>>& xs, std::vector<Kokkos::View<Scalar*>>& ys,
                                 Read&& read, const std::vector<Reference>& reference,
                                 const compound_sparse::TimingOptions& timing, double tolerance) {
  BaselineResult result;
  result.method = "cusparse";
  result.variant = name;
  result.k = k;
  if (block_rows > bsrmm_max_block_rows) {
    result.error = "more block rows (" + std::to_string(block_rows) + ") than bsrmm takes (" +
                   std::to_string(bsrmm_max_block_rows) + ")";
    return result;
  }
  cusparseMatDescr_t descr = nullptr;
  const Scalar alpha = 1, beta = 0;
  try {
    BENCH_CUSPARSE(cusparseCreateMatDescr(&descr));
    const auto run = [&](int r) {
      BENCH_CUSPARSE(bsrmm(handle, block_rows, k, block_cols, nnzb, &alpha, descr, m.values[r].data(), m.rows[r].data(),
                           m.cols[r].data(), e, xs[r].data(), e * block_cols, &beta, ys[r].data(), e * block_rows));
    };
    check_and_time_read(result, reference, ys, read, run, timing, tolerance, true);
  } catch (const std::exception& err) {
    result.ok = false;
    result.error = err.what();
  }
  if (descr) cusparseDestroyMatDescr(descr);
  return result;
}
#endif

/// Why no cuSPARSE (or real-expansion) form computes op(A) for this entry type, or "": the
/// expansions' transpose conjugates quaternions, so quaternion Aᵀ has none.
template <class Entry>
std::string expansion_refusal(compound_sparse::Op op) {
  using scalar = typename compound_sparse::component_traits<Entry>::scalar_type;
  if (op == compound_sparse::Op::T && std::is_same<Entry, compound_sparse::Quaternion<scalar>>::value)
    return "the transpose of a real or complex expansion conjugates each quaternion (L(q)^T = L(conj q)): it gives "
           "A^H, and no form computes the quaternion A^T";
  return "";
}

/// Every cuSPARSE form for op(a) (cusparse_form_names), each checked against `reference`
/// and timed over `rotation` copies; a form that fails carries its error and the others
/// still run. fastest_cusparse picks the baseline. With op T or H, x has a's rows and
/// the forms multiply a with cuSPARSE's operation.
template <class Entry, class Reference>
std::vector<BaselineResult> cusparse_forms(const compound_sparse::HostCsr<Entry>& a,
                                           const std::vector<compound_sparse::vector_type_t<Entry>>& x,
                                           const std::vector<Reference>& reference,
                                           const compound_sparse::TimingOptions& timing, int rotation, double tolerance,
                                           compound_sparse::Op op = compound_sparse::Op::N) {
  using scalar = typename compound_sparse::component_traits<Entry>::scalar_type;
  constexpr bool is_complex = std::is_same<Entry, Kokkos::complex<scalar>>::value;
  std::vector<BaselineResult> forms;
  const std::string refused = expansion_refusal<Entry>(op);
#ifndef KOKKOS_ENABLE_CUDA
  for (const auto& name : cusparse_form_names<Entry>()) {
    BaselineResult r;
    r.method = "cusparse";
    r.variant = name;
    r.error = refused.empty() ? "cuSPARSE needs the CUDA backend" : refused;
    forms.push_back(r);
  }
  (void)a, (void)x, (void)reference, (void)timing, (void)rotation, (void)tolerance, (void)is_complex;
  return forms;
#else
  using value = compound_sparse::vector_type_t<Entry>;
  const auto names = cusparse_form_names<Entry>();
  const auto failed = [&](const std::string& name, const std::string& error) {
    BaselineResult r;
    r.method = "cusparse";
    r.variant = name;
    r.error = error;
    return r;
  };
  if (!refused.empty()) {
    for (const auto& name : names) forms.push_back(failed(name, refused));
    return forms;
  }
  const bool transposing = op != compound_sparse::Op::N;
  const int x_count = transposing ? a.num_rows : a.num_cols, y_count = transposing ? a.num_cols : a.num_rows;
  // Real data: the conjugate transpose is the transpose (blocks; quaternions' L(q)^T = L(conj q)).
  const cusparseOperation_t complex_op = op == compound_sparse::Op::N   ? CUSPARSE_OPERATION_NON_TRANSPOSE
                                         : op == compound_sparse::Op::T ? CUSPARSE_OPERATION_TRANSPOSE
                                                                        : CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE;
  const cusparseOperation_t real_op = transposing ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE;
  std::unique_ptr<CusparseHandle> handle;
  std::vector<Kokkos::View<scalar*>> xs, ys;  // x and y as flat scalars: every form's layout
  try {
    handle = std::make_unique<CusparseHandle>();
    for (int r = 0; r < rotation; ++r) {
      xs.push_back(flat_device_copy<scalar>(x));
      ys.push_back(flat_device_copy<scalar>(std::vector<value>(y_count)));
    }
  } catch (const std::exception& err) {
    for (const auto& name : names) forms.push_back(failed(name, err.what()));
    return forms;
  }
  const int64_t nnz = static_cast<int64_t>(a.num_entries());
  if constexpr (is_complex) {
    const Entry alpha(1, 0), beta(0, 0);
    try {
      DeviceMatrixCopies<scalar> m(a.row_offsets, a.col_indices, interleaved(a.values), rotation);
      const auto make_csr = m.csr_maker(a.num_rows, a.num_cols, complex_type<scalar>());
      const cusparseSpMVAlg_t algs[] = {CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};
      for (int i = 0; i < 3; ++i)
        forms.push_back(spmv_form<value>(names[i], *handle, complex_op, make_csr, xs, ys, x_count, y_count,
                                         complex_type<scalar>(), &alpha, &beta, algs[i], i > 0, reference, timing,
                                         tolerance));
    } catch (const std::exception& err) {  // the matrix copies could not be made
      for (std::size_t i = forms.size(); i < 3; ++i) forms.push_back(failed(names[i], err.what()));
    }
    // Sliced ELL, slices of 16 and 32 rows (names[3], names[4]).
    const int slices[] = {16, 32};
    for (int i = 0; i < 2; ++i) {
      const std::string& name = names[3 + i];
      try {
        const auto sell = to_sliced_ell(a, slices[i], 4 * nnz + slices[i]);
        const auto slots = static_cast<int64_t>(sell.col_indices.size());
        DeviceMatrixCopies<scalar> m(sell.slice_offsets, sell.col_indices, interleaved(sell.values), rotation);
        const auto make_sell = [&](int r, cusparseSpMatDescr_t* descr) {
          BENCH_CUSPARSE(cusparseCreateSlicedEll(descr, a.num_rows, a.num_cols, nnz, slots, slices[i], m.rows[r].data(),
                                                 m.cols[r].data(), m.values[r].data(), CUSPARSE_INDEX_32I,
                                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, complex_type<scalar>()));
        };
        forms.push_back(spmv_form<value>(name, *handle, complex_op, make_sell, xs, ys, x_count, y_count,
                                         complex_type<scalar>(), &alpha, &beta, CUSPARSE_SPMV_SELL_ALG1, true,
                                         reference, timing, tolerance));
      } catch (const std::exception& err) {
        forms.push_back(failed(name, err.what()));
      }
    }
  } else {
    constexpr int e = real_block<Entry>::block_size;
    const scalar alpha = 1, beta = 0;
    const int64_t x_length = static_cast<int64_t>(e) * x_count, y_length = static_cast<int64_t>(e) * y_count;
    // BSR: the legacy bsrmv and the generic SpMV on the same arrays.
    try {
      DeviceMatrixCopies<scalar> m(a.row_offsets, a.col_indices, bsr_values(a), rotation);
      forms.push_back(legacy_bsrmv_form<value>(names[0], *handle, real_op, a.num_rows, a.num_cols,
                                               static_cast<int>(nnz), e, m, xs, ys, alpha, beta, reference, timing,
                                               tolerance));
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12600
      const auto make_bsr = m.bsr_maker(a.num_rows, a.num_cols, e, real_type<scalar>());
      forms.push_back(spmv_form<value>(names[1], *handle, real_op, make_bsr, xs, ys, x_length, y_length,
                                       real_type<scalar>(), &alpha, &beta, CUSPARSE_SPMV_BSR_ALG1, true, reference,
                                       timing, tolerance));
#else
      forms.push_back(generic_bsr_unavailable(names[1]));
#endif
    } catch (const std::exception& err) {
      for (std::size_t i = forms.size(); i < 2; ++i) forms.push_back(failed(names[i], err.what()));
    }
    // The scalar CSR of the real expansion (its copies replace the BSR ones).
    try {
      const auto s = checked_scalar_expansion(a);
      DeviceMatrixCopies<scalar> m(s.row_offsets, s.col_indices, s.values, rotation);
      const auto make_csr = m.csr_maker(s.num_rows, s.num_cols, real_type<scalar>());
      forms.push_back(spmv_form<value>(names[2], *handle, real_op, make_csr, xs, ys, x_length, y_length,
                                       real_type<scalar>(), &alpha, &beta, CUSPARSE_SPMV_CSR_ALG1, true, reference,
                                       timing, tolerance));
      forms.push_back(spmv_form<value>(names[3], *handle, real_op, make_csr, xs, ys, x_length, y_length,
                                       real_type<scalar>(), &alpha, &beta, CUSPARSE_SPMV_CSR_ALG2, true, reference,
                                       timing, tolerance));
    } catch (const std::exception& err) {
      for (std::size_t i = forms.size(); i < 4; ++i) forms.push_back(failed(names[i], err.what()));
    }
    // Quaternions as 2x2 complex blocks: x, y and the reference in pair form.
    if constexpr (std::is_same<Entry, compound_sparse::Quaternion<scalar>>::value) {
      try {
        const auto pair_reference = complex_pair_form(reference);
        std::vector<Kokkos::View<scalar*>> pair_xs;
        for (int r = 0; r < rotation; ++r) pair_xs.push_back(flat_device_copy<scalar>(complex_pair_form(x)));
        DeviceMatrixCopies<scalar> m(a.row_offsets, a.col_indices, complex_bsr_values(a), rotation);
        const Kokkos::complex<scalar> one(1, 0), zero(0, 0);
        forms.push_back(legacy_bsrmv_form<value>(names[4], *handle, complex_op, a.num_rows, a.num_cols,
                                                 static_cast<int>(nnz), 2, m, pair_xs, ys, one, zero, pair_reference,
                                                 timing, tolerance));
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12600
        const auto make_bsr = m.bsr_maker(a.num_rows, a.num_cols, 2, complex_type<scalar>());
        forms.push_back(spmv_form<value>(names[5], *handle, complex_op, make_bsr, pair_xs, ys, 2 * int64_t{x_count},
                                         2 * int64_t{y_count}, complex_type<scalar>(), &one, &zero,
                                         CUSPARSE_SPMV_BSR_ALG1, true, pair_reference, timing, tolerance));
#else
        forms.push_back(generic_bsr_unavailable(names[5]));
#endif
      } catch (const std::exception& err) {
        for (std::size_t i = forms.size(); i < names.size(); ++i) forms.push_back(failed(names[i], err.what()));
      }
    }
  }
  return forms;
#endif
}

/// Every cuSPARSE SpMM form (cusparse_spmm_form_names) of A times the k vectors `x_vectors`
/// (x_vectors[j][i]), each checked against `reference`, the k references one after the other
/// (MeasureInputs::multi_reference), and timed over `rotation` copies; a form that fails
/// carries its error and the others still run. Op N only (compound-bench refuses --k with
/// --ops T or H). fastest_cusparse picks the baseline.
template <class Entry, class Reference>
std::vector<BaselineResult> cusparse_spmm_forms(
    const compound_sparse::HostCsr<Entry>& a,
    const std::vector<std::vector<compound_sparse::vector_type_t<Entry>>>& x_vectors,
    const std::vector<Reference>& reference, const compound_sparse::TimingOptions& timing, int rotation,
    double tolerance) {
  const int k = static_cast<int>(x_vectors.size());
  const auto names = cusparse_spmm_form_names<Entry>();
  std::vector<BaselineResult> forms;
  const auto failed = [&](const std::string& name, const std::string& error) {
    BaselineResult r;
    r.method = "cusparse";
    r.variant = name;
    r.k = k;
    r.error = error;
    return r;
  };
#ifndef KOKKOS_ENABLE_CUDA
  for (const auto& name : names) forms.push_back(failed(name, "cuSPARSE needs the CUDA backend"));
  (void)a, (void)reference, (void)timing, (void)rotation, (void)tolerance;
  return forms;
#else
  using scalar = typename compound_sparse::component_traits<Entry>::scalar_type;
  using value = compound_sparse::vector_type_t<Entry>;
  constexpr bool is_complex = std::is_same<Entry, Kokkos::complex<scalar>>::value;
  std::unique_ptr<CusparseHandle> handle;
  try {
    handle = std::make_unique<CusparseHandle>();
  } catch (const std::exception& err) {
    for (const auto& name : names) forms.push_back(failed(name, err.what()));
    return forms;
  }
  const int64_t nnz = static_cast<int64_t>(a.num_entries());
  const std::vector<std::vector<value>> zero(k, std::vector<value>(a.num_rows));
  // X and Y in one dense order, `rotation` copies each, and y's values read back in the
  // reference's order. Every form of that order uses them.
  struct Dense {
    DenseOrder order;
    std::vector<Kokkos::View<scalar*>> xs, ys;
  };
  const auto make_dense = [&](bool row_major, int element_scalars) {
    Dense d{DenseOrder{row_major, element_scalars}, {}, {}};
    for (int r = 0; r < rotation; ++r) {
      d.xs.push_back(dense_device_copy<scalar>(x_vectors, d.order));
      d.ys.push_back(dense_device_copy<scalar>(zero, d.order));
    }
    return d;
  };
  const auto reader = [&](const DenseOrder& order) {
    return [&a, k, order](const Kokkos::View<scalar*>& y) {
      return concatenated_from_dense<value>(y, a.num_rows, k, order);
    };
  };
  // In the order of the names' DEFAULT, CSR_ALG1, CSR_ALG2, CSR_ALG3.
  const cusparseSpMMAlg_t csr_algs[] = {CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG1, CUSPARSE_SPMM_CSR_ALG2,
                                        CUSPARSE_SPMM_CSR_ALG3};
  // The forms run in the order of `names`; a failure before a group's forms ran (a copy
  // that could not be made) fills the rest of the group with its error.
  const auto fill_to = [&](std::size_t count, const std::string& error) {
    while (forms.size() < count && forms.size() < names.size()) forms.push_back(failed(names[forms.size()], error));
  };
  if constexpr (is_complex) {
    const Entry alpha(1, 0), beta(0, 0);
    try {
      DeviceMatrixCopies<scalar> m(a.row_offsets, a.col_indices, interleaved(a.values), rotation);
      const auto make_csr = m.csr_maker(a.num_rows, a.num_cols, complex_type<scalar>());
      // Row-major first (the lab's order): a complex element per value, so the row-major
      // matrix is our Aos multivector's memory and the column-major one our Soa's.
      for (const bool row_major : {true, false}) {
        const std::size_t group_end = forms.size() + 4;
        try {
          auto dense = make_dense(row_major, 2);
          for (const cusparseSpMMAlg_t alg : csr_algs)
            forms.push_back(spmm_form(names[forms.size()], *handle, make_csr, dense.xs, dense.ys, a.num_cols,
                                      a.num_rows, k, row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL,
                                      complex_type<scalar>(), &alpha, &beta, alg, reader(dense.order), reference,
                                      timing, tolerance));
        } catch (const std::exception& err) {  // the dense copies could not be made
          fill_to(group_end, err.what());
        }
      }
    } catch (const std::exception& err) {  // the matrix copies could not be made
      fill_to(names.size(), err.what());
    }
  } else {
    constexpr int e = real_block<Entry>::block_size;
    static_assert(compound_sparse::component_traits<value>::size == e,
                  "a real expansion's vector value has e components, one per row of the e x e block");
    const scalar alpha = 1, beta = 0;
    const int64_t x_rows = int64_t{e} * a.num_cols, y_rows = int64_t{e} * a.num_rows;
    // The scalar CSR of the real expansion, column-major then row-major.
    try {
      const auto s = checked_scalar_expansion(a);
      DeviceMatrixCopies<scalar> m(s.row_offsets, s.col_indices, s.values, rotation);
      const auto make_csr = m.csr_maker(s.num_rows, s.num_cols, real_type<scalar>());
      for (const bool row_major : {false, true}) {
        const std::size_t group_end = forms.size() + 4;
        try {
          auto dense = make_dense(row_major, 1);
          for (const cusparseSpMMAlg_t alg : csr_algs)
            forms.push_back(spmm_form(names[forms.size()], *handle, make_csr, dense.xs, dense.ys, x_rows, y_rows, k,
                                      row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL, real_type<scalar>(), &alpha,
                                      &beta, alg, reader(dense.order), reference, timing, tolerance));
        } catch (const std::exception& err) {
          fill_to(group_end, err.what());
        }
      }
    } catch (const std::exception& err) {
      fill_to(8, err.what());
    }
    // The BSR of e x e real blocks (its copies replace the expansion's): the generic SpMM
    // in both orders, then the legacy bsrmm (column-major).
    try {
      DeviceMatrixCopies<scalar> m(a.row_offsets, a.col_indices, bsr_values(a), rotation);
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12600
      const auto make_bsr = m.bsr_maker(a.num_rows, a.num_cols, e, real_type<scalar>());
      for (const bool row_major : {false, true}) {
        const std::size_t group_end = forms.size() + 1;
        try {
          auto dense = make_dense(row_major, 1);
          forms.push_back(spmm_form(names[forms.size()], *handle, make_bsr, dense.xs, dense.ys, x_rows, y_rows, k,
                                    row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL, real_type<scalar>(), &alpha,
                                    &beta, CUSPARSE_SPMM_BSR_ALG1, reader(dense.order), reference, timing, tolerance));
        } catch (const std::exception& err) {
          fill_to(group_end, err.what());
        }
      }
#else
      fill_to(10, "this bench calls cusparseSpMM on BSR only with cuSPARSE 12.6 (CUDA 13) or later; this is cuSPARSE " +
                      std::to_string(CUSPARSE_VERSION));
#endif
      auto dense = make_dense(false, 1);
      forms.push_back(legacy_bsrmm_form(names[forms.size()], *handle, a.num_rows, a.num_cols, static_cast<int>(nnz), e,
                                        k, m, dense.xs, dense.ys, reader(dense.order), reference, timing, tolerance));
    } catch (const std::exception& err) {
      fill_to(names.size(), err.what());
    }
  }
  return forms;
#endif
}

}  // namespace compound_sparse_bench
