#pragma once
// Host-side compressed sparse row matrices with compound entries: the exchange
// format of the library. Every device layout is built from a HostCsr and can be
// turned back into one; I/O and generators produce HostCsr.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../entries/components.hpp"
#include "../error.hpp"

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

/// Throws compound_sparse::InvalidInput unless num_rows, num_cols, row_offsets and
/// col_indices are a consistent CSR pattern: sizes not negative, num_rows + 1 offsets from
/// 0, never decreasing, to the number of column indices, each column in [0, num_cols).
/// `operation`, where given, names the caller at the start of the message.
inline void validate_pattern(int num_rows, int num_cols, const std::vector<int>& row_offsets,
                             const std::vector<int>& col_indices, const char* operation = nullptr) {
  const std::string at = operation != nullptr ? std::string(operation) + ": " : std::string();
  COMPOUND_SPARSE_REQUIRE(num_rows >= 0 && num_cols >= 0,
                          at << "matrix size " << num_rows << " x " << num_cols << " is negative");
  COMPOUND_SPARSE_REQUIRE(row_offsets.size() == static_cast<std::size_t>(num_rows) + 1,
                          at << "row_offsets has " << row_offsets.size()
                             << " entries, expected num_rows + 1 = " << static_cast<std::int64_t>(num_rows) + 1);
  COMPOUND_SPARSE_REQUIRE(row_offsets.front() == 0,
                          at << "row_offsets[0] is " << row_offsets.front() << ", expected 0");
  COMPOUND_SPARSE_REQUIRE(
      row_offsets.back() >= 0 && static_cast<std::size_t>(row_offsets.back()) == col_indices.size(),
      at << "row_offsets[num_rows] is " << row_offsets.back() << " but there are " << col_indices.size() << " entries");
  for (int r = 0; r < num_rows; ++r)
    COMPOUND_SPARSE_REQUIRE(row_offsets[r] <= row_offsets[r + 1], at << "row_offsets decrease at row " << r << " ("
                                                                     << row_offsets[r] << " > " << row_offsets[r + 1]
                                                                     << ")");
  for (int r = 0; r < num_rows; ++r)
    for (int k = row_offsets[r]; k < row_offsets[r + 1]; ++k)
      COMPOUND_SPARSE_REQUIRE(col_indices[k] >= 0 && col_indices[k] < num_cols,
                              at << "column index " << col_indices[k] << " in row " << r << " (entry " << k
                                 << ") is outside [0, " << num_cols << ")");
}

/// Throws compound_sparse::InvalidInput if `a` is not a consistent CSR matrix: its
/// pattern (validate_pattern), and as many values as column indices. Every public
/// function that takes a HostCsr calls it (or reaches it before reading the rows).
template <class Entry>
void validate(const HostCsr<Entry>& a, const char* operation = nullptr) {
  COMPOUND_SPARSE_REQUIRE(a.values.size() == a.col_indices.size(),
                          (operation != nullptr ? std::string(operation) + ": " : std::string())
                              << "values has " << a.values.size() << " entries but col_indices has "
                              << a.col_indices.size());
  validate_pattern(a.num_rows, a.num_cols, a.row_offsets, a.col_indices, operation);
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
