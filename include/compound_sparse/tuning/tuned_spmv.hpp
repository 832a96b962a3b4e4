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
// names no usable variant, is not an error: the heuristic is used, and a warning
// goes to the warning sink (warnings.hpp: std::cerr unless the application set
// one; each distinct warning once per process) and into explanation().
// The chosen layout always fits options.budget when any layout does; when none
// does, construction throws compound_sparse::BudgetExceeded from the conversion.
// A matrix with a row too long for one lane group on this device
// (dense_row_threshold) always gets a kind that splits rows (merge_path), so no
// choice serialises that row.

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "../registry.hpp"
#include "../warnings.hpp"
#include "database.hpp"
#include "selection.hpp"

namespace compound_sparse {

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
};

/// The database for this device, or null; `note` says which file or why none.
struct LoadedDatabase {
  std::shared_ptr<const TuningDatabase> db;
  std::string note;
  std::vector<std::string> warnings;
};
LoadedDatabase load_device_database(const DeviceInfo& device, const std::string& database_dir);

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
    const auto* registry = registry_;
    const std::uint64_t max_bytes = options.budget.max_bytes;
    context.fits = [registry, &a, max_bytes](const std::string& outer) {
      return registry->memory_bytes(outer, a) <= max_bytes;
    };
    const std::string vector_layout = options.vector_layout;
    const auto& inners = inner_layout_names();
    COMPOUND_SPARSE_REQUIRE(
        vector_layout.empty() || std::find(inners.begin(), inners.end(), vector_layout) != inners.end(),
        "TunedSpmvOptions::vector_layout must be empty or an inner layout (" << impl::joined(inners) << "), got '"
                                                                             << vector_layout << "'");
    context.usable = [registry, &a, max_bytes, vector_layout](const VariantKey& key, std::string& why) {
      if (!vector_layout.empty() && key.vector != vector_layout) {
        why = "vector layout " + key.vector + ", the caller's vectors are " + vector_layout;
        return false;
      }
      if (!registry->contains(key)) {
        why = "not compiled into this build";
        return false;
      }
      const std::uint64_t bytes = registry->memory_bytes(key.outer, a);
      if (bytes > max_bytes) {
        why = key.outer + " needs " + std::to_string(bytes) + " bytes, over the budget of " + std::to_string(max_bytes);
        return false;
      }
      return true;
    };
    const MatrixFeatures features = matrix_features(a);
    context.dense_row_threshold = options.dense_row_threshold >= 0
                                      ? options.dense_row_threshold
                                      : dense_row_threshold(features, default_device_info());
    Selection s = select_variant(features, loaded.db.get(), loaded.note, context);
    std::vector<std::string> warnings = loaded.warnings;
    warnings.insert(warnings.end(), s.warnings.begin(), s.warnings.end());
    key_ = s.key;
    rule_ = s.rule;
    explanation_ = "variant " + key_.name() + "; " + s.explanation;
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
  }

  const VariantKey& variant() const { return key_; }
  const std::string& rule() const { return rule_; }  ///< "exact", "nearest" or "heuristic"
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

 private:
  const registry_type* registry_;
  VariantKey key_;
  std::string rule_;
  std::string explanation_;
  matrix_type matrix_;
};

}  // namespace compound_sparse
