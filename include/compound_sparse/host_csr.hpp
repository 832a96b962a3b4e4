#pragma once
// Host-side compressed sparse row matrices with compound entries: the exchange
// format of the library. Every device layout is built from a HostCsr and can be
// turned back into one; I/O and generators produce HostCsr.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "components.hpp"
#include "error.hpp"

namespace compound_sparse {

/// CSR on the host, entries in AoS (std::vector<Entry>). Indices are 32-bit,
/// matching the device layouts; columns within a row need not be sorted.
template <class Entry>
struct HostCsr {
  using entry_type = Entry;
  int num_rows = 0;
  int num_cols = 0;
  std::vector<int> row_offsets{0};  ///< num_rows + 1 offsets into col_indices / values
  std::vector<int> col_indices;
  std::vector<Entry> values;

  std::size_t num_entries() const { return col_indices.size(); }
  int row_length(int row) const { return row_offsets[row + 1] - row_offsets[row]; }
};

/// A matrix with a's pattern whose entries are f(each entry of a), in order: a's
/// entries in another type or precision (to_mixed, widened).
template <class Entry, class F>
auto map_entries(const HostCsr<Entry>& a, F&& f) {
  HostCsr<std::decay_t<decltype(f(std::declval<const Entry&>()))>> m;
  m.num_rows = a.num_rows;
  m.num_cols = a.num_cols;
  m.row_offsets = a.row_offsets;
  m.col_indices = a.col_indices;
  m.values.reserve(a.values.size());
  for (const Entry& e : a.values) m.values.push_back(f(e));
  return m;
}

/// One (row, column, value) triple of a coordinate-format matrix.
template <class Entry>
struct CooEntry {
  int row;
  int col;
  Entry value;
};

/// Throws compound_sparse::Error if `a` is not a consistent CSR matrix: negative
/// sizes, offsets of the wrong length, decreasing or out-of-range offsets, column
/// indices outside [0, num_cols), or values and column indices of different length.
template <class Entry>
void validate(const HostCsr<Entry>& a) {
  COMPOUND_SPARSE_REQUIRE(a.num_rows >= 0 && a.num_cols >= 0,
                          "matrix size " << a.num_rows << " x " << a.num_cols << " is negative");
  COMPOUND_SPARSE_REQUIRE(
      a.row_offsets.size() == static_cast<std::size_t>(a.num_rows) + 1,
      "row_offsets has " << a.row_offsets.size() << " entries, expected num_rows + 1 = " << a.num_rows + 1);
  COMPOUND_SPARSE_REQUIRE(a.values.size() == a.col_indices.size(),
                          "values has " << a.values.size() << " entries but col_indices has " << a.col_indices.size());
  COMPOUND_SPARSE_REQUIRE(a.row_offsets.front() == 0, "row_offsets[0] is " << a.row_offsets.front() << ", expected 0");
  COMPOUND_SPARSE_REQUIRE(
      static_cast<std::size_t>(a.row_offsets.back()) == a.col_indices.size(),
      "row_offsets[num_rows] is " << a.row_offsets.back() << " but there are " << a.col_indices.size() << " entries");
  for (int r = 0; r < a.num_rows; ++r)
    COMPOUND_SPARSE_REQUIRE(a.row_offsets[r] <= a.row_offsets[r + 1], "row_offsets decrease at row "
                                                                          << r << " (" << a.row_offsets[r] << " > "
                                                                          << a.row_offsets[r + 1] << ")");
  for (int r = 0; r < a.num_rows; ++r)
    for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
      COMPOUND_SPARSE_REQUIRE(
          a.col_indices[k] >= 0 && a.col_indices[k] < a.num_cols,
          "column index " << a.col_indices[k] << " in row " << r << " is outside [0, " << a.num_cols << ")");
}

/// Component-wise sum, valid for every entry type (entries are linear in their components).
template <class T>
T add_components(const T& a, const T& b) {
  using traits = component_traits<T>;
  T sum = a;
  for (int c = 0; c < traits::size; ++c) traits::get(sum, c) += traits::get(b, c);
  return sum;
}

/// Builds a CSR matrix from coordinate triples in any order; duplicates
/// (same row and column) are summed. Columns end up sorted within each row.
template <class Entry>
HostCsr<Entry> csr_from_coo(int num_rows, int num_cols, std::vector<CooEntry<Entry>> entries) {
  COMPOUND_SPARSE_REQUIRE(num_rows >= 0 && num_cols >= 0,
                          "matrix size " << num_rows << " x " << num_cols << " is negative");
  for (const auto& e : entries)
    COMPOUND_SPARSE_REQUIRE(e.row >= 0 && e.row < num_rows && e.col >= 0 && e.col < num_cols,
                            "coordinate entry (" << e.row << ", " << e.col << ") is outside the " << num_rows << " x "
                                                 << num_cols << " matrix");
  std::stable_sort(entries.begin(), entries.end(), [](const CooEntry<Entry>& a, const CooEntry<Entry>& b) {
    return a.row != b.row ? a.row < b.row : a.col < b.col;
  });
  HostCsr<Entry> csr;
  csr.num_rows = num_rows;
  csr.num_cols = num_cols;
  csr.row_offsets.assign(static_cast<std::size_t>(num_rows) + 1, 0);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    if (!csr.col_indices.empty() && i > 0 && entries[i - 1].row == e.row && entries[i - 1].col == e.col) {
      csr.values.back() = add_components(csr.values.back(), e.value);
      continue;
    }
    COMPOUND_SPARSE_REQUIRE_KIND(BudgetExceeded,
                                 csr.col_indices.size() < static_cast<std::size_t>(std::numeric_limits<int>::max()),
                                 "more than 2^31-1 non-zeros do not fit 32-bit offsets");
    csr.col_indices.push_back(e.col);
    csr.values.push_back(e.value);
    ++csr.row_offsets[e.row + 1];
  }
  for (int r = 0; r < num_rows; ++r) csr.row_offsets[r + 1] += csr.row_offsets[r];
  return csr;
}

}  // namespace compound_sparse
