#pragma once
// Reordering a square matrix so that each row's columns lie near it, host side:
//
//   reverse_cuthill_mckee(A)          a permutation that gathers each row's columns near it
//   permuted(A, order)                P A Pᵀ for that permutation (order[new] = old)
//   permuted_vector(v, order)         v in the new numbering; unpermuted_vector: back
//
// Why: a product gathers x at each row's columns, and a numbering that puts a row's columns
// far from it makes those gathers miss the caches. The SpMM, which gathers k values a
// column, pays most: on an H100 dirac-torus-xl's product of 8 quaternion vectors ran 1.65x
// faster in this order and its SpMV 1.16x. The
// library does not reorder on its own: permuting x and y around every product would cost
// about what the order saves, so a solver reorders once and works in the new numbering.
// The distributed product uses it to shrink halos (distributed/partition.hpp).

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <utility>
#include <vector>

#include "../error.hpp"
#include "host_csr.hpp"

namespace compound_sparse {

namespace impl {

/// Row i of the result is row old_row(i) of `a` with each column c renamed new_column(c),
/// its columns sorted and repeated columns summed in their order: what csr_from_coo gives
/// for those triples, row by row instead of sorting every entry of the matrix at once
/// (permuted; DistributedSpmv's split of rows whose columns do not increase).
template <class Entry, class OldRow, class NewColumn>
HostCsr<Entry> rows_sorted_and_summed(const HostCsr<Entry>& a, int num_rows, int num_cols, OldRow old_row,
                                      NewColumn new_column) {
  HostCsr<Entry> p;
  p.num_rows = num_rows;
  p.num_cols = num_cols;
  p.row_offsets.reserve(static_cast<std::size_t>(num_rows) + 1);
  p.row_offsets.assign(1, 0);
  p.col_indices.reserve(a.col_indices.size());
  p.values.reserve(a.values.size());
  std::vector<std::pair<int, int>> row;  // (new column, entry)
  for (int i = 0; i < num_rows; ++i) {
    const int r = old_row(i);
    row.clear();
    for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k) row.emplace_back(new_column(a.col_indices[k]), k);
    std::stable_sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (std::size_t j = 0; j < row.size(); ++j) {
      if (j > 0 && row[j].first == row[j - 1].first) {
        p.values.back() = add_components(p.values.back(), a.values[row[j].second]);
      } else {
        p.col_indices.push_back(row[j].first);
        p.values.push_back(a.values[row[j].second]);
      }
    }
    p.row_offsets.push_back(static_cast<int>(p.col_indices.size()));
  }
  return p;
}

/// The inverse of `order` (position[old] = new), after checking that it is a permutation of
/// 0 .. n - 1: InvalidInput naming `operation`, the first bad position and why. An order of
/// the wrong length, a repeated or an out-of-range index would read or write past a vector.
inline std::vector<int> inverse_permutation(const std::vector<int>& order, std::size_t n, const char* operation) {
  COMPOUND_SPARSE_REQUIRE(order.size() == n, operation << ": an order of " << order.size() << " positions for " << n
                                                       << " rows or values; it must be a permutation of them");
  std::vector<int> position(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    const int old = order[i];
    COMPOUND_SPARSE_REQUIRE(old >= 0 && static_cast<std::size_t>(old) < n,
                            operation << ": the order is not a permutation: position " << i << " holds " << old
                                      << ", outside [0, " << n << ")");
    COMPOUND_SPARSE_REQUIRE(position[old] < 0, operation << ": the order is not a permutation: " << old
                                                         << " is at positions " << position[old] << " and " << i);
    position[old] = static_cast<int>(i);
  }
  return position;
}

}  // namespace impl

/// Reverse Cuthill-McKee on the symmetrised pattern of the square matrix a: each
/// connected component from a vertex of least degree, breadth first, neighbours in order
/// of increasing degree, the whole order then reversed. order[new] = old. Deterministic
/// (ties by index).
template <class Entry>
std::vector<int> reverse_cuthill_mckee(const HostCsr<Entry>& a) {
  validate(a, "reverse_cuthill_mckee");  // its loops index by the offsets and columns
  COMPOUND_SPARSE_REQUIRE(a.num_rows == a.num_cols, "reverse_cuthill_mckee: the matrix is "
                                                        << a.num_rows << " x " << a.num_cols << ", not square");
  const int n = a.num_rows;
  // A + Aᵀ without the diagonal, as one array of neighbour lists (first[u] .. first[u] +
  // degree[u]), sorted and without repeats: a list per vertex grown entry by entry spent most
  // of the ordering's time allocating for the xl grids' millions of rows.
  std::vector<std::size_t> first(static_cast<std::size_t>(n) + 1, 0);
  for (int r = 0; r < n; ++r)
    for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
      if (a.col_indices[k] != r) {
        ++first[r + 1];
        ++first[a.col_indices[k] + 1];
      }
  for (int u = 0; u < n; ++u) first[u + 1] += first[u];
  std::vector<int> neighbours(first[n]);
  std::vector<std::size_t> filled(first.begin(), first.end() - 1);
  for (int r = 0; r < n; ++r)
    for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k) {
      const int c = a.col_indices[k];
      if (c == r) continue;
      neighbours[filled[r]++] = c;
      neighbours[filled[c]++] = r;
    }
  std::vector<int> degree(n);
  for (int u = 0; u < n; ++u) {
    const auto begin = neighbours.begin() + first[u], end = neighbours.begin() + first[u + 1];
    std::sort(begin, end);
    degree[u] = static_cast<int>(std::unique(begin, end) - begin);
  }
  const auto by_degree = [&](int u, int v) { return degree[u] != degree[v] ? degree[u] < degree[v] : u < v; };
  std::vector<int> vertices(n);
  std::iota(vertices.begin(), vertices.end(), 0);
  std::stable_sort(vertices.begin(), vertices.end(), by_degree);
  std::vector<char> visited(n, 0);
  std::vector<int> order, next;
  order.reserve(n);
  for (const int start : vertices) {
    if (visited[start]) continue;
    visited[start] = 1;
    order.push_back(start);
    // Breadth first, `order` itself the queue: vertices leave it in the order they entered.
    for (std::size_t head = order.size() - 1; head < order.size(); ++head) {
      const int u = order[head];
      next.clear();
      for (std::size_t i = first[u]; i < first[u] + static_cast<std::size_t>(degree[u]); ++i)
        if (!visited[neighbours[i]]) {
          visited[neighbours[i]] = 1;
          next.push_back(neighbours[i]);
        }
      std::sort(next.begin(), next.end(), by_degree);
      order.insert(order.end(), next.begin(), next.end());
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

/// P A Pᵀ for the permutation `order` (order[new] = old): row and column `new` of the
/// result are row and column order[new] of a. InvalidInput unless a is a valid (validate),
/// square matrix and `order` a permutation of its rows.
template <class Entry>
HostCsr<Entry> permuted(const HostCsr<Entry>& a, const std::vector<int>& order) {
  validate(a, "permuted");
  COMPOUND_SPARSE_REQUIRE(a.num_rows == a.num_cols,
                          "permuted: the matrix is " << a.num_rows << " x " << a.num_cols << ", not square");
  const std::vector<int> position =
      impl::inverse_permutation(order, static_cast<std::size_t>(a.num_rows), "permuted");  // old -> new
  return impl::rows_sorted_and_summed(
      a, a.num_rows, a.num_cols, [&](int row) { return order[row]; }, [&](int column) { return position[column]; });
}

/// The values v[order[i]] in order i = 0 .. n - 1 (x in the permuted numbering), and back.
/// InvalidInput unless `order` is a permutation of v's n positions.
template <class Value>
std::vector<Value> permuted_vector(const std::vector<Value>& v, const std::vector<int>& order) {
  impl::inverse_permutation(order, v.size(), "permuted_vector");
  std::vector<Value> out(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) out[i] = v[order[i]];
  return out;
}
template <class Value>
std::vector<Value> unpermuted_vector(const std::vector<Value>& v, const std::vector<int>& order) {
  impl::inverse_permutation(order, v.size(), "unpermuted_vector");
  std::vector<Value> out(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) out[order[i]] = v[i];
  return out;
}

}  // namespace compound_sparse
