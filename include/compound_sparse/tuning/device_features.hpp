#pragma once
// The features and fingerprint of a matrix held as CSR Views (features.hpp), summed by
// kernels where the Views live: a few numbers reach the host, not the pattern. The bits
// are those of matrix_features of the same matrix as a HostCsr (pattern_sums.hpp).
// Validate the views first (impl::validate_csr_views).

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "../entries/mixed_precision.hpp"  // precision_name
#include "../layouts/device_csr.hpp"
#include "features.hpp"
#include "pattern_sums.hpp"

namespace compound_sparse {
namespace impl {

/// PatternSums of CSR Views: per row its length and bandwidth (a team per row, so that one
/// huge row is not one thread's loop), then sums over rows and over the pattern's words.
template <class ExecutionSpace, class RowMap, class Entries>
PatternSums pattern_sums_of_views(int num_cols, const RowMap& row_map, const Entries& entries) {
  using memory_space = typename ExecutionSpace::memory_space;
  const int num_rows = static_cast<int>(row_map.extent(0)) - 1;
  const long long nnz = static_cast<long long>(entries.extent(0));
  PatternSums sums;
  sums.rows = num_rows;
  sums.cols = num_cols;
  sums.nnz = nnz;
  if (num_rows > 0) {
    Kokkos::View<long long*, memory_space> bandwidth(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::row_bandwidth"), num_rows);
    using team_policy = Kokkos::TeamPolicy<ExecutionSpace>;
    Kokkos::parallel_for(
        "compound_sparse::row_bandwidth", team_policy(num_rows, Kokkos::AUTO),
        KOKKOS_LAMBDA(const typename team_policy::member_type& team) {
          const int r = team.league_rank();
          long long widest = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, static_cast<long long>(row_map(r)), static_cast<long long>(row_map(r + 1))),
              [&](long long k, long long& w) {
                const long long d = static_cast<long long>(entries(k)) - r;
                const long long distance = d < 0 ? -d : d;
                if (distance > w) w = distance;
              },
              Kokkos::Max<long long>(widest));
          Kokkos::single(Kokkos::PerTeam(team), [&]() { bandwidth(r) = widest < 0 ? 0 : widest; });
        });
    const auto rows = Kokkos::RangePolicy<ExecutionSpace>(0, num_rows);
    Kokkos::parallel_reduce(
        "compound_sparse::longest_row", rows,
        KOKKOS_LAMBDA(int r, long long& longest) {
          const long long length = static_cast<long long>(row_map(r + 1) - row_map(r));
          if (length > longest) longest = length;
        },
        Kokkos::Max<long long>(sums.longest_row));
    Kokkos::parallel_reduce(
        "compound_sparse::row_length_squares", rows,
        KOKKOS_LAMBDA(int r, std::uint64_t& total) {
          const auto length = static_cast<std::uint64_t>(row_map(r + 1) - row_map(r));
          total += length * length;
        },
        Kokkos::Sum<std::uint64_t>(sums.row_length_squares));
    Kokkos::parallel_reduce(
        "compound_sparse::bandwidth_sum", rows,
        KOKKOS_LAMBDA(int r, std::uint64_t& total) { total += static_cast<std::uint64_t>(bandwidth(r)); },
        Kokkos::Sum<std::uint64_t>(sums.bandwidth_sum));
    Kokkos::parallel_reduce(
        "compound_sparse::bandwidth_max", rows,
        KOKKOS_LAMBDA(int r, long long& widest) {
          if (bandwidth(r) > widest) widest = bandwidth(r);
        },
        Kokkos::Max<long long>(sums.bandwidth_max));
  }
  // The words: num_rows + 1 offsets, then nnz columns (the host's order, pattern_features).
  const long long offsets = static_cast<long long>(num_rows) + 1;
  Kokkos::parallel_reduce(
      "compound_sparse::pattern_hash",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long long>>(0, offsets + nnz),
      KOKKOS_LAMBDA(long long position, std::uint64_t& total) {
        const long long word = position < offsets ? static_cast<long long>(row_map(position))
                                                  : static_cast<long long>(entries(position - offsets));
        total += pattern_word_hash(static_cast<std::uint64_t>(position), word);
      },
      Kokkos::Sum<std::uint64_t>(sums.pattern_hash));
  return sums;
}

}  // namespace impl

/// matrix_features of the CSR Views (num_rows + 1 offsets in `row_map`, the column of each
/// non-zero in `entries`) of a matrix of Entry, computed where the Views live.
template <class Entry, class RowMap, class Entries>
MatrixFeatures matrix_features_of_views(int num_cols, const RowMap& row_map, const Entries& entries) {
  using execution_space = typename RowMap::memory_space::execution_space;
  return features_from_sums(impl::pattern_sums_of_views<execution_space>(num_cols, row_map, entries),
                            entry_type_name<Entry>(), precision_name<Entry>());
}

/// matrix_features of a matrix on the device.
template <class Entry, class MemorySpace>
MatrixFeatures matrix_features(const DeviceCsr<Entry, MemorySpace>& a) {
  return matrix_features_of_views<Entry>(a.num_cols, a.row_map, a.entries);
}

}  // namespace compound_sparse
