#pragma once
// What the tuning database knows a matrix by: its features (sizes, row-length
// statistics, bandwidth) for the nearest-neighbour rule, and a fingerprint of its
// sparsity pattern for the exact rule (selection.hpp).
//
// The fingerprint hashes the sparsity pattern (sizes, row offsets, column indices)
// and the entry type and precision, not the values: SpMV speed depends on the pattern,
// and a solver that re-assembles its matrix with new values each step should keep
// hitting the same record. The pattern's part is a sum of hashed words
// (pattern_sums.hpp), so a matrix on the device is fingerprinted there
// (device_features.hpp) to the same bits as its HostCsr here.

#include <string>
#include <type_traits>
#include <vector>

#include "../entries/entry_traits.hpp"
#include "../entries/mixed_precision.hpp"  // precision_name
#include "../io/compound_format.hpp"
#include "../layouts/host_csr.hpp"
#include "pattern_sums.hpp"

namespace compound_sparse {

/// What selection compares matrices by (docs/tuning.md lists the distance).
struct MatrixFeatures {
  std::string entry_type;  ///< "complex", "quaternion", "block3", ... (Matrix Market field)
  std::string precision;   ///< "float" or "double"
  long long rows = 0;
  long long cols = 0;
  long long nnz = 0;  ///< compound non-zeros
  double nnz_per_row_mean = 0;
  double nnz_per_row_max = 0;
  double nnz_per_row_stddev = 0;  ///< the spread of row lengths
  double bandwidth_mean = 0;      ///< mean over rows of max |j - i|
  double bandwidth_max = 0;
  std::string fingerprint;  ///< 16 hex digits, see above
};

/// Whether row lengths spread: stddev over half the mean, or the longest over 4 times
/// it. The heuristic gives such a matrix a dynamic schedule; the prior files it as
/// irregular (prior.hpp).
inline bool rows_spread(const MatrixFeatures& f) {
  return f.nnz_per_row_stddev > 0.5 * f.nnz_per_row_mean || f.nnz_per_row_max > 4 * f.nnz_per_row_mean;
}

/// The features and fingerprint of a pattern from its sums (pattern_sums.hpp).
MatrixFeatures features_from_sums(const PatternSums& sums, const std::string& entry_type, const std::string& precision);

/// Features of a sparsity pattern; entry_type and precision go into the fingerprint.
MatrixFeatures pattern_features(int num_rows, int num_cols, const std::vector<int>& row_offsets,
                                const std::vector<int>& col_indices, const std::string& entry_type,
                                const std::string& precision);

/// "complex", "quaternion", "block3", ...: the entry's Matrix Market field name.
template <class Entry>
std::string entry_type_name() {
  return io::mm_field<typename entry_traits<Entry>::template rebind<double>>::name();
}

template <class Entry>
MatrixFeatures matrix_features(const HostCsr<Entry>& a) {
  return pattern_features(a.num_rows, a.num_cols, a.row_offsets, a.col_indices, entry_type_name<Entry>(),
                          precision_name<Entry>());
}

}  // namespace compound_sparse
