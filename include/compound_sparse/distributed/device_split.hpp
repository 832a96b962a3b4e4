#pragma once
// A rank's rows, on its device, split into DistributedSpmv's two blocks by device kernels:
// the diagonal block (the columns the rank owns, renumbered from 0), the off-diagonal block
// (the boundary rows only, their remote columns renumbered into the halo) and the halo's
// global columns, increasing. The same blocks, entry for entry, as DistributedSpmv's split
// of the rows as a HostCsr, so that the rows of an application that assembles on the device
// never come to the host. Only the halo's columns do: the exchange is planned from them with
// MPI, and they are a few per cent of the rows.

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>
#include <string>
#include <vector>

#include "../impl/device_scan_sort.hpp"
#include "../impl/segmented_sum.hpp"    // indices_where
#include "../layouts/device_build.hpp"  // read_element
#include "../layouts/device_csr.hpp"
#include "../layouts/device_csr_from_coo.hpp"

namespace compound_sparse {
namespace impl {

template <class Entry, class MemorySpace>
struct DeviceRowSplit {
  DeviceCsr<Entry, MemorySpace> diagonal;               ///< rows x rows, local columns
  DeviceCsr<Entry, MemorySpace> off_diagonal;           ///< boundary rows x halo
  Kokkos::View<const int*, MemorySpace> boundary_rows;  ///< the local rows with a remote column, increasing
  std::vector<int> halo_columns;                        ///< global, increasing
  /// Where each given non-zero went: p >= 0 to the diagonal block's p, p < 0 to the
  /// off-diagonal block's -p - 1. Empty when the rows had to be sorted and summed first.
  Kokkos::View<int*, MemorySpace> value_targets;
};

/// `given`'s rows split at the columns [first, first + rows) the rank owns (header comment).
/// Rows whose columns do not increase strictly are first sorted and their repeats summed
/// there (rows_sorted_and_summed), as the host split does.
template <class Entry, class MemorySpace>
DeviceRowSplit<Entry, MemorySpace> split_rows_on_device(const DeviceCsr<Entry, MemorySpace>& given, int first) {
  using execution_space = typename MemorySpace::execution_space;
  using policy = Kokkos::RangePolicy<execution_space>;
  using index_view = Kokkos::View<int*, MemorySpace>;
  const auto uninitialized = [](const char* label) {
    return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
  };
  const bool as_given = rows_increase_strictly(given);
  const DeviceCsr<Entry, MemorySpace> own = as_given ? given : rows_sorted_and_summed(given);
  const int n = own.num_rows, last = first + n;
  const auto row_map = own.row_map;
  const auto entries = own.entries;
  const auto values = own.values;
  // Each row's local and remote counts, then their offsets.
  const index_view local_map("compound_sparse::local_map", static_cast<std::size_t>(n) + 1);
  const index_view remote_map("compound_sparse::remote_map", static_cast<std::size_t>(n) + 1);
  Kokkos::parallel_for(
      "compound_sparse::split_count", policy(0, n), KOKKOS_LAMBDA(int r) {
        int local = 0;
        for (int k = row_map(r); k < row_map(r + 1); ++k) local += entries(k) >= first && entries(k) < last;
        local_map(r + 1) = local;
        remote_map(r + 1) = row_map(r + 1) - row_map(r) - local;
      });
  exclusive_sum_in_place<execution_space>(local_map, n);
  exclusive_sum_in_place<execution_space>(remote_map, n);
  const int local_total = static_cast<int>(read_element(local_map, static_cast<std::size_t>(n)));
  const int remote_total = static_cast<int>(read_element(remote_map, static_cast<std::size_t>(n)));

  // The halo: the remote columns sorted, the first of each run kept.
  const index_view remote_columns(uninitialized("compound_sparse::remote_columns"), remote_total);
  Kokkos::parallel_for(
      "compound_sparse::split_remote_columns", policy(0, n), KOKKOS_LAMBDA(int r) {
        int at = remote_map(r);
        for (int k = row_map(r); k < row_map(r + 1); ++k)
          if (entries(k) < first || entries(k) >= last) remote_columns(at++) = entries(k);
      });
  if (remote_total > 1) Kokkos::sort(remote_columns);
  const auto runs = indices_where<execution_space>(
      remote_total, KOKKOS_LAMBDA(int i) { return i == 0 || remote_columns(i) != remote_columns(i - 1); },
      "compound_sparse::halo_runs");
  const int halo_size = static_cast<int>(runs.extent(0));
  const index_view halo(uninitialized("compound_sparse::halo_columns"), halo_size);
  Kokkos::parallel_for(
      "compound_sparse::split_halo", policy(0, halo_size), KOKKOS_LAMBDA(int h) { halo(h) = remote_columns(runs(h)); });
  DeviceRowSplit<Entry, MemorySpace> split;
  const auto halo_on_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), halo);
  split.halo_columns.assign(halo_on_host.data(), halo_on_host.data() + halo_size);

  // The boundary rows (those with a remote non-zero) and the off-diagonal block's offsets:
  // a boundary row's remote non-zeros start where remote_map says.
  const auto boundary_rows = indices_where<execution_space>(
      n, KOKKOS_LAMBDA(int r) { return remote_map(r + 1) > remote_map(r); }, "compound_sparse::boundary_rows");
  const int boundary_total = static_cast<int>(boundary_rows.extent(0));
  const index_view off_row_map(uninitialized("compound_sparse::off_diagonal_row_map"),
                               static_cast<std::size_t>(boundary_total) + 1);
  Kokkos::parallel_for(
      "compound_sparse::split_off_diagonal_offsets", policy(0, boundary_total + 1),
      KOKKOS_LAMBDA(int b) { off_row_map(b) = remote_map(b < boundary_total ? boundary_rows(b) : n); });

  // The blocks: each row's local non-zeros to the diagonal block, its remote ones to its row
  // of the off-diagonal block at their place in the halo (a row's increasing columns keep
  // their order there, the halo being sorted).
  const index_view local_entries(uninitialized("compound_sparse::diagonal_entries"), local_total);
  const Kokkos::View<Entry*, MemorySpace> local_values(uninitialized("compound_sparse::diagonal_values"), local_total);
  const index_view remote_entries(uninitialized("compound_sparse::off_diagonal_entries"), remote_total);
  const Kokkos::View<Entry*, MemorySpace> remote_values(uninitialized("compound_sparse::off_diagonal_values"),
                                                        remote_total);
  const index_view targets(uninitialized("compound_sparse::value_targets"), as_given ? own.num_entries() : 0);
  Kokkos::parallel_for(
      "compound_sparse::split_fill", policy(0, n), KOKKOS_LAMBDA(int r) {
        int local = local_map(r), remote = remote_map(r);
        for (int k = row_map(r); k < row_map(r + 1); ++k) {
          const int c = entries(k);
          if (c >= first && c < last) {
            if (as_given) targets(k) = local;
            local_entries(local) = c - first;
            local_values(local++) = values(k);
          } else {
            if (as_given) targets(k) = -remote - 1;
            remote_entries(remote) = partition_point(0, halo_size, [&](int i) { return halo(i) < c; });
            remote_values(remote++) = values(k);
          }
        }
      });
  Kokkos::fence();
  split.diagonal.num_rows = split.diagonal.num_cols = n;
  split.diagonal.row_map = local_map;
  split.diagonal.entries = local_entries;
  split.diagonal.values = local_values;
  split.off_diagonal.num_rows = boundary_total;
  split.off_diagonal.num_cols = halo_size;
  split.off_diagonal.row_map = off_row_map;
  split.off_diagonal.entries = remote_entries;
  split.off_diagonal.values = remote_values;
  split.boundary_rows = boundary_rows;
  if (as_given) split.value_targets = targets;
  return split;
}

/// diagonal(t) = values(k) for targets(k) = t >= 0, off_diagonal(-t - 1) = values(k) for
/// t < 0: new values of a rank's rows into its two blocks (DistributedSpmv::refresh).
template <class Targets, class Values, class Block>
void scatter_to_blocks(const Targets& targets, const Values& values, const Block& diagonal, const Block& off_diagonal) {
  Kokkos::parallel_for(
      "compound_sparse::scatter_to_blocks",
      Kokkos::RangePolicy<typename Targets::memory_space::execution_space>(0, targets.extent(0)),
      KOKKOS_LAMBDA(std::size_t k) {
        const int t = targets(k);
        if (t >= 0)
          diagonal(t) = values(k);
        else
          off_diagonal(-t - 1) = values(k);
      });
}

}  // namespace impl
}  // namespace compound_sparse
