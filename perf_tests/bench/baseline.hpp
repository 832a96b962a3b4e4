#pragma once
// What a baseline run reports, and the pieces every baseline shares: device
// copies of x (rotated like ours), the result check against the double
// reference, and timing with compound_sparse::time_launches.

#include <compound_sparse/tuning/measure.hpp>
#include <compound_sparse/tuning/timing.hpp>
#include <cstring>
#include <sstream>
#include <string>
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

/// Runs `check(y)` once with y poisoned (NaN), verifies against the reference,
/// then times `run(copy)` rotating over `rotation` copies.
template <class Value, class Scalar, class Reference, class Run>
void check_and_time(BaselineResult& result, const std::vector<Reference>& reference,
                    std::vector<Kokkos::View<Scalar*>>& ys, Run&& run, const compound_sparse::TimingOptions& timing,
                    double tolerance) {
  Kokkos::deep_copy(ys[0], std::numeric_limits<Scalar>::quiet_NaN());
  run(0);
  Kokkos::fence();
  result.relative_error = compound_sparse::relative_error(flat_host_copy<Value>(ys[0]), reference);
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

}  // namespace compound_sparse_bench
