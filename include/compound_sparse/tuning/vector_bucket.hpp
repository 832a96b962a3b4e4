#pragma once
// The number of vectors as a tuned dimension: SpMM (spmm.hpp) with k vectors is
// measured, stored in the tuning database and selected at k = 1, 2, 4, 8 and 16, the
// buckets; a product with any other k uses its nearest bucket (vector_bucket). The best
// variant moves with k (one SpMV reads a row's entries once per vector, an SpMM once for
// k; the tile of vectors a thread keeps changes its registers), but between the buckets
// only gradually: the lab's times per vector changed by
// less between k = 4 and 8 than between 1 and 2.

#include <array>
#include <cmath>
#include <string>

#include "../error.hpp"

namespace compound_sparse {

/// The k recorded by the tuner and used by selection.
constexpr std::array<int, 5> vector_buckets = {1, 2, 4, 8, 16};

/// Whether k is one of vector_buckets.
constexpr bool is_vector_bucket(int k) {
  for (const int b : vector_buckets)
    if (b == k) return true;
  return false;
}

/// The bucket nearest to k vectors on a log scale (ties go up: 3 -> 4, 6 -> 8, 12 -> 16),
/// 16 for k above it. InvalidInput for k < 1.
inline int vector_bucket(int k) {
  COMPOUND_SPARSE_REQUIRE(k >= 1, "vector_bucket: " << k << " vectors; a product needs at least 1");
  int best = vector_buckets.front();
  for (const int b : vector_buckets)
    if (std::abs(std::log2(double(k) / b)) <= std::abs(std::log2(double(k) / best)) + 1e-12) best = b;
  return best;
}

}  // namespace compound_sparse
