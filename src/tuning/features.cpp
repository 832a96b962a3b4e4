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

MatrixFeatures pattern_features(int num_rows, int num_cols, const std::vector<int>& row_offsets,
                                const std::vector<int>& col_indices, const std::string& entry_type,
                                const std::string& precision) {
  validate_pattern(num_rows, num_cols, row_offsets, col_indices, "matrix features");
  MatrixFeatures f;
  f.entry_type = entry_type;
  f.precision = precision;
  f.rows = num_rows;
  f.cols = num_cols;
  f.nnz = static_cast<long long>(col_indices.size());
  double sum_sq = 0, bandwidth_sum = 0;
  for (int r = 0; r < num_rows; ++r) {
    const double length = row_offsets[r + 1] - row_offsets[r];
    sum_sq += length * length;
    f.nnz_per_row_max = std::max(f.nnz_per_row_max, length);
    long long bandwidth = 0;
    for (int k = row_offsets[r]; k < row_offsets[r + 1]; ++k)
      bandwidth = std::max(bandwidth, std::llabs(static_cast<long long>(col_indices[k]) - r));
    bandwidth_sum += static_cast<double>(bandwidth);
    f.bandwidth_max = std::max(f.bandwidth_max, static_cast<double>(bandwidth));
  }
  if (num_rows > 0) {
    f.nnz_per_row_mean = static_cast<double>(f.nnz) / num_rows;
    f.nnz_per_row_stddev = std::sqrt(std::max(0.0, sum_sq / num_rows - f.nnz_per_row_mean * f.nnz_per_row_mean));
    f.bandwidth_mean = bandwidth_sum / num_rows;
  }
  Fnv1a hash;
  hash.text(entry_type);
  hash.text(precision);
  hash.integer(num_rows);
  hash.integer(num_cols);
  for (int offset : row_offsets) hash.integer(offset);
  for (int col : col_indices) hash.integer(col);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash.h));
  f.fingerprint = hex;
  return f;
}

}  // namespace compound_sparse
