#pragma once
// A CSR matrix in cuSPARSE's Sliced ELL (SELL) arrays, for the Sliced ELL baseline
// (cusparseCreateSlicedEll). Rows go in slices of `slice_size`; a slice is as wide as
// its longest row and stored column-major (slot j of the slice's rows side by side),
// so a warp's threads read consecutive slots. Every slice, the last included, holds
// slice_size x width slots; a padding slot has column -1 and a zero value.

#include <climits>
#include <compound_sparse/layouts/host_csr.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace compound_sparse_bench {

template <class Value>
struct SlicedEll {
  int num_rows = 0, num_cols = 0, slice_size = 0;
  std::int64_t num_entries = 0;       ///< the CSR's non-zeros
  std::vector<int> slice_offsets{0};  ///< ceil(rows / slice_size) + 1 slot offsets
  std::vector<int> col_indices;       ///< one per slot, -1 for padding
  std::vector<Value> values;          ///< one per slot, zero for padding
};

/// The slots a Sliced ELL of `a` with this slice size holds (padding included).
template <class Entry>
std::int64_t sliced_ell_slots(const compound_sparse::HostCsr<Entry>& a, int slice_size) {
  std::int64_t slots = 0;
  for (int first = 0; first < a.num_rows; first += slice_size) {
    int width = 0;
    for (int r = first; r < a.num_rows && r < first + slice_size; ++r)
      width = std::max(width, a.row_offsets[r + 1] - a.row_offsets[r]);
    slots += static_cast<std::int64_t>(width) * slice_size;
  }
  return slots;
}

/// `a` as Sliced ELL, refused (std::runtime_error, with the counts) when the slots
/// would pass `max_slots` or 32-bit offsets.
template <class Entry>
SlicedEll<Entry> to_sliced_ell(const compound_sparse::HostCsr<Entry>& a, int slice_size, std::int64_t max_slots) {
  if (slice_size < 1) throw std::runtime_error("Sliced ELL: the slice size must be positive");
  const std::int64_t slots = sliced_ell_slots(a, slice_size);
  if (slots > max_slots || slots > INT_MAX)
    throw std::runtime_error("Sliced ELL with slices of " + std::to_string(slice_size) + " rows would hold " +
                             std::to_string(slots) + " slots for " + std::to_string(a.num_entries()) +
                             " non-zeros, more than the " + std::to_string(std::min<std::int64_t>(max_slots, INT_MAX)) +
                             " allowed");
  SlicedEll<Entry> s;
  s.num_rows = a.num_rows;
  s.num_cols = a.num_cols;
  s.slice_size = slice_size;
  s.num_entries = static_cast<std::int64_t>(a.num_entries());
  s.col_indices.assign(static_cast<std::size_t>(slots), -1);
  s.values.assign(static_cast<std::size_t>(slots), Entry{});
  for (int first = 0; first < a.num_rows; first += slice_size) {
    int width = 0;
    for (int r = first; r < a.num_rows && r < first + slice_size; ++r)
      width = std::max(width, a.row_offsets[r + 1] - a.row_offsets[r]);
    const int base = s.slice_offsets.back();
    for (int r = first; r < a.num_rows && r < first + slice_size; ++r)
      for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k) {
        const std::size_t slot =
            static_cast<std::size_t>(base) + static_cast<std::size_t>(k - a.row_offsets[r]) * slice_size + (r - first);
        s.col_indices[slot] = a.col_indices[k];
        s.values[slot] = a.values[k];
      }
    s.slice_offsets.push_back(base + width * slice_size);
  }
  return s;
}

}  // namespace compound_sparse_bench
