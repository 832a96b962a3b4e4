#pragma once
// COO assembly on the device, straight into a tuned layout: the pattern once, the values
// every step.
//
//   CooAssembly<Block<double, 3>, SlicedEll<32>, Soa> assembly(n, n, rows, cols);  // once
//   assembly.assemble(values);            // every step: sums into assembly.matrix()
//   spmv(schedule, alpha, assembly.matrix(), x, beta, y);
//
// An application (a finite-element code, a Newton or time-stepping loop) produces its
// contributions as (row, column, value) triples with repeated positions, in any order, and
// the positions stay the same from step to step. The constructor builds, by device kernels,
// the pattern that csr_from_coo would build from them: each row's contributions bucketed by
// row, sorted by (column, index in the list), repeated positions merged. It then builds the
// layout from that pattern (device_build.hpp) and keeps, for every stored non-zero, the list
// of its contributions in that order, and where each row's non-zeros start. assemble(values)
// then sums each non-zero's contributions, first to last, into its slot (impl/slot_writes.hpp):
// no sort and no atomics. Into Csr the sums go straight to the values. Into a padded layout
// they are summed inside the tiled write's load, unless the list holds four contributions or
// more per non-zero on average (a mesh's element matrices: about six): then they go first into
// a View of the sums in CSR order, a thread per non-zero, which the tiled write moves into the
// slots. The tile's scratch leaves few warps on a multiprocessor to wait out many scattered
// loads, a plain launch many; with few contributions, writing and reading the sums again costs
// more than it saves. That View (one entry per non-zero) is allocated by the first assemble()
// and kept.
//
// Deterministic: the sums run in the order csr_from_coo sums them (the order of the list),
// so the matrix is bit for bit csr_from_coo followed by the conversion, whatever order the
// device's threads ran the constructor in (the sort key makes every contribution distinct).
//
// A row's contributions are sorted by a team, each ranked among the row's others in scratch
// (SortRowKeys): fast for the tens of contributions a row of a mesh has. A row of more than
// 512 (a dense row of a power-law matrix) is heap-sorted by one thread instead, which takes
// it longer, once, at construction.

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "../entries/components.hpp"
#include "../error.hpp"
#include "../impl/device_scan_sort.hpp"
#include "../impl/slot_writes.hpp"
#include "../impl/team_launch.hpp"
#include "convert.hpp"
#include "device_build.hpp"
#include "layout_tags.hpp"
#include "sparse_matrix.hpp"

namespace compound_sparse {
namespace impl {

/// out(p) = source.entry(p): a thread per non-zero, the sums in CSR order.
template <class Out, class Source>
struct StoreEntries {
  Out out;
  Source source;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t p) const { out(p) = source.entry(p); }
};

/// Throws InvalidInput naming `operation` and the first contribution (rows(i), cols(i))
/// outside the matrix.
template <class ExecutionSpace, class Rows, class Cols>
void require_contributions_inside(int num_rows, int num_cols, const Rows& rows, const Cols& cols,
                                  const char* operation = "CooAssembly") {
  const int n = static_cast<int>(rows.extent(0));
  int first_bad = n;
  Kokkos::parallel_reduce(
      "compound_sparse::coo_check", Kokkos::RangePolicy<ExecutionSpace>(0, n),
      KOKKOS_LAMBDA(int i, int& bad) {
        const auto r = rows(i);
        const auto c = cols(i);
        if ((r < 0 || r >= num_rows || c < 0 || c >= num_cols) && i < bad) bad = i;
      },
      Kokkos::Min<int>(first_bad));
  if (n == 0 || first_bad >= n) return;
  const auto i = static_cast<std::size_t>(first_bad);
  COMPOUND_SPARSE_REQUIRE(false, operation << ": contribution " << first_bad << " at (" << read_element(rows, i) << ", "
                                           << read_element(cols, i) << ") is outside the " << num_rows << " x "
                                           << num_cols << " matrix");
}

/// Whether a row's sorted key t (the row's keys from `begin`) opens a new non-zero: its
/// column, the key's high word, differs from the previous key's.
template <class Keys>
KOKKOS_INLINE_FUNCTION bool starts_nonzero(const Keys& keys, int begin, int t) {
  return t == 0 || (keys(begin + t) >> 32) != (keys(begin + t - 1) >> 32);
}

/// Sorts each row's keys, keys[bucket(r), bucket(r + 1)), and writes its number of
/// distinct columns to row_map(r + 1). One team per row: a row of up to `capacity` keys is
/// copied to scratch and each key goes straight to its place, its rank among the row's keys
/// (they are distinct); a longer row is heap-sorted by one thread of its team. Ranking costs
/// a row's length squared, but in parallel and from scratch, where one thread's sort of the
/// same keys is a chain of dependent loads from global memory.
template <class ExecutionSpace, class Offsets, class Keys>
struct SortRowKeys {
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  using key_scratch =
      Kokkos::View<std::uint64_t*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  static constexpr int capacity = 512;
  Offsets bucket;
  Keys keys;
  Offsets row_map;
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int r = team.league_rank();
    const int begin = bucket(r), n = bucket(r + 1) - begin;
    if (n <= capacity) {
      const key_scratch row(team.team_scratch(0), capacity);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](int t) { row(t) = keys(begin + t); });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](int t) {
        const std::uint64_t key = row(t);
        int rank = 0;
        for (int u = 0; u < n; ++u) rank += row(u) < key ? 1 : 0;
        keys(begin + rank) = key;
      });
    } else {
      Kokkos::single(Kokkos::PerTeam(team), [&]() { heap_sort(keys, begin, begin + n); });
    }
    team.team_barrier();
    int distinct = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, n),
        [&](int t, int& count) {
          if (starts_nonzero(keys, begin, t)) ++count;
        },
        distinct);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { row_map(r + 1) = distinct; });
  }
  static std::size_t scratch_bytes() { return key_scratch::shmem_size(capacity); }
};

/// From each row's sorted keys: its columns and where each non-zero's contributions start,
/// and the contributions' list indices in that order. One team per row; a scan over the row
/// numbers its non-zeros.
template <class ExecutionSpace, class Offsets, class Keys>
struct WriteRowPattern {
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  Offsets bucket;
  Keys keys;
  Offsets row_map;
  Offsets entries;
  Offsets first;
  Offsets contributions;
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int r = team.league_rank();
    const int begin = bucket(r), n = bucket(r + 1) - begin;
    const int row_start = row_map(r);
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, n), [&](int t, int& nonzero, bool final) {
      const std::uint64_t key = keys(begin + t);
      const bool starts = starts_nonzero(keys, begin, t);
      if (final) {
        if (starts) {
          entries(row_start + nonzero) = static_cast<int>(key >> 32);
          first(row_start + nonzero) = begin + t;
        }
        contributions(begin + t) = static_cast<int>(key & 0xffffffffu);
      }
      if (starts) ++nonzero;
    });
  }
};

/// The pattern of a COO list (coo_assembly.hpp): CSR offsets and sorted columns of its
/// distinct positions, and per non-zero the list indices of its contributions, in list order.
template <class MemorySpace>
struct CooPattern {
  Kokkos::View<int*, MemorySpace> row_map;             ///< num_rows + 1
  Kokkos::View<int*, MemorySpace> entries;             ///< nnz columns, sorted in each row
  Kokkos::View<int*, MemorySpace> first_contribution;  ///< nnz + 1, into contributions
  Kokkos::View<int*, MemorySpace> contributions;       ///< list indices, by non-zero, in list order
};

/// Builds the CooPattern of the positions (rows(i), cols(i)), all inside the matrix
/// (require_contributions_inside), fewer than 2^31 of them.
template <class ExecutionSpace, class Rows, class Cols>
CooPattern<typename ExecutionSpace::memory_space> coo_pattern(int num_rows, const Rows& rows, const Cols& cols) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  const int n = static_cast<int>(rows.extent(0));
  const auto uninitialized = [](const char* label) {
    return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
  };
  // Bucket the contributions by row: the position inside a bucket is whatever order the
  // atomics gave; the sort below fixes it.
  Kokkos::View<int*, memory_space> bucket("compound_sparse::coo_buckets", static_cast<std::size_t>(num_rows) + 1);
  Kokkos::View<int*, memory_space> rank(uninitialized("compound_sparse::coo_rank"), static_cast<std::size_t>(n));
  Kokkos::parallel_for(
      "compound_sparse::coo_count", policy(0, n),
      KOKKOS_LAMBDA(int i) { rank(i) = Kokkos::atomic_fetch_add(&bucket(static_cast<int>(rows(i)) + 1), 1); });
  exclusive_sum_in_place<ExecutionSpace>(bucket, num_rows);
  // Key: column above, index in the list below; distinct for every contribution.
  Kokkos::View<std::uint64_t*, memory_space> keys(uninitialized("compound_sparse::coo_keys"),
                                                  static_cast<std::size_t>(n));
  Kokkos::parallel_for(
      "compound_sparse::coo_keys", policy(0, n), KOKKOS_LAMBDA(int i) {
        keys(bucket(static_cast<int>(rows(i))) + rank(i)) =
            (static_cast<std::uint64_t>(cols(i)) << 32) | static_cast<std::uint64_t>(i);
      });
  rank = {};
  // Sort each row, count its distinct columns.
  CooPattern<memory_space> p;
  p.row_map = Kokkos::View<int*, memory_space>("compound_sparse::coo_row_map", static_cast<std::size_t>(num_rows) + 1);
  const auto row_map = p.row_map;
  using team_policy = Kokkos::TeamPolicy<ExecutionSpace>;
  using offsets_view = Kokkos::View<int*, memory_space>;
  using keys_view = decltype(keys);
  const SortRowKeys<ExecutionSpace, offsets_view, keys_view> sort_rows{bucket, keys, row_map};
  // 64 threads a row: a mesh row has tens of contributions (93 for a P1 Helmholtz row).
  const int sort_threads = launch_team_size<team_policy>(ExecutionSpace(), sort_rows, 64);
  if (num_rows > 0)
    Kokkos::parallel_for(
        "compound_sparse::coo_sort_rows",
        team_policy(num_rows, sort_threads).set_scratch_size(0, Kokkos::PerTeam(sort_rows.scratch_bytes())), sort_rows);
  exclusive_sum_in_place<ExecutionSpace>(row_map, num_rows);
  const int nnz = static_cast<int>(read_element(row_map, static_cast<std::size_t>(num_rows)));
  p.entries =
      Kokkos::View<int*, memory_space>(uninitialized("compound_sparse::coo_entries"), static_cast<std::size_t>(nnz));
  p.first_contribution = Kokkos::View<int*, memory_space>(uninitialized("compound_sparse::coo_first_contribution"),
                                                          static_cast<std::size_t>(nnz) + 1);
  p.contributions = Kokkos::View<int*, memory_space>(uninitialized("compound_sparse::coo_contributions"),
                                                     static_cast<std::size_t>(n));
  const WriteRowPattern<ExecutionSpace, offsets_view, keys_view> write_rows{
      bucket, keys, row_map, p.entries, p.first_contribution, p.contributions};
  if (num_rows > 0)
    Kokkos::parallel_for("compound_sparse::coo_pattern",
                         team_policy(num_rows, launch_team_size<team_policy>(ExecutionSpace(), write_rows, 64)),
                         write_rows);
  const auto first = p.first_contribution;
  Kokkos::deep_copy(Kokkos::subview(first, nnz), n);  // the last non-zero's contributions end the list
  Kokkos::fence();
  return p;
}

}  // namespace impl

/// A COO pattern built once on the device, and the matrix in layout <Outer, Inner> that
/// assemble() writes summed values into (header comment). Contributions are positions
/// (rows(i), cols(i)), i < rows.extent(0), in any order and with repeats; their values come
/// with each assemble().
template <class Entry, class Outer, class Inner, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class CooAssembly {
 public:
  using matrix_type = SparseMatrix<Entry, Outer, Inner, MemorySpace>;
  using execution_space = typename MemorySpace::execution_space;

  /// Builds the pattern and the matrix (values zero) from the contributions' positions:
  /// rank-1 Views of integers on MemorySpace. Throws InvalidInput for a negative size, views
  /// of different lengths, 2^31 or more contributions, or a position outside the matrix
  /// (naming the first such contribution, its index and its position); BudgetExceeded as
  /// to_device does when the layout cannot hold the pattern or exceeds `budget`.
  template <class Rows, class Cols>
  CooAssembly(int num_rows, int num_cols, const Rows& rows, const Cols& cols, MemoryBudget budget = {}) {
    static_assert(Rows::rank == 1 && Cols::rank == 1, "CooAssembly: rows and cols are rank-1 Views");
    static_assert(std::is_integral<typename Rows::non_const_value_type>::value &&
                      std::is_integral<typename Cols::non_const_value_type>::value,
                  "CooAssembly: rows and cols hold integers");
    static_assert(std::is_same<typename Rows::memory_space, MemorySpace>::value &&
                      std::is_same<typename Cols::memory_space, MemorySpace>::value,
                  "CooAssembly: rows and cols live in the assembly's memory space");
    COMPOUND_SPARSE_REQUIRE(num_rows >= 0 && num_cols >= 0,
                            "CooAssembly: matrix size " << num_rows << " x " << num_cols << " is negative");
    COMPOUND_SPARSE_REQUIRE(rows.extent(0) == cols.extent(0),
                            "CooAssembly: " << rows.extent(0) << " rows but " << cols.extent(0) << " columns");
    COMPOUND_SPARSE_REQUIRE(
        rows.extent(0) < static_cast<std::size_t>(std::numeric_limits<int>::max()),
        "CooAssembly: " << rows.extent(0) << " contributions; at most 2^31 - 2 fit its 32-bit indices");
    num_contributions_ = rows.extent(0);
    impl::require_contributions_inside<execution_space>(num_rows, num_cols, rows, cols);
    auto pattern = impl::coo_pattern<execution_space>(num_rows, rows, cols);
    first_contribution_ = pattern.first_contribution;
    contributions_ = pattern.contributions;
    row_map_ = pattern.row_map;
    // The layout, values zero until the first assemble().
    const impl::ZeroValues<Entry, MemorySpace> zeros;
    if constexpr (std::is_same<Outer, Csr>::value)
      matrix_ = impl::csr_matrix_from_csr_views<Inner>(num_cols, pattern.row_map, pattern.entries, zeros, budget);
    else
      matrix_ =
          impl::padded_matrix_from_csr_views<Outer, Inner>(num_cols, pattern.row_map, pattern.entries, zeros, budget);
  }

  /// The matrix assemble() writes into (values zero before the first).
  const matrix_type& matrix() const { return matrix_; }
  /// The contributions each assemble() takes: rows.extent(0) of the constructor.
  std::size_t num_contributions() const { return num_contributions_; }

  /// Sums the contributions' values, values(i) at position (rows(i), cols(i)), into the
  /// matrix: every stored value is replaced. `values` is a rank-1 View of Entry on
  /// MemorySpace with num_contributions() values; InvalidInput otherwise, before anything is
  /// written.
  template <class Values>
  void assemble(const Values& values) const {
    static_assert(Values::rank == 1, "assemble takes one value per contribution: a rank-1 View");
    static_assert(std::is_same<typename Values::non_const_value_type, Entry>::value,
                  "assemble: the values must be of the matrix's entry type");
    static_assert(std::is_same<typename Values::memory_space, MemorySpace>::value,
                  "assemble: the values must live in the assembly's memory space");
    COMPOUND_SPARSE_REQUIRE(values.extent(0) == num_contributions_, "assemble: " << values.extent(0) << " values for "
                                                                                 << num_contributions_
                                                                                 << " contributions");
    using index_view = Kokkos::View<int*, MemorySpace>;
    const impl::SummedContributions<index_view, Values> sums{first_contribution_, contributions_, values};
    if constexpr (std::is_same<Outer, Csr>::value) {
      impl::copy_csr_values<execution_space>("compound_sparse::assemble", matrix_.values, sums, matrix_.num_entries);
    } else if (num_contributions_ < sum_first_from * matrix_.num_entries) {
      impl::write_slot_values("compound_sparse::assemble", matrix_, row_map_, sums);
    } else {
      using sums_view = Kokkos::View<Entry*, MemorySpace>;
      if (csr_sums_.extent(0) != matrix_.num_entries)
        csr_sums_ = sums_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::assembled_sums"),
                              matrix_.num_entries);
      Kokkos::parallel_for("compound_sparse::assemble_sums",
                           Kokkos::RangePolicy<execution_space>(0, matrix_.num_entries),
                           impl::StoreEntries<sums_view, decltype(sums)>{csr_sums_, sums});
      impl::write_slot_values("compound_sparse::assemble", matrix_, row_map_,
                              impl::EntryComponents<sums_view>{csr_sums_});
    }
    Kokkos::fence();
  }

 private:
  /// Contributions per non-zero from which a padded layout's sums are made before the tiled
  /// write (header comment).
  static constexpr std::size_t sum_first_from = 4;
  matrix_type matrix_;
  std::size_t num_contributions_ = 0;
  Kokkos::View<int*, MemorySpace> first_contribution_;  ///< per non-zero, into contributions_; nnz + 1
  Kokkos::View<int*, MemorySpace> contributions_;       ///< indices into the values, by non-zero, in list order
  Kokkos::View<int*, MemorySpace> row_map_;             ///< the pattern's CSR offsets: where each row's non-zeros start
  mutable Kokkos::View<Entry*, MemorySpace> csr_sums_;  ///< padded layouts: each non-zero's sum, in CSR order
};

}  // namespace compound_sparse
