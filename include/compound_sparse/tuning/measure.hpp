#pragma once
// Measuring SpMV variants on one matrix: the common core of the tuner and the
// perf suite. For each requested variant the matrix and vectors are converted
// once per layout, the product is checked against the double-precision host
// reference (alpha = 1, beta = 0, y poisoned with NaN first), then timed with
// time_launches. When the data would sit in the GPU's L2 cache, `rotation`
// copies of the matrix and vectors are cycled through so that each launch
// reads from device memory, as a large matrix would.
//
// Two bounds keep a search affordable on irregular matrices (docs/tuning.md):
// - padding: a layout that would store more than `max_padding_ratio` slots per
//   non-zero (ELL pads every row to the longest, Sliced ELL each slice to its
//   longest) is refused before it is converted or allocated (BudgetExceeded,
//   recorded with the ratio); so is a layout that cannot hold the matrix at all
//   (layout_refusal: 16-bit column offsets on a slice spanning too many columns);
// - early drop: a candidate whose first timed batch is more than
//   `drop_slower_than` times the fastest median so far is not timed further; it is
//   recorded ok and `dropped`, with that batch's time. Layouts are measured in the
//   order they first appear in the keys, so a caller that puts a likely fast
//   variant first (likely_fast_first) has a good "fastest so far" early. A
//   candidate whose checked product alone took far longer (drop_after_check) is
//   dropped there, with that product's wall-clock time, before any warm-up.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "../device_info.hpp"
#include "../products/reference.hpp"
#include "../variants/registry.hpp"
#include "measurement.hpp"
#include "timing.hpp"

namespace compound_sparse {

struct MeasureOptions {
  TimingOptions timing;
  MemoryBudget budget;    ///< layouts over budget are reported, not run
  double tolerance = -1;  ///< max relative error; < 0: 1e-4 (float vectors) or 1e-12 (double, mixed)
  int max_rotation = 8;   ///< copies cycled when the data fits in cache
  unsigned seed = 12345;  ///< for x
  /// Early drop: a candidate whose first timed batch takes more than this factor times
  /// the fastest median measured before it is stopped there and recorded `dropped`
  /// (ok, with that one sample's time). At least 1; <= 0 or infinity: every candidate
  /// gets the full timing. 3 keeps every candidate that could be near the best (the
  /// re-timing window is 1.25x) with room for a noisy first batch.
  double drop_slower_than = 3.0;
  /// A time per product already known for this matrix (say from an earlier pass), that
  /// the early drop compares with from the first candidate on, as if measured first.
  /// Infinity (the default): only the times measured in this call count.
  double fastest_known_seconds = std::numeric_limits<double>::infinity();
  /// Padding bound: a layout whose stored slots (layout_num_slots) exceed this factor
  /// times the non-zeros is refused before conversion (BudgetExceeded). At least 1;
  /// <= 0 or infinity: no bound. 3 is above every layout of the tuning zoo (ELL at
  /// most 2.45x, docs/tuning.md) and far below the pathological cases (ELL of one
  /// long row among many short ones: thousands).
  double max_padding_ratio = 3.0;
};

/// Whether a bound of MeasureOptions (drop_slower_than, max_padding_ratio) is on.
inline bool measure_bound_enabled(double factor) {
  return factor > 0 && std::isfinite(factor);
}

/// Slots a layout stores per non-zero (an empty matrix counts as one non-zero), and whether
/// that passes max_padding_ratio: the measurement refuses such a layout before converting,
/// and quick tuning does not name it as a candidate.
inline double padding_ratio(std::uint64_t slots, std::size_t nonzeros) {
  return static_cast<double>(slots) / static_cast<double>(std::max<std::size_t>(1, nonzeros));
}
inline bool pads_past_bound(double ratio, double max_padding_ratio) {
  return measure_bound_enabled(max_padding_ratio) && ratio > max_padding_ratio;
}

/// The early-drop decision: whether a candidate whose first timed batch took
/// `first_seconds` per launch is dropped, given the fastest median measured so far
/// (`best_so_far`; not finite or <= 0 while none has been) and the factor
/// (MeasureOptions::drop_slower_than). Drops only when first_seconds > factor x
/// best_so_far; never with the bound off, before the first full measurement, or on a
/// NaN time.
inline bool drop_after_first_sample(double first_seconds, double best_so_far, double factor) {
  return measure_bound_enabled(factor) && std::isfinite(best_so_far) && best_so_far > 0 &&
         first_seconds > factor * best_so_far;
}

/// Slack of the drop at the check (drop_after_check) for what the check's wall-clock
/// time holds besides the product: the launch, the fence and, on a kernel's first
/// launch, loading its module (CUDA loads modules lazily: up to a few milliseconds).
constexpr double check_drop_slack_seconds = 0.01;

/// The early drop before any timing: whether a candidate whose checked product took
/// `check_seconds` of wall-clock time is dropped without warm-up or timed batch. Only a
/// candidate far beyond the bound (4 x factor x the fastest median so far, and 10 ms
/// over it) is: on an xl matrix with hub rows of thousands of non-zeros, row-per-thread
/// variants took 10-100 ms a product, and their 12 launches of warm-up and first batch
/// made a 776-candidate search take over 20 minutes on the H200.
inline bool drop_after_check(double check_seconds, double best_so_far, double factor) {
  return drop_after_first_sample(check_seconds, best_so_far, 4 * factor) &&
         check_seconds > best_so_far + check_drop_slack_seconds;
}

/// `keys` reordered so that the variants most like `likely` (one expected to be fast,
/// e.g. heuristic_variant's choice) come first: same layout, then same vector layout,
/// same schedule kind, nearest threads per SM, nearest lanes per row; ties keep their
/// order. With measure_variants, which takes layouts in the order they first appear,
/// the early drop then compares against a good time from the start.
inline std::vector<VariantKey> likely_fast_first(std::vector<VariantKey> keys, const VariantKey& likely) {
  const auto distance = [&likely](const VariantKey& k) {
    const double threads =
        std::abs(std::log2(double(k.threads) * k.teams_per_sm / (double(likely.threads) * likely.teams_per_sm)));
    const double lanes = std::abs(std::log2(double(k.lanes_per_row) / likely.lanes_per_row));
    return std::make_tuple(k.layout_name() != likely.layout_name(), k.vector != likely.vector, k.kind != likely.kind,
                           threads, lanes);
  };
  std::stable_sort(keys.begin(), keys.end(),
                   [&](const VariantKey& p, const VariantKey& q) { return distance(p) < distance(q); });
  return keys;
}

/// Bytes every SpMV must move at least: matrix values and indices once (CSR),
/// x once, y written once.
template <class Entry>
double compulsory_bytes(const HostCsr<Entry>& a) {
  using V = vector_type_t<Entry>;
  return static_cast<double>(a.num_entries()) * (sizeof(Entry) + sizeof(int)) +
         static_cast<double>(a.num_rows + 1) * sizeof(int) + (static_cast<double>(a.num_cols) + a.num_rows) * sizeof(V);
}

/// ||y - ref|| / ||ref|| over all scalar components (absolute error if ref is 0).
/// NaN anywhere in y gives NaN, so unwritten (poisoned) outputs never pass.
template <class Value, class Reference>
double relative_error(const std::vector<Value>& y, const std::vector<Reference>& ref) {
  COMPOUND_SPARSE_REQUIRE(y.size() == ref.size(), "relative_error: sizes " << y.size() << " and " << ref.size());
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < y.size(); ++i)
    for (int c = 0; c < component_traits<Value>::size; ++c) {
      const double want = component_traits<Reference>::get(ref[i], c);
      const double got = static_cast<double>(component_traits<Value>::get(y[i], c));
      diff += (got - want) * (got - want);
      norm += want * want;
    }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

/// progress(done, total, key) is called after each variant.
using MeasureProgress = std::function<void(std::size_t, std::size_t, const VariantKey&)>;
/// report(done, total, key, measurement) is called after each variant with its result
/// (whether it was dropped or refused, for a progress estimate).
using MeasureReport = std::function<void(std::size_t, std::size_t, const VariantKey&, const Measurement&)>;

/// What every variant of one matrix is checked with: x (every component
/// uniform in [-1, 1], drawn from `seed`), the double reference y = A x, and the
/// relative error accepted for the matrix's precision. Made once per matrix and
/// shared by all measurements and baselines of it.
///
/// With k > 1 vectors (make_measure_inputs' `vectors`), the SpMM with k vectors is
/// measured: x_vectors holds the k vectors (the first is x), multi_reference their k
/// references one after the other (vector j's at rows j * n ..).
template <class Entry>
struct MeasureInputs {
  using reference_value = vector_type_t<typename entry_traits<Entry>::template rebind<double>>;
  std::vector<vector_type_t<Entry>> x;
  std::vector<reference_value> reference;
  double tolerance = 0;  ///< 1e-4 for float vectors, 1e-12 for double (and mixed precision)
  std::vector<std::vector<vector_type_t<Entry>>> x_vectors;  ///< k > 1 only
  std::vector<reference_value> multi_reference;              ///< k > 1 only

  int vectors() const { return x_vectors.empty() ? 1 : static_cast<int>(x_vectors.size()); }
};

namespace impl {
/// MeasureInputs of an m x n matrix whose double reference of a vector x is reference_of(x).
template <class Entry, class ReferenceOf>
MeasureInputs<Entry> measure_inputs(int num_cols, unsigned seed, int vectors, const ReferenceOf& reference_of) {
  using V = vector_type_t<Entry>;
  using scalar = typename component_traits<V>::scalar_type;  // of x and y: double for mixed precision
  COMPOUND_SPARSE_REQUIRE(vectors >= 1, "make_measure_inputs: " << vectors << " vectors; at least 1");
  MeasureInputs<Entry> inputs;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  const auto random_vector = [&] {
    std::vector<V> x(num_cols);
    for (auto& v : x)
      for (int c = 0; c < component_traits<V>::size; ++c) component_traits<V>::get(v, c) = static_cast<scalar>(u(rng));
    return x;
  };
  inputs.x = random_vector();
  inputs.reference = reference_of(inputs.x);
  inputs.tolerance = sizeof(scalar) == sizeof(float) ? 1e-4 : 1e-12;
  if (vectors > 1) {
    inputs.x_vectors.push_back(inputs.x);
    inputs.multi_reference = inputs.reference;
    for (int j = 1; j < vectors; ++j) {
      inputs.x_vectors.push_back(random_vector());
      const auto r = reference_of(inputs.x_vectors.back());
      inputs.multi_reference.insert(inputs.multi_reference.end(), r.begin(), r.end());
    }
  }
  return inputs;
}

/// The double reference y = A x of a matrix on the device, computed there (a row per
/// thread, in the entry type rebound to double): the matrix never comes to the host.
template <class Entry, class MemorySpace>
std::vector<vector_type_t<typename entry_traits<Entry>::template rebind<double>>> reference_spmv_on_device(
    const DeviceCsr<Entry, MemorySpace>& a, const std::vector<vector_type_t<Entry>>& x) {
  using wide_entry = typename entry_traits<Entry>::template rebind<double>;
  using wide = entry_traits<wide_entry>;
  using wide_vector = typename wide::vector_type;
  Kokkos::View<wide_vector*, MemorySpace> wide_x("compound_sparse::reference_x", x.size());
  Kokkos::View<wide_vector*, MemorySpace> wide_y("compound_sparse::reference_y", a.num_rows);
  const auto host_x = Kokkos::create_mirror_view(wide_x);
  for (std::size_t i = 0; i < x.size(); ++i) host_x(i) = convert_components<wide_vector>(x[i]);
  Kokkos::deep_copy(wide_x, host_x);
  const auto row_map = a.row_map;
  const auto entries = a.entries;
  const auto values = a.values;
  Kokkos::parallel_for(
      "compound_sparse::reference_spmv_on_device",
      Kokkos::RangePolicy<typename MemorySpace::execution_space>(0, a.num_rows), KOKKOS_LAMBDA(int r) {
        wide_vector sum = wide::zero();
        for (int k = row_map(r); k < row_map(r + 1); ++k)
          wide::multiply_add(sum, convert_components<wide_entry>(values(k)), wide_x(entries(k)));
        wide_y(r) = sum;
      });
  const auto host_y = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), wide_y);
  return std::vector<wide_vector>(host_y.data(), host_y.data() + host_y.extent(0));
}
}  // namespace impl

/// Inputs for products with `vectors` vectors (at least 1): x is the same for every k
/// (the first vector), the others follow from the same random stream.
template <class Entry>
MeasureInputs<Entry> make_measure_inputs(const HostCsr<Entry>& a, unsigned seed, int vectors = 1) {
  using coefficient = coefficient_type_t<Entry>;
  return impl::measure_inputs<Entry>(a.num_cols, seed, vectors, [&a](const std::vector<vector_type_t<Entry>>& x) {
    return reference_spmv<double>(real_value<coefficient>(1), a, x, real_value<coefficient>(0),
                                  std::vector<vector_type_t<Entry>>(a.num_rows));
  });
}

/// The same for a matrix on the device: the same x, its references computed there.
template <class Entry, class MemorySpace>
MeasureInputs<Entry> make_measure_inputs(const DeviceCsr<Entry, MemorySpace>& a, unsigned seed, int vectors = 1) {
  return impl::measure_inputs<Entry>(a.num_cols, seed, vectors, [&a](const std::vector<vector_type_t<Entry>>& x) {
    return impl::reference_spmv_on_device(a, x);
  });
}

/// The reference of MeasureInputs on the device, [value][component] in double, with
/// its squared norm: measure_variants checks each candidate's y against it where y
/// lives, so that no candidate's y is copied back.
template <class MemorySpace>
struct DeviceReference {
  Kokkos::View<const double**, Kokkos::LayoutRight, MemorySpace> values;
  double squared_norm = 0;
};

template <class MemorySpace, class Reference>
DeviceReference<MemorySpace> device_reference(const std::vector<Reference>& reference) {
  using traits = component_traits<Reference>;
  Kokkos::View<double**, Kokkos::LayoutRight, MemorySpace> values(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("compound_sparse::reference")), reference.size(),
      traits::size);
  auto mirror = Kokkos::create_mirror_view(values);
  DeviceReference<MemorySpace> result;
  for (std::size_t i = 0; i < reference.size(); ++i)
    for (int c = 0; c < traits::size; ++c) {
      mirror(i, c) = traits::get(reference[i], c);
      result.squared_norm += mirror(i, c) * mirror(i, c);
    }
  Kokkos::deep_copy(values, mirror);
  result.values = values;
  return result;
}

/// relative_error of a device vector against the device reference, as the host
/// function computes it (NaN anywhere in y gives NaN); the sums run on the device,
/// in another order, so the last bits may differ from the host's.
/// Also for a multivector (AnyMultiVector) against its k references one after the other.
template <class DeviceVector, class MemorySpace>
double relative_error(const DeviceVector& y, const DeviceReference<MemorySpace>& reference) {
  const double diff = y.squared_distance(reference.values);
  return reference.squared_norm > 0 ? std::sqrt(diff / reference.squared_norm) : std::sqrt(diff);
}

/// Measures `keys` on `a`, checking each against `inputs` (make_measure_inputs).
/// Keys are grouped by matrix layout (each converted once), the layouts in the
/// order they first appear; the results come in the order measured. With inputs of
/// k > 1 vectors each key's SpMM is measured on multivectors of its vector layout
/// (Measurement::k = k; a key without one, VariantRegistry::supports_spmm, is an error).
/// `a` is a HostCsr<Entry>, or a DeviceCsr<Entry> whose layouts are built on the device.
template <class Matrix, class Entry>
std::vector<Measurement> measure_variants(const Matrix& a, const MeasureInputs<Entry>& inputs,
                                          std::vector<VariantKey> keys, const MeasureOptions& options,
                                          const MeasureReport& report) {
  using V = vector_type_t<Entry>;
  using scalar = typename component_traits<V>::scalar_type;  // of x and y: double for mixed precision
  using coefficient = coefficient_type_t<Entry>;
  const auto& registry = variant_registry<Entry>();
  const double tolerance = options.tolerance >= 0 ? options.tolerance : inputs.tolerance;
  const int k = inputs.vectors();
  const auto& reference = k == 1 ? inputs.reference : inputs.multi_reference;
  const auto one = real_value<coefficient>(1);
  const auto zero = real_value<coefficient>(0);
  std::vector<V> poison(a.num_rows);
  for (auto& v : poison)
    for (int c = 0; c < component_traits<V>::size; ++c)
      component_traits<V>::get(v, c) = std::numeric_limits<scalar>::quiet_NaN();

  COMPOUND_SPARSE_REQUIRE_KIND(
      InvalidInput, !measure_bound_enabled(options.drop_slower_than) || options.drop_slower_than >= 1,
      "measure_variants: drop_slower_than " << options.drop_slower_than
                                            << " would drop the fastest (at least 1, or <= 0 for none)");
  COMPOUND_SPARSE_REQUIRE_KIND(InvalidInput,
                               !measure_bound_enabled(options.max_padding_ratio) || options.max_padding_ratio >= 1,
                               "measure_variants: max_padding_ratio "
                                   << options.max_padding_ratio << " would refuse CSR (at least 1, or <= 0 for none)");

  // Group by matrix layout so each layout is converted once, layouts in the order
  // they first appear (the caller's order: likely_fast_first).
  std::map<std::string, std::size_t> first_seen;
  for (std::size_t i = 0; i < keys.size(); ++i) first_seen.emplace(keys[i].layout_name(), i);
  std::stable_sort(keys.begin(), keys.end(), [&first_seen](const VariantKey& p, const VariantKey& q) {
    return first_seen.at(p.layout_name()) < first_seen.at(q.layout_name());
  });
  const std::size_t cache = default_device_info().l2_cache_bytes;
  // Per outer layout, computed once: each is a pass over the matrix (the 16-bit column
  // layouts' over every non-zero), which per key cost more than the keys' timing at 60M
  // non-zeros.
  std::map<std::string, std::uint64_t> memory, slots;
  std::map<std::string, std::string> refusals;
  const auto once = [&a](auto& cache_map, const std::string& outer, auto&& compute) -> const auto& {
    auto it = cache_map.find(outer);
    if (it == cache_map.end()) it = cache_map.emplace(outer, compute(outer, a)).first;
    return it->second;
  };
  double best_so_far = options.fastest_known_seconds;  // fastest median of a full timing
  using memory_space = typename Kokkos::DefaultExecutionSpace::memory_space;
  std::optional<DeviceReference<memory_space>> device_ref;  // uploaded at the first check
  // Every key with operands of type Device: vectors (AnyVector) for the SpMV, multivectors
  // (AnyMultiVector) for the SpMM. `convert(layout, values)` makes one of them from x's host
  // values or the poison; `run(key, A, x, y)` is the product.
  const auto measure_all = [&](auto device_tag, const auto& x_values, const auto& poison_values, auto&& convert,
                               auto&& run) {
    using Device = typename decltype(device_tag)::type;
    // Per vector layout, kept across matrix layouts: x's rotation copies, y's, and the
    // output each check writes (filled with NaN first, so that an unwritten row shows).
    struct Operands {
      std::vector<Device> x, y;
      std::optional<Device> check;
    };
    std::map<std::string, Operands> operands;
    std::vector<typename VariantRegistry<Entry>::matrix_type> matrices;
    std::string current_layout;
    int rotation = 1;
    std::vector<Measurement> results;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const VariantKey& key = keys[i];
      Measurement m;
      m.variant = key.name();
      m.k = k;
      try {
        COMPOUND_SPARSE_REQUIRE_KIND(NotCompiled, registry.contains(key),
                                     "variant '" << key.name() << "' is not compiled into this build");
        COMPOUND_SPARSE_REQUIRE_KIND(NotCompiled, k == 1 || registry.supports_spmm(key),
                                     "variant '" << key.name() << "' has no SpMM (COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS)");
        m.memory_bytes =
            once(memory, key.outer, [&](const auto& o, const auto& h) { return registry.memory_bytes(o, h); });
        m.refused = true;  // until the layout holds the matrix and both bounds pass
        const std::string& refusal =
            once(refusals, key.outer, [&](const auto& o, const auto& h) { return registry.refusal(o, h); });
        COMPOUND_SPARSE_REQUIRE_KIND(BudgetExceeded, refusal.empty(), refusal);
        COMPOUND_SPARSE_REQUIRE_KIND(BudgetExceeded, m.memory_bytes <= options.budget.max_bytes,
                                     key.outer << " needs " << m.memory_bytes << " bytes, over the memory budget");
        if (measure_bound_enabled(options.max_padding_ratio)) {
          const std::uint64_t stored =
              once(slots, key.outer, [&](const auto& o, const auto& h) { return registry.num_slots(o, h); });
          const double ratio = padding_ratio(stored, a.num_entries());
          COMPOUND_SPARSE_REQUIRE_KIND(BudgetExceeded, !pads_past_bound(ratio, options.max_padding_ratio),
                                       key.outer << " would store " << stored << " slots for " << a.num_entries()
                                                 << " non-zeros (" << ratio << "x), over the padding bound of "
                                                 << options.max_padding_ratio << "x: refused before converting");
        }
        m.refused = false;
        if (key.layout_name() != current_layout) {
          matrices.clear();
          current_layout.clear();
          const double bytes = m.memory_bytes + double(k) * (a.num_rows + a.num_cols) * double(sizeof(V));
          rotation = cache == 0 ? 1 : std::max(1, std::min(options.max_rotation, int(std::ceil(4.0 * cache / bytes))));
          for (int r = 0; r < rotation; ++r) matrices.push_back(registry.convert_matrix(key.outer, key.inner, a));
          current_layout = key.layout_name();
        }
        Operands& ops = operands[key.vector];
        while (ops.x.size() < static_cast<std::size_t>(rotation)) {
          ops.x.push_back(convert(key.vector, x_values));
          ops.y.push_back(convert(key.vector, poison_values));
        }
        if (!ops.check) ops.check = convert(key.vector, poison_values);
        // Check: y starts as NaN, so an unwritten row shows up.
        if (!device_ref) device_ref = device_reference<memory_space>(reference);
        ops.check->fill(std::numeric_limits<scalar>::quiet_NaN());
        Kokkos::fence();
        const auto check_start = std::chrono::steady_clock::now();
        run(key, matrices[0], ops.x[0], *ops.check);
        Kokkos::fence();
        const double check_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - check_start).count();
        m.relative_error = relative_error(*ops.check, *device_ref);
        COMPOUND_SPARSE_REQUIRE(std::isfinite(m.relative_error) && m.relative_error <= tolerance,
                                "result differs from the reference: relative error " << m.relative_error);
        m.rotation = rotation;
        m.ok = true;
        if (drop_after_check(check_seconds, best_so_far, options.drop_slower_than)) {
          // Dropped at the check: ok (it was checked), with the check's wall-clock time.
          m.seconds = m.min_seconds = m.max_seconds = check_seconds;
          m.dropped = true;
        } else {
          // Early drop: after the first timed batch, stop a candidate far slower than the
          // fastest so far (drop_after_first_sample).
          const auto t = time_launches(
              [&](int n) { run(key, matrices[n % rotation], ops.x[n % rotation], ops.y[n % rotation]); },
              options.timing, Kokkos::DefaultExecutionSpace(),
              [&](double first) { return drop_after_first_sample(first, best_so_far, options.drop_slower_than); });
          m.seconds = t.median_seconds;
          m.min_seconds = t.min_seconds;
          m.max_seconds = t.max_seconds;
          m.dropped = t.samples < options.timing.samples;
          if (!m.dropped) best_so_far = std::min(best_so_far, m.seconds);
        }
      } catch (const std::exception& e) {  // Error, or a Kokkos allocation failure
        // Also after a passed check: a variant whose timing failed has no time, and a
        // measurement left ok with 0 seconds would rank first.
        m.ok = false;
        m.seconds = m.min_seconds = m.max_seconds = 0;
        m.error = e.what();
        m.refused = m.refused && dynamic_cast<const BudgetExceeded*>(&e) != nullptr;
      }
      results.push_back(m);
      if (report) report(i + 1, keys.size(), key, results.back());
    }
    return results;
  };
  using matrix_type = typename VariantRegistry<Entry>::matrix_type;
  if (k == 1)
    return measure_all(
        TypeTag<typename VariantRegistry<Entry>::vector_type>{}, inputs.x, poison,
        [&](const std::string& layout, const std::vector<V>& values) {
          return registry.convert_vector(layout, values);
        },
        [&](const VariantKey& key, const matrix_type& m, const auto& x, const auto& y) {
          registry.spmv(key, one, m, x, zero, y);
        });
  return measure_all(
      TypeTag<typename VariantRegistry<Entry>::multivector_type>{}, inputs.x_vectors,
      std::vector<std::vector<V>>(k, poison),
      [&](const std::string& layout, const std::vector<std::vector<V>>& values) {
        return registry.convert_multivector(layout, values);
      },
      [&](const VariantKey& key, const matrix_type& m, const auto& x, const auto& y) {
        registry.spmm(key, one, m, x, zero, y);
      });
}

/// The same, with progress(done, total, key) after each variant.
template <class Matrix, class Entry>
std::vector<Measurement> measure_variants(const Matrix& a, const MeasureInputs<Entry>& inputs,
                                          std::vector<VariantKey> keys, const MeasureOptions& options = {},
                                          const MeasureProgress& progress = {}) {
  MeasureReport report;
  if (progress)
    report = [&progress](std::size_t done, std::size_t total, const VariantKey& key, const Measurement&) {
      progress(done, total, key);
    };
  return measure_variants(a, inputs, std::move(keys), options, report);
}

/// The same, with inputs drawn from options.seed.
template <class Matrix>
std::vector<Measurement> measure_variants(const Matrix& a, std::vector<VariantKey> keys,
                                          const MeasureOptions& options = {}, const MeasureProgress& progress = {}) {
  return measure_variants(a, make_measure_inputs(a, options.seed), std::move(keys), options, progress);
}

/// Appends `key` with each lanes_per_row in `lanes`, or once with 1 lane if its
/// kind does not use lanes.
inline void with_lanes(VariantKey key, const std::vector<int>& lanes, std::vector<VariantKey>& keys) {
  if (!uses_lanes(key.kind)) {
    key.lanes_per_row = 1;
    keys.push_back(key);
    return;
  }
  for (int l : lanes) {
    key.lanes_per_row = l;
    keys.push_back(key);
  }
}

/// The reduced search of the method: tune threads per SM (n_t * n_b) rather than
/// n_t and n_b separately. For each compiled (layout, vector layout, kind) keep,
/// per distinct n_t * n_b, the compiled pair whose n_t is closest to 256, and
/// combine it with lanes_per_row in `lanes` (with_lanes). Lanes 2 is in the set
/// since rows of about seven quaternion<double> slots (Dirac operators on meshes
/// of 35-47K vertices) ran 4-8% faster with two lanes a row than with one or four
/// on the H200; 8 and 16 won nothing
/// there that 4 or 32 did not. Kinds that split rows
/// (merge_path, segmented_sum) keep every compiled pair: in the merge path n_t
/// sets the tile and how many threads share each barrier, and at the same
/// threads per SM teams of 128 ran up to 8% faster than teams of 256 on the H200;
/// the segmented sum has no barrier, but its register budget (n_b) decides how many
/// tiles' loads are in flight.
template <class Entry>
std::vector<VariantKey> reduced_variant_keys(const std::vector<int>& lanes = {1, 2, 4, 32}) {
  std::map<std::string, VariantKey> chosen;  // compiled name without bounds + threads per SM -> key
  for (const auto& key : variant_registry<Entry>().variants()) {
    const std::string group = key.outer + "." + key.inner + "." + key.vector + "." + to_string(key.kind) + "." +
                              std::to_string(key.threads * key.teams_per_sm) +
                              (splits_rows(key.kind) ? ".t" + std::to_string(key.threads) : std::string());
    const auto it = chosen.find(group);
    if (it == chosen.end() || std::abs(key.threads - 256) < std::abs(it->second.threads - 256)) chosen[group] = key;
  }
  std::vector<VariantKey> keys;
  for (const auto& entry : chosen) with_lanes(entry.second, lanes, keys);
  return keys;
}

/// Keys of every compiled variant combined with each lanes_per_row in `lanes`.
template <class Entry>
std::vector<VariantKey> all_variant_keys(const std::vector<int>& lanes = {1, 2, 4, 8, 16, 32}) {
  std::vector<VariantKey> keys;
  for (const auto& key : variant_registry<Entry>().variants()) with_lanes(key, lanes, keys);
  return keys;
}

}  // namespace compound_sparse
