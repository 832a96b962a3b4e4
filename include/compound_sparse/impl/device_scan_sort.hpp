#pragma once
// Building blocks of the device builders (coo_assembly.hpp, the device transpose in
// transpose.hpp, fem/): counts turned into CSR offsets by a scan, a binary search, and one
// thread's sort of a short segment, which keeps a builder deterministic without a device-wide sort.

#include <Kokkos_Core.hpp>

namespace compound_sparse {
namespace impl {

/// Sorts keys[begin, end) in increasing order in one thread (heap sort: no recursion, no
/// scratch memory, n log n).
template <class Keys>
KOKKOS_INLINE_FUNCTION void heap_sort(const Keys& keys, int begin, int end) {
  const int n = end - begin;
  const auto sift_down = [&](int root, int size) {
    while (true) {
      int child = 2 * root + 1;
      if (child >= size) return;
      if (child + 1 < size && keys(begin + child) < keys(begin + child + 1)) ++child;
      if (!(keys(begin + root) < keys(begin + child))) return;
      const auto swap = keys(begin + root);
      keys(begin + root) = keys(begin + child);
      keys(begin + child) = swap;
      root = child;
    }
  };
  for (int root = n / 2 - 1; root >= 0; --root) sift_down(root, n);
  for (int last = n - 1; last > 0; --last) {
    const auto swap = keys(begin);
    keys(begin) = keys(begin + last);
    keys(begin + last) = swap;
    sift_down(0, last);
  }
}

/// The first i in [begin, end) for which below(i) is false (end if none), where below is true
/// on a prefix of the range and false after it: a binary search of a sorted segment.
template <class Below>
KOKKOS_INLINE_FUNCTION int partition_point(int begin, int end, const Below& below) {
  while (begin < end) {
    const int mid = begin + (end - begin) / 2;
    if (below(mid))
      begin = mid + 1;
    else
      end = mid;
  }
  return begin;
}

/// The row that holds entry p of a CSR with these num_rows + 1 offsets (0 <= p < offsets(num_rows)):
/// the first row whose end is past p, so empty rows, which end where they start, are skipped.
template <class Offsets>
KOKKOS_INLINE_FUNCTION int row_of_entry(const Offsets& offsets, int num_rows, int p) {
  return partition_point(0, num_rows, [&](int r) { return static_cast<int>(offsets(r + 1)) <= p; });
}

/// offsets(r + 1) holds a count per r < num_rows, offsets(0) zero: replaced by their running
/// sums (the offsets of a CSR).
template <class ExecutionSpace, class Offsets>
void exclusive_sum_in_place(const Offsets& offsets, int num_rows) {
  Kokkos::parallel_scan(
      "compound_sparse::exclusive_sum", Kokkos::RangePolicy<ExecutionSpace>(0, num_rows + 1),
      KOKKOS_LAMBDA(int r, int& sum, bool final) {
        const int count = r == 0 ? 0 : offsets(r);
        sum += count;
        if (final) offsets(r) = sum;
      });
}

}  // namespace impl
}  // namespace compound_sparse
