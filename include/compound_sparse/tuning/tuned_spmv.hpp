#pragma once
// TunedSpmv: SpMV with the variant the tuning database picks for this matrix on
// this device.
//
//   cs::TunedSpmv<Kokkos::complex<double>> op(host_csr);   // reads the database, converts A
//   auto x = op.make_vector(x_host), y = op.make_vector(std::vector<C>(n));
//   op.apply(alpha, x, beta, y);                            // y = alpha A x + beta y
//   std::cout << op.variant().name() << ": " << op.explanation() << "\n";
//
// The database file is database_file_name(default_device_info()) (sm_90.json on a
// CC 9.0 GPU, host_serial.json on the Serial backend) in options.database_dir, or
// else the first of default_tuning_dirs() that has it, read once per process
// (read_selection_database_cached; the shipped form, selection_database.hpp). Selection
// rules: selection.hpp. A missing, unreadable or corrupt database, or one that
// names no usable variant, is not an error: the portable prior (prior.hpp, prior.json
// in the same directories; a GPU's on GPUs) or else the heuristic decides, and a warning
// goes to the warning sink (warnings.hpp: std::cerr unless the application set
// one; each distinct warning once per process) and into explanation().
// The chosen layout always fits options.budget when any layout does; when none
// does, construction throws compound_sparse::BudgetExceeded from the conversion.
// A matrix with a row too long for one lane group on this device
// (dense_row_threshold) always gets a kind that splits rows (merge_path, segmented_sum), so no
// choice serialises that row.
//
// Products with Aᵀ and Aᴴ (options.transposes, apply(Op, ...)): for each op asked for, the
// constructor builds op(A) on the host (transposed, transpose.hpp) and a TunedSpmv of it,
// selected and converted like A (its own variant: op(A) has its own rows), in A's vector
// layout so that the same vectors serve both. This is the cached transposed copy of
// transpose.hpp: deterministic like any product, at the cost of op(A)'s memory, which
// counts against options.budget together with A's (budget.max_bytes is the sum's bound).
// Entries without a conjugate (real blocks) share one copy for T and H.
//
// Several vectors at once (SpMM, spmm.hpp): apply(alpha, X, beta, Y) on multivectors
// (make_multivector, or typed MultiVectors in multivector_layout()) runs the SpMM variant
// selected for the nearest vector bucket of X's k (vector_bucket.hpp: 1, 2, 4, 8, 16) on
// the same matrix, so no second copy of A is kept. Each bucket's variant comes from the
// database's measurements at that k (selection.hpp, restricted to A's layout and the
// multivector layout); where the database has none, the SpMV's schedule runs the SpMM.
// The matrix layout is chosen for options.vectors vectors (1 by default: the SpMV's
// choice); the multivector layout is options.multivector_layout, else the database's
// choice at that k (or at k = 8 when options.vectors is 1), else aos, or soa where the SpMV
// runs the merge path (its SpMM runs vector by vector, on soa directly, on aos through soa
// copies the matrix keeps: SparseMatrix::spmm_staging). On soa multivectors, where the
// database's record (of the bucket's selection) measured products of fewer vectors cheaper
// per vector than the bucket's, X's k vectors run as products of that many (spmm_block):
// the irregular matrices' SpMM on an H100 cost up to 1.59x more per vector at k = 16 than at
// k = 4. A column
// range of an soa multivector is one without a copy; of an aos one it is not, so aos
// multivectors always run whole.
//
//   cs::TunedSpmvOptions o; o.vectors = 8;
//   cs::TunedSpmv<C> op(host_csr, o);
//   auto X = op.make_multivector(x_vectors), Y = op.make_multivector(y_vectors);
//   op.apply(alpha, X, beta, Y);                            // Y = alpha A X + beta Y
//
// Quick tuning (quick_tune.hpp; options.quick_tune, by default QuickTune::Auto):
// when the database holds no record close to the matrix (the prior or the heuristic would decide,
// or the nearest record is farther than options.close_distance), TunedSpmv times a
// few candidates on the matrix itself, at most options.quick_tune_spmvs SpMVs in all,
// takes the fastest (rule "quick"), and stores what it timed in the per-user cache
// (tuning_cache.hpp), which is searched first: the next TunedSpmv for the same
// pattern is an exact hit and times nothing.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "../io/compound_format.hpp"  // mm_field<Entry>::has_conjugate
#include "../layouts/device_csr.hpp"
#include "../products/transpose.hpp"
#include "../variants/registry.hpp"
#include "../warnings.hpp"
#include "device_features.hpp"
#include "quick_tune.hpp"
#include "selection.hpp"
#include "selection_database.hpp"
#include "tuning_cache.hpp"
#include "vector_bucket.hpp"

namespace compound_sparse {

/// When TunedSpmv times candidates on the caller's matrix (quick_tune.hpp).
enum class QuickTune {
  Never,   ///< select from the database (or the heuristic) only
  Auto,    ///< when no database record is close: the heuristic, or a nearest record farther than close_distance
  Always,  ///< every matrix whose pattern the cache does not hold yet
};

struct TunedSpmvOptions {
  std::string database_dir;  ///< "" = default_tuning_dirs()
  MemoryBudget budget;       ///< for the matrix layout
  bool verbose = false;      ///< print the explanation to std::cerr
  int neighbours = 3;        ///< k of the nearest-neighbour rule
  /// "" chooses the vector layout too; an inner layout's name fixes it, for callers
  /// whose vectors already exist in that layout (typed CompoundVector, solvers).
  std::string vector_layout;
  /// Rows longer than this count as dense (selection.hpp); < 0: dense_row_threshold
  /// for this matrix on this device. Set it to hold a device's rule on another.
  double dense_row_threshold = -1;
  QuickTune quick_tune = QuickTune::Auto;
  /// "Close" for QuickTune::Auto: a nearest record within this feature distance
  /// (selection.hpp; default_close_distance says why this default).
  double close_distance = default_close_distance;
  int quick_tune_spmvs = default_quick_tune_spmvs;  ///< budget of quick tuning, checks included
  /// The quick-tuning cache (tuning_cache.hpp): "" = default_tuning_cache_dir().
  std::string cache_dir;
  bool use_cache = true;  ///< false: the cache is neither read nor written
  /// The ops besides Op::N that apply(op, ...) will be asked for (Op::T, Op::H): each
  /// builds a tuned copy of op(A) at construction, its memory within `budget` with A's.
  std::vector<Op> transposes;
  /// The number of vectors the matrix layout is chosen for (its vector bucket): 1, the
  /// SpMV, or the k of the SpMMs the caller mostly runs. Quick tuning runs for 1 only.
  int vectors = 1;
  /// The layout of the multivectors apply(alpha, X, beta, Y) takes, "aos" or "soa"; ""
  /// chooses it (see the top of this header).
  std::string multivector_layout;
};

/// Throws InvalidInput naming the first option outside its range: a layout name that is
/// not an inner layout, neighbours or vectors below 1, a negative quick-tuning budget, a
/// close_distance that is negative or not finite, a NaN dense_row_threshold, or a
/// quick_tune that is not one of the enum's values. TunedSpmv calls it before any work.
inline void validate_options(const TunedSpmvOptions& options) {
  const auto& inners = inner_layout_names();
  const auto inner_or_empty = [&inners](const std::string& name) {
    return name.empty() || std::find(inners.begin(), inners.end(), name) != inners.end();
  };
  COMPOUND_SPARSE_REQUIRE(inner_or_empty(options.vector_layout),
                          "TunedSpmvOptions::vector_layout must be empty or an inner layout ("
                              << impl::joined(inners) << "), got '" << options.vector_layout << "'");
  COMPOUND_SPARSE_REQUIRE(inner_or_empty(options.multivector_layout),
                          "TunedSpmvOptions::multivector_layout must be empty or a multivector layout ("
                              << impl::joined(inners) << "), got '" << options.multivector_layout << "'");
  COMPOUND_SPARSE_REQUIRE(options.vectors >= 1,
                          "TunedSpmvOptions::vectors must be at least 1, got " << options.vectors);
  COMPOUND_SPARSE_REQUIRE(options.neighbours >= 1,
                          "TunedSpmvOptions::neighbours must be at least 1, got " << options.neighbours);
  COMPOUND_SPARSE_REQUIRE(options.quick_tune_spmvs >= 0,
                          "TunedSpmvOptions::quick_tune_spmvs must not be negative, got " << options.quick_tune_spmvs);
  // NaN compares false with everything: it would make every record "far" and the rule silent.
  COMPOUND_SPARSE_REQUIRE(
      std::isfinite(options.close_distance) && options.close_distance >= 0,
      "TunedSpmvOptions::close_distance must be a finite distance >= 0, got " << options.close_distance);
  COMPOUND_SPARSE_REQUIRE(!std::isnan(options.dense_row_threshold),
                          "TunedSpmvOptions::dense_row_threshold must be a number (< 0: this device's rule), got NaN");
  COMPOUND_SPARSE_REQUIRE(options.quick_tune == QuickTune::Never || options.quick_tune == QuickTune::Auto ||
                              options.quick_tune == QuickTune::Always,
                          "TunedSpmvOptions::quick_tune must be QuickTune::Never, Auto or Always, got "
                              << static_cast<int>(options.quick_tune));
  for (const Op op : options.transposes)
    COMPOUND_SPARSE_REQUIRE(op == Op::T || op == Op::H, "TunedSpmvOptions::transposes holds Op::T or Op::H, got Op::"
                                                            << to_string(op) << " (Op::N needs no copy)");
}

/// The database for this device, or null; `note` says which file or why none.
LoadedDatabase load_device_database(const DeviceInfo& device, const std::string& database_dir);

/// The portable prior (prior.hpp) from the first of the tuning directories that holds
/// prior_file_name: null without a warning when there is none, or when it was learned
/// on another kind of device (a GPU prior on a host backend); null with a warning when
/// it cannot be read (selection then uses the heuristic, never fails).
struct LoadedPrior {
  std::shared_ptr<const VariantPrior> prior;
  std::vector<std::string> warnings;
};
LoadedPrior load_device_prior(const DeviceInfo& device, const std::string& database_dir);

template <class Entry>
class TunedSpmv {
 public:
  using registry_type = VariantRegistry<Entry>;
  using coefficient_type = typename registry_type::coefficient_type;
  using value_type = typename registry_type::value_type;
  using matrix_type = typename registry_type::matrix_type;
  using vector_type = typename registry_type::vector_type;
  using multivector_type = typename registry_type::multivector_type;
  using memory_space = typename Kokkos::DefaultExecutionSpace::memory_space;

  explicit TunedSpmv(const HostCsr<Entry>& a, const TunedSpmvOptions& options = {})
      : registry_(&variant_registry<Entry>()) {
    validate_options(options);
    validate(a);
    construct(a, options);
  }

  /// The same for a matrix already on the device (make_device_csr of its CSR Views, or of a
  /// Kokkos Kernels matrix: interop/kokkos_kernels.hpp). Its features and fingerprint are
  /// computed there (device_features.hpp), the candidates of quick tuning and the chosen
  /// layout are built there (device_build.hpp), and so are the transposed copies: the
  /// matrix never comes to the host. Selection, explanation and results are those of the
  /// same matrix as a HostCsr, bit for bit.
  explicit TunedSpmv(const DeviceCsr<Entry, memory_space>& a, const TunedSpmvOptions& options = {})
      : registry_(&variant_registry<Entry>()) {
    validate_options(options);
    construct(a, options);
  }

  const VariantKey& variant() const { return key_; }
  const std::string& rule() const { return rule_; }  ///< "exact", "nearest", "prior", "heuristic" or "quick"
  /// SpMVs spent by quick tuning on this matrix (checks included); 0 when it did not run.
  int tuning_spmvs() const { return tuning_spmvs_; }
  const std::string& explanation() const { return explanation_; }
  const matrix_type& matrix() const { return matrix_; }
  int num_rows() const { return matrix_.num_rows(); }
  int num_cols() const { return matrix_.num_cols(); }

  /// A device vector in the chosen vector layout.
  vector_type make_vector(const std::vector<value_type>& v) const { return registry_->convert_vector(key_.vector, v); }

  /// y = alpha A x + beta y; x and y must be in the chosen vector layout (make_vector), and y
  /// must not share memory with x (InvalidInput: the product would read what it overwrote).
  void apply(const coefficient_type& alpha, const vector_type& x, const coefficient_type& beta,
             const vector_type& y) const {
    registry_->spmv(key_, alpha, matrix_, x, beta, y);
  }
  /// The same with typed vectors; their Inner must be the chosen vector layout.
  template <class Inner>
  void apply(const coefficient_type& alpha, const CompoundVector<value_type, Inner, memory_space>& x,
             const coefficient_type& beta, const CompoundVector<value_type, Inner, memory_space>& y) const {
    COMPOUND_SPARSE_REQUIRE(Inner::name() == key_.vector, "TunedSpmv chose vector layout '"
                                                              << key_.vector << "', the vectors are '" << Inner::name()
                                                              << "'");
    apply(alpha, vector_type(x), beta, vector_type(y));
  }

  /// The multivector layout of apply(alpha, X, beta, Y): "aos" or "soa".
  const std::string& multivector_layout() const { return multivector_layout_; }
  /// The SpMM variant apply(alpha, X, beta, Y) runs for k vectors (that of k's vector bucket).
  const VariantKey& spmm_variant(int k) const { return spmm_keys_.at(vector_bucket(k)); }

  /// The vectors a product of apply(alpha, X, beta, Y) takes when X has k: k, or on soa
  /// multivectors fewer where the database measured fewer cheaper per vector (a bucket).
  int spmm_block(int k) const {
    const int bucket = vector_bucket(k), block = spmm_blocks_.at(bucket);
    return block == bucket ? k : std::min(k, block);  // a bucket without blocks runs any k whole
  }

  /// A device multivector in multivector_layout() from k host vectors (vectors[j][i] is
  /// value i of vector j).
  multivector_type make_multivector(const std::vector<std::vector<value_type>>& vectors) const {
    return registry_->convert_multivector(multivector_layout_, vectors);
  }

  /// Y = alpha A X + beta Y for the k vectors of X and Y (SpMM, spmm.hpp), with
  /// spmm_variant(k), or as products of spmm_block(k) vectors (and the rest) with theirs;
  /// X and Y in multivector_layout() (make_multivector), Y sharing no memory with X.
  void apply(const coefficient_type& alpha, const multivector_type& x, const coefficient_type& beta,
             const multivector_type& y) const {
    COMPOUND_SPARSE_REQUIRE(x.layout() == multivector_layout_ && y.layout() == multivector_layout_,
                            "TunedSpmv chose multivector layout '" << multivector_layout_ << "', the multivectors are '"
                                                                   << x.layout() << "' and '" << y.layout() << "'");
    const int k = x.count();
    COMPOUND_SPARSE_REQUIRE(k >= 1, "TunedSpmv::apply: a multivector of no vectors");
    // Before any block runs: blocks of X and Y that are disjoint can still overlap across
    // blocks, and one block's Y would overwrite what a later block reads as X.
    impl::require_disjoint_output(x.footprint(), y.footprint(), "TunedSpmv::apply");
    const int block = spmm_block(k);
    if (block == k) return registry_->spmm(spmm_variant(k), alpha, matrix_, x, beta, y);
    COMPOUND_SPARSE_REQUIRE(y.count() == k, "TunedSpmv::apply: X has " << k << " vectors, Y " << y.count());
    const auto& xs = x.template get<Soa>();  // blocks only on soa (choose_spmm_variants)
    const auto& ys = y.template get<Soa>();
    for (int first = 0; first < k; first += block) {
      const int count = std::min(block, k - first);
      registry_->spmm(spmm_variant(count), alpha, matrix_, multivector_type(vectors_of(xs, first, count)), beta,
                      multivector_type(vectors_of(ys, first, count)));
    }
  }
  /// The same with typed multivectors; their Layout must be multivector_layout().
  template <class Layout>
  void apply(const coefficient_type& alpha, const MultiVector<value_type, Layout, memory_space>& x,
             const coefficient_type& beta, const MultiVector<value_type, Layout, memory_space>& y) const {
    apply(alpha, multivector_type(x), beta, multivector_type(y));
  }

  /// y = alpha op(A) x + beta y: x has A's rows and y A's columns for Op::T and Op::H,
  /// which options.transposes must have asked for (InvalidInput otherwise). Vectors as
  /// for apply(alpha, x, beta, y): the copies use A's vector layout.
  void apply(Op op, const coefficient_type& alpha, const vector_type& x, const coefficient_type& beta,
             const vector_type& y) const {
    if (op == Op::N) return apply(alpha, x, beta, y);
    transposed(op).apply(alpha, x, beta, y);
  }
  template <class Inner>
  void apply(Op op, const coefficient_type& alpha, const CompoundVector<value_type, Inner, memory_space>& x,
             const coefficient_type& beta, const CompoundVector<value_type, Inner, memory_space>& y) const {
    if (op == Op::N) return apply(alpha, x, beta, y);
    transposed(op).apply(alpha, x, beta, y);
  }

  /// Y = alpha op(A) X + beta Y for multivectors, as apply(op, alpha, x, beta, y).
  void apply(Op op, const coefficient_type& alpha, const multivector_type& x, const coefficient_type& beta,
             const multivector_type& y) const {
    if (op == Op::N) return apply(alpha, x, beta, y);
    transposed(op).apply(alpha, x, beta, y);
  }
  template <class Layout>
  void apply(Op op, const coefficient_type& alpha, const MultiVector<value_type, Layout, memory_space>& x,
             const coefficient_type& beta, const MultiVector<value_type, Layout, memory_space>& y) const {
    apply(op, alpha, multivector_type(x), beta, multivector_type(y));
  }

  /// The tuned operator of op(A) (Op::T or Op::H) that options.transposes asked for.
  const TunedSpmv& transposed(Op op) const {
    const auto& copy = op == Op::T ? transpose_ : op == Op::H ? conjugate_transpose_ : nullptr;
    COMPOUND_SPARSE_REQUIRE(copy != nullptr, "TunedSpmv: no copy of A" << (op == Op::T ? "^T" : "^H")
                                                                       << " was built; ask for Op::" << to_string(op)
                                                                       << " in TunedSpmvOptions::transposes");
    return *copy;
  }
  /// Device bytes of A's layout and of the transposed copies built.
  std::size_t memory_bytes() const {
    std::size_t bytes = matrix_.memory_bytes();
    if (transpose_) bytes += transpose_->matrix().memory_bytes();
    if (conjugate_transpose_ && conjugate_transpose_ != transpose_)
      bytes += conjugate_transpose_->matrix().memory_bytes();
    return bytes;
  }

  /// New values for A with its pattern unchanged (a matrix re-assembled by a time step or a
  /// Newton step): `values` holds A's entries in the order of the HostCsr it was built from,
  /// on the device. One pass on the device writes them into the chosen layout (refresh.hpp),
  /// and into the copies of options.transposes, moved and transformed there; the chosen
  /// variants, the pattern and the schedule's state stay. The products are then, bit for
  /// bit, those of an operator of these values with the same variants. InvalidInput if the
  /// count is not A's number of non-zeros (nothing changes then).
  void refresh(const Kokkos::View<const Entry*, memory_space>& values) const {
    matrix_.refresh_values(values);  // checks the count first
    for (const Op op : {Op::T, Op::H}) {
      const auto& copy = op == Op::T ? transpose_ : conjugate_transpose_;
      if (!copy || (op == Op::H && copy == transpose_)) continue;  // real blocks: one copy serves both
      if (transposed_values_.extent(0) != values.extent(0))
        transposed_values_ = Kokkos::View<Entry*, memory_space>(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("compound_sparse::transposed_values")),
            values.extent(0));
      const auto positions = transposed_positions_;
      const auto moved = transposed_values_;
      const bool conjugate = op == Op::H;
      Kokkos::parallel_for(
          "compound_sparse::refresh_transposed",
          Kokkos::RangePolicy<typename memory_space::execution_space>(0, values.extent(0)),
          KOKKOS_LAMBDA(std::size_t k) {
            moved(positions(k)) = conjugate ? conjugate_transposed_entry(values(k)) : transposed_entry(values(k));
          });
      copy->refresh(moved);
    }
  }
  /// refresh from host memory: the values are copied to the device first.
  void refresh(const std::vector<Entry>& values) const {
    Kokkos::View<Entry*, memory_space> device(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("compound_sparse::refresh")), values.size());
    Kokkos::deep_copy(device, Kokkos::View<const Entry*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                  values.data(), values.size()));
    refresh(device);
  }

 private:
  /// Whether a variant is compiled and its layout holds the matrix; with `spmm`, whether it
  /// has an SpMM in its vector layout too (VariantRegistry::supports_spmm).
  using usable_check = std::function<bool(const VariantKey&, bool spmm, std::string& why)>;
  /// A database record's identity beside its entry type and precision: a matrix may have a
  /// record from each device of the file's compute capability (selection_database.hpp).
  struct RecordName {
    std::string name;    ///< "" when no record decided
    std::string device;  ///< the device it was measured on
  };

  /// The variant for k vectors on `on`'s matrix layout with `vector` as its vector (for k >
  /// 1, multivector) layout ("" for any): the database's choice at k (rules exact and nearest, among the
  /// variants of that layout), else `on`'s schedule in that vector layout, with the
  /// nearest launch bounds that have an SpMM if its own have none. `how` says which.
  static VariantKey select_on_layout(const MatrixFeatures& features, const LoadedDatabase& loaded,
                                     SelectionContext context, const usable_check& fits, int k, bool spmm,
                                     const VariantKey& on, const std::string& vector, std::string& how,
                                     RecordName* record = nullptr) {
    context.vectors = k;
    context.prior = nullptr;
    context.usable = [&](const VariantKey& key, std::string& why) {
      if (key.layout_name() != on.layout_name() || (!vector.empty() && key.vector != vector)) {
        why = "another layout than " + on.layout_name() + (vector.empty() ? "" : " with " + vector + " vectors");
        return false;
      }
      return fits(key, spmm, why);
    };
    const Selection s = select_variant(features, loaded.db.get(), loaded.note, context);
    if (s.from_record()) {
      how = "rule " + s.rule + (s.record.empty() ? std::string() : ", record " + s.record);
      if (record != nullptr) *record = RecordName{s.record, s.record_device};
      return s.key;
    }
    VariantKey key = on;
    if (!vector.empty()) key.vector = vector;
    std::string why;
    if (fits(key, spmm, why)) {
      how = "no record measured at k = " + std::to_string(k) + ": the SpMV's schedule";
      return key;
    }
    // The variant has no SpMM (its launch bounds are not of COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS,
    // or the variant set compiles its SpMV only): its kind and lanes with the launch bounds
    // nearest in threads per multiprocessor that have an SpMM.
    const auto per_sm = [](const VariantKey& v) { return double(v.threads) * v.teams_per_sm; };
    // (Compiled is all that is asked: the layout is `on`'s, whose budget and refusal are
    // its conversion's to report.)
    const auto& registry = variant_registry<Entry>();
    const auto nearest_of = [&](bool same_kind) {
      const VariantKey* nearest = nullptr;
      for (const auto& c : context.compiled) {
        VariantKey candidate = c;
        candidate.lanes_per_row = uses_lanes(c.kind) ? on.lanes_per_row : 1;
        if (c.layout_name() != on.layout_name() || (same_kind && c.kind != on.kind) || c.vector != key.vector ||
            !(spmm ? registry.supports_spmm(candidate) : registry.contains(candidate)))
          continue;
        if (nearest == nullptr ||
            std::abs(std::log2(per_sm(c) / per_sm(on))) < std::abs(std::log2(per_sm(*nearest) / per_sm(on))))
          nearest = &c;
      }
      return nearest;
    };
    const VariantKey* nearest = nearest_of(true);
    // A variant set without the kind's SpMM on this layout (the full space has every one):
    // another kind's on the same layout, nearest in threads per multiprocessor.
    if (nearest == nullptr) nearest = nearest_of(false);
    COMPOUND_SPARSE_REQUIRE_KIND(NotCompiled, nearest != nullptr,
                                 "TunedSpmv: no SpMM is compiled for " << on.layout_name() << " " << to_string(on.kind)
                                                                       << " (COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS)");
    key = *nearest;
    key.lanes_per_row = uses_lanes(key.kind) ? on.lanes_per_row : 1;
    how = "no record measured at k = " + std::to_string(k) + ": the SpMV's schedule with the launch bounds t" +
          std::to_string(key.threads) + ".b" + std::to_string(key.teams_per_sm) + ", which have an SpMM";
    if (key.kind != on.kind) how += " (as " + to_string(key.kind) + ": this build compiles no other)";
    return key;
  }

  /// The multivector layout, the SpMM variant and the block (spmm_block) of every vector
  /// bucket, on `chosen`'s matrix layout (`chosen_record`: the database record that chose it
  /// at options.vectors' bucket, unnamed if none).
  void choose_spmm_variants(const MatrixFeatures& features, const LoadedDatabase& loaded,
                            const SelectionContext& context, const usable_check& fits, const TunedSpmvOptions& options,
                            const VariantKey& chosen, const RecordName& chosen_record) {
    const int primary = vector_bucket(options.vectors);
    std::string origin, primary_why;
    if (!options.multivector_layout.empty()) {
      multivector_layout_ = options.multivector_layout;
      origin = "the caller's";
    } else if (primary > 1 && fits(chosen, true, primary_why)) {
      multivector_layout_ = chosen.vector;  // the primary selection was the SpMM's
      origin = "selected at k = " + std::to_string(primary);
    } else {
      SelectionContext at8 = context;
      at8.vectors = 8;
      at8.prior = nullptr;
      at8.usable = [&](const VariantKey& key, std::string& why) {
        if (key.layout_name() != chosen.layout_name()) {
          why = "another matrix layout";
          return false;
        }
        return fits(key, true, why);
      };
      const Selection s = select_variant(features, loaded.db.get(), loaded.note, at8);
      if (s.from_record()) {
        multivector_layout_ = s.key.vector;
        origin = "the database's at k = 8";
      } else {
        // The merge path runs one SpMV per vector, on soa directly (aos through copies);
        // every other kind, the segmented sum included, reads the matrix once for all k.
        const bool per_vector = chosen.kind == ScheduleKind::MergePath;
        multivector_layout_ = per_vector ? Soa::name() : Aos::name();
        origin = per_vector ? "soa for the merge path" : "the default";
      }
    }
    explanation_ += "; SpMM on " + multivector_layout_ + " multivectors (" + origin + "):";
    std::map<int, RecordName> records;  // the record of each bucket's selection, if any
    for (const int k : vector_buckets) {
      std::string how;
      const bool primary_choice = k == primary && chosen.vector == multivector_layout_ && fits(chosen, true, how);
      if (primary_choice) records[k] = chosen_record;
      spmm_keys_[k] = primary_choice ? chosen
                                     : select_on_layout(features, loaded, context, fits, k, true, chosen,
                                                        multivector_layout_, how, &records[k]);
      if (how.empty()) how = "the primary selection";
      explanation_ += " k=" + std::to_string(k) + " " + spmm_keys_[k].name() + " (" + how + ")";
    }
    for (const int k : vector_buckets) {
      spmm_blocks_[k] = k;
      if (multivector_layout_ != Soa::name() || records[k].name.empty() || !loaded.db) continue;
      const SelectionRecord* r =
          find_record(*loaded.db, records[k].name, features.entry_type, features.precision, records[k].device);
      if (r == nullptr) continue;
      // Each bucket j <= k with its own variant, timed on that record: the cheapest per vector.
      const auto per_vector = [&](int j) { return r->seconds(spmm_keys_[j].name(), j) / j; };
      const double whole = per_vector(k);
      if (whole <= 0) continue;
      double cheapest = whole;
      for (const int j : vector_buckets) {
        const double t = j < k ? per_vector(j) : 0.0;
        if (t > 0 && t * 1.02 < cheapest) {  // 2%: within the timing's noise, keep the fewer products
          cheapest = t;
          spmm_blocks_[k] = j;
        }
      }
      if (spmm_blocks_[k] < k) {
        std::ostringstream why;
        why << std::setprecision(3) << whole / cheapest;
        explanation_ += "; soa products of k=" + std::to_string(k) + " run as blocks of " +
                        std::to_string(spmm_blocks_[k]) + " vectors (record " + records[k].name + ": " + why.str() +
                        "x less a vector)";
      }
    }
  }

  /// The constructors' work, for a HostCsr or a DeviceCsr (each overload of the matrix's
  /// queries: features, layout sizes and refusals, conversion, quick tuning, transposes).
  template <class Matrix>
  void construct(const Matrix& a, const TunedSpmvOptions& options) {
    const LoadedDatabase loaded = load_device_database(default_device_info(), options.database_dir);
    SelectionContext context;
    context.compiled = registry_->variants();
    context.neighbours = options.neighbours;
    context.device_name = default_device_info().name;
    const auto* registry = registry_;
    const std::uint64_t max_bytes = options.budget.max_bytes;
    // Why an outer layout cannot hold `a` ("" if it can): over the budget, or refused
    // (layout_refusal). Found once per layout: selection asks for every variant of its
    // neighbours' records, and each answer walks the matrix's rows (and, for 16-bit
    // columns, its non-zeros).
    const auto obstacles = std::make_shared<std::map<std::string, std::string>>();
    const auto obstacle = [registry, &a, max_bytes, obstacles](const std::string& outer) -> const std::string& {
      auto it = obstacles->find(outer);
      if (it != obstacles->end()) return it->second;
      const std::uint64_t bytes = registry->memory_bytes(outer, a);
      const std::string why = bytes > max_bytes ? outer + " needs " + std::to_string(bytes) +
                                                      " bytes, over the budget of " + std::to_string(max_bytes)
                                                : registry->refusal(outer, a);
      return obstacles->emplace(outer, why).first->second;
    };
    context.fits = [obstacle](const std::string& outer) { return obstacle(outer).empty(); };
    const std::string vector_layout = options.vector_layout;
    const int primary_vectors = vector_bucket(options.vectors);
    // Compiled, and its layout holds the matrix; for the SpMM, it has one in its vector layout.
    const auto compiled_and_fits = [registry, obstacle](const VariantKey& key, bool spmm, std::string& why) {
      if (!registry->contains(key)) {
        why = "not compiled into this build";
        return false;
      }
      if (spmm && !registry->supports_spmm(key)) {
        why = "no SpMM compiled for its launch bounds";
        return false;
      }
      why = obstacle(key.outer);
      return why.empty();
    };
    // The primary selection, which fixes the matrix layout: at options.vectors' bucket,
    // where the caller's fixed layout is the multivector layout for k > 1.
    const std::string primary_layout = primary_vectors > 1 ? options.multivector_layout : vector_layout;
    context.vectors = primary_vectors;
    context.usable = [compiled_and_fits, primary_layout, primary_vectors](const VariantKey& key, std::string& why) {
      if (!primary_layout.empty() && key.vector != primary_layout) {
        why = "vector layout " + key.vector + ", the caller's vectors are " + primary_layout;
        return false;
      }
      return compiled_and_fits(key, primary_vectors > 1, why);
    };
    const MatrixFeatures features = matrix_features(a);
    context.dense_row_threshold = options.dense_row_threshold >= 0
                                      ? options.dense_row_threshold
                                      : dense_row_threshold(features, default_device_info());
    std::vector<std::string> warnings = loaded.warnings;

    // An earlier quick tuning of this pattern, in this process or another: an exact hit.
    std::string cache_path;
    Selection s;
    if (options.use_cache) {
      const std::string dir = options.cache_dir.empty() ? default_tuning_cache_dir() : options.cache_dir;
      if (!dir.empty()) cache_path = dir + "/" + database_file_name(default_device_info());
    }
    if (!cache_path.empty() && primary_vectors == 1) {  // the cache holds SpMV records only
      const LoadedDatabase cache = load_tuning_cache(cache_path);
      warnings.insert(warnings.end(), cache.warnings.begin(), cache.warnings.end());
      if (cache.db) s = select_variant(features, cache.db.get(), "cache " + cache.note, context);
    }
    const bool cached = s.rule == "exact";
    if (!cached) s = select_variant(features, loaded.db.get(), loaded.note, context);
    // The prior is read (a file of its own) only where the database did not decide.
    LoadedPrior prior;
    if (s.rule == "heuristic") {
      prior = load_device_prior(default_device_info(), options.database_dir);
      warnings.insert(warnings.end(), prior.warnings.begin(), prior.warnings.end());
      context.prior = prior.prior.get();
      if (context.prior != nullptr) s = select_variant(features, loaded.db.get(), loaded.note, context);
    }
    warnings.insert(warnings.end(), s.warnings.begin(), s.warnings.end());
    key_ = s.key;
    rule_ = s.rule;
    explanation_ = "variant " + key_.name() + "; " + s.explanation;

    const bool close = s.rule == "exact" || (s.rule == "nearest" && s.distance <= options.close_distance);
    const bool wanted = !cached && primary_vectors == 1 &&
                        (options.quick_tune == QuickTune::Always || (options.quick_tune == QuickTune::Auto && !close));
    const QuickTunePlan fits_budget =
        quick_tune_plan(max_quick_tune_candidates, options.quick_tune_spmvs, preferred_timing_mode());
    if (wanted && fits_budget.count == 0)
      explanation_ += "; no quick tuning: a budget of " + std::to_string(options.quick_tune_spmvs) +
                      " SpMVs times no candidate (one takes " + std::to_string(fits_budget.spmvs_per_candidate()) + ")";
    if (wanted && fits_budget.count > 0) {
      const VariantKey heuristic =
          heuristic_variant(features, context.compiled, context.fits, context.dense_row_threshold);
      std::vector<VariantKey> ranked = s.ranked, neighbour_bests = s.neighbour_bests;
      const auto usable_here = [&](const VariantKey& k) {
        std::string why;
        return (vector_layout.empty() || k.vector == vector_layout) && context.usable(k, why);
      };
      VariantKey own = heuristic;
      if (!vector_layout.empty()) own.vector = vector_layout;
      // The heuristic's schedule on each other outer layout that fits: what a matrix
      // without a database record is timed on besides the heuristic's own choice.
      std::vector<VariantKey> alternatives;
      for (const auto& outer : outer_layout_names()) {
        const auto only = [&](const std::string& o) { return o == outer && context.fits(o); };
        VariantKey k = heuristic_variant(features, context.compiled, only, context.dense_row_threshold);
        if (!vector_layout.empty()) k.vector = vector_layout;
        if (k.outer == outer) alternatives.push_back(k);
      }
      const bool dense = features.nnz_per_row_max > context.dense_row_threshold;
      // quick_tune's measurement refuses, before converting, a layout that pads past its
      // bound (MeasureOptions::max_padding_ratio): such a candidate would take a place and
      // time nothing, as padded layouts on an irregular matrix without a database record did.
      const double max_padding = MeasureOptions().max_padding_ratio;
      std::map<std::string, bool> over_padding_bound;
      const auto pads_too_much = [&](const VariantKey& k) {
        if (!measure_bound_enabled(max_padding)) return false;  // no need to count the slots
        auto it = over_padding_bound.find(k.outer);
        if (it == over_padding_bound.end())
          it = over_padding_bound
                   .emplace(k.outer, pads_past_bound(padding_ratio(registry->num_slots(k.outer, a), a.num_entries()),
                                                     max_padding))
                   .first;
        return it->second;
      };
      for (auto* list : {&ranked, &neighbour_bests, &alternatives})
        list->erase(std::remove_if(list->begin(), list->end(),
                                   [&](const VariantKey& k) {
                                     return !usable_here(k) || (dense && !splits_rows(k.kind)) || pads_too_much(k);
                                   }),
                    list->end());
      const auto candidates =
          quick_tune_candidates(ranked, neighbour_bests, own, alternatives, max_quick_tune_candidates);
      const QuickTuneResult q = quick_tune(a, features, candidates, options.quick_tune_spmvs, options.budget);
      tuning_spmvs_ = q.spmvs;
      std::string why = options.quick_tune == QuickTune::Always ? "quick tuning asked for"
                        : s.rule == "nearest" ? "the nearest record is at distance " + std::to_string(s.distance) +
                                                    ", over " + std::to_string(options.close_distance)
                                              : "no database record";
      if (q.ok) {
        key_ = parse_variant_key(q.record.best);
        rule_ = "quick";
        explanation_ = "variant " + key_.name() + "; rule quick (" + why + "): timed " + q.timed + "; fastest " +
                       q.record.best + "; before it, " + s.explanation;
        if (!cache_path.empty()) {
          const auto stored = store_in_tuning_cache(cache_path, q.record);
          warnings.insert(warnings.end(), stored.begin(), stored.end());
          if (stored.empty()) explanation_ += "; stored in " + cache_path;
        }
      } else {
        warnings.push_back("quick tuning found no candidate that ran correctly (" + q.timed + "); keeping " +
                           key_.name());
      }
    }
    if (primary_vectors > 1) {
      // The primary selection chose A's layout (and the multivector layout) for the SpMM;
      // the SpMV's schedule on that layout is selected at k = 1.
      const bool measured = s.from_record() && !cached;
      choose_spmm_variants(features, loaded, context, compiled_and_fits, options, s.key,
                           measured ? RecordName{s.record, s.record_device} : RecordName{});
      std::string how;
      key_ = select_on_layout(features, loaded, context, compiled_and_fits, 1, false, s.key, vector_layout, how);
      explanation_ += "; the SpMV on that layout: " + key_.name() + " (" + how + ")";
    } else {
      if (!vector_layout.empty() && key_.vector != vector_layout) {  // the heuristic knows no constraint
        VariantKey fixed = key_;
        fixed.vector = vector_layout;
        // The full variant space compiles every variant in both vector layouts, and the default
        // set the heuristic's choices in both; another set may not: the heuristic then chooses
        // among the variants of the caller's layout.
        if (!registry_->contains(fixed)) {
          std::vector<VariantKey> in_layout;
          for (const auto& k : context.compiled)
            if (k.vector == vector_layout) in_layout.push_back(k);
          if (!in_layout.empty())
            fixed = heuristic_variant(features, in_layout, context.fits, context.dense_row_threshold);
        }
        key_ = fixed;
        explanation_ += "; vector layout fixed to " + vector_layout + " by the caller";
      }
      choose_spmm_variants(features, loaded, context, compiled_and_fits, options, key_, RecordName{});
    }
    for (const auto& w : warnings) {
      warn_once(w);
      explanation_ += "; warning: " + w;
    }
    // Not through the warning sink: the explanation is no warning but output the
    // caller asked for, and one who wants it elsewhere has explanation().
    if (options.verbose) std::cerr << "compound_sparse: " << explanation_ << "\n";
    matrix_ = registry_->convert_matrix(key_.outer, key_.inner, a, options.budget);
    build_transposes(a, options);
  }

  /// Where each of A's entries lands in op(A) (transposed_positions), on the device.
  static Kokkos::View<int*, memory_space> positions_on_device(const HostCsr<Entry>& a) {
    const std::vector<int> positions = transposed_positions(a);
    Kokkos::View<int*, memory_space> view("compound_sparse::transposed_positions", positions.size());
    Kokkos::deep_copy(view, Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                positions.data(), positions.size()));
    return view;
  }
  static Kokkos::View<int*, memory_space> positions_on_device(const DeviceCsr<Entry, memory_space>& a) {
    return transposed_positions(a);
  }

  /// The tuned copies of options.transposes, each selected for op(A) with A's vector layout,
  /// within what A's layout left of the budget.
  template <class Matrix>
  void build_transposes(const Matrix& a, const TunedSpmvOptions& options) {
    const auto wanted = [&](Op op) {
      return std::find(options.transposes.begin(), options.transposes.end(), op) != options.transposes.end();
    };
    // Without a conjugate (real blocks), Aᴴ is Aᵀ: one copy serves both.
    const bool same_copy = !io::mm_field<typename entry_traits<Entry>::template rebind<double>>::has_conjugate();
    for (const Op op : {Op::T, Op::H}) {
      if (!wanted(op)) continue;
      auto& slot = op == Op::T ? transpose_ : conjugate_transpose_;
      const auto& other = op == Op::T ? conjugate_transpose_ : transpose_;
      if (same_copy && other) {
        slot = other;
        continue;
      }
      TunedSpmvOptions copy_options = options;
      copy_options.transposes.clear();
      copy_options.vector_layout = key_.vector;
      copy_options.multivector_layout = multivector_layout_;
      const std::size_t used = memory_bytes();
      copy_options.budget.max_bytes = options.budget.max_bytes > used ? options.budget.max_bytes - used : 0;
      slot = std::make_shared<const TunedSpmv>(compound_sparse::transposed(a, op), copy_options);
      if (transposed_positions_.extent(0) != a.num_entries()) transposed_positions_ = positions_on_device(a);
      explanation_ += std::string("; A") + (op == Op::T ? "^T" : "^H") + ": " + slot->explanation();
    }
  }

  std::shared_ptr<const TunedSpmv> transpose_, conjugate_transpose_;
  /// With transposed copies: where each of A's entries lands in op(A) (transposed_positions),
  /// and the buffer refresh moves them through.
  Kokkos::View<int*, memory_space> transposed_positions_;
  mutable Kokkos::View<Entry*, memory_space> transposed_values_;
  const registry_type* registry_;
  VariantKey key_;
  std::string multivector_layout_;
  std::map<int, VariantKey> spmm_keys_;  ///< by vector bucket
  std::map<int, int> spmm_blocks_;       ///< by vector bucket: the vectors a product takes
  std::string rule_;
  std::string explanation_;
  int tuning_spmvs_ = 0;
  matrix_type matrix_;
};

}  // namespace compound_sparse
