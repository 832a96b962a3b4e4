#pragma once
// cuSPARSE baselines, as in the published evaluation: complex matrices as CSR
// through the generic cusparseSpMV (C/Z), 3x3-block matrices as BSR through
// the legacy cusparse<t>bsrmv (cuSPARSE has no generic BSR SpMV), quaternion
// matrices as BSR of their 4x4 real expansion with x expanded to 4n reals.
// Without the CUDA backend the result says so (ok = false).

#include <Kokkos_Core.hpp>
#include <compound_sparse/host_csr.hpp>
#include <type_traits>

#include "baseline.hpp"
#include "real_expansion.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <cusparse.h>
#endif

namespace compound_sparse_bench {

/// The cuSPARSE call a result names (BaselineResult::variant): the generic SpMV on CSR
/// (cuSPARSE's own format names, not our layouts), or the legacy bsrmv with its block size.
inline constexpr const char* kGenericCsrSpmv = "cusparseSpMV_CSR";

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

inline cusparseStatus_t bsrmv(cusparseHandle_t h, int mb, int nb, int nnzb, const float* alpha, cusparseMatDescr_t d,
                              const float* v, const int* rp, const int* ci, int e, const float* x, const float* beta,
                              float* y) {
  return cusparseSbsrmv(h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, mb, nb, nnzb, alpha, d, v, rp, ci,
                        e, x, beta, y);
}
inline cusparseStatus_t bsrmv(cusparseHandle_t h, int mb, int nb, int nnzb, const double* alpha, cusparseMatDescr_t d,
                              const double* v, const int* rp, const int* ci, int e, const double* x, const double* beta,
                              double* y) {
  return cusparseDbsrmv(h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, mb, nb, nnzb, alpha, d, v, rp, ci,
                        e, x, beta, y);
}
#endif

template <class Entry, class Reference>
BaselineResult cusparse_baseline(const compound_sparse::HostCsr<Entry>& a,
                                 const std::vector<compound_sparse::vector_type_t<Entry>>& x,
                                 const std::vector<Reference>& reference, const compound_sparse::TimingOptions& timing,
                                 int rotation, double tolerance) {
  using scalar = typename compound_sparse::component_traits<Entry>::scalar_type;
  constexpr bool is_complex = std::is_same<Entry, Kokkos::complex<scalar>>::value;
  BaselineResult result;
  result.method = "cusparse";
#ifndef KOKKOS_ENABLE_CUDA
  result.variant = is_complex ? kGenericCsrSpmv : "bsrmv";
  result.error = "cuSPARSE needs the CUDA backend";
  (void)a, (void)x, (void)reference, (void)timing, (void)rotation, (void)tolerance;
  return result;
#else
  using value = compound_sparse::vector_type_t<Entry>;
  try {
    CusparseHandle handle;
    std::vector<Kokkos::View<int*>> row_offsets, cols;
    std::vector<Kokkos::View<scalar*>> values, xs, ys;
    const auto to_device = [](const auto& host, const char* label) {
      using T = typename std::decay_t<decltype(host)>::value_type;
      Kokkos::View<T*> d(std::string(label), host.size());
      Kokkos::deep_copy(d,
                        Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(host.data(), host.size()));
      return d;
    };
    std::vector<scalar> host_values;
    if constexpr (is_complex) {
      for (const auto& v : a.values) host_values.insert(host_values.end(), {v.real(), v.imag()});
    } else {
      host_values = bsr_values(a);
    }
    for (int r = 0; r < rotation; ++r) {
      row_offsets.push_back(to_device(a.row_offsets, "bench::rows"));
      cols.push_back(to_device(a.col_indices, "bench::cols"));
      values.push_back(to_device(host_values, "bench::values"));
      xs.push_back(flat_device_copy<scalar>(x));
      ys.push_back(flat_device_copy<scalar>(std::vector<value>(a.num_rows)));
    }
    if constexpr (is_complex) {
      result.variant = kGenericCsrSpmv;
      const Entry alpha(1, 0), beta(0, 0);
      std::vector<cusparseSpMatDescr_t> mats(rotation);
      std::vector<cusparseDnVecDescr_t> xd(rotation), yd(rotation);
      size_t buffer_bytes = 0;
      for (int r = 0; r < rotation; ++r) {
        BENCH_CUSPARSE(cusparseCreateCsr(&mats[r], a.num_rows, a.num_cols, static_cast<int64_t>(a.num_entries()),
                                         row_offsets[r].data(), cols[r].data(), values[r].data(), CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, complex_type<scalar>()));
        BENCH_CUSPARSE(cusparseCreateDnVec(&xd[r], a.num_cols, xs[r].data(), complex_type<scalar>()));
        BENCH_CUSPARSE(cusparseCreateDnVec(&yd[r], a.num_rows, ys[r].data(), complex_type<scalar>()));
        size_t bytes = 0;
        BENCH_CUSPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mats[r], xd[r], &beta,
                                               yd[r], complex_type<scalar>(), CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
        buffer_bytes = std::max(buffer_bytes, bytes);
      }
      Kokkos::View<char*> buffer("bench::cusparse_buffer", std::max<size_t>(buffer_bytes, 1));
      const auto run = [&](int r) {
        BENCH_CUSPARSE(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mats[r], xd[r], &beta, yd[r],
                                    complex_type<scalar>(), CUSPARSE_SPMV_ALG_DEFAULT, buffer.data()));
      };
      check_and_time<value>(result, reference, ys, run, timing, tolerance);
      for (int r = 0; r < rotation; ++r) {
        cusparseDestroySpMat(mats[r]);
        cusparseDestroyDnVec(xd[r]);
        cusparseDestroyDnVec(yd[r]);
      }
    } else {
      constexpr int e = real_block<Entry>::block_size;
      result.variant = "bsrmv" + std::to_string(e) + "x" + std::to_string(e);
      cusparseMatDescr_t descr;
      BENCH_CUSPARSE(cusparseCreateMatDescr(&descr));
      const scalar alpha = 1, beta = 0;
      const int nnzb = static_cast<int>(a.num_entries());
      const auto run = [&](int r) {
        BENCH_CUSPARSE(bsrmv(handle, a.num_rows, a.num_cols, nnzb, &alpha, descr, values[r].data(),
                             row_offsets[r].data(), cols[r].data(), e, xs[r].data(), &beta, ys[r].data()));
      };
      check_and_time<value>(result, reference, ys, run, timing, tolerance);
      cusparseDestroyMatDescr(descr);
    }
  } catch (const std::exception& err) {
    result.ok = false;
    result.error = err.what();
  }
  return result;
#endif
}

}  // namespace compound_sparse_bench
