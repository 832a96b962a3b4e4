#pragma once
// Per-row statistics of a sparsity pattern, as plotted in the published
// Figures 3 and 4: compound non-zeros per row and bandwidth per row, each
// summarised by min, quartiles and max.
// Bandwidth of row i: max |j - i| over its stored columns j (0 for an empty row).
// Quartile q of n sorted values v: v[floor(q (n - 1))] (a value that occurs).

#include <vector>

#include "../layouts/host_csr.hpp"

namespace compound_sparse {
namespace zoo {

struct Quartiles {
  long long min = 0, q1 = 0, median = 0, q3 = 0, max = 0;
};

struct RowStatistics {
  Quartiles nnz_per_row;
  Quartiles bandwidth_per_row;
};

/// Quartiles of `values` (sorted in place); all zero when empty.
Quartiles quartiles(std::vector<long long>& values);

RowStatistics row_statistics(int num_rows, const std::vector<int>& row_offsets, const std::vector<int>& col_indices);

template <class Entry>
RowStatistics row_statistics(const HostCsr<Entry>& a) {
  return row_statistics(a.num_rows, a.row_offsets, a.col_indices);
}

}  // namespace zoo
}  // namespace compound_sparse
