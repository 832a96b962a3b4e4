#pragma once
// Partitioning a square matrix's rows among ranks for the distributed product
// (distributed_spmv.hpp):
//
//   balanced_row_partition(A, parts)  contiguous row blocks of about equal non-zeros
//   halo_sizes(A, partition)          the remote columns each part's rows read
//
// The bandwidth-reducing reordering that shrinks the halos (reverse_cuthill_mckee, permuted)
// is ../reordering.hpp, included here: it serves one GPU as well.
//
// Contiguous blocks keep the diagonal block of a rank a plain slice and the halo of a
// rank, once its columns are sorted, grouped by the owning rank: the exchange sends one
// message per neighbour. None of this needs MPI.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../error.hpp"
#include "../layouts/host_csr.hpp"
#include "../layouts/reordering.hpp"

namespace compound_sparse {

/// Rows [starts[p], starts[p + 1]) belong to part p.
struct RowPartition {
  std::vector<int> starts{0};

  int parts() const { return static_cast<int>(starts.size()) - 1; }
  int rows() const { return starts.back(); }
  int begin(int part) const { return starts.at(part); }
  int end(int part) const { return starts.at(part + 1); }
  int size(int part) const { return end(part) - begin(part); }
  /// The part holding `row`: the last part whose block starts at or before it (empty
  /// parts are skipped).
  int owner(int row) const {
    COMPOUND_SPARSE_REQUIRE(row >= 0 && row < rows(),
                            "RowPartition::owner: row " << row << " outside [0, " << rows() << ")");
    return static_cast<int>(std::upper_bound(starts.begin(), starts.end(), row) - starts.begin()) - 1;
  }
};

/// Throws InvalidInput unless `partition` is well formed: at least one part, its first
/// block starting at row 0 and no block starting before the previous one. `operation`
/// names the caller in the message.
inline void validate(const RowPartition& partition, const char* operation) {
  const auto& s = partition.starts;
  COMPOUND_SPARSE_REQUIRE(s.size() >= 2, operation << ": a partition into " << static_cast<long long>(s.size()) - 1
                                                   << " parts; it needs at least one");
  COMPOUND_SPARSE_REQUIRE(s.front() == 0,
                          operation << ": the partition's first part starts at row " << s.front() << ", not 0");
  for (std::size_t p = 1; p < s.size(); ++p)
    COMPOUND_SPARSE_REQUIRE(s[p - 1] <= s[p], operation << ": part " << p - 1 << " of the partition starts at row "
                                                        << s[p - 1] << ", after part " << p << " (row " << s[p]
                                                        << "); blocks must follow each other");
}

/// Contiguous blocks of rows, part p ending where the running weight (the row's non-zeros
/// plus 1, so that empty rows count too) first reaches p + 1 shares of the total. A part
/// may be empty when a single row outweighs a share. InvalidInput for parts < 1.
template <class Entry>
RowPartition balanced_row_partition(const HostCsr<Entry>& a, int parts) {
  validate(a, "balanced_row_partition");
  COMPOUND_SPARSE_REQUIRE(parts >= 1, "balanced_row_partition: " << parts << " parts; at least 1");
  RowPartition p;
  p.starts.assign(static_cast<std::size_t>(parts) + 1, a.num_rows);
  p.starts[0] = 0;
  const double total = static_cast<double>(a.num_entries()) + a.num_rows;
  double running = 0;
  int part = 1;
  for (int r = 0; r < a.num_rows && part < parts; ++r) {
    running += a.row_length(r) + 1;
    while (part < parts && running >= total * part / parts) p.starts[part++] = r + 1;
  }
  return p;
}

/// The number of distinct remote columns (columns owned by another part) each part's rows
/// read: the values its halo exchange receives per product.
template <class Entry>
std::vector<std::int64_t> halo_sizes(const HostCsr<Entry>& a, const RowPartition& partition) {
  validate(a, "halo_sizes");
  validate(partition, "halo_sizes");
  COMPOUND_SPARSE_REQUIRE(partition.rows() == a.num_rows && a.num_rows == a.num_cols,
                          "halo_sizes: a partition of " << partition.rows() << " rows for a " << a.num_rows << " x "
                                                        << a.num_cols << " matrix");
  std::vector<std::int64_t> sizes(partition.parts(), 0);
  std::vector<int> seen(a.num_cols, -1);  // last part that counted the column
  for (int p = 0; p < partition.parts(); ++p)
    for (int r = partition.begin(p); r < partition.end(p); ++r)
      for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k) {
        const int c = a.col_indices[k];
        if ((c < partition.begin(p) || c >= partition.end(p)) && seen[c] != p) {
          seen[c] = p;
          ++sizes[p];
        }
      }
  return sizes;
}

}  // namespace compound_sparse
