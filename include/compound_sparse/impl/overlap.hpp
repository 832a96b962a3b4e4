#pragma once
// Whether two Views share memory. A product that writes y while it reads x, or a block of
// Y that overwrites columns of X a later block still reads, returns a wrong result with no
// sign of it: every product refuses an output that overlaps its input (InvalidInput), at
// the cost of this test once per call.

#include <cstddef>
#include <cstdint>

#include "../error.hpp"

namespace compound_sparse {
namespace impl {

/// Where a rank-1 or rank-2 View's elements lie: element (i, j) at byte
/// address + (i * strides[0] + j * strides[1]) * scalar_bytes.
struct MemoryFootprint {
  std::uintptr_t address = 0;
  std::size_t scalar_bytes = 1;
  std::size_t extents[2] = {0, 1};
  std::size_t strides[2] = {1, 1};

  std::size_t elements() const { return extents[0] * extents[1]; }
  /// One past the last byte an element of the View occupies.
  std::uintptr_t end() const {
    return address + ((extents[0] - 1) * strides[0] + (extents[1] - 1) * strides[1] + 1) * scalar_bytes;
  }
  /// Whether the elements leave no byte between the first and the last unused.
  bool dense() const {
    return (strides[0] == 1 && (extents[1] == 1 || strides[1] == extents[0])) ||
           (strides[1] == 1 && (extents[0] == 1 || strides[0] == extents[1]));
  }
};

template <class View>
MemoryFootprint footprint_of(const View& view) {
  static_assert(View::rank == 1 || View::rank == 2, "footprint_of: a rank-1 or rank-2 View");
  MemoryFootprint f;
  f.address = reinterpret_cast<std::uintptr_t>(view.data());
  f.scalar_bytes = sizeof(typename View::value_type);
  f.extents[0] = view.extent(0);
  f.strides[0] = static_cast<std::size_t>(view.stride(0));
  if (View::rank == 2) {
    f.extents[1] = view.extent(1);
    f.strides[1] = static_cast<std::size_t>(view.stride(1));
  }
  return f;
}

/// Whether an element of `a` and an element of `b` share a byte. Exact for two dense
/// Views, and for two Views with the same element size and strides (two row ranges of one
/// LayoutLeft array interleave without sharing an element, which a test of address ranges
/// alone would refuse); otherwise any intersection of their address ranges counts.
inline bool overlaps(const MemoryFootprint& a, const MemoryFootprint& b) {
  if (a.elements() == 0 || b.elements() == 0) return false;
  if (a.end() <= b.address || b.end() <= a.address) return false;
  const bool same_lattice = a.scalar_bytes == b.scalar_bytes && a.strides[0] == b.strides[0] &&
                            a.strides[1] == b.strides[1] && a.strides[0] > 0 && a.strides[1] > 0;
  if ((a.dense() && b.dense()) || !same_lattice) return true;
  // Element (i, j) of a and (k, l) of b coincide where
  // (i - k) * stride0 + (j - l) * stride1 = (b.address - a.address) / scalar_bytes.
  const std::intptr_t bytes = static_cast<std::intptr_t>(b.address - a.address);
  const std::intptr_t size = static_cast<std::intptr_t>(a.scalar_bytes);
  if (bytes % size != 0) return true;  // misaligned by part of an element: they share bytes
  const std::intptr_t offset = bytes / size;
  // One dimension's difference at a time, the shorter one's: the few components or vectors
  // of a LayoutLeft vector or multivector, not its rows.
  const int outer = a.extents[1] + b.extents[1] <= a.extents[0] + b.extents[0] ? 1 : 0;
  const int inner = 1 - outer;
  const std::intptr_t inner_stride = static_cast<std::intptr_t>(a.strides[inner]);
  const std::intptr_t outer_stride = static_cast<std::intptr_t>(a.strides[outer]);
  for (std::intptr_t d = -static_cast<std::intptr_t>(b.extents[outer]) + 1;
       d < static_cast<std::intptr_t>(a.extents[outer]); ++d) {
    const std::intptr_t rest = offset - d * outer_stride;
    if (rest % inner_stride != 0) continue;
    const std::intptr_t e = rest / inner_stride;  // i - k (or j - l) along the inner dimension
    if (e > -static_cast<std::intptr_t>(b.extents[inner]) && e < static_cast<std::intptr_t>(a.extents[inner]))
      return true;
  }
  return false;
}

/// Throws InvalidInput when the output `y` shares memory with the input `x`; `operation`
/// names the call.
inline void require_disjoint_output(const MemoryFootprint& x, const MemoryFootprint& y, const char* operation) {
  COMPOUND_SPARSE_REQUIRE(!overlaps(x, y), operation << ": the output shares memory with the input; the product "
                                                        "reads the input while it writes the output, so give the "
                                                        "output memory of its own");
}

}  // namespace impl
}  // namespace compound_sparse
