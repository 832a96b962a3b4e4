// Matrix features and the pattern fingerprint (include/compound_sparse/tuning/features.hpp).
#include "compound_sparse/tuning/features.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace compound_sparse {

namespace {
/// 64-bit FNV-1a: tiny, stable across platforms and releases (the fingerprint
/// is stored in committed databases, so std::hash, which may change, will not do).
struct Fnv1a {
  std::uint64_t h = 14695981039346656037ull;
  void bytes(const void* p, std::size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
  }
  void integer(std::int64_t v) {  // little-endian byte order whatever the host's
    unsigned char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>((static_cast<std::uint64_t>(v) >> (8 * i)) & 0xff);
    bytes(b, 8);
  }
  void text(const std::string& s) {
    integer(static_cast<std::int64_t>(s.size()));
    bytes(s.data(), s.size());
  }
};
}  // namespace

MatrixFeatures features_from_sums(const PatternSums& sums, const std::string& entry_type,
                                  const std::string& precision) {
  MatrixFeatures f;
  f.entry_type = entry_type;
  f.precision = precision;
  f.rows = sums.rows;
  f.cols = sums.cols;
  f.nnz = sums.nnz;
  f.nnz_per_row_max = static_cast<double>(sums.longest_row);
  f.bandwidth_max = static_cast<double>(sums.bandwidth_max);
  if (sums.rows > 0) {
    const double rows = static_cast<double>(sums.rows);
    f.nnz_per_row_mean = static_cast<double>(sums.nnz) / rows;
    f.nnz_per_row_stddev = std::sqrt(
        std::max(0.0, static_cast<double>(sums.row_length_squares) / rows - f.nnz_per_row_mean * f.nnz_per_row_mean));
    f.bandwidth_mean = static_cast<double>(sums.bandwidth_sum) / rows;
  }
  Fnv1a hash;
  hash.text(entry_type);
  hash.text(precision);
  hash.integer(sums.rows);
  hash.integer(sums.cols);
  hash.integer(static_cast<std::int64_t>(sums.pattern_hash));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash.h));
  f.fingerprint = hex;
  return f;
}

MatrixFeatures pattern_features(int num_rows, int num_cols, const std::vector<int>& row_offsets,
                                const std::vector<int>& col_indices, const std::string& entry_type,
                                const std::string& precision) {
  validate_pattern(num_rows, num_cols, row_offsets, col_indices, "matrix features");
  PatternSums sums;
  sums.rows = num_rows;
  sums.cols = num_cols;
  sums.nnz = static_cast<long long>(col_indices.size());
  for (int r = 0; r < num_rows; ++r) {
    const long long length = row_offsets[r + 1] - row_offsets[r];
    sums.row_length_squares += static_cast<std::uint64_t>(length * length);
    sums.longest_row = std::max(sums.longest_row, length);
    long long bandwidth = 0;
    for (int k = row_offsets[r]; k < row_offsets[r + 1]; ++k)
      bandwidth = std::max(bandwidth, std::llabs(static_cast<long long>(col_indices[k]) - r));
    sums.bandwidth_sum += static_cast<std::uint64_t>(bandwidth);
    sums.bandwidth_max = std::max(sums.bandwidth_max, bandwidth);
  }
  std::uint64_t position = 0;
  for (int offset : row_offsets) sums.pattern_hash += pattern_word_hash(position++, offset);
  for (int col : col_indices) sums.pattern_hash += pattern_word_hash(position++, col);
  return features_from_sums(sums, entry_type, precision);
}

}  // namespace compound_sparse
