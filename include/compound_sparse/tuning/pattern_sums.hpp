#pragma once
// The integer sums a matrix's features and fingerprint are made of (features.hpp), in one
// form for the host and the device: integers add in any order to the same bits, so a
// pattern's features are the same wherever they were summed.

#include <Kokkos_Macros.hpp>
#include <cstdint>

namespace compound_sparse {

/// Sums over a sparsity pattern's rows; features_from_sums turns them into MatrixFeatures.
struct PatternSums {
  long long rows = 0;
  long long cols = 0;
  long long nnz = 0;
  long long longest_row = 0;
  std::uint64_t row_length_squares = 0;  ///< sum over rows of length²
  std::uint64_t bandwidth_sum = 0;       ///< sum over rows of max |j - i|
  long long bandwidth_max = 0;
  /// Sum of pattern_word_hash over the row offsets and the column indices, as one sequence.
  std::uint64_t pattern_hash = 0;
};

/// One word of a pattern, the row offsets then the column indices, hashed with its
/// position in that sequence: the fingerprint is the sum of these, which device threads
/// add in any order. The mix is splitmix64's finaliser (a bijection), so a word moved,
/// changed or dropped changes the sum.
KOKKOS_INLINE_FUNCTION std::uint64_t pattern_word_hash(std::uint64_t position, long long word) {
  std::uint64_t z = (position << 32 | (static_cast<std::uint64_t>(word) & 0xffffffffull)) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace compound_sparse
