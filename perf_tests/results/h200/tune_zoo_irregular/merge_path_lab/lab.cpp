// Merge-path kernel lab (not part of the library): the library's team-tile kernel, built as
// checked out (or with one of the patches beside this file applied), in several tile shapes,
// against cuSPARSE's CSR algorithms, on circuit-1m and rmat-s20 (the zoo's recipes), double and float.
#include <compound_sparse.hpp>
#include <compound_sparse/zoo/circuit.hpp>
#include <compound_sparse/zoo/rmat.hpp>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>


namespace cs = compound_sparse;
using namespace cs::impl;
using Exec = Kokkos::Cuda;
using Mem = Kokkos::CudaSpace;
template <class E>
using Mat = cs::SparseMatrix<E, cs::Csr, cs::Aos, Mem>;
template <class E>
using Vec = cs::CompoundVector<cs::vector_type_t<E>, cs::Aos, Mem>;

static bool g_profile = false;

template <class F>
double time_us(F f) {
  if (g_profile) {
    f();
    Kokkos::fence();
    return 0;
  }
  for (int i = 0; i < 5; ++i) f();
  Kokkos::fence();
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<double> t;
  const int batch = 40;
  for (int r = 0; r < 9; ++r) {
    cudaEventRecord(a, 0);
    for (int i = 0; i < batch; ++i) f();
    cudaEventRecord(b, 0);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms * 1000.0 / batch);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class V>
double error(const V& y, const std::vector<std::complex<double>>& ref) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y.data);
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const std::complex<double> v(h(i, 0), h(i, 1));
    num = std::max(num, std::abs(v - ref[i]));
    den = std::max(den, std::abs(ref[i]));
  }
  return num / den;
}

template <class V>
void poison(const V& y) {
  Kokkos::deep_copy(y.data, std::nan(""));
}

template <class E, unsigned T, unsigned B>
bool merge_path_kernel(const Mat<E>& a, const Vec<E>& x, const Vec<E>& y, int P) {
  using policy_type = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<T, B>>;
  RowResult<E, cs::Aos> result;
  result.alpha = E(1, 0);
  result.beta = E(0, 0);
  result.beta_is_zero = true;
  const auto f = merge_path_functor(result, a, x, y);
  using functor_type = std::decay_t<decltype(f)>;
  Exec exec;
  const MergePathTile tile{int(T), P};
  const std::size_t bytes = functor_type::scratch_bytes(tile);
  if (bytes > std::size_t(policy_type::scratch_size_max(0)) ||
      policy_type(exec, 1, 1).set_scratch_size(0, Kokkos::PerTeam(bytes)).team_size_max(f, Kokkos::ParallelForTag()) <
          int(T)) {
    return false;
  }
  launch_merge_path<T, B>(exec, f, int(T), tile);
  return true;
}

#define CHECK_CUSPARSE(call)                                                  \
  do {                                                                        \
    cusparseStatus_t s_ = (call);                                             \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                      \
      std::printf("cusparse error %d at %s:%d\n", int(s_), __FILE__, __LINE__); \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

template <class E>
double cusparse_us(const Mat<E>& a, const Vec<E>& x, const Vec<E>& y, cusparseSpMVAlg_t alg, bool preprocess,
                   const std::vector<std::complex<double>>& ref, double& err) {
  const cudaDataType type = sizeof(E) == 16 ? CUDA_C_64F : CUDA_C_32F;
  cusparseHandle_t h;
  CHECK_CUSPARSE(cusparseCreate(&h));
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t X, Y;
  CHECK_CUSPARSE(cusparseCreateCsr(&A, a.num_rows, a.num_cols, a.num_entries, a.offsets.data(), a.col_indices.data(),
                                   a.values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  CHECK_CUSPARSE(cusparseCreateDnVec(&X, a.num_cols, x.data.data(), type));
  CHECK_CUSPARSE(cusparseCreateDnVec(&Y, a.num_rows, y.data.data(), type));
  const E alpha(1, 0), beta(0, 0);
  std::size_t bytes = 0;
  CHECK_CUSPARSE(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, X, &beta, Y, type, alg, &bytes));
  void* buffer = nullptr;
  cudaMalloc(&buffer, std::max<std::size_t>(bytes, 16));
  if (preprocess)
    CHECK_CUSPARSE(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, X, &beta, Y, type, alg, buffer));
  const auto run = [&] {
    CHECK_CUSPARSE(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, X, &beta, Y, type, alg, buffer));
  };
  poison(y);
  run();
  cudaDeviceSynchronize();
  err = error(y, ref);
  const double t = time_us(run);
  cudaFree(buffer);
  cusparseDestroySpMat(A);
  cusparseDestroyDnVec(X);
  cusparseDestroyDnVec(Y);
  cusparseDestroy(h);
  return t;
}

/// The matrix with its rows longer than `threshold` emptied: the part a row schedule would take.
cs::HostCsr<Kokkos::complex<double>> short_part(const cs::HostCsr<Kokkos::complex<double>>& a, int threshold) {
  cs::HostCsr<Kokkos::complex<double>> s;
  s.num_rows = a.num_rows;
  s.num_cols = a.num_cols;
  s.row_offsets.assign(1, 0);
  for (int r = 0; r < a.num_rows; ++r) {
    const int b = a.row_offsets[r], e = a.row_offsets[r + 1];
    if (e - b <= threshold)
      for (int k = b; k < e; ++k) {
        s.col_indices.push_back(a.col_indices[k]);
        s.values.push_back(a.values[k]);
      }
    s.row_offsets.push_back(static_cast<int>(s.col_indices.size()));
  }
  return s;
}

template <class E>
void run_matrix(const std::string& name, const cs::HostCsr<Kokkos::complex<double>>& wide, const char* precision) {
  cs::HostCsr<E> host;
  host.num_rows = wide.num_rows;
  host.num_cols = wide.num_cols;
  host.row_offsets = wide.row_offsets;
  host.col_indices = wide.col_indices;
  host.values.resize(wide.values.size());
  for (std::size_t k = 0; k < wide.values.size(); ++k) host.values[k] = E(wide.values[k].real(), wide.values[k].imag());
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<E> xh(host.num_cols);
  for (auto& v : xh) v = E(u(rng), u(rng));
  std::vector<std::complex<double>> ref(host.num_rows);
  for (int r = 0; r < host.num_rows; ++r) {
    std::complex<double> s = 0;
    for (int k = host.row_offsets[r]; k < host.row_offsets[r + 1]; ++k) {
      const auto& v = host.values[k];
      const auto& xv = xh[host.col_indices[k]];
      s += std::complex<double>(v.real(), v.imag()) * std::complex<double>(xv.real(), xv.imag());
    }
    ref[r] = s;
  }
  const auto a = cs::to_device<cs::Csr, cs::Aos, Mem>(host);
  const auto x = cs::to_device<cs::Aos, Mem>(xh);
  const auto y = cs::to_device<cs::Aos, Mem>(std::vector<E>(host.num_rows), "y");
  const double bytes = double(host.num_entries()) * (sizeof(E) + 4) + double(host.num_rows + 1) * 4 +
                       2.0 * host.num_rows * sizeof(E);
  const double tol = sizeof(E) == 16 ? 1e-12 : 1e-4;
  const auto report = [&](const std::string& method, double us, double err) {
    std::printf("%-12s %-6s %-34s %9.1f us %6.2f TB/s  err %.1e %s\n", name.c_str(), precision, method.c_str(), us,
                us > 0 ? bytes / us * 1e-6 : 0.0, err, err <= tol ? "ok" : "WRONG");
    std::fflush(stdout);
  };
  const auto ours = [&](const std::string& method, auto launch) {
    poison(y);
    if (!launch()) {
      std::printf("%-12s %-6s %-34s does not fit\n", name.c_str(), precision, method.c_str());
      return;
    }
    Kokkos::fence();
    const double err = error(y, ref);
    report(method, time_us(launch), err);
  };
  double err = 0;
  if (!g_profile) {
    double t = cusparse_us(a, x, y, CUSPARSE_SPMV_CSR_ALG1, true, ref, err);
    report("cusparse ALG1+preprocess", t, err);
    t = cusparse_us(a, x, y, CUSPARSE_SPMV_CSR_ALG2, true, ref, err);
    report("cusparse ALG2+preprocess", t, err);
  }
  for (int P : {5, 7, 9}) {
    const std::string p = " P" + std::to_string(P);
    ours("t256.b4" + p, [&] { return merge_path_kernel<E, 256, 4>(a, x, y, P); });
    ours("t256.b2" + p, [&] { return merge_path_kernel<E, 256, 2>(a, x, y, P); });
    ours("t128.b4" + p, [&] { return merge_path_kernel<E, 128, 4>(a, x, y, P); });
    ours("t128.b8" + p, [&] { return merge_path_kernel<E, 128, 8>(a, x, y, P); });
  }
  ours("library spmv t256.b4", [&] {
    cs::spmv(cs::Schedule<cs::ScheduleKind::MergePath, 256, 4>{}, E(1, 0), a, x, E(0, 0), y);
    return true;
  });
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--profile") == 0) g_profile = true;
    if (std::strncmp(argv[i], "--only=", 7) == 0) only = argv[i] + 7;
  }
  const auto want = [&](const std::string& n) { return only.empty() || only.find(n) != std::string::npos; };
  if (only == "short") {
    const auto c = short_part(cs::zoo::circuit_matrix(1 << 20, 14), 256);
    run_matrix<Kokkos::complex<double>>("circuit<=256", c, "double");
    run_matrix<Kokkos::complex<float>>("circuit<=256", c, "float");
    const auto r = short_part(cs::zoo::rmat_matrix(20, 4, 1401), 256);
    run_matrix<Kokkos::complex<double>>("rmat<=256", r, "double");
    return 0;
  }
  if (want("circuit")) {
    const auto m = cs::zoo::circuit_matrix(1 << 20, 14);
    run_matrix<Kokkos::complex<double>>("circuit-1m", m, "double");
    if (!g_profile) run_matrix<Kokkos::complex<float>>("circuit-1m", m, "float");
  }
  if (want("rmat")) {
    const auto m = cs::zoo::rmat_matrix(20, 4, 1401);
    run_matrix<Kokkos::complex<double>>("rmat-s20", m, "double");
    if (!g_profile) run_matrix<Kokkos::complex<float>>("rmat-s20", m, "float");
  }
  return 0;
}
