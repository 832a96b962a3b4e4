#include "compound_sparse/zoo/row_statistics.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace compound_sparse {
namespace zoo {

Quartiles quartiles(std::vector<long long>& v) {
  Quartiles q;
  if (v.empty()) return q;
  std::sort(v.begin(), v.end());
  const auto at = [&](int quarter) { return v[static_cast<std::size_t>(quarter * (v.size() - 1) / 4)]; };
  q.min = v.front();
  q.q1 = at(1);
  q.median = at(2);
  q.q3 = at(3);
  q.max = v.back();
  return q;
}

RowStatistics row_statistics(int num_rows, const std::vector<int>& row_offsets, const std::vector<int>& col_indices) {
  // Columns are not bounded by a width here; any non-negative column is a band.
  validate_pattern(num_rows, std::numeric_limits<int>::max(), row_offsets, col_indices, "row_statistics");
  std::vector<long long> nnz(num_rows), band(num_rows);
  for (int r = 0; r < num_rows; ++r) {
    nnz[r] = row_offsets[r + 1] - row_offsets[r];
    long long b = 0;
    for (int p = row_offsets[r]; p < row_offsets[r + 1]; ++p) b = std::max<long long>(b, std::abs(col_indices[p] - r));
    band[r] = b;
  }
  RowStatistics s;
  s.nnz_per_row = quartiles(nnz);
  s.bandwidth_per_row = quartiles(band);
  return s;
}

}  // namespace zoo
}  // namespace compound_sparse
