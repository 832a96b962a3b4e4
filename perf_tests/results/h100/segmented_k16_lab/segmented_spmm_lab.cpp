// The segmented sum's SpMM of k = 8 and 16 complex vectors (issue 17): why does complex<float>
// at k = 16 cost more per vector than at k = 8 (perf_tests/results/h100/spmm_irregular_235cd89/:
// circuit-1m 34.0 -> 40.8 µs a vector, 0.83x of cuSPARSE's row-major SpMM)?
//
//   segmented_spmm_lab float|double MATRIX.mtx [CSV [check]]
//
// The first pass (impl::SegmentedSumSpmmTiles) holds the X values of `group` vectors a lane at
// once and runs the k vectors as k / group groups, one after the other over the tile's
// registers. The library's group is 32 bytes of values (segmented_spmm_group: 4 complex<float>,
// 2 complex<double>). On an Aos multivector at k = 16 complex<float> a row of X is 128 bytes,
// which the four groups gather as four 32-byte sectors at different times. This lab times the
// same kernel with other groups (impl::segmented_sum_spmm's Group, a template argument) and
// launch bounds, on Aos and Soa multivectors at k = 8 and 16 (and k = 2, from run 6: half a
// group, which the library reads as one 16-byte word on Aos; k = 4 from run 7), against
// cuSPARSE's CSR SpMM (row-major X for Aos: DEFAULT and CSR_ALG3; column-major for Soa: DEFAULT
// and CSR_ALG1) and the library's SpMV (k = 1, the segmented sum at 256:4, for the time per
// vector).
//
// Names: seg.gG.tT.bB (group G, launch bounds T:B; the library's own group is marked "lib").
// A group changes no vector's order of multiply-adds, so every product must have the bits of
// the library's (group default, 256:4); that one is checked against the double host reference.
// cuSPARSE's products are checked against the host reference (relative 2-norm, 1e-5 in float).
// Median of 7 runs of 20 products after 5 warm-ups, CUDA events, one X (a lab, not the bench:
// no rotation; X is 64-128 MB here, above the H100's 50 MB L2). "check": each product once,
// not timed (for compute-sanitizer and Nsight Compute). Needs CUDA; built by
// scripts/gpu_spmm.sh's seglab step, not by the project.

#include <cuda_runtime.h>
#include <cusparse.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/io/matrix_market.hpp>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace cs = compound_sparse;
using Exec = Kokkos::Cuda;
template <class C>
using Matrix = cs::SparseMatrix<C, cs::Csr, cs::Aos>;

namespace {

#define LAB_CUDA(call)                                                                     \
  do {                                                                                     \
    const auto lab_status = (call);                                                        \
    if (lab_status != 0) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s failed with status %d\n", __FILE__, __LINE__, #call, \
                   static_cast<int>(lab_status));                                          \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

template <class F>
double median_seconds(const F& f) {
  for (int i = 0; i < 5; ++i) f();
  cudaEvent_t start, stop;
  LAB_CUDA(cudaEventCreate(&start));
  LAB_CUDA(cudaEventCreate(&stop));
  std::vector<double> runs;
  for (int r = 0; r < 7; ++r) {
    LAB_CUDA(cudaEventRecord(start, Exec().cuda_stream()));
    for (int i = 0; i < 20; ++i) f();
    LAB_CUDA(cudaEventRecord(stop, Exec().cuda_stream()));
    LAB_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    LAB_CUDA(cudaEventElapsedTime(&ms, start, stop));
    runs.push_back(ms * 1e-3 / 20);
  }
  LAB_CUDA(cudaEventDestroy(start));
  LAB_CUDA(cudaEventDestroy(stop));
  LAB_CUDA(cudaGetLastError());
  std::sort(runs.begin(), runs.end());
  return runs[3];
}

/// Relative 2-norm of got - want over all k vectors of complex values (NaN where a value was
/// not written).
template <class V, class W>
double relative_difference(const std::vector<std::vector<V>>& got, const std::vector<std::vector<W>>& want) {
  double num = 0, den = 0;
  for (std::size_t j = 0; j < want.size(); ++j)
    for (std::size_t i = 0; i < want[j].size(); ++i) {
      const double re = static_cast<double>(got[j][i].real()) - want[j][i].real();
      const double im = static_cast<double>(got[j][i].imag()) - want[j][i].imag();
      num += re * re + im * im;
      den += static_cast<double>(want[j][i].real()) * want[j][i].real() +
             static_cast<double>(want[j][i].imag()) * want[j][i].imag();
    }
  return std::sqrt(num / (den > 0 ? den : 1));
}

template <class C>
cs::impl::RowResult<C, cs::Aos> overwrite() {  // alpha = 1, beta = 0
  using coefficient = cs::coefficient_type_t<C>;
  return cs::impl::RowResult<C, cs::Aos>::make(cs::real_value<coefficient>(1), cs::real_value<coefficient>(0));
}

/// The segmented sum's SpMM with group G (0: the library's) at launch bounds T:B; Wide = false:
/// each X value in its own load (as before run 2), not a group's run in 16-byte words.
template <unsigned T, unsigned B, int G, bool Wide = true>
struct Segmented {
  template <class C, class L>
  void operator()(const Matrix<C>& a, const cs::MultiVector<C, L>& x, const cs::MultiVector<C, L>& y) const {
    cs::impl::segmented_sum_spmm<T, B, G>(Exec(), overwrite<C>(), a, x, y, Wide);
  }
};

/// cuSPARSE's CSR SpMM on the same arrays (X, Y in the multivector's order: row-major for Aos).
template <class C>
struct CusparseSpmm {
  cusparseHandle_t handle = nullptr;
  cusparseSpMatDescr_t mat = nullptr;
  cusparseDnMatDescr_t xd = nullptr, yd = nullptr;
  Kokkos::View<char*> buffer;
  cusparseSpMMAlg_t alg;
  C one{1}, zero{0};
  static constexpr cudaDataType type = std::is_same<C, Kokkos::complex<float>>::value ? CUDA_C_32F : CUDA_C_64F;

  template <class L>
  CusparseSpmm(const Matrix<C>& a, const cs::MultiVector<C, L>& x, const cs::MultiVector<C, L>& y,
               cusparseSpMMAlg_t algorithm)
      : alg(algorithm) {
    const bool row = std::is_same<L, cs::Aos>::value;
    const auto order = row ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
    const int64_t k = x.count();
    LAB_CUDA(cusparseCreate(&handle));
    LAB_CUDA(cusparseSetStream(handle, Exec().cuda_stream()));
    LAB_CUDA(cusparseCreateCsr(&mat, a.num_rows, a.num_cols, static_cast<int64_t>(a.num_entries),
                               const_cast<int*>(a.offsets.data()), const_cast<int*>(a.col_indices.data()),
                               const_cast<void*>(static_cast<const void*>(a.values.data())), CUSPARSE_INDEX_32I,
                               CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
    // Row-major: a row's k values together (Aos, no padding); column-major: vector j at j * vector_stride.
    LAB_CUDA(cusparseCreateDnMat(&xd, a.num_cols, k, row ? k : x.vector_stride(), const_cast<C*>(x.data.data()), type,
                                 order));
    LAB_CUDA(cusparseCreateDnMat(&yd, a.num_rows, k, row ? k : y.vector_stride(), y.data.data(), type, order));
    const auto none = CUSPARSE_OPERATION_NON_TRANSPOSE;
    size_t bytes = 0;
    LAB_CUDA(cusparseSpMM_bufferSize(handle, none, none, &one, mat, xd, &zero, yd, type, alg, &bytes));
    buffer = Kokkos::View<char*>("lab::cusparse_buffer", std::max<size_t>(bytes, 1));
    LAB_CUDA(cusparseSpMM_preprocess(handle, none, none, &one, mat, xd, &zero, yd, type, alg, buffer.data()));
  }
  ~CusparseSpmm() {
    cusparseDestroyDnMat(xd);
    cusparseDestroyDnMat(yd);
    cusparseDestroySpMat(mat);
    cusparseDestroy(handle);
  }
  void run() const {
    const auto none = CUSPARSE_OPERATION_NON_TRANSPOSE;
    LAB_CUDA(cusparseSpMM(handle, none, none, &one, mat, xd, &zero, yd, type, alg, buffer.data()));
  }
};

struct Lab {
  std::FILE* csv = nullptr;
  bool check_only = false;
  int failures = 0;
  void row(const std::string& name, int k, const char* layout, double seconds, const char* verdict, double diff) {
    std::printf("%-22s k=%-2d %s %9.2f us a product, %8.2f us a vector, %s %.1e\n", name.c_str(), k, layout,
                seconds * 1e6, seconds * 1e6 / k, verdict, diff);
    if (csv)
      std::fprintf(csv, "%s,%d,%s,%.9g,%s,%.3g\n", name.c_str(), k, layout, seconds, verdict, diff), std::fflush(csv);
  }
};

template <class C, class L>
void run_layout(Lab& lab, const cs::HostCsr<C>& host, const Matrix<C>& a, int k, const char* layout) {
  using V = C;
  std::mt19937 rng(16 + k);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<std::vector<V>> x_host(k, std::vector<V>(host.num_cols));
  for (auto& v : x_host)
    for (auto& value : v) value = V(u(rng), u(rng));
  const auto x = cs::to_device<L>(x_host, "X");
  const std::vector<std::vector<V>> zeros(k, std::vector<V>(host.num_rows, V(0)));
  const auto y = cs::to_device<L>(zeros, "Y");
  const auto y_ref = cs::to_device<L>(zeros, "Y_ref");

  // The library's product and the double host reference.
  Segmented<256, 4, 0>{}(a, x, y_ref);
  Kokkos::fence();
  const auto ref = cs::to_host(y_ref);
  std::vector<std::vector<Kokkos::complex<double>>> exact(k);
  for (int j = 0; j < k; ++j) exact[j] = cs::reference_spmv<double>(C(1), host, x_host[j], C(0), zeros[j]);
  const double tolerance = std::is_same<C, Kokkos::complex<float>>::value ? 1e-5 : 1e-12;
  const double library_error = relative_difference(ref, exact);
  std::printf("k=%d %s: the library's product against the host reference: %.2e\n", k, layout, library_error);
  if (!(library_error <= tolerance)) {
    ++lab.failures;
    return;
  }
  // Each column of the library's product has the bits of the library's SpMV of that column
  // (from run 7: the scans skip the levels past a tile's reach, which must change no sum).
  for (int j = 0; j < k; ++j) {
    const auto xj = cs::to_device<cs::Aos>(std::vector<std::vector<V>>{x_host[j]});
    const auto yj = cs::to_device<cs::Aos>(std::vector<std::vector<V>>{zeros[j]}, "y_j");
    cs::spmv(cs::Schedule<cs::ScheduleKind::SegmentedSum, 256, 4>{}, C(1), a, cs::only_vector(xj), C(0),
             cs::only_vector(yj));
    Kokkos::fence();
    const auto spmv = cs::to_host(yj);
    if (std::memcmp(spmv[0].data(), ref[j].data(), ref[j].size() * sizeof(V)) != 0) {
      std::printf("k=%d %s: column %d differs from its SpMV\n", k, layout, j);
      ++lab.failures;
    }
  }

  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto measure = [&](const std::string& name, auto product, bool bits_expected) {
    Kokkos::deep_copy(y.data, V(nan, nan));  // a product that writes nothing cannot pass for the last one
    double seconds = 0;
    if (lab.check_only) {
      product();
      Kokkos::fence();
    } else {
      seconds = median_seconds(product);
    }
    const auto got = cs::to_host(y);
    bool same = true;
    for (int j = 0; j < k; ++j) same &= std::memcmp(got[j].data(), ref[j].data(), ref[j].size() * sizeof(V)) == 0;
    const double diff = bits_expected ? relative_difference(got, ref) : relative_difference(got, exact);
    const bool ok = bits_expected ? same : diff <= tolerance;
    lab.failures += ok ? 0 : 1;
    lab.row(name, k, layout, seconds, ok ? (same ? "bits" : "close") : "WRONG", diff);
  };
  const auto segmented = [&](const std::string& name, auto kernel) {
    measure(
        name, [&] { kernel(a, x, y); }, true);
  };
  constexpr int lib = cs::impl::segmented_spmm_group<C>();
  const std::string l = "seg.lib" + std::to_string(lib);
  segmented(l + ".t256.b4", Segmented<256, 4, 0>{});
  segmented(l + ".narrow.t256.b4", Segmented<256, 4, 0, false>{});
  segmented(l + ".t256.b2", Segmented<256, 2, 0>{});
  segmented(l + ".t256.b8", Segmented<256, 8, 0>{});
  if constexpr (lib != 2) {
    segmented("seg.g2.t256.b4", Segmented<256, 4, 2>{});
  }
  if constexpr (lib != 4) {
    segmented("seg.g4.t256.b4", Segmented<256, 4, 4>{});
    segmented("seg.g4.t256.b2", Segmented<256, 2, 4>{});
  }
  segmented("seg.g8.t256.b4", Segmented<256, 4, 8>{});
  segmented("seg.g8.t256.b2", Segmented<256, 2, 8>{});
  const bool row = std::is_same<L, cs::Aos>::value;
  const std::pair<const char*, cusparseSpMMAlg_t> forms[] = {
      {"cusparse.DEFAULT", CUSPARSE_SPMM_ALG_DEFAULT},
      {row ? "cusparse.CSR_ALG3" : "cusparse.CSR_ALG1", row ? CUSPARSE_SPMM_CSR_ALG3 : CUSPARSE_SPMM_CSR_ALG1}};
  for (const auto& form : forms) {
    const CusparseSpmm<C> c(a, x, y, form.second);
    measure(
        form.first, [&] { c.run(); }, false);
  }
}

template <class C>
int run(const std::string& path, Lab& lab) {
  const auto host = cs::io::read_matrix_market<C>(path);
  const auto a = cs::to_device<cs::Csr, cs::Aos>(host);
  std::printf("%s: %d rows, %d columns, %zu non-zeros, %s\n", path.c_str(), host.num_rows, host.num_cols,
              host.num_entries(),
              std::is_same<C, Kokkos::complex<float>>::value ? "complex<float>" : "complex<double>");
  if (lab.csv) std::fprintf(lab.csv, "name,k,layout,seconds,verdict,difference\n");
  for (int k : {2, 4, 8, 16}) {
    run_layout<C, cs::Aos>(lab, host, a, k, "aos");
    run_layout<C, cs::Soa>(lab, host, a, k, "soa");
  }
  if (!lab.check_only) {  // one SpMV, for the time per vector
    std::vector<C> x_host(host.num_cols, C(0.5, -0.25));
    const auto x = cs::to_device<cs::Aos>(std::vector<std::vector<C>>{x_host});
    const auto y = cs::to_device<cs::Aos>(std::vector<std::vector<C>>{std::vector<C>(host.num_rows)}, "y");
    const auto x1 = cs::only_vector(x);
    const auto y1 = cs::only_vector(y);
    const cs::Schedule<cs::ScheduleKind::SegmentedSum, 256, 4> schedule;
    const double seconds = median_seconds([&] { cs::spmv(schedule, C(1), a, x1, C(0), y1); });
    lab.row("spmv.seg.t256.b4", 1, "aos", seconds, "timed", 0);
  }
  return lab.failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string precision = argc > 1 ? argv[1] : "";
  if (argc < 3 || (precision != "float" && precision != "double")) {
    std::fprintf(stderr, "usage: segmented_spmm_lab float|double MATRIX.mtx [CSV [check]]\n");
    return 2;
  }
  Lab lab;
  lab.csv = argc > 3 ? std::fopen(argv[3], "w") : nullptr;
  lab.check_only = argc > 4 && std::string(argv[4]) == "check";
  const int rc =
      precision == "float" ? run<Kokkos::complex<float>>(argv[2], lab) : run<Kokkos::complex<double>>(argv[2], lab);
  if (lab.csv) std::fclose(lab.csv);
  std::printf("%s\n", rc == 0 ? "lab: every product as expected" : "lab: FAILURES");
  return rc;
}
