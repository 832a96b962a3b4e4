#pragma once
// What a baseline run reports, and the pieces every baseline shares: device
// copies of x (rotated like ours), the result check against the double
// reference, and timing with compound_sparse::time_launches. For the SpMM with k
// vectors (compound-bench --k), the vendors' dense-matrix orders of k compound
// vectors (DenseOrder) and the check of all k against their references.

#include <compound_sparse/error.hpp>
#include <compound_sparse/tuning/measure.hpp>
#include <compound_sparse/tuning/timing.hpp>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace compound_sparse_bench {

struct BaselineResult {
  std::string method;  ///< "cusparse" | "kokkos_kernels"
  /// Which API, format and algorithm: "cusparseSpMV_CSR_ALG1_preprocess", "bsrmv4x4",
  /// "cusparseSpMV_expandedCSR_ALG2_preprocess" (cusparse_baseline.hpp), "crs", "scalar_crs".
  std::string variant;
  bool ok = false;
  std::string error;
  std::string note;  ///< how it ran differently from its plan (e.g. preprocessing refused), if at all
  double seconds = 0;
  double relative_error = 0;
  int rotation = 1;
  /// Vectors per product: 1 for the SpMV, k for the SpMM of k vectors (`seconds` is per
  /// product of all k).
  int k = 1;
  /// Bitwise reproducibility: after the check, the product was run `repeats` more
  /// times on the same inputs; `repeats_differing` of them gave other bits than the
  /// checked one (floating-point atomics reorder sums from run to run).
  int repeats = 0;
  int repeats_differing = 0;
};

/// Products rerun after the check to see whether a method reproduces its bits.
/// cuSPARSE's CSR ALG1 differed on every rerun on the H200 (circuit-1m, rmat-s20),
/// so a few are enough to tell.
constexpr int reproducibility_repeats = 5;

/// The raw bytes of `n` values at `data`, for bitwise comparison.
template <class T>
std::vector<unsigned char> raw_bits(const T* data, std::size_t n) {
  std::vector<unsigned char> bits(n * sizeof(T));
  if (!bits.empty()) std::memcpy(bits.data(), data, bits.size());
  return bits;
}

/// The raw bytes of a device View.
template <class Scalar>
std::vector<unsigned char> device_bits(const Kokkos::View<Scalar*>& d) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  return raw_bits(h.data(), h.extent(0));
}

/// How many of reproducibility_repeats calls of `rerun` (a product on the same
/// inputs) leave other bits than `checked` behind, as `bits()` reads them.
template <class Rerun, class Bits>
int differing_reruns(const std::vector<unsigned char>& checked, Rerun&& rerun, Bits&& bits) {
  int differing = 0;
  for (int i = 0; i < reproducibility_repeats; ++i) {
    rerun();
    if (bits() != checked) ++differing;
  }
  return differing;
}

/// A compound vector's scalars (AoS) as a flat device View.
template <class Scalar, class Value>
Kokkos::View<Scalar*> flat_device_copy(const std::vector<Value>& v) {
  constexpr int n = compound_sparse::component_traits<Value>::size;
  Kokkos::View<Scalar*> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("bench::vector")), v.size() * n);
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < v.size(); ++i)
    for (int c = 0; c < n; ++c) h(i * n + c) = compound_sparse::component_traits<Value>::get(v[i], c);
  Kokkos::deep_copy(d, h);
  return d;
}

template <class Value, class Scalar>
std::vector<Value> flat_host_copy(const Kokkos::View<Scalar*>& d) {
  constexpr int n = compound_sparse::component_traits<Value>::size;
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  std::vector<Value> v(h.extent(0) / n);
  for (std::size_t i = 0; i < v.size(); ++i)
    for (int c = 0; c < n; ++c) compound_sparse::component_traits<Value>::get(v[i], c) = h(i * n + c);
  return v;
}

/// The longest a baseline's full timing may take (seconds); beyond it, one batch is timed.
constexpr double baseline_timing_budget_seconds = 2.0;

/// Runs `run(0)` once with y poisoned (NaN), verifies `read(ys[0])` (the result as
/// compound values, in the reference's order) against the reference, then times
/// `run(copy)` rotating over the copies in `ys`. With `zeroed_retry`, a product that fails
/// the check on the poisoned y is checked again on a zeroed y: a library that reads y
/// although beta = 0 (0 * NaN is NaN) still computes alpha A x, and is timed and kept with
/// a note saying so, rather than lost as a baseline.
template <class Scalar, class Reference, class Read, class Run>
void check_and_time_read(BaselineResult& result, const std::vector<Reference>& reference,
                         std::vector<Kokkos::View<Scalar*>>& ys, Read&& read, Run&& run,
                         const compound_sparse::TimingOptions& timing, double tolerance, bool zeroed_retry = false) {
  Kokkos::deep_copy(ys[0], std::numeric_limits<Scalar>::quiet_NaN());
  run(0);
  Kokkos::fence();
  result.relative_error = compound_sparse::relative_error(read(ys[0]), reference);
  if (!(result.relative_error <= tolerance) && zeroed_retry) {
    const double poisoned_error = result.relative_error;
    Kokkos::deep_copy(ys[0], Scalar(0));
    run(0);
    Kokkos::fence();
    result.relative_error = compound_sparse::relative_error(read(ys[0]), reference);
    if (result.relative_error <= tolerance)
      result.note += std::string(result.note.empty() ? "" : "; ") +
                     "reads y although beta = 0: on a NaN-filled y the relative error was " +
                     std::to_string(poisoned_error) + "; checked on a zeroed y";
  }
  if (!(result.relative_error <= tolerance)) {
    result.error = "result differs from the reference: relative error " + std::to_string(result.relative_error);
    return;
  }
  // Bitwise reproducibility, on the checked copy: run(0) overwrites ys[0] (beta = 0).
  result.repeats = reproducibility_repeats;
  result.repeats_differing = differing_reruns(
      device_bits(ys[0]), [&] { run(0); }, [&] { return device_bits(ys[0]); });
  const int rotation = static_cast<int>(ys.size());
  // A form far slower than the others (cuSPARSE's BSR or Sliced ELL on a matrix with rows
  // of 32K non-zeros, 6-14 ms a product on the H200) would take many seconds of full
  // timing and change no ratio: past the budget it keeps its first batch, and says so.
  double full_seconds = 0;
  const auto over_budget = [&](double seconds_per_launch) {
    full_seconds = seconds_per_launch * timing.batch * timing.samples;
    return full_seconds > baseline_timing_budget_seconds;
  };
  const auto t = compound_sparse::time_launches([&](int i) { run(i % rotation); }, timing,
                                                Kokkos::DefaultExecutionSpace(), over_budget);
  if (t.samples < timing.samples) {
    std::ostringstream why;
    why << "timed by one batch of " << timing.batch << " launches: the full timing would take " << full_seconds
        << " s, more than the " << baseline_timing_budget_seconds << " s budget";
    result.note += (result.note.empty() ? "" : "; ") + why.str();
  }
  result.seconds = t.median_seconds;
  result.rotation = rotation;
  result.ok = true;
}

/// check_and_time_read with y read back as flat compound values (AoS), the SpMV's order.
template <class Value, class Scalar, class Reference, class Run>
void check_and_time(BaselineResult& result, const std::vector<Reference>& reference,
                    std::vector<Kokkos::View<Scalar*>>& ys, Run&& run, const compound_sparse::TimingOptions& timing,
                    double tolerance) {
  check_and_time_read(
      result, reference, ys, [](const Kokkos::View<Scalar*>& y) { return flat_host_copy<Value>(y); },
      std::forward<Run>(run), timing, tolerance);
}

/// How a vendor library stores k vectors of n compound values as a dense matrix of
/// "elements" (its data type: a complex number for complex CSR, a real for the real
/// expansions), n * u rows (u = elements per compound value) and k columns.
/// Column-major: vector after vector, each as the SpMV's x (our Soa multivector's memory,
/// Kokkos Kernels' LayoutLeft multivector). Row-major: row after row, a row holding the k
/// vectors' element of that row (for complex values our Aos multivector's memory; for the
/// real expansions the components of a value are u rows apart, which no multivector of
/// ours stores, so the caller makes that copy).
struct DenseOrder {
  bool row_major = false;
  int element_scalars = 1;  ///< scalars per element: 2 for complex, 1 for real

  /// The scalar offset of component c of value i of vector j, for n values of `components`
  /// scalars each and k vectors.
  std::size_t offset(std::size_t i, std::size_t j, int c, std::size_t n, std::size_t k, int components) const {
    if (!row_major) return (j * n + i) * components + c;
    const std::size_t u = static_cast<std::size_t>(components / element_scalars);
    const std::size_t element_row = i * u + static_cast<std::size_t>(c / element_scalars);
    return (element_row * k + j) * element_scalars + static_cast<std::size_t>(c % element_scalars);
  }
};

/// k host vectors (vectors[j][i]) as the flat scalars of a dense matrix in `order`.
template <class Scalar, class Value>
std::vector<Scalar> dense_host_copy(const std::vector<std::vector<Value>>& vectors, const DenseOrder& order) {
  using traits = compound_sparse::component_traits<Value>;
  const std::size_t k = vectors.size(), n = k ? vectors.front().size() : 0;
  COMPOUND_SPARSE_REQUIRE(
      traits::size % order.element_scalars == 0,
      "a value of " << traits::size << " scalars is not a whole number of elements of " << order.element_scalars);
  std::vector<Scalar> flat(n * k * traits::size);
  for (std::size_t j = 0; j < k; ++j) {
    COMPOUND_SPARSE_REQUIRE(vectors[j].size() == n,
                            "vector " << j << " has " << vectors[j].size() << " values, vector 0 has " << n);
    for (std::size_t i = 0; i < n; ++i)
      for (int c = 0; c < traits::size; ++c)
        flat[order.offset(i, j, c, n, k, traits::size)] = static_cast<Scalar>(traits::get(vectors[j][i], c));
  }
  return flat;
}

/// The same on the device.
template <class Scalar, class Value>
Kokkos::View<Scalar*> dense_device_copy(const std::vector<std::vector<Value>>& vectors, const DenseOrder& order) {
  const auto flat = dense_host_copy<Scalar>(vectors, order);
  Kokkos::View<Scalar*> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("bench::dense")), flat.size());
  Kokkos::deep_copy(d,
                    Kokkos::View<const Scalar*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(flat.data(), flat.size()));
  return d;
}

/// A dense matrix of k vectors of n values in `order` back as the values of vector 0, then
/// vector 1, ... (the order of MeasureInputs::multi_reference).
template <class Value, class Scalar>
std::vector<Value> concatenated_from_dense(const Kokkos::View<Scalar*>& d, std::size_t n, std::size_t k,
                                           const DenseOrder& order) {
  using traits = compound_sparse::component_traits<Value>;
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  COMPOUND_SPARSE_REQUIRE(h.extent(0) == n * k * traits::size, "a dense matrix of " << h.extent(0) << " scalars for "
                                                                                    << k << " vectors of " << n
                                                                                    << " values");
  std::vector<Value> v(n * k);
  for (std::size_t j = 0; j < k; ++j)
    for (std::size_t i = 0; i < n; ++i)
      for (int c = 0; c < traits::size; ++c)
        traits::get(v[j * n + i], c) = h(order.offset(i, j, c, n, k, traits::size));
  return v;
}

}  // namespace compound_sparse_bench
