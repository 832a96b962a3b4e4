#pragma once
// Random draws that give the same numbers on every platform, for the irregular
// generators of the zoo. std::mt19937's output sequence is fixed by the standard,
// but std::uniform_real_distribution, std::uniform_int_distribution and the others
// are implementation-defined (libstdc++, libc++ and MSVC differ), so they would make
// the zoo's files depend on the standard library. These helpers compute from
// rng() alone, with integer arithmetic and correctly rounded floating-point
// operations (+, -, *, /, sqrt): identical results wherever doubles are IEEE 754.

#include <cstdint>
#include <random>

namespace compound_sparse {
namespace zoo {
namespace detail {

/// A uniform double in [0, 1): 53 random bits from two draws (27 + 26).
inline double uniform01(std::mt19937& rng) {
  const std::uint32_t a = static_cast<std::uint32_t>(rng()) >> 5;
  const std::uint32_t b = static_cast<std::uint32_t>(rng()) >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);  // (a 2^26 + b) / 2^53
}

/// A uniform double in [-1, 1).
inline double uniform_signed(std::mt19937& rng) {
  return 2 * uniform01(rng) - 1;
}

/// A uniform integer in [0, n), n > 0, without bias: Lemire's multiply-and-reject
/// ("Fast random integer generation in an interval", 2019).
inline std::uint32_t uniform_below(std::mt19937& rng, std::uint32_t n) {
  std::uint64_t m = static_cast<std::uint64_t>(static_cast<std::uint32_t>(rng())) * n;
  if (static_cast<std::uint32_t>(m) < n) {
    const std::uint32_t threshold = (0u - n) % n;  // 2^32 mod n: the low words to reject
    while (static_cast<std::uint32_t>(m) < threshold)
      m = static_cast<std::uint64_t>(static_cast<std::uint32_t>(rng())) * n;
  }
  return static_cast<std::uint32_t>(m >> 32);
}

}  // namespace detail
}  // namespace zoo
}  // namespace compound_sparse
