// compound-operator-bench (CUDA builds): constant operators (docs/operators.md) applied to panels
// larger than the L2 cache, C = A B. Per operator and entry type: this library's portable
// shapes, its NVRTC-generated kernels (column_stream, row_split; compile time apart), cuBLAS
// GEMM on the dense real expansion of A, cuSPARSE SpMM with that expansion in CSR (each of its
// algorithms), and a copy of B. Every result is checked against a double host reference on the
// first vectors. Times are medians of queued launches after a warm-up; bandwidth is B's and C's
// bytes over the time. The summary compares the best of ours with the targets.
//
//   compound-operator-bench [--out FILE.json] [--panel-mb 512] [--entries double,complex_double,...]
//                           [--orders 1,3,6] [--samples 20]

#include <cublas_v2.h>
#include <cusparse.h>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>
#include <algorithm>
#include <cmath>
#include <compound_sparse/device_info.hpp>
#include <compound_sparse/entries/block.hpp>
#include <compound_sparse/entries/quaternion.hpp>
#include <compound_sparse/operators/generated_operator_kernel.hpp>
#include <compound_sparse/operators/operator_kernels.hpp>
#include <compound_sparse/tuning/timing.hpp>
#include <compound_sparse/zoo/fr_operators.hpp>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "command_line.hpp"

namespace cs = compound_sparse;
namespace zoo = compound_sparse::zoo;
using json = nlohmann::json;

namespace {

struct Options {
  std::string out;
  double panel_bytes = 512e6;
  std::vector<std::string> entries = {"double", "complex_double", "quaternion_double", "block3_double"};
  std::vector<int> orders = {1, 3, 6};
  int samples = 20;
};

void require_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(call) + " failed");
}
void require_cusparse(cusparseStatus_t status, const char* call) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + cusparseGetErrorString(status));
}

double median_seconds(const Options& o, const std::function<void()>& launch) {
  const cs::TimingOptions timing{5, 10, o.samples, cs::TimingMode::Queued};
  return cs::time_launches<Kokkos::Cuda>([&](int) { launch(); }, timing).median_seconds;
}

/// The largest difference of C's first `check` vectors from the double reference A B, relative
/// to the reference's largest value.
template <class Entry>
double relative_error(const cs::ExpandedOperator<typename cs::ConstantOperator<Entry>::scalar_type>& e,
                      const cs::OperatorPanel<Entry>& b, const cs::OperatorPanel<Entry>& c, std::int64_t check) {
  // The first vectors are strided columns of the panels: gathered on the device first, as
  // deep_copy between memory spaces wants contiguous Views.
  const auto first_vectors = [&](const cs::OperatorPanel<Entry>& panel) {
    cs::OperatorPanel<Entry> part("bench::check", panel.extent(0), check);
    Kokkos::deep_copy(part, Kokkos::subview(panel, Kokkos::ALL(), Kokkos::make_pair(std::int64_t(0), check)));
    return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), part);
  };
  const auto hb = first_vectors(b);
  const auto hc = first_vectors(c);
  double worst = 0, scale = 1e-300;
  for (int r = 0; r < e.rows; ++r)
    for (std::int64_t j = 0; j < check; ++j) {
      double sum = 0;
      for (int k = e.row_offsets[r]; k < e.row_offsets[r + 1]; ++k)
        sum += static_cast<double>(e.values[k]) * static_cast<double>(hb(e.col_indices[k], j));
      worst = std::max(worst, std::abs(sum - static_cast<double>(hc(r, j))));
      scale = std::max(scale, std::abs(sum));
    }
  return worst / scale;
}

template <class T>
Kokkos::View<T*> device_copy(const std::string& label, const std::vector<T>& host) {
  Kokkos::View<T*> view(label, std::max<std::size_t>(1, host.size()));
  if (!host.empty())
    Kokkos::deep_copy(Kokkos::subview(view, Kokkos::make_pair(std::size_t(0), host.size())),
                      Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(host.data(), host.size()));
  return view;
}

/// One operator on panels of about o.panel_bytes: every contender, as a JSON object.
template <class Entry>
json run_case(const std::string& name, const cs::ConstantOperator<Entry>& op, const Options& o) {
  using scalar = typename cs::ConstantOperator<Entry>::scalar_type;
  constexpr int components = cs::ConstantOperator<Entry>::components;
  const std::int64_t n = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(o.panel_bytes / (double(op.rows() + op.cols()) * components * sizeof(scalar))));
  const auto b = cs::make_operator_panel<Entry>("bench::b", op.cols(), n);
  const auto c = cs::make_operator_panel<Entry>("bench::c", op.rows(), n);
  Kokkos::Random_XorShift64_Pool<> pool(5);
  Kokkos::fill_random(b, pool, scalar(-1), scalar(1));
  const double bytes = double(op.rows() + op.cols()) * components * n * sizeof(scalar);  // beta = 0
  const std::int64_t check = std::min<std::int64_t>(n, 256);
  const auto e = op.expand(1.0);
  json r;
  r["operator"] = name;
  r["rows"] = op.rows();
  r["cols"] = op.cols();
  r["density"] = op.density();
  r["expansion_nonzeros"] = e.nonzeros();
  r["vectors"] = n;
  r["panel_bytes"] = bytes;
  const auto timed = [&](const std::string& key, const std::function<void()>& launch) {
    json t;
    try {
      t["s"] = median_seconds(o, launch);
      Kokkos::deep_copy(c, scalar(0));
      launch();
      Kokkos::fence();
      t["gb_per_s"] = bytes / t["s"].get<double>() * 1e-9;
      t["relative_error"] = relative_error<Entry>(e, b, c, check);
      if (!(t["relative_error"].get<double>() <= (sizeof(scalar) == 4 ? 1e-4 : 1e-12)))
        throw std::runtime_error("off the reference by " + std::to_string(t["relative_error"].get<double>()));
    } catch (const std::exception& ex) {
      t["error"] = ex.what();
    }
    r[key] = t;
  };
  {
    const auto copy = cs::make_operator_panel<Entry>("bench::copy", op.cols(), n);
    const double s = median_seconds(o, [&] { Kokkos::deep_copy(Kokkos::Cuda(), copy, b); });
    r["copy_gb_per_s"] = 2.0 * double(b.size()) * sizeof(scalar) / s * 1e-9;
  }
  for (const auto shape : cs::operator_shapes) {
    if (!cs::OperatorKernel<Entry>::refusal(op, shape).empty()) continue;
    const cs::OperatorKernel<Entry> kernel(op, 1.0, shape);
    timed("portable_" + cs::to_string(shape), [&] { kernel.apply(b, 0.0, c); });
  }
  for (const auto shape : {cs::OperatorShape::ColumnStream, cs::OperatorShape::RowSplit}) {
    cs::GeneratedKernelOptions options;
    options.shape = shape;
    const cs::GeneratedOperatorKernel<Entry> kernel(op, 1.0, 0.0, options);
    const std::string key = "generated_" + cs::to_string(shape);
    timed(key, [&] { kernel.apply(b, c); });
    r[key]["nvrtc_s"] = kernel.compile_seconds();
  }
  // cuBLAS: the panels are row-major (rows x n), so column-major n x rows: C^T = B^T A^T, with A
  // row-major (rows x cols) read as column-major A^T (cols x rows).
  std::vector<scalar> dense(static_cast<std::size_t>(e.rows) * e.cols, scalar(0));
  for (int row = 0; row < e.rows; ++row)
    for (int k = e.row_offsets[row]; k < e.row_offsets[row + 1]; ++k)
      dense[static_cast<std::size_t>(row) * e.cols + e.col_indices[k]] = e.values[k];
  const auto a_dense = device_copy("bench::a_dense", dense);
  cublasHandle_t blas = nullptr;
  require_cublas(cublasCreate(&blas), "cublasCreate");
  require_cublas(cublasSetStream(blas, Kokkos::Cuda().cuda_stream()), "cublasSetStream");
  const scalar one = 1, zero = 0;
  timed("cublas_gemm", [&] {
    if constexpr (sizeof(scalar) == 8)
      require_cublas(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), e.rows, e.cols, &one, b.data(),
                                 static_cast<int>(n), a_dense.data(), e.cols, &zero, c.data(), static_cast<int>(n)),
                     "cublasDgemm");
    else
      require_cublas(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), e.rows, e.cols, &one, b.data(),
                                 static_cast<int>(n), a_dense.data(), e.cols, &zero, c.data(), static_cast<int>(n)),
                     "cublasSgemm");
  });
  cublasDestroy(blas);
  // cuSPARSE SpMM: the expansion in CSR times B (cols x n, row-major) into C (rows x n, row-major).
  const auto offsets = device_copy("bench::offsets", e.row_offsets);
  const auto columns = device_copy("bench::columns", e.col_indices);
  const auto values = device_copy("bench::values", e.values);
  cusparseHandle_t sparse = nullptr;
  require_cusparse(cusparseCreate(&sparse), "cusparseCreate");
  require_cusparse(cusparseSetStream(sparse, Kokkos::Cuda().cuda_stream()), "cusparseSetStream");
  const cudaDataType type = sizeof(scalar) == 8 ? CUDA_R_64F : CUDA_R_32F;
  cusparseSpMatDescr_t a_csr = nullptr;
  cusparseDnMatDescr_t b_dense = nullptr, c_dense = nullptr;
  require_cusparse(cusparseCreateCsr(&a_csr, e.rows, e.cols, static_cast<std::int64_t>(e.values.size()), offsets.data(),
                                     columns.data(), values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, type),
                   "cusparseCreateCsr");
  require_cusparse(cusparseCreateDnMat(&b_dense, e.cols, n, n, b.data(), type, CUSPARSE_ORDER_ROW),
                   "cusparseCreateDnMat");
  require_cusparse(cusparseCreateDnMat(&c_dense, e.rows, n, n, c.data(), type, CUSPARSE_ORDER_ROW),
                   "cusparseCreateDnMat");
  const std::pair<cusparseSpMMAlg_t, const char*> algorithms[] = {{CUSPARSE_SPMM_ALG_DEFAULT, "cusparse_default"},
                                                                  {CUSPARSE_SPMM_CSR_ALG2, "cusparse_csr_alg2"},
                                                                  {CUSPARSE_SPMM_CSR_ALG3, "cusparse_csr_alg3"}};
  for (const auto& named : algorithms) {
    const cusparseSpMMAlg_t algorithm = named.first;
    const char* key = named.second;
    std::size_t buffer_bytes = 0;
    if (cusparseSpMM_bufferSize(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a_csr,
                                b_dense, &zero, c_dense, type, algorithm, &buffer_bytes) != CUSPARSE_STATUS_SUCCESS) {
      r[key]["error"] = "not available for this shape";
      continue;
    }
    Kokkos::View<char*> buffer("bench::spmm_buffer", std::max<std::size_t>(1, buffer_bytes));
    if (algorithm == CUSPARSE_SPMM_CSR_ALG3 &&
        cusparseSpMM_preprocess(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a_csr,
                                b_dense, &zero, c_dense, type, algorithm, buffer.data()) != CUSPARSE_STATUS_SUCCESS) {
      r[key]["error"] = "preprocess failed";
      continue;
    }
    timed(key, [&] {
      require_cusparse(cusparseSpMM(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                    a_csr, b_dense, &zero, c_dense, type, algorithm, buffer.data()),
                       "cusparseSpMM");
    });
  }
  cusparseDestroySpMat(a_csr);
  cusparseDestroyDnMat(b_dense);
  cusparseDestroyDnMat(c_dense);
  cusparseDestroy(sparse);
  return r;
}

/// The fastest timed contender whose key starts with one of `prefixes`, or none (s = 0).
std::pair<std::string, double> fastest(const json& r, const std::vector<std::string>& prefixes) {
  std::pair<std::string, double> best{"", 0};
  for (auto it = r.begin(); it != r.end(); ++it) {
    if (!it->is_object() || !it->contains("s") || it->contains("error")) continue;
    const bool wanted =
        std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return it.key().rfind(p, 0) == 0; });
    const double s = (*it)["s"].get<double>();
    if (wanted && (best.second == 0 || s < best.second)) best = {it.key(), s};
  }
  return best;
}

template <class Entry>
void run_entry(const std::string& entry, const Options& o, json& cases) {
  std::vector<std::pair<std::string, cs::ConstantOperator<Entry>>> ops;
  for (const auto shape : {zoo::ElementShape::Quadrilateral, zoo::ElementShape::Hexahedron, zoo::ElementShape::Triangle,
                           zoo::ElementShape::Tetrahedron})
    for (const int order : o.orders)
      for (const auto& m : zoo::fr_operators(shape, order))
        ops.emplace_back(m.name, cs::constant_operator_from_real<Entry>(m.rows, m.cols, m.values));
  for (const double density : {0.05, 0.15, 0.5}) {
    const auto m = zoo::random_sparse_operator(96, 64, density, 1234u);
    ops.emplace_back(m.name, cs::constant_operator_from_real<Entry>(m.rows, m.cols, m.values));
  }
  for (const auto& [name, op] : ops) {
    json r = run_case(name, op, o);
    r["entry"] = entry;
    const auto ours = fastest(r, {"portable_", "generated_"});
    const auto blas = fastest(r, {"cublas_"});
    const auto sparse = fastest(r, {"cusparse_"});
    r["ours"] = ours.first;
    for (auto it = r.begin(); it != r.end(); ++it)
      if (it->is_object() && it->contains("error") && it.key().rfind("cusparse_", 0) != 0)
        std::printf("  %s: %s\n", it.key().c_str(), (*it)["error"].get<std::string>().c_str());
    std::printf("%-28s %-18s %5dx%-5d %6.3f  %-26s %6.1f%% copy  x%5.2f cuBLAS  x%5.2f cuSPARSE  nvrtc %.2f s\n",
                name.c_str(), entry.c_str(), op.rows(), op.cols(), op.density(), ours.first.c_str(),
                ours.second > 0 ? 100 * r[ours.first]["gb_per_s"].get<double>() / r["copy_gb_per_s"].get<double>() : 0,
                ours.second > 0 && blas.second > 0 ? blas.second / ours.second : 0,
                ours.second > 0 && sparse.second > 0 ? sparse.second / ours.second : 0,
                r["generated_column_stream"].value("nvrtc_s", 0.0));
    std::fflush(stdout);
    cases.push_back(r);
  }
}

/// The targets (docs/operators.md): sparse operators (density <= 15%) against cuBLAS GEMM and
/// copy, dense ones against the better of cuBLAS and cuSPARSE.
json summary(const json& cases) {
  double log_sparse = 0, worst_copy = 1e300, log_dense = 0, worst_dense = 1e300;
  int sparse = 0, dense = 0, failed = 0;
  for (const auto& r : cases) {
    const auto ours = fastest(r, {"portable_", "generated_"});
    const auto blas = fastest(r, {"cublas_"});
    const auto vendor = fastest(r, {"cublas_", "cusparse_"});
    if (ours.second == 0 || blas.second == 0) {
      ++failed;
      continue;
    }
    if (r["density"].get<double>() <= 0.15) {
      ++sparse;
      log_sparse += std::log(blas.second / ours.second);
      worst_copy = std::min(worst_copy, r[ours.first]["gb_per_s"].get<double>() / r["copy_gb_per_s"].get<double>());
    } else {
      ++dense;
      log_dense += std::log(vendor.second / ours.second);
      worst_dense = std::min(worst_dense, vendor.second / ours.second);
    }
  }
  json s;
  s["sparse_operators"] = sparse;
  s["sparse_vs_cublas_geomean"] = sparse ? std::exp(log_sparse / sparse) : 0;
  s["sparse_worst_fraction_of_copy"] = sparse ? worst_copy : 0;
  s["dense_operators"] = dense;
  s["dense_vs_best_vendor_geomean"] = dense ? std::exp(log_dense / dense) : 0;
  s["dense_vs_best_vendor_worst"] = dense ? worst_dense : 0;
  s["cases_without_a_time"] = failed;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "usage: compound-operator-bench [--out FILE.json] [--panel-mb MB] "
      "[--entries double,float,complex_double,quaternion_double,block3_double] [--orders 1,3,6] [--samples N]\n";
  if (compound_tools::wants_help(argc, argv)) {
    std::printf("%s", usage);
    return 0;
  }
  Options o;
  const std::string problem = compound_tools::parse_options(
      argc, argv,
      {{"--out", [&](const std::string& v) { o.out = v; }},
       {"--panel-mb",
        [&](const std::string& v) { o.panel_bytes = 1e6 * compound_tools::finite_number_at_least(v, 1); }},
       {"--entries",
        [&](const std::string& v) {
          o.entries = compound_tools::split_list(v);
          for (const auto& e : o.entries)
            if (e != "double" && e != "float" && e != "complex_double" && e != "quaternion_double" &&
                e != "block3_double")
              throw std::invalid_argument("unknown entry type '" + e + "'");
        }},
       {"--orders",
        [&](const std::string& v) {
          o.orders.clear();
          for (const auto& order : compound_tools::split_list(v)) {
            o.orders.push_back(compound_tools::integer_at_least(order, 1));
            if (o.orders.back() > 6) throw std::invalid_argument("orders go up to 6");
          }
        }},
       {"--samples", [&](const std::string& v) { o.samples = compound_tools::integer_at_least(v, 1); }}});
  if (!problem.empty()) {
    std::fprintf(stderr, "compound-operator-bench: %s\n%s", problem.c_str(), usage);
    return 2;
  }
  if (!o.out.empty() && !std::ofstream(o.out, std::ios::app)) {  // before any work, not after it
    std::fprintf(stderr, "compound-operator-bench: cannot write %s\n", o.out.c_str());
    return 1;
  }
  Kokkos::ScopeGuard guard(argc, argv);
  json cases = json::array();
  for (const auto& entry : o.entries) {
    if (entry == "double")
      run_entry<double>(entry, o, cases);
    else if (entry == "float")
      run_entry<float>(entry, o, cases);
    else if (entry == "complex_double")
      run_entry<Kokkos::complex<double>>(entry, o, cases);
    else if (entry == "quaternion_double")
      run_entry<cs::Quaternion<double>>(entry, o, cases);
    else
      run_entry<cs::Block<double, 3>>(entry, o, cases);
  }
  json out;
  out["device"] = cs::default_device_info().name;
  out["panel_bytes"] = o.panel_bytes;
  out["cases"] = cases;
  out["summary"] = summary(cases);
  std::printf("%s\n", out["summary"].dump(1).c_str());
  if (!o.out.empty()) std::ofstream(o.out) << out.dump(1) << "\n";
  int failures = 0;
  for (const auto& r : cases)
    for (auto it = r.begin(); it != r.end(); ++it)
      if (it->is_object() && it->contains("error") && it.key().rfind("cusparse_", 0) != 0) ++failures;
  if (failures > 0) std::printf("%d contenders failed or were off the reference\n", failures);
  return failures > 0 ? 1 : 0;
}
