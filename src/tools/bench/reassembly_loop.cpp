// compound-assembly-bench's reassembly:N case (reassembly_loop.hpp): the re-assembling
// example's loop, built on CompoundSparse and on cuSPARSE, timed step by step.

#include "reassembly_loop.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <compound_sparse.hpp>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <vector>

#include "bench_steps.hpp"
#include "common/beam_reassembly.hpp"
#include "common/device_data.hpp"
#include "common/krylov.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <compound_sparse/tuning/timing.hpp>

#include "cusparse_baseline.hpp"  // BENCH_CUSPARSE, CusparseHandle
#endif

namespace compound_bench {
namespace {

namespace cs = compound_sparse;
using json = nlohmann::json;
using B = cs::Block<double, 3>;
using V = cs::BlockVector<double, 3>;
using memory_space = Kokkos::DefaultExecutionSpace::memory_space;
using vector = cs::CompoundVector<V, cs::Aos, memory_space>;

constexpr double tolerance = 1e-8;

/// What both loops start from, on the device.
struct BeamOnDevice {
  examples::Beam beam;
  Kokkos::View<const int*, memory_space> rows, cols;
  Kokkos::View<const B*, memory_space> base;  ///< the contributions at unit modulus
  Kokkos::View<B*, memory_space> values;      ///< this step's, scaled from base
  vector load;
  int max_iterations = 0;
};

struct Step {
  double assemble_s = 0;  ///< scaling the contributions and putting them into the matrix
  double solve_s = 0;     ///< CG from zero, its final residual's product included
  int iterations = 0;
  double relative_residual = 0;
  bool converged = false;
};

/// Each step: the contributions scaled for it, `assemble`, then CG with `op` from zero. The
/// last step's solution is left in `solution`.
template <class Assemble, class Op>
std::vector<Step> run_steps(const BeamOnDevice& d, int steps, const Assemble& assemble, const Op& op,
                            vector& solution) {
  std::vector<Step> out;
  for (int s = 0; s < steps; ++s) {
    Step step;
    Kokkos::fence();
    auto start = std::chrono::steady_clock::now();
    examples::scale_on_device(d.base, d.values, d.beam.num_element_contributions, s);
    assemble();
    step.assemble_s = seconds_since(start);
    const vector u = examples::zeros_like(d.load, "bench::u");
    start = std::chrono::steady_clock::now();
    const auto result = examples::cg(op, d.load, u, tolerance, d.max_iterations);
    step.solve_s = seconds_since(start);
    step.iterations = result.iterations;
    step.relative_residual = result.relative_residual;
    step.converged = result.converged;
    out.push_back(step);
    solution = u;
  }
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// The steps and their medians into `r`; false when a step did not converge.
bool record_steps(const std::vector<Step>& steps, json& r) {
  std::vector<double> assemble, solve, total;
  bool converged = true;
  for (const auto& s : steps) {
    r["steps"].push_back({{"assemble_s", s.assemble_s},
                          {"solve_s", s.solve_s},
                          {"iterations", s.iterations},
                          {"relative_residual", s.relative_residual},
                          {"converged", s.converged}});
    assemble.push_back(s.assemble_s);
    solve.push_back(s.solve_s);
    total.push_back(s.assemble_s + s.solve_s);
    converged = converged && s.converged;
  }
  r["median_assemble_s"] = median(assemble);
  r["median_solve_s"] = median(solve);
  r["median_step_s"] = median(total);
  return converged;
}

#ifdef KOKKOS_ENABLE_CUDA

/// max_i |a_i - b_i| / max_i |a_i| over the components.
double relative_difference(const vector& a, const vector& b) {
  const auto ha = cs::to_host(a), hb = cs::to_host(b);
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < ha.size(); ++i)
    for (int c = 0; c < 3; ++c) {
      diff = std::max(diff, std::abs(ha[i].v[c] - hb[i].v[c]));
      scale = std::max(scale, std::abs(ha[i].v[c]));
    }
  return scale > 0 ? diff / scale : diff;
}

using key_view = Kokkos::View<std::uint64_t*, memory_space>;
using index_view = Kokkos::View<int*, memory_space>;

/// keys(k) = (row, column) of contribution k as one sortable word; perm(k) = k.
struct PositionKeys {
  Kokkos::View<const int*, memory_space> rows, cols;
  key_view keys;
  index_view perm;
  KOKKOS_INLINE_FUNCTION void operator()(int k) const {
    keys(k) = (static_cast<std::uint64_t>(rows(k)) << 32) | static_cast<std::uint32_t>(cols(k));
    perm(k) = k;
  }
};

KOKKOS_INLINE_FUNCTION bool starts_run(const key_view& keys, int k) {
  return k == 0 || keys(k) != keys(k - 1);
}

/// Counts the runs of equal keys: the non-zeros.
struct CountRuns {
  key_view keys;
  KOKKOS_INLINE_FUNCTION void operator()(int k, int& count) const { count += starts_run(keys, k) ? 1 : 0; }
};

/// Each run's first sorted contribution, row and column, in order.
struct WriteRuns {
  using value_type = int;
  key_view keys;
  index_view starts, rows, cols;
  KOKKOS_INLINE_FUNCTION void operator()(int k, int& run, bool final) const {
    if (!starts_run(keys, k)) return;
    if (final) {
      starts(run) = k;
      rows(run) = static_cast<int>(keys(k) >> 32);
      cols(run) = static_cast<int>(keys(k) & 0xffffffffu);
    }
    ++run;
  }
};

/// Non-zero u's value: its run's contributions summed in sorted (= list) order, as
/// CooAssembly sums them.
KOKKOS_INLINE_FUNCTION B run_sum(const Kokkos::View<const B*, memory_space>& values, const index_view& perm,
                                 const index_view& starts, int u) {
  const int begin = starts(u), end = starts(u + 1);
  B sum = values(perm(begin));
  for (int t = begin + 1; t < end; ++t) {
    const B v = values(perm(t));
    for (int c = 0; c < 9; ++c) sum.v[c] += v.v[c];
  }
  return sum;
}

/// Where scalar (d, e) of non-zero u (block row i, k-th of its row) sits in the expanded
/// scalar CSR: its row 3i + d holds 3 len(i) scalars.
KOKKOS_INLINE_FUNCTION int expanded_position(const index_view& offsets, const index_view& block_rows, int u, int d,
                                             int e) {
  const int i = block_rows(u), first = offsets(i), length = offsets(i + 1) - first;
  return 9 * first + 3 * d * length + 3 * (u - first) + e;
}

struct MergeBlocks {
  Kokkos::View<const B*, memory_space> values;
  index_view perm, starts;
  Kokkos::View<B*, memory_space> blocks;
  KOKKOS_INLINE_FUNCTION void operator()(int u) const { blocks(u) = run_sum(values, perm, starts, u); }
};

struct MergeExpanded {
  Kokkos::View<const B*, memory_space> values;
  index_view perm, starts, offsets, block_rows;
  Kokkos::View<double*, memory_space> scalars;
  KOKKOS_INLINE_FUNCTION void operator()(int u) const {
    const B sum = run_sum(values, perm, starts, u);
    for (int d = 0; d < 3; ++d)
      for (int e = 0; e < 3; ++e) scalars(expanded_position(offsets, block_rows, u, d, e)) = sum.v[3 * d + e];
  }
};

/// The expanded CSR's row offsets (3 n + 1) and columns.
struct ExpandOffsets {
  index_view offsets, expanded;
  int num_rows;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    if (i == num_rows) {
      expanded(3 * num_rows) = 9 * offsets(num_rows);
      return;
    }
    const int first = offsets(i), length = offsets(i + 1) - first;
    for (int d = 0; d < 3; ++d) expanded(3 * i + d) = 9 * first + 3 * d * length;
  }
};
struct ExpandColumns {
  index_view offsets, block_rows, block_cols, columns;
  KOKKOS_INLINE_FUNCTION void operator()(int u) const {
    for (int d = 0; d < 3; ++d)
      for (int e = 0; e < 3; ++e) columns(expanded_position(offsets, block_rows, u, d, e)) = 3 * block_cols(u) + e;
  }
};

/// cuSPARSE's side of the loop: the sorted contributions, the merged pattern in both forms,
/// and the form chosen for the products.
class CusparseBeam {
 public:
  struct Form {
    std::string name;
    bool expanded = false;
    cusparseSpMVAlg_t algorithm;
    cusparseSpMatDescr_t matrix = nullptr;
    Kokkos::View<char*, memory_space> buffer;
    double product_s = 0;
  };

  CusparseBeam(const BeamOnDevice& d) : d_(d), n_(d.beam.num_nodes) {
    const int count = static_cast<int>(d.rows.extent(0));
    key_view keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench::cusparse_keys"), count);
    perm_ = index_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench::cusparse_perm"), count);
    Kokkos::parallel_for("bench::cusparse_keys", count, PositionKeys{d.rows, d.cols, keys, perm_});
    Kokkos::fence();
    // Stable: each non-zero's contributions stay in list order, the order CooAssembly sums.
    thrust::stable_sort_by_key(thrust::cuda::par.on(Kokkos::Cuda().cuda_stream()), keys.data(), keys.data() + count,
                               perm_.data());
    int nnz = 0;
    Kokkos::parallel_reduce("bench::cusparse_count", count, CountRuns{keys}, nnz);
    nnz_ = nnz;
    starts_ = index_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench::cusparse_starts"), nnz + 1);
    block_rows_ = index_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench::cusparse_rows"), nnz);
    block_cols_ = index_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench::cusparse_cols"), nnz);
    Kokkos::parallel_scan("bench::cusparse_runs", count, WriteRuns{keys, starts_, block_rows_, block_cols_});
    Kokkos::deep_copy(Kokkos::subview(starts_, nnz), count);
    offsets_ = index_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench::cusparse_offsets"), n_ + 1);
    BENCH_CUSPARSE(cusparseXcoo2csr(handle_, block_rows_.data(), nnz, n_, offsets_.data(), CUSPARSE_INDEX_BASE_ZERO));
    blocks_ = Kokkos::View<B*, memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench::bsr"), nnz);
    expanded_offsets_ = index_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench::csr_offsets"), 3 * n_ + 1);
    expanded_cols_ = index_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench::csr_cols"), 9 * nnz);
    expanded_values_ = Kokkos::View<double*, memory_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench::csr_values"), 9 * static_cast<std::size_t>(nnz));
    Kokkos::parallel_for("bench::expand_offsets", n_ + 1, ExpandOffsets{offsets_, expanded_offsets_, n_});
    Kokkos::parallel_for("bench::expand_columns", nnz,
                         ExpandColumns{offsets_, block_rows_, block_cols_, expanded_cols_});
    BENCH_CUSPARSE(cusparseCreateDnVec(&x_, 3 * static_cast<int64_t>(n_), d.load.data.data(), CUDA_R_64F));
    BENCH_CUSPARSE(cusparseCreateDnVec(&y_, 3 * static_cast<int64_t>(n_), d.load.data.data(), CUDA_R_64F));
    Kokkos::fence();
  }
  ~CusparseBeam() {
    for (auto& f : forms_)
      if (f.matrix) cusparseDestroySpMat(f.matrix);
    if (x_) cusparseDestroyDnVec(x_);
    if (y_) cusparseDestroyDnVec(y_);
  }
  CusparseBeam(const CusparseBeam&) = delete;
  CusparseBeam& operator=(const CusparseBeam&) = delete;

  /// The forms' descriptors and preprocessing on this step's values (merged into both);
  /// then each form's product timed, and the fastest kept for the steps.
  void choose_form(const vector& x, const vector& y) {
    merge_all();
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12600
    forms_.push_back({"BSR3x3_ALG1", false, CUSPARSE_SPMV_BSR_ALG1});
    BENCH_CUSPARSE(cusparseCreateBsr(&forms_.back().matrix, n_, n_, nnz_, 3, 3, offsets_.data(), block_cols_.data(),
                                     blocks_.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                     CUDA_R_64F, CUSPARSE_ORDER_ROW));
#endif
    for (const auto& [name, algorithm] :
         {std::pair<const char*, cusparseSpMVAlg_t>{"expandedCSR_ALG1", CUSPARSE_SPMV_CSR_ALG1},
          std::pair<const char*, cusparseSpMVAlg_t>{"expandedCSR_ALG2", CUSPARSE_SPMV_CSR_ALG2}}) {
      forms_.push_back({name, true, algorithm});
      BENCH_CUSPARSE(cusparseCreateCsr(&forms_.back().matrix, 3 * n_, 3 * n_, 9 * static_cast<int64_t>(nnz_),
                                       expanded_offsets_.data(), expanded_cols_.data(), expanded_values_.data(),
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    }
    cs::TimingOptions timing;
    timing.mode = cs::preferred_timing_mode();  // cusparseSpMV does not synchronise
    timing.samples = 7;
    for (auto& f : forms_) {
      set_vectors(x, y);
      std::size_t bytes = 0;
      BENCH_CUSPARSE(cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, f.matrix, x_, &zero_, y_,
                                             CUDA_R_64F, f.algorithm, &bytes));
      f.buffer = Kokkos::View<char*, memory_space>("bench::cusparse_buffer", std::max<std::size_t>(bytes, 1));
      BENCH_CUSPARSE(cusparseSpMV_preprocess(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, f.matrix, x_, &zero_, y_,
                                             CUDA_R_64F, f.algorithm, f.buffer.data()));
      chosen_ = &f;
      f.product_s = cs::time_launches([&](int) { multiply(x, y); }, timing).median_seconds;
    }
    chosen_ = &*std::min_element(forms_.begin(), forms_.end(),
                                 [](const Form& a, const Form& b) { return a.product_s < b.product_s; });
  }

  /// This step's values into the chosen form only.
  void merge() const {
    if (chosen_->expanded)
      Kokkos::parallel_for("bench::cusparse_merge", nnz_,
                           MergeExpanded{d_.values, perm_, starts_, offsets_, block_rows_, expanded_values_});
    else
      Kokkos::parallel_for("bench::cusparse_merge", nnz_, MergeBlocks{d_.values, perm_, starts_, blocks_});
  }

  void multiply(const vector& x, const vector& y) const {
    set_vectors(x, y);
    BENCH_CUSPARSE(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, chosen_->matrix, x_, &zero_, y_,
                                CUDA_R_64F, chosen_->algorithm, chosen_->buffer.data()));
  }

  /// This step's values merged into the blocks (whatever the form), for the check.
  Kokkos::View<const B*, memory_space> merged_blocks() const {
    Kokkos::parallel_for("bench::cusparse_merge", nnz_, MergeBlocks{d_.values, perm_, starts_, blocks_});
    Kokkos::fence();
    return blocks_;
  }
  index_view offsets() const {
    return offsets_;
  }
  index_view columns() const {
    return block_cols_;
  }
  const std::vector<Form>& forms() const {
    return forms_;
  }
  const Form& chosen() const {
    return *chosen_;
  }

 private:
  void merge_all() const {
    Kokkos::parallel_for("bench::cusparse_merge", nnz_, MergeBlocks{d_.values, perm_, starts_, blocks_});
    Kokkos::parallel_for("bench::cusparse_merge", nnz_,
                         MergeExpanded{d_.values, perm_, starts_, offsets_, block_rows_, expanded_values_});
  }
  void set_vectors(const vector& x, const vector& y) const {
    BENCH_CUSPARSE(cusparseDnVecSetValues(x_, const_cast<double*>(x.data.data())));
    BENCH_CUSPARSE(cusparseDnVecSetValues(y_, y.data.data()));
  }

  const BeamOnDevice& d_;
  int n_ = 0, nnz_ = 0;
  compound_sparse_bench::CusparseHandle handle_;
  index_view perm_, starts_, block_rows_, block_cols_, offsets_, expanded_offsets_, expanded_cols_;
  Kokkos::View<B*, memory_space> blocks_;
  Kokkos::View<double*, memory_space> expanded_values_;
  cusparseDnVecDescr_t x_ = nullptr, y_ = nullptr;
  std::vector<Form> forms_;
  const Form* chosen_ = nullptr;
  double one_ = 1, zero_ = 0;
};

template <class T>
std::vector<T> host_copy(const Kokkos::View<const T*, memory_space>& view) {
  std::vector<T> out(view.extent(0));
  Kokkos::deep_copy(
      Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(out.data(), out.size()), view);
  return out;
}

bool same_bits(const void* a, const void* b, std::size_t bytes) {
  return bytes == 0 || std::memcmp(a, b, bytes) == 0;
}
#endif

}  // namespace

json measure_reassembly_loop(const std::string& name, int n, int steps, bool& all_ok) {
  const auto fail = [&](json& r, const std::string& what) {
    all_ok = false;
    r["errors"].push_back(what);
    std::cerr << "compound-assembly-bench: " << name << ": " << what << "\n";
  };
  BeamOnDevice d;
  d.beam = examples::clamped_beam(n);
  const int num_nodes = d.beam.num_nodes;
  const int count = static_cast<int>(d.beam.list.size());
  {
    std::vector<int> rows(count), cols(count);
    std::vector<B> base(count);
    for (int i = 0; i < count; ++i) {
      rows[i] = d.beam.list[i].row;
      cols[i] = d.beam.list[i].col;
      base[i] = d.beam.list[i].value;
    }
    d.rows = examples::device_view(rows, "bench::rows");
    d.cols = examples::device_view(cols, "bench::cols");
    d.base = examples::device_view(base, "bench::base");
  }
  d.values = Kokkos::View<B*, memory_space>("bench::values", count);
  d.load = cs::to_device<cs::Aos, memory_space>(d.beam.load);
  d.max_iterations = 20 * num_nodes + 100;

  json r;
  r["case"] = name;
  r["entry"] = "block3 double";
  r["rows"] = num_nodes;
  r["contributions"] = count;
  r["steps_run"] = steps;
  r["tolerance"] = tolerance;

  // Ours: the example's loop.
  json ours;
  vector our_solution;
  auto start = std::chrono::steady_clock::now();
  const cs::CooAssembly<B, cs::Csr, cs::Aos, memory_space> assembly(num_nodes, num_nodes, d.rows, d.cols);
  const auto& k = assembly.matrix();
  const Kokkos::View<const B*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> csr_values(
      reinterpret_cast<const B*>(k.values.data()), k.num_entries);
  examples::scale_on_device(d.base, d.values, d.beam.num_element_contributions, 0);
  assembly.assemble(d.values);
  cs::TunedSpmvOptions options;
  options.vector_layout = "aos";
  const cs::TunedSpmv<B> tuned(cs::make_device_csr(num_nodes, k.offsets, k.col_indices, csr_values), options);
  ours["setup_s"] = seconds_since(start);
  ours["variant"] = tuned.variant().name();
  r["nnz"] = k.num_entries;
  using coefficient = cs::coefficient_type_t<B>;
  const auto our_op = examples::product_operator([&tuned](const vector& x, const vector& y) {
    tuned.apply(cs::real_value<coefficient>(1), x, cs::real_value<coefficient>(0), y);
  });
  const auto our_steps = run_steps(
      d, steps,
      [&] {
        assembly.assemble(d.values);
        tuned.refresh(csr_values);
      },
      our_op, our_solution);
  if (!record_steps(our_steps, ours)) fail(r, "our loop: a step's CG did not converge");
  // The last step's matrix against the host path's (csr_from_coo, then to_device).
  const auto host = cs::to_device<cs::Csr, cs::Aos>(cs::csr_from_coo(
      num_nodes, num_nodes, examples::scaled_on_host(d.beam.list, d.beam.num_element_contributions, steps - 1)));
  if (examples::bytes_of(k) != examples::bytes_of(host)) fail(r, "our last step's matrix differs from the host path's");
  r["ours"] = ours;

  json b;
#ifdef KOKKOS_ENABLE_CUDA
  try {
    vector cusparse_solution;
    start = std::chrono::steady_clock::now();
    CusparseBeam beam(d);
    examples::scale_on_device(d.base, d.values, d.beam.num_element_contributions, 0);
    b["setup_s"] = seconds_since(start);  // the sort, the merged pattern and both forms' arrays
    {
      const vector x = examples::zeros_like(d.load, "bench::x"), y = examples::zeros_like(d.load, "bench::y");
      Kokkos::deep_copy(x.data, d.load.data);
      beam.choose_form(x, y);
    }
    b["form"] = beam.chosen().name;
    for (const auto& f : beam.forms()) b["product_s"][f.name] = f.product_s;
    const auto cusparse_op =
        examples::product_operator([&beam](const vector& x, const vector& y) { beam.multiply(x, y); });
    const auto cusparse_steps = run_steps(
        d, steps, [&] { beam.merge(); }, cusparse_op, cusparse_solution);
    if (!record_steps(cusparse_steps, b)) fail(r, "the cuSPARSE loop: a step's CG did not converge");
    // Its merged matrix of the last step is ours, bit for bit; and so must the solves agree.
    const auto blocks = host_copy(beam.merged_blocks());
    const auto our_values = host_copy(Kokkos::View<const B*, memory_space>(csr_values.data(), csr_values.extent(0)));
    const auto offsets = host_copy(Kokkos::View<const int*, memory_space>(beam.offsets()));
    const auto our_offsets = host_copy(Kokkos::View<const int*, memory_space>(k.offsets));
    const auto columns = host_copy(Kokkos::View<const int*, memory_space>(beam.columns()));
    const auto our_columns = host_copy(Kokkos::View<const int*, memory_space>(k.col_indices));
    if (blocks.size() != our_values.size() || offsets != our_offsets || columns != our_columns ||
        !same_bits(blocks.data(), our_values.data(), blocks.size() * sizeof(B)))
      fail(r, "the cuSPARSE loop's merged matrix differs from ours");
    const double difference = relative_difference(our_solution, cusparse_solution);
    b["solution_difference"] = difference;
    if (!(difference <= 1e-6)) fail(r, "the two loops' solutions differ by " + std::to_string(difference));
    r["step_ratio"] = b["median_step_s"].get<double>() / ours["median_step_s"].get<double>();
  } catch (const std::exception& e) {
    b = json::object();
    b["error"] = e.what();
    fail(r, std::string("the cuSPARSE loop failed: ") + e.what());
  }
#else
  b["error"] = "cuSPARSE needs the CUDA backend";
#endif
  r["cusparse"] = b;
  return r;
}

void print_reassembly_loop(const json& r) {
  std::printf("%s: block3 double, %d rows, %zu non-zeros from %zu contributions, %d steps to %.0e\n",
              r["case"].get<std::string>().c_str(), r["rows"].get<int>(), r["nnz"].get<std::size_t>(),
              r["contributions"].get<std::size_t>(), r["steps_run"].get<int>(), r["tolerance"].get<double>());
  std::printf("  %-30s %10s %12s %10s %10s %11s\n", "loop", "set-up ms", "assemble ms", "solve ms", "step ms",
              "iterations");
  const auto row = [](const std::string& label, const json& l) {
    std::printf("  %-30s %10.2f %12.3f %10.2f %10.2f %11d\n", label.c_str(), 1e3 * l["setup_s"].get<double>(),
                1e3 * l["median_assemble_s"].get<double>(), 1e3 * l["median_solve_s"].get<double>(),
                1e3 * l["median_step_s"].get<double>(), l["steps"].back()["iterations"].get<int>());
  };
  row("ours (" + r["ours"]["variant"].get<std::string>() + ")", r["ours"]);
  const auto& b = r["cusparse"];
  if (b.contains("median_step_s")) {
    row("cuSPARSE (" + b["form"].get<std::string>() + ")", b);
    std::printf("  per step (median): cuSPARSE / ours = %.2f\n", r["step_ratio"].get<double>());
  } else {
    std::printf("  cuSPARSE: n/a (%s)\n", b["error"].get<std::string>().c_str());
  }
}

}  // namespace compound_bench
