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
// (read_tuning_database_cached). Selection rules: selection.hpp. A missing, unreadable or corrupt database, or one that
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
// Quick tuning (quick_tune.hpp; options.quick_tune, by default QuickTune::Auto):
// when the database holds no record close to the matrix (the prior or the heuristic would decide,
// or the nearest record is farther than options.close_distance), TunedSpmv times a
// few candidates on the matrix itself, at most options.quick_tune_spmvs SpMVs in all,
// takes the fastest (rule "quick"), and stores what it timed in the per-user cache
// (tuning_cache.hpp), which is searched first: the next TunedSpmv for the same
// pattern is an exact hit and times nothing.

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../io/compound_format.hpp"  // mm_field<Entry>::has_conjugate
#include "../registry.hpp"
#include "../transpose.hpp"
#include "../warnings.hpp"
#include "database.hpp"
#include "quick_tune.hpp"
#include "selection.hpp"
#include "tuning_cache.hpp"

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
  /// (selection.hpp). 0.5 is a ratio of about 1.4 in every feature at once, or 2 in one
  /// of them: on the tuning zoo, the nearest records that selection ranked within 5% of
  /// the best were at most this far from the matrix (docs/tuning.md).
  double close_distance = 0.5;
  int quick_tune_spmvs = default_quick_tune_spmvs;  ///< budget of quick tuning, checks included
  /// The quick-tuning cache (tuning_cache.hpp): "" = default_tuning_cache_dir().
  std::string cache_dir;
  bool use_cache = true;  ///< false: the cache is neither read nor written
  /// The ops besides Op::N that apply(op, ...) will be asked for (Op::T, Op::H): each
  /// builds a tuned copy of op(A) at construction, its memory within `budget` with A's.
  std::vector<Op> transposes;
};

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
  using memory_space = typename Kokkos::DefaultExecutionSpace::memory_space;

  explicit TunedSpmv(const HostCsr<Entry>& a, const TunedSpmvOptions& options = {})
      : registry_(&variant_registry<Entry>()) {
    validate(a);
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
    const auto& inners = inner_layout_names();
    COMPOUND_SPARSE_REQUIRE(
        vector_layout.empty() || std::find(inners.begin(), inners.end(), vector_layout) != inners.end(),
        "TunedSpmvOptions::vector_layout must be empty or an inner layout (" << impl::joined(inners) << "), got '"
                                                                             << vector_layout << "'");
    context.usable = [registry, obstacle, vector_layout](const VariantKey& key, std::string& why) {
      if (!vector_layout.empty() && key.vector != vector_layout) {
        why = "vector layout " + key.vector + ", the caller's vectors are " + vector_layout;
        return false;
      }
      if (!registry->contains(key)) {
        why = "not compiled into this build";
        return false;
      }
      why = obstacle(key.outer);
      return why.empty();
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
    if (!cache_path.empty()) {
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

    COMPOUND_SPARSE_REQUIRE(
        options.quick_tune_spmvs >= 0,
        "TunedSpmvOptions::quick_tune_spmvs must not be negative, got " << options.quick_tune_spmvs);
    const bool close = s.rule == "exact" || (s.rule == "nearest" && s.distance <= options.close_distance);
    const bool wanted =
        !cached && (options.quick_tune == QuickTune::Always || (options.quick_tune == QuickTune::Auto && !close));
    const QuickTunePlan fits_budget =
        quick_tune_plan(max_quick_tune_candidates, options.quick_tune_spmvs, preferred_timing_mode());
    if (wanted && fits_budget.count == 0)
      explanation_ += "; no quick tuning: a budget of " + std::to_string(options.quick_tune_spmvs) +
                      " SpMVs times no candidate (one takes " + std::to_string(fits_budget.spmvs_per_candidate()) + ")";
    if (wanted && fits_budget.count > 0) {
      const VariantKey heuristic =
          heuristic_variant(features, context.compiled, context.fits, context.dense_row_threshold);
      std::vector<VariantKey> ranked = s.ranked;
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
      for (auto* list : {&ranked, &alternatives})
        list->erase(
            std::remove_if(list->begin(), list->end(),
                           [&](const VariantKey& k) { return !usable_here(k) || (dense && !splits_rows(k.kind)); }),
            list->end());
      const auto candidates = quick_tune_candidates(ranked, own, alternatives, max_quick_tune_candidates);
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
    if (!vector_layout.empty() && key_.vector != vector_layout) {  // the heuristic knows no constraint
      key_.vector = vector_layout;                                 // every variant is compiled for both vector layouts
      explanation_ += "; vector layout fixed to " + vector_layout + " by the caller";
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

  /// y = alpha A x + beta y; x and y must be in the chosen vector layout (make_vector).
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

 private:
  /// The tuned copies of options.transposes, each selected for op(A) with A's vector layout,
  /// within what A's layout left of the budget.
  void build_transposes(const HostCsr<Entry>& a, const TunedSpmvOptions& options) {
    const auto wanted = [&](Op op) {
      return std::find(options.transposes.begin(), options.transposes.end(), op) != options.transposes.end();
    };
    for (const Op op : options.transposes)
      COMPOUND_SPARSE_REQUIRE(op == Op::T || op == Op::H,
                              "TunedSpmvOptions::transposes holds Op::T or Op::H, got Op::" << to_string(op));
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
      const std::size_t used = memory_bytes();
      copy_options.budget.max_bytes = options.budget.max_bytes > used ? options.budget.max_bytes - used : 0;
      slot = std::make_shared<const TunedSpmv>(compound_sparse::transposed(a, op), copy_options);
      explanation_ += std::string("; A") + (op == Op::T ? "^T" : "^H") + ": " + slot->explanation();
    }
  }

  std::shared_ptr<const TunedSpmv> transpose_, conjugate_transpose_;
  const registry_type* registry_;
  VariantKey key_;
  std::string rule_;
  std::string explanation_;
  int tuning_spmvs_ = 0;
  matrix_type matrix_;
};

}  // namespace compound_sparse
