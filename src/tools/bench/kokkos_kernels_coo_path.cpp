// Kokkos Kernels' device path from a contribution list to its CrsMatrix
// (kokkos_kernels_coo_path.hpp), for the entry types of compound-assembly-bench.

#include "kokkos_kernels_coo_path.hpp"

#include <KokkosKernels_config.h>  // KOKKOSKERNELS_VERSION (4.x; 3.4 defines none)
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40000
#include <KokkosSparse_SortCrs.hpp>  // KokkosSparse::sort_and_merge_matrix
#else
#include <KokkosKernels_SparseUtils.hpp>  // KokkosKernels::Impl::sort_and_merge_matrix
#endif
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <compound_sparse/tuning/timing.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_memory_high_water.hpp"
#include "kokkos_kernels_spmv.hpp"  // KokkosKernelsCrs: the matrix type of the SpMV baseline
#include "real_expansion.hpp"

namespace compound_bench {
namespace {

namespace cs = compound_sparse;
using compound_sparse_bench::KokkosKernelsCrs;

/// How the path stores an entry: e rows of e scalars (blocks and quaternions: their real
/// blocks, row-major).
template <class Entry>
struct KokkosKernelsEntry {
  using scalar = typename cs::component_traits<Entry>::scalar_type;
  static constexpr int e = compound_sparse_bench::real_block<Entry>::block_size;
  KOKKOS_INLINE_FUNCTION static void write(const Entry& v, scalar* out) {
    compound_sparse_bench::real_block<Entry>::fill(v, out);
  }
  static const char* form() { return "scalar CrsMatrix of the real blocks"; }
};
template <class T>
struct KokkosKernelsEntry<Kokkos::complex<T>> {
  using scalar = Kokkos::complex<T>;
  static constexpr int e = 1;
  KOKKOS_INLINE_FUNCTION static void write(const Kokkos::complex<T>& v, scalar* out) { out[0] = v; }
  static const char* form() { return "complex CrsMatrix"; }
};

template <class Entry>
using matrix_of = KokkosKernelsCrs<typename KokkosKernelsEntry<Entry>::scalar>;

/// counts(r) += the scalars each contribution puts in scalar row r.
template <class Entry>
struct CountRowEntries {
  Kokkos::View<const int*> rows;
  Kokkos::View<unsigned*> counts;
  KOKKOS_INLINE_FUNCTION void operator()(int k) const {
    constexpr int e = KokkosKernelsEntry<Entry>::e;
    for (int i = 0; i < e; ++i) Kokkos::atomic_add(&counts(e * rows(k) + i), static_cast<unsigned>(e));
  }
};

/// Each contribution's scalars at the next free places of their rows (atomic cursors), the
/// repeated positions kept.
template <class Entry>
struct ScatterEntries {
  using scalar = typename KokkosKernelsEntry<Entry>::scalar;
  Kokkos::View<const int*> rows, cols;
  Kokkos::View<const Entry*> contributions;
  Kokkos::View<unsigned*> cursors;
  Kokkos::View<int*> entries;
  Kokkos::View<scalar*> values;
  KOKKOS_INLINE_FUNCTION void operator()(int k) const {
    constexpr int e = KokkosKernelsEntry<Entry>::e;
    scalar block[e * e];
    KokkosKernelsEntry<Entry>::write(contributions(k), block);
    for (int i = 0; i < e; ++i) {
      const unsigned at = Kokkos::atomic_fetch_add(&cursors(e * rows(k) + i), static_cast<unsigned>(e));
      for (int j = 0; j < e; ++j) {
        entries(at + j) = e * cols(k) + j;
        values(at + j) = block[i * e + j];
      }
    }
  }
};

/// The step: each contribution added into the kept pattern by sumIntoValues (atomic).
template <class Entry>
struct SumIntoMatrix {
  using scalar = typename KokkosKernelsEntry<Entry>::scalar;
  Kokkos::View<const int*> rows, cols;
  Kokkos::View<const Entry*> contributions;
  matrix_of<Entry> matrix;
  KOKKOS_INLINE_FUNCTION void operator()(int k) const {
    constexpr int e = KokkosKernelsEntry<Entry>::e;
    scalar block[e * e];
    KokkosKernelsEntry<Entry>::write(contributions(k), block);
    int columns[e];
    for (int j = 0; j < e; ++j) columns[j] = e * cols(k) + j;
    for (int i = 0; i < e; ++i) matrix.sumIntoValues(e * rows(k) + i, columns, e, &block[i * e], true, true);
  }
};

/// In place, counts to offsets; the total is the scan's result.
struct ExclusiveScan {
  Kokkos::View<unsigned*> counts;
  KOKKOS_INLINE_FUNCTION void operator()(int i, unsigned& sum, bool final) const {
    const unsigned count = counts(i);
    if (final) counts(i) = sum;
    sum += count;
  }
};

/// The first build: count, scan, scatter, sort_and_merge_matrix.
template <class Entry>
matrix_of<Entry> build(int num_rows, int num_cols, const Kokkos::View<const int*>& rows,
                       const Kokkos::View<const int*>& cols, const Kokkos::View<const Entry*>& contributions) {
  using scalar = typename KokkosKernelsEntry<Entry>::scalar;
  using execution_space = Kokkos::DefaultExecutionSpace;
  constexpr int e = KokkosKernelsEntry<Entry>::e;
  const int count = static_cast<int>(rows.extent(0));
  const int scalar_rows = e * num_rows;
  Kokkos::View<unsigned*> row_map("bench::kk_row_map", static_cast<std::size_t>(scalar_rows) + 1);
  Kokkos::parallel_for("bench::kk_count", Kokkos::RangePolicy<>(0, count), CountRowEntries<Entry>{rows, row_map});
  // Kokkos' own scan: Kokkos Kernels' prefix sum is internal, and 4.x swapped its template arguments.
  unsigned total = 0;
  Kokkos::parallel_scan("bench::kk_scan", Kokkos::RangePolicy<execution_space>(0, scalar_rows + 1),
                        ExclusiveScan{row_map}, total);
  Kokkos::View<unsigned*> cursors(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench::kk_cursors"), scalar_rows);
  Kokkos::deep_copy(cursors, Kokkos::subview(row_map, std::make_pair(0, scalar_rows)));
  Kokkos::View<int*> entries(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench::kk_repeated_entries"), total);
  Kokkos::View<scalar*> values(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench::kk_repeated_values"), total);
  Kokkos::parallel_for("bench::kk_scatter", Kokkos::RangePolicy<>(0, count),
                       ScatterEntries<Entry>{rows, cols, contributions, cursors, entries, values});
  cursors = {};
  const matrix_of<Entry> repeated("bench::kk_repeated", scalar_rows, e * num_cols, total, values, row_map, entries);
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40000
  return KokkosSparse::sort_and_merge_matrix(repeated);
#else
  return KokkosKernels::Impl::sort_and_merge_matrix(repeated);
#endif
}

double magnitude(double v) {
  return std::abs(v);
}
double magnitude(const Kokkos::complex<double>& v) {
  return std::hypot(v.real(), v.imag());
}

/// The host path's matrix in the form this path builds.
template <class Entry>
compound_sparse_bench::ScalarCsr<typename KokkosKernelsEntry<Entry>::scalar> expected_matrix(
    const cs::HostCsr<Entry>& reference) {
  if constexpr (KokkosKernelsEntry<Entry>::e == 1) {
    compound_sparse_bench::ScalarCsr<Entry> s;
    s.num_rows = reference.num_rows;
    s.num_cols = reference.num_cols;
    s.row_offsets = reference.row_offsets;
    s.col_indices = reference.col_indices;
    s.values = reference.values;
    return s;
  } else {
    return compound_sparse_bench::expand_to_scalar_csr(reference);
  }
}

/// Throws where `built` does not have the expected pattern; else the largest difference of a
/// value from the expected one, relative to the largest expected value of its row.
template <class Entry>
double difference_from(const matrix_of<Entry>& built,
                       const compound_sparse_bench::ScalarCsr<typename KokkosKernelsEntry<Entry>::scalar>& expected) {
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), built.graph.row_map);
  const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), built.graph.entries);
  const auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), built.values);
  if (built.numRows() != expected.num_rows || built.numCols() != expected.num_cols ||
      entries.extent(0) != expected.col_indices.size())
    throw std::runtime_error("its matrix has " + std::to_string(entries.extent(0)) + " entries, the host path's " +
                             std::to_string(expected.col_indices.size()));
  double worst = 0;
  for (int r = 0; r < expected.num_rows; ++r) {
    if (row_map(r + 1) != static_cast<unsigned>(expected.row_offsets[r + 1]))
      throw std::runtime_error("its row " + std::to_string(r) + " ends at " + std::to_string(row_map(r + 1)) +
                               ", the host path's at " + std::to_string(expected.row_offsets[r + 1]));
    double row_scale = 0;
    for (int k = expected.row_offsets[r]; k < expected.row_offsets[r + 1]; ++k)
      row_scale = std::max(row_scale, magnitude(expected.values[k]));
    for (int k = expected.row_offsets[r]; k < expected.row_offsets[r + 1]; ++k) {
      if (entries(k) != expected.col_indices[k])
        throw std::runtime_error("its entry " + std::to_string(k) + " (row " + std::to_string(r) + ") is in column " +
                                 std::to_string(entries(k)) + ", the host path's in " +
                                 std::to_string(expected.col_indices[k]));
      const double d = magnitude(values(k) - expected.values[k]);
      worst = std::max(worst, row_scale > 0 ? d / row_scale : d);
    }
  }
  return worst;
}

}  // namespace

template <class Entry>
CooPathResult kokkos_kernels_coo_path(int num_rows, int num_cols, const Kokkos::View<const int*>& rows,
                                      const Kokkos::View<const int*>& cols,
                                      const Kokkos::View<const Entry*>& contributions,
                                      const cs::HostCsr<Entry>& reference, int samples) {
  using traits = KokkosKernelsEntry<Entry>;
  using scalar = typename traits::scalar;
  constexpr int e = traits::e;
  CooPathResult result;
  result.form = std::string("count+scan+scatter+sort_and_merge_matrix, ") + traits::form() +
                "; step: zero+sumIntoValues (atomic)";
  try {
    if (static_cast<long long>(e) * num_rows > INT_MAX || static_cast<long long>(e) * num_cols > INT_MAX ||
        static_cast<unsigned long long>(rows.extent(0)) * e * e > UINT_MAX)
      throw std::runtime_error("more scalar rows or entries than the baseline's 32-bit indices and offsets hold");
    std::vector<double> firsts;
    for (int s = 0; s <= samples; ++s) {  // the first is a warm-up
      Kokkos::fence();
      const auto start = std::chrono::steady_clock::now();
      const auto m = build(num_rows, num_cols, rows, cols, contributions);
      Kokkos::fence();
      if (s > 0) firsts.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(firsts.begin(), firsts.end());
    result.first_seconds = firsts[firsts.size() / 2];
    matrix_of<Entry> m;
    {
      DeviceMemoryHighWater memory;
      m = build(num_rows, num_cols, rows, cols, contributions);
      Kokkos::fence();
      result.peak_bytes = memory.peak_bytes();
    }
    result.matrix_bytes =
        static_cast<std::int64_t>(m.graph.row_map.extent(0) * sizeof(unsigned) +
                                  m.graph.entries.extent(0) * sizeof(int) + m.values.extent(0) * sizeof(scalar));
    const auto expected = expected_matrix(reference);
    const double first_error = difference_from<Entry>(m, expected);
    const int count = static_cast<int>(rows.extent(0));
    const auto step = [&] {
      Kokkos::deep_copy(Kokkos::DefaultExecutionSpace(), m.values, scalar(0));
      Kokkos::parallel_for("bench::kk_sum_into", Kokkos::RangePolicy<>(0, count),
                           SumIntoMatrix<Entry>{rows, cols, contributions, m});
    };
    cs::TimingOptions timing;
    timing.mode = cs::TimingMode::Wall;  // fenced batches, as ours: a fill may synchronise
    timing.samples = 7;
    result.step_seconds = cs::time_launches([&](int) { step(); }, timing).median_seconds;
    Kokkos::fence();
    result.relative_error = std::max(first_error, difference_from<Entry>(m, expected));
    result.ok = result.relative_error <= 1e-12;
    result.wrong = !result.ok;
    if (!result.ok) result.error = "its values are off the host path's by " + std::to_string(result.relative_error);
  } catch (const std::runtime_error& failure) {
    const std::string what = failure.what();
    result.ok = false;
    // A matrix off the host path's is a wrong result; anything else (memory) a refusal.
    result.wrong = what.rfind("its ", 0) == 0;
    result.error = what;
  }
  return result;
}

#define COMPOUND_BENCH_DEFINE_KOKKOS_KERNELS_COO(...)                             \
  template CooPathResult kokkos_kernels_coo_path<__VA_ARGS__>(                    \
      int, int, const Kokkos::View<const int*>&, const Kokkos::View<const int*>&, \
      const Kokkos::View<const __VA_ARGS__*>&, const compound_sparse::HostCsr<__VA_ARGS__>&, int);
COMPOUND_BENCH_KOKKOS_KERNELS_COO_ENTRIES(COMPOUND_BENCH_DEFINE_KOKKOS_KERNELS_COO)
#undef COMPOUND_BENCH_DEFINE_KOKKOS_KERNELS_COO

}  // namespace compound_bench
