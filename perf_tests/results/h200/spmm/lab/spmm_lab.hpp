#pragma once
// The SpMM lab (issue 17, before SpMM enters the registry and compound-bench): on one
// matrix, for k = 1, 2, 4, 8, 16 vectors,
//   ours_spmm   the library's typed spmm (include/compound_sparse/spmm.hpp) over a grid of
//               variants: outer {csr, sell32, ell, sell32c16} x inner {aos, soa} x Static
//               x launch bounds {256:2, 256:8} x lanes {1, 2, 4} x multivector {aos, soa};
//   ours_spmv   the same grid's SpMV (vectors aos and soa), one vector: the "one SpMV"
//               that SpMM's per-vector time is compared with;
//   cusparse    cusparseSpMM in every form that runs: complex CSR with X and Y row-major
//               (our Aos multivector's memory) and column-major (Soa), algorithms DEFAULT,
//               CSR_ALG1, CSR_ALG2, CSR_ALG3 (preprocessed where cuSPARSE takes it);
//               quaternions and blocks as real e x e blocks (bench/real_expansion.hpp):
//               the expanded scalar CSR (row- and column-major) and the BSR with
//               CUSPARSE_SPMM_BSR_ALG1, and legacy bsrmm where its block-row limit allows.
// Every variant is timed once cheaply (screen); the three fastest per k, and every
// cuSPARSE form, are checked against the double host reference and timed fully. One CSV
// line per result: matrix,entry,rows,nonzeros,k,method,variant,ok,seconds,relative_error,note.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <compound_sparse.hpp>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "real_expansion.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <cusparse.h>
#endif

namespace spmm_lab {

namespace cs = compound_sparse;

struct Options {
  std::vector<int> ks{1, 2, 4, 8, 16};
  cs::TimingOptions screen{2, 5, 3, cs::preferred_timing_mode()};
  cs::TimingOptions full{5, 10, 15, cs::preferred_timing_mode()};
  int leaders = 3;
  std::FILE* csv = nullptr;
  bool cusparse = true;  ///< --no-cusparse: ours only
  bool tiles = false;    ///< --tiles: ours with 1, 2 and 4 vectors per thread, lanes 1, Aos X and Y
  std::vector<int> lanes{1, 2, 4};
};

struct Result {
  std::string method, variant, note;
  int k = 1;
  bool ok = false;
  double seconds = 0, relative_error = 0;
};

inline void emit(const Options& o, const std::string& matrix, const std::string& entry, long long rows,
                 long long nonzeros, const Result& r) {
  for (std::FILE* f : {o.csv, stdout})
    if (f)
      std::fprintf(f, "%s,%s,%lld,%lld,%d,%s,%s,%d,%.9g,%.3g,\"%s\"\n", matrix.c_str(), entry.c_str(), rows, nonzeros,
                   r.k, r.method.c_str(), r.variant.c_str(), r.ok ? 1 : 0, r.seconds, r.relative_error, r.note.c_str());
  std::fflush(stdout);
}

template <class Outer, class Inner, unsigned Threads, unsigned MinTeams>
struct Variant {
  using outer = Outer;
  using inner = Inner;
  static constexpr unsigned threads = Threads, min_teams = MinTeams;
  static std::string name() {
    return Outer::name() + "." + Inner::name() + ".static.t" + std::to_string(Threads) + ".b" +
           std::to_string(MinTeams);
  }
};
template <class Outer>
using Bounds = std::tuple<Variant<Outer, cs::Aos, 256, 2>, Variant<Outer, cs::Soa, 256, 2>,
                          Variant<Outer, cs::Aos, 256, 8>, Variant<Outer, cs::Soa, 256, 8>>;
using Variants = decltype(std::tuple_cat(Bounds<cs::Csr>{}, Bounds<cs::SlicedEll<32>>{}, Bounds<cs::Ell>{},
                                         Bounds<cs::SlicedEll<32, 16>>{}));

/// The k vectors as one list (vector 0, then 1, ...), for relative_error.
template <class Value>
std::vector<Value> concatenated(const std::vector<std::vector<Value>>& vectors, int k) {
  std::vector<Value> all;
  for (int j = 0; j < k; ++j) all.insert(all.end(), vectors[j].begin(), vectors[j].end());
  return all;
}

/// A candidate of ours: its name and its product, run on inputs of k vectors.
struct Candidate {
  std::string variant;
  int k;
  std::function<void()> run;
  std::function<double()> error;  ///< relative error after run(), against the reference
  double screen_seconds = 0;
};

template <class Entry>
void run_entry(const std::string& name, const std::string& entry, const cs::HostCsr<Entry>& a, const Options& o);

template <class Entry>
struct EntryLab {
  using vector_type = cs::vector_type_t<Entry>;
  using coefficient = cs::coefficient_type_t<Entry>;
  using scalar = typename cs::component_traits<Entry>::scalar_type;
  using wide_vector = cs::vector_type_t<typename cs::entry_traits<Entry>::template rebind<double>>;

  std::string name, entry;
  const cs::HostCsr<Entry>& a;
  const Options& o;
  int kmax;
  std::vector<std::vector<vector_type>> x_host;
  std::vector<std::vector<wide_vector>> reference;  // per vector, alpha 1, beta 0
  // Per k: X and Y in both layouts (Y poisoned before each check).
  std::vector<cs::MultiVector<vector_type, cs::Aos>> x_aos, y_aos;
  std::vector<cs::MultiVector<vector_type, cs::Soa>> x_soa, y_soa;
  cs::CompoundVector<vector_type, cs::Aos> x1_aos, y1_aos;
  cs::CompoundVector<vector_type, cs::Soa> x1_soa, y1_soa;
  const coefficient one = cs::real_value<coefficient>(1), zero = cs::real_value<coefficient>(0);

  EntryLab(const std::string& n, const std::string& e, const cs::HostCsr<Entry>& matrix, const Options& options)
      : name(n), entry(e), a(matrix), o(options) {
    kmax = *std::max_element(o.ks.begin(), o.ks.end());
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(-1, 1);
    x_host.assign(kmax, std::vector<vector_type>(a.num_cols));
    for (auto& v : x_host)
      for (auto& value : v)
        for (int c = 0; c < cs::component_traits<vector_type>::size; ++c)
          cs::component_traits<vector_type>::get(value, c) = static_cast<scalar>(u(rng));
    const std::vector<vector_type> y0(a.num_rows);
    for (int j = 0; j < kmax; ++j) reference.push_back(cs::reference_spmv<double>(one, a, x_host[j], zero, y0));
    for (int k : o.ks) {
      const std::vector<std::vector<vector_type>> xs(x_host.begin(), x_host.begin() + k);
      const std::vector<std::vector<vector_type>> ys(k, y0);
      x_aos.push_back(cs::to_device<cs::Aos>(xs));
      x_soa.push_back(cs::to_device<cs::Soa>(xs));
      y_aos.push_back(cs::to_device<cs::Aos>(ys));
      y_soa.push_back(cs::to_device<cs::Soa>(ys));
    }
    x1_aos = cs::to_device<cs::Aos>(x_host[0]);
    x1_soa = cs::to_device<cs::Soa>(x_host[0]);
    y1_aos = cs::to_device<cs::Aos>(y0);
    y1_soa = cs::to_device<cs::Soa>(y0);
  }

  void report(const Result& r) const { emit(o, name, entry, a.num_rows, static_cast<long long>(a.num_entries()), r); }

  template <class Multi>
  double multi_error(const Multi& y, int k) const {
    return cs::relative_error(concatenated(cs::to_host(y), k), concatenated(reference, k));
  }
  template <class Vector>
  double single_error(const Vector& y) const {
    return cs::relative_error(cs::to_host(y), reference[0]);
  }

  /// Screens every candidate, then checks and fully times the `leaders` fastest per k.
  void measure(const std::string& method, std::vector<Candidate>& candidates, const std::vector<int>& ks) const {
    for (auto& c : candidates) c.screen_seconds = cs::time_launches([&](int) { c.run(); }, o.screen).median_seconds;
    for (int k : ks) {
      std::vector<Candidate*> of_k;
      for (auto& c : candidates)
        if (c.k == k) of_k.push_back(&c);
      std::sort(of_k.begin(), of_k.end(), [](auto* p, auto* q) { return p->screen_seconds < q->screen_seconds; });
      for (std::size_t i = 0; i < of_k.size() && i < static_cast<std::size_t>(o.leaders); ++i) {
        Result r{method, of_k[i]->variant, "", k};
        of_k[i]->run();
        Kokkos::fence();
        r.relative_error = of_k[i]->error();
        r.ok = r.relative_error <= (sizeof(scalar) == 4 ? 1e-4 : 1e-12);
        if (r.ok)
          r.seconds = cs::time_launches([&](int) { of_k[i]->run(); }, o.full).median_seconds;
        else
          r.note = "result differs from the reference";
        report(r);
      }
    }
  }

  template <class V>
  void add_variant(std::vector<Candidate>& spmm, std::vector<Candidate>& spmv,
                   std::vector<std::shared_ptr<void>>& keep) const {
    using A = cs::SparseMatrix<Entry, typename V::outer, typename V::inner>;
    std::shared_ptr<A> matrix;
    try {
      matrix = std::make_shared<A>(cs::to_device<typename V::outer, typename V::inner>(a));
    } catch (const cs::Error& e) {
      Result r{"ours_spmm", V::name(), e.reason(), 1};
      report(r);
      return;
    }
    keep.push_back(matrix);
    for (int lanes : o.lanes) {
      cs::Schedule<cs::ScheduleKind::Static, V::threads, V::min_teams> s;
      s.lanes_per_row = lanes;
      const std::string suffix = ".l" + std::to_string(lanes);
      for (std::size_t i = 0; i < o.ks.size(); ++i) {
        const int k = o.ks[i];
        if (o.tiles) {
          add_tiles<V>(spmm, s, matrix, i, suffix, std::integer_sequence<int, 1, 2, 4>{});
          continue;
        }
        spmm.push_back({V::name() + ".mv_aos" + suffix, k, [=] { cs::spmm(s, one, *matrix, x_aos[i], zero, y_aos[i]); },
                        [=] { return multi_error(y_aos[i], k); }});
        spmm.push_back({V::name() + ".mv_soa" + suffix, k, [=] { cs::spmm(s, one, *matrix, x_soa[i], zero, y_soa[i]); },
                        [=] { return multi_error(y_soa[i], k); }});
      }
      spmv.push_back({V::name() + ".v_aos" + suffix, 1, [=] { cs::spmv(s, one, *matrix, x1_aos, zero, y1_aos); },
                      [=] { return single_error(y1_aos); }});
      spmv.push_back({V::name() + ".v_soa" + suffix, 1, [=] { cs::spmv(s, one, *matrix, x1_soa, zero, y1_soa); },
                      [=] { return single_error(y1_soa); }});
    }
  }

  /// The row kernel with each thread accumulating 1, 2 or 4 vectors (impl::row_spmm's
  /// VectorsPerThread), Aos X and Y: candidates named <variant>.mv_aos.l<lanes>.v<n>.
  template <class V, class S, class M, int... Tile>
  void add_tiles(std::vector<Candidate>& spmm, const S& s, const std::shared_ptr<M>& matrix, std::size_t i,
                 const std::string& suffix, std::integer_sequence<int, Tile...>) const {
    const int k = o.ks[i];
    cs::impl::RowResult<Entry, cs::Aos> result;
    result.alpha = one;
    result.beta = zero;
    result.beta_is_zero = true;
    using Exec = Kokkos::DefaultExecutionSpace;
    using Mem = typename Exec::memory_space;
    (spmm.push_back({V::name() + ".mv_aos" + suffix + ".v" + std::to_string(Tile), k,
                     [=] {
                       cs::impl::row_spmm<Exec, cs::ScheduleKind::Static, V::threads, V::min_teams, Entry,
                                          typename V::outer, typename V::inner, cs::Aos, cs::Aos, Mem, Tile>(
                           Exec(), s, result, *matrix, x_aos[i], y_aos[i]);
                     },
                     [=] { return multi_error(y_aos[i], k); }}),
     ...);
  }

  void ours() const {
    std::vector<Candidate> spmm, spmv;
    std::vector<std::shared_ptr<void>> keep;  // the matrices the candidates use
    std::apply([&](auto... v) { (add_variant<decltype(v)>(spmm, spmv, keep), ...); }, Variants{});
    measure("ours_spmm", spmm, o.ks);
    measure("ours_spmv", spmv, {1});
  }
#ifdef KOKKOS_ENABLE_CUDA
  /// Checks and times one cuSPARSE form: run() once on poisoned Y, read_y() back, then time.
  void baseline(const std::string& variant, int k, const std::function<void()>& run,
                const std::function<std::vector<std::vector<vector_type>>()>& read_y, const std::string& note) const {
    Result r{"cusparse", variant, note, k};
    try {
      run();
      Kokkos::fence();
      r.relative_error = cs::relative_error(concatenated(read_y(), k), concatenated(reference, k));
      r.ok = r.relative_error <= (sizeof(scalar) == 4 ? 1e-4 : 1e-12);
      if (r.ok)
        r.seconds = cs::time_launches([&](int) { run(); }, o.full).median_seconds;
      else
        r.note += (r.note.empty() ? "" : "; ") + std::string("result differs from the reference");
    } catch (const std::exception& e) {
      r.ok = false;
      r.note += (r.note.empty() ? "" : "; ") + std::string(e.what());
    }
    report(r);
  }
  void cusparse() const;
#endif
};

#ifdef KOKKOS_ENABLE_CUDA
#define LAB_CUSPARSE(call)                                                                   \
  do {                                                                                       \
    const cusparseStatus_t status_ = (call);                                                 \
    if (status_ != CUSPARSE_STATUS_SUCCESS)                                                  \
      throw std::runtime_error(std::string(#call) + ": " + cusparseGetErrorString(status_)); \
  } while (false)

inline cusparseHandle_t lab_handle() {
  static cusparseHandle_t h = [] {
    cusparseHandle_t handle = nullptr;
    LAB_CUSPARSE(cusparseCreate(&handle));
    LAB_CUSPARSE(cusparseSetStream(handle, Kokkos::Cuda().cuda_stream()));
    return handle;
  }();
  return h;
}

template <class T>
Kokkos::View<T*> device_copy(const std::vector<T>& host) {
  Kokkos::View<T*> d("lab::copy", host.size());
  Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(host.data(), host.size()));
  return d;
}

/// cusparseSpMM on `mat` with dense X (x_rows x k) and Y (y_rows x k) of `order`, every
/// algorithm in `algs`: a form each, named `prefix`_<order>_<alg>.
template <class Lab>
void spmm_forms(const Lab& lab, const std::string& prefix, cusparseSpMatDescr_t mat, int64_t x_rows, int64_t y_rows,
                int k, void* x, void* y, cusparseOrder_t order, cudaDataType type, const void* alpha, const void* beta,
                const std::vector<std::pair<cusparseSpMMAlg_t, std::string>>& algs,
                const std::function<std::vector<std::vector<typename Lab::vector_type>>()>& read_y) {
  const bool row = order == CUSPARSE_ORDER_ROW;
  cusparseDnMatDescr_t dx = nullptr, dy = nullptr;
  LAB_CUSPARSE(cusparseCreateDnMat(&dx, x_rows, k, row ? k : x_rows, x, type, order));
  LAB_CUSPARSE(cusparseCreateDnMat(&dy, y_rows, k, row ? k : y_rows, y, type, order));
  for (const auto& [alg, alg_name] : algs) {
    const std::string variant = prefix + (row ? "_row_" : "_col_") + alg_name;
    std::string note;
    Kokkos::View<char*> buffer;
    const auto prepare = [&] {
      size_t bytes = 0;
      LAB_CUSPARSE(cusparseSpMM_bufferSize(lab_handle(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                                           CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, mat, dx, beta, dy, type, alg,
                                           &bytes));
      buffer = Kokkos::View<char*>("lab::spmm_buffer", std::max<size_t>(bytes, 1));
      const cusparseStatus_t p =
          cusparseSpMM_preprocess(lab_handle(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                  alpha, mat, dx, beta, dy, type, alg, buffer.data());
      if (p != CUSPARSE_STATUS_SUCCESS) note = std::string("no preprocess: ") + cusparseGetErrorString(p);
    };
    try {
      prepare();
    } catch (const std::exception& e) {
      Result r{"cusparse", variant, e.what(), k};
      lab.report(r);
      continue;
    }
    lab.baseline(
        variant, k,
        [&] {
          LAB_CUSPARSE(cusparseSpMM(lab_handle(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                    alpha, mat, dx, beta, dy, type, alg, buffer.data()));
        },
        read_y, note);
  }
  cusparseDestroyDnMat(dx);
  cusparseDestroyDnMat(dy);
}

template <class T>
constexpr cudaDataType lab_real_type() {
  return std::is_same<T, float>::value ? CUDA_R_32F : CUDA_R_64F;
}
template <class T>
constexpr cudaDataType lab_complex_type() {
  return std::is_same<T, float>::value ? CUDA_C_32F : CUDA_C_64F;
}

inline cusparseStatus_t lab_bsrmm(cusparseHandle_t h, int mb, int n, int kb, int nnzb, const float* alpha,
                                  cusparseMatDescr_t d, const float* v, const int* rp, const int* ci, int e,
                                  const float* b, int ldb, const float* beta, float* c, int ldc) {
  return cusparseSbsrmm(h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                        mb, n, kb, nnzb, alpha, d, v, rp, ci, e, b, ldb, beta, c, ldc);
}
inline cusparseStatus_t lab_bsrmm(cusparseHandle_t h, int mb, int n, int kb, int nnzb, const double* alpha,
                                  cusparseMatDescr_t d, const double* v, const int* rp, const int* ci, int e,
                                  const double* b, int ldb, const double* beta, double* c, int ldc) {
  return cusparseDbsrmm(h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                        mb, n, kb, nnzb, alpha, d, v, rp, ci, e, b, ldb, beta, c, ldc);
}

template <class Entry>
void EntryLab<Entry>::cusparse() const {
  const auto rows = device_copy(a.row_offsets);
  const auto cols = device_copy(a.col_indices);
  const std::vector<std::pair<cusparseSpMMAlg_t, std::string>> csr_algs = {{CUSPARSE_SPMM_ALG_DEFAULT, "DEFAULT"},
                                                                           {CUSPARSE_SPMM_CSR_ALG1, "CSR_ALG1"},
                                                                           {CUSPARSE_SPMM_CSR_ALG2, "CSR_ALG2"},
                                                                           {CUSPARSE_SPMM_CSR_ALG3, "CSR_ALG3"}};
  if constexpr (std::is_same<Entry, Kokkos::complex<scalar>>::value) {
    const auto values = device_copy(a.values);
    cusparseSpMatDescr_t mat = nullptr;
    LAB_CUSPARSE(cusparseCreateCsr(&mat, a.num_rows, a.num_cols, static_cast<int64_t>(a.num_entries()), rows.data(),
                                   cols.data(), values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, lab_complex_type<scalar>()));
    for (std::size_t i = 0; i < o.ks.size(); ++i) {
      const int k = o.ks[i];
      spmm_forms(*this, "cusparseSpMM_CSR", mat, a.num_cols, a.num_rows, k, x_aos[i].data.data(), y_aos[i].data.data(),
                 CUSPARSE_ORDER_ROW, lab_complex_type<scalar>(), &one, &zero, csr_algs,
                 std::function<std::vector<std::vector<vector_type>>()>([&] { return cs::to_host(y_aos[i]); }));
      spmm_forms(*this, "cusparseSpMM_CSR", mat, a.num_cols, a.num_rows, k, x_soa[i].data.data(), y_soa[i].data.data(),
                 CUSPARSE_ORDER_COL, lab_complex_type<scalar>(), &one, &zero, csr_algs,
                 std::function<std::vector<std::vector<vector_type>>()>([&] { return cs::to_host(y_soa[i]); }));
    }
    cusparseDestroySpMat(mat);
  } else {
    using compound_sparse_bench::real_block;
    constexpr int e = real_block<Entry>::block_size;
    const scalar alpha = 1, beta = 0;
    // BSR of e x e real blocks, row-major blocks (cuSPARSE's generic BSR and bsrmm).
    const auto bsr = device_copy(compound_sparse_bench::bsr_values(a));
    // The expanded scalar CSR.
    const auto s = compound_sparse_bench::expand_to_scalar_csr(a);
    const auto s_rows = device_copy(s.row_offsets);
    const auto s_cols = device_copy(s.col_indices);
    const auto s_values = device_copy(s.values);
    cusparseSpMatDescr_t csr = nullptr;
    LAB_CUSPARSE(cusparseCreateCsr(&csr, s.num_rows, s.num_cols, static_cast<int64_t>(s.values.size()), s_rows.data(),
                                   s_cols.data(), s_values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, lab_real_type<scalar>()));
    cusparseSpMatDescr_t bsr_mat = nullptr;
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12600
    LAB_CUSPARSE(cusparseCreateBsr(&bsr_mat, a.num_rows, a.num_cols, static_cast<int64_t>(a.num_entries()), e, e,
                                   rows.data(), cols.data(), bsr.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, lab_real_type<scalar>(), CUSPARSE_ORDER_ROW));
#endif
    for (std::size_t i = 0; i < o.ks.size(); ++i) {
      const int k = o.ks[i];
      // Column-major: the Soa multivector's memory is the (e n) x k real matrix.
      const auto read_soa =
          std::function<std::vector<std::vector<vector_type>>()>([&] { return cs::to_host(y_soa[i]); });
      spmm_forms(*this, "cusparseSpMM_expandedCSR", csr, int64_t{e} * a.num_cols, int64_t{e} * a.num_rows, k,
                 x_soa[i].data.data(), y_soa[i].data.data(), CUSPARSE_ORDER_COL, lab_real_type<scalar>(), &alpha, &beta,
                 csr_algs, read_soa);
      // Row-major: its own copies of X and Y, (e n) x k.
      std::vector<scalar> xr(static_cast<std::size_t>(e) * a.num_cols * k);
      for (int j = 0; j < k; ++j)
        for (int r = 0; r < a.num_cols; ++r)
          for (int c = 0; c < e; ++c)
            xr[(static_cast<std::size_t>(r) * e + c) * k + j] = cs::component_traits<vector_type>::get(x_host[j][r], c);
      const auto x_row = device_copy(xr);
      Kokkos::View<scalar*> y_row("lab::y_row", static_cast<std::size_t>(e) * a.num_rows * k);
      const auto read_row = std::function<std::vector<std::vector<vector_type>>()>([&] {
        const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y_row);
        std::vector<std::vector<vector_type>> y(k, std::vector<vector_type>(a.num_rows));
        for (int j = 0; j < k; ++j)
          for (int r = 0; r < a.num_rows; ++r)
            for (int c = 0; c < e; ++c)
              cs::component_traits<vector_type>::get(y[j][r], c) = h((static_cast<std::size_t>(r) * e + c) * k + j);
        return y;
      });
      spmm_forms(*this, "cusparseSpMM_expandedCSR", csr, int64_t{e} * a.num_cols, int64_t{e} * a.num_rows, k,
                 x_row.data(), y_row.data(), CUSPARSE_ORDER_ROW, lab_real_type<scalar>(), &alpha, &beta, csr_algs,
                 read_row);
      if (bsr_mat) {
        const std::vector<std::pair<cusparseSpMMAlg_t, std::string>> bsr_algs = {{CUSPARSE_SPMM_BSR_ALG1, "BSR_ALG1"}};
        spmm_forms(*this, "cusparseSpMM_BSR" + std::to_string(e), bsr_mat, int64_t{e} * a.num_cols,
                   int64_t{e} * a.num_rows, k, x_soa[i].data.data(), y_soa[i].data.data(), CUSPARSE_ORDER_COL,
                   lab_real_type<scalar>(), &alpha, &beta, bsr_algs, read_soa);
        spmm_forms(*this, "cusparseSpMM_BSR" + std::to_string(e), bsr_mat, int64_t{e} * a.num_cols,
                   int64_t{e} * a.num_rows, k, x_row.data(), y_row.data(), CUSPARSE_ORDER_ROW, lab_real_type<scalar>(),
                   &alpha, &beta, bsr_algs, read_row);
      }
      // Legacy bsrmm: column-major B and C; at most 524,272 block rows for blocks up to 4.
      if (a.num_rows <= 524272) {
        cusparseMatDescr_t descr = nullptr;
        LAB_CUSPARSE(cusparseCreateMatDescr(&descr));
        baseline(
            "bsrmm" + std::to_string(e), k,
            [&] {
              LAB_CUSPARSE(lab_bsrmm(lab_handle(), a.num_rows, k, a.num_cols, static_cast<int>(a.num_entries()), &alpha,
                                     descr, bsr.data(), rows.data(), cols.data(), e,
                                     reinterpret_cast<const scalar*>(x_soa[i].data.data()), e * a.num_cols, &beta,
                                     reinterpret_cast<scalar*>(y_soa[i].data.data()), e * a.num_rows));
            },
            read_soa, "");
        cusparseDestroyMatDescr(descr);
      } else {
        report(Result{"cusparse", "bsrmm" + std::to_string(e), "more block rows than bsrmm takes (524272)", k});
      }
    }
    if (bsr_mat) cusparseDestroySpMat(bsr_mat);
    cusparseDestroySpMat(csr);
  }
}
#endif

template <class Entry>
void run_entry(const std::string& name, const std::string& entry, const cs::HostCsr<Entry>& a, const Options& o) {
  EntryLab<Entry> lab(name, entry, a, o);
  lab.ours();
#ifdef KOKKOS_ENABLE_CUDA
  if (o.cusparse) lab.cusparse();
#endif
}

}  // namespace spmm_lab
