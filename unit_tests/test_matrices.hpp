#pragma once
// Random test matrices and vectors with the shapes that break SpMV kernels:
// empty rows, one row far longer than the rest, rows of power-law lengths, 1x1,
// non-square, empty matrices, and row counts that are not multiples of 16 or 32.

#include <algorithm>
#include <compound_sparse/layouts/host_csr.hpp>
#include <random>
#include <string>
#include <vector>

namespace compound_sparse_test {

/// A value whose every component is uniform in [-1, 1] (never all zero).
template <class T>
T random_value(std::mt19937& rng) {
  using traits = compound_sparse::component_traits<T>;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  T v;
  for (int c = 0; c < traits::size; ++c) traits::get(v, c) = static_cast<typename traits::scalar_type>(u(rng));
  return v;
}

template <class T>
std::vector<T> random_vector(std::size_t n, std::mt19937& rng) {
  std::vector<T> v(n);
  for (auto& e : v) e = random_value<T>(rng);
  return v;
}

/// `num_rows` rows of which only the first holds entries, `value` at columns
/// 0..length-1: padded layouts store num_rows * length slots (ELL pads every row
/// to the longest), CSR stores `length`.
template <class Entry>
compound_sparse::HostCsr<Entry> one_long_row(int num_rows, int length, const Entry& value) {
  compound_sparse::HostCsr<Entry> a;
  a.num_rows = num_rows;
  a.num_cols = length;
  a.row_offsets.assign(static_cast<std::size_t>(num_rows) + 1, length);
  a.row_offsets[0] = 0;
  for (int c = 0; c < length; ++c) {
    a.col_indices.push_back(c);
    a.values.push_back(value);
  }
  return a;
}

/// Rows of random length in [min_len, max_len] (capped by num_cols), distinct
/// random columns in random order; `long_row` (if >= 0) gets every column.
template <class Entry>
compound_sparse::HostCsr<Entry> random_csr(int num_rows, int num_cols, int min_len, int max_len, int long_row,
                                           std::mt19937& rng) {
  compound_sparse::HostCsr<Entry> a;
  a.num_rows = num_rows;
  a.num_cols = num_cols;
  std::vector<int> columns(num_cols);
  for (int c = 0; c < num_cols; ++c) columns[c] = c;
  for (int r = 0; r < num_rows; ++r) {
    int len = std::uniform_int_distribution<int>(min_len, max_len)(rng);
    if (r == long_row) len = num_cols;
    len = std::min(len, num_cols);
    std::shuffle(columns.begin(), columns.end(), rng);
    for (int k = 0; k < len; ++k) {
      a.col_indices.push_back(columns[k]);
      a.values.push_back(random_value<Entry>(rng));
    }
    a.row_offsets.push_back(static_cast<int>(a.col_indices.size()));
  }
  return a;
}

/// Irregular rows: most of 1-6 non-zeros, lengths of a power law (P(len >= L) ~
/// 1/L) up to every column, a few empty rows, and the last row full.
template <class Entry>
compound_sparse::HostCsr<Entry> power_law_csr(int num_rows, int num_cols, std::mt19937& rng) {
  compound_sparse::HostCsr<Entry> a;
  a.num_rows = num_rows;
  a.num_cols = num_cols;
  std::vector<int> columns(num_cols);
  for (int c = 0; c < num_cols; ++c) columns[c] = c;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int r = 0; r < num_rows; ++r) {
    int len = r % 97 == 5 ? 0 : static_cast<int>(std::min<double>(num_cols, 1.0 / std::max(u(rng), 1e-9)));
    if (r == num_rows - 1) len = num_cols;
    for (int k = 0; k < len; ++k) std::swap(columns[k], columns[k + rng() % (num_cols - k)]);
    for (int k = 0; k < len; ++k) {
      a.col_indices.push_back(columns[k]);
      a.values.push_back(random_value<Entry>(rng));
    }
    a.row_offsets.push_back(static_cast<int>(a.col_indices.size()));
  }
  return a;
}

template <class Entry>
struct NamedMatrix {
  std::string name;
  compound_sparse::HostCsr<Entry> matrix;
};

/// The standard set every variant is tested on.
template <class Entry>
std::vector<NamedMatrix<Entry>> test_matrices(unsigned seed) {
  std::mt19937 rng(seed);
  return {
      {"random_257x193_with_empty_rows", random_csr<Entry>(257, 193, 0, 12, -1, rng)},
      {"one_long_row_100x300", random_csr<Entry>(100, 300, 0, 3, 37, rng)},
      {"one_by_one", random_csr<Entry>(1, 1, 1, 1, -1, rng)},
      {"wide_3x500", random_csr<Entry>(3, 500, 20, 60, -1, rng)},
      {"tall_77x5", random_csr<Entry>(77, 5, 0, 5, -1, rng)},
      {"no_entries_40x40", random_csr<Entry>(40, 40, 0, 0, -1, rng)},
      {"no_columns_33x0", random_csr<Entry>(33, 0, 0, 0, -1, rng)},
      {"no_rows_0x5", random_csr<Entry>(0, 5, 0, 0, -1, rng)},
      {"dense_rows_1000x64", random_csr<Entry>(1000, 64, 30, 64, -1, rng)},
      // One row holding nearly all non-zeros: split across many workers (and
      // whole workers inside it) by the merge-path schedule.
      {"huge_row_61x5000", random_csr<Entry>(61, 5000, 0, 2, 29, rng)},
      {"power_law_3001x3001", power_law_csr<Entry>(3001, 3001, rng)},
  };
}

}  // namespace compound_sparse_test
