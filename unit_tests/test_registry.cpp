// The generated variant registry: every compiled variant is reachable by name,
// computes the right product, and bad keys or mismatched layouts are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/tuning/measure.hpp>
#include <compound_sparse/variant_set.hpp>
#include <compound_sparse/variants/registry.hpp>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "spmv_test_suite.hpp"
#include "tuning_test_helpers.hpp"

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;

TEST(VariantKey, RoundTripsAndRejectsMalformedKeys) {
  const auto key = cs::parse_variant_key("sell32.soa.aos.dynamic_warp.t256.b4.l8");
  EXPECT_EQ(key.outer, "sell32");
  EXPECT_EQ(key.inner, "soa");
  EXPECT_EQ(key.vector, "aos");
  EXPECT_EQ(key.kind, cs::ScheduleKind::DynamicWarp);
  EXPECT_EQ(key.threads, 256);
  EXPECT_EQ(key.teams_per_sm, 4);
  EXPECT_EQ(key.lanes_per_row, 8);
  EXPECT_EQ(key.name(), "sell32.soa.aos.dynamic_warp.t256.b4.l8");
  for (const char* bad :
       {"", "csr.aos.aos.static.t128.b4", "coo.aos.aos.static.t128.b4.l1", "csr.aos.xyz.static.t128.b4.l1",
        "csr.aos.aos.fast.t128.b4.l1", "csr.aos.aos.static.128.b4.l1", "csr.aos.aos.static.t12a.b4.l1",
        "csr.aos.aos.static.t99999999.b4.l1"})
    EXPECT_THROW(cs::parse_variant_key(bad), cs::Error) << bad;
}

// The variants of the build's variant set (variant_set.hpp), by compiled name, each with
// whether its SpMM is compiled: what the registry must hold, derived from the compile-time
// lists, not from the registry.
template <class Entry>
std::map<std::string, bool> variants_of_the_set() {
  std::map<std::string, bool> names;
  cs::for_each_type(cs::OuterLayouts{}, [&](auto outer) {
    using Outer = typename decltype(outer)::type;
    cs::for_each_type(cs::InnerLayouts{}, [&](auto inner) {
      using Inner = typename decltype(inner)::type;
      cs::for_each_type(cs::InnerLayouts{}, [&](auto vec) {
        using Vec = typename decltype(vec)::type;
        cs::for_each_value(cs::ScheduleKinds{}, [&](auto kind) {
          constexpr cs::ScheduleKind Kind = decltype(kind)::value;
          if constexpr (cs::schedule_supports_outer_v<Kind, Outer>) {
            cs::for_each_type(cs::CompiledLaunchBounds{}, [&](auto bounds) {
              using Bounds = typename decltype(bounds)::type;
              if constexpr (cs::impl::variant_in_set_v<Entry, Outer, Inner, Vec, Kind, Bounds>) {
                cs::VariantKey key{
                    Outer::name(), Inner::name(), Vec::name(), Kind, int(Bounds::threads), int(Bounds::min_teams), 1};
                names[key.compiled_name()] = cs::impl::variant_spmm_in_set_v<Entry, Outer, Inner, Vec, Kind, Bounds>;
              }
            });
          }
        });
      });
    });
  });
  return names;
}

TEST(Registry, ListsEveryVariantOfTheSet) {
  const auto& registry = cs::variant_registry<C>();
  const auto keys = registry.variants();
  const auto expected = variants_of_the_set<C>();
  EXPECT_EQ(keys.size(), expected.size());
  for (const auto& key : keys) EXPECT_EQ(expected.count(key.compiled_name()), 1u) << key.name();
  // Every variant of the set has an SpMM in the full space; in a default set at least the
  // fallback of each matrix layout's schedules (tuning/default_variant_set.py).
  std::set<std::string> layouts_with_spmm;
  for (const auto& [name, spmm] : expected)
    if (spmm) layouts_with_spmm.insert(cs::parse_variant_key(name + ".l1").layout_name());
  std::set<std::string> layouts;
  for (const auto& key : keys) layouts.insert(key.layout_name());
  EXPECT_EQ(layouts_with_spmm, layouts);
}

TEST(Registry, ListsEveryConfiguredVariant) {
  if (!cs::impl::compiled_variant_set<C>::every &&
      cs::impl::variant_set_every_bounds::size != cs::CompiledLaunchBounds::size)
    GTEST_SKIP() << "the variant set (COMPOUND_SPARSE_VARIANT_SET) compiles part of the space: "
                    "ListsEveryVariantOfTheSet checks it";
  const auto& registry = cs::variant_registry<C>();
  const auto keys = registry.variants();
  std::string bounds = COMPOUND_SPARSE_LAUNCH_BOUNDS;
  const std::size_t num_bounds = std::count(bounds.begin(), bounds.end(), ',') + 1;
  EXPECT_EQ(num_bounds, cs::CompiledLaunchBounds::size);
  // (kind, outer layout it runs on) x matrix inner x vector inner x bounds, as the
  // variant space declares them
  std::size_t kinds_and_outers = 0;
  cs::for_each_value(cs::ScheduleKinds{}, [&](auto kind) {
    kinds_and_outers += cs::schedule_outer_layouts<decltype(kind)::value>::type::size;
  });
  // merge_path and segmented_sum run on CSR only
  EXPECT_EQ(kinds_and_outers, cs::OuterLayouts::size * (cs::ScheduleKinds::size - 2) + 2);
  EXPECT_EQ(keys.size(), kinds_and_outers * cs::InnerLayouts::size * cs::InnerLayouts::size * num_bounds);
  EXPECT_GE(keys.size(), 4u * 2 * 2 * 3 * num_bounds);  // at least the space of the published method
  for (const auto& key : keys) {
    EXPECT_TRUE(registry.contains(key)) << key.name();
    EXPECT_EQ(cs::parse_variant_key(key.name()), key);
  }
  EXPECT_FALSE(registry.contains(cs::parse_variant_key("csr.aos.aos.static.t7.b3.l1")));
}

// Every registered variant, called by name, against the double reference.
template <class Entry>
void check_all_registered(unsigned seed) {
  using V = cs::vector_type_t<Entry>;
  const auto& registry = cs::variant_registry<Entry>();
  std::mt19937 rng(seed);
  const auto host = compound_sparse_test::random_csr<Entry>(203, 150, 0, 9, 17, rng);
  const auto x_host = compound_sparse_test::random_vector<V>(host.num_cols, rng);
  const auto y0 = compound_sparse_test::random_vector<V>(host.num_rows, rng);
  const auto [alpha, beta] = compound_sparse_test::coefficient_pairs<cs::coefficient_type_t<Entry>>()[0];
  for (auto key : registry.variants()) {
    key.lanes_per_row = cs::uses_lanes(key.kind) ? 4 : 1;
    const auto a = registry.convert_matrix(key.outer, key.inner, host);
    EXPECT_EQ(a.memory_bytes(), registry.memory_bytes(key.outer, host));
    const auto x = registry.convert_vector(key.vector, x_host);
    const auto y = registry.convert_vector(key.vector, y0);
    registry.spmv(key, alpha, a, x, beta, y);
    compound_sparse_test::expect_matches_reference<Entry>(key.name(), alpha, host, x_host, beta, y0, y.to_host());
  }
}

TEST(Registry, EveryVariantMatchesReferenceComplexDouble) {
  check_all_registered<C>(1);
}
TEST(Registry, EveryVariantMatchesReferenceQuaternionFloat) {
  check_all_registered<cs::Quaternion<float>>(2);
}
TEST(Registry, EveryVariantMatchesReferenceBlock3Double) {
  check_all_registered<cs::Block<double, 3>>(3);
}

// Every registered variant's SpMM, called by name, on k = 3 and k = 5 vectors (not
// multiples of any tile of vectors a thread keeps), column by column against the double
// reference (the kinds that split rows on aos multivectors through soa copies); the
// variants with an SpMM are exactly those the variant set compiles one for: in the full
// space, those of the launch bounds of COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS.
template <class Entry>
void check_all_registered_spmm(unsigned seed) {
  using V = cs::vector_type_t<Entry>;
  const auto& registry = cs::variant_registry<Entry>();
  std::mt19937 rng(seed);
  const auto host = compound_sparse_test::random_csr<Entry>(203, 150, 0, 9, 17, rng);
  const auto [alpha, beta] = compound_sparse_test::coefficient_pairs<cs::coefficient_type_t<Entry>>()[0];
  const auto of_the_set = variants_of_the_set<Entry>();
  int with_spmm = 0;
  for (auto key : registry.variants()) {
    bool spmm_bounds = false;
    cs::for_each_type(cs::SpmmLaunchBounds{}, [&](auto bounds) {
      using Bounds = typename decltype(bounds)::type;
      spmm_bounds |= key.threads == int(Bounds::threads) && key.teams_per_sm == int(Bounds::min_teams);
    });
    ASSERT_EQ(of_the_set.count(key.compiled_name()), 1u) << key.name();
    const bool expected = of_the_set.at(key.compiled_name());
    if (!spmm_bounds) {
      EXPECT_FALSE(expected) << key.name();
    }
    if (cs::impl::compiled_variant_set<Entry>::every) {
      EXPECT_EQ(expected, spmm_bounds) << key.name();
    }
    EXPECT_EQ(registry.supports_spmm(key), expected) << key.name();
    if (!expected) continue;
    ++with_spmm;
    key.lanes_per_row = cs::uses_lanes(key.kind) ? 4 : 1;
    const auto a = registry.convert_matrix(key.outer, key.inner, host);
    for (const int k : {3, 5}) {
      std::vector<std::vector<V>> x_host, y0;
      for (int j = 0; j < k; ++j) {
        x_host.push_back(compound_sparse_test::random_vector<V>(host.num_cols, rng));
        y0.push_back(compound_sparse_test::random_vector<V>(host.num_rows, rng));
      }
      const auto x = registry.convert_multivector(key.vector, x_host);
      const auto y = registry.convert_multivector(key.vector, y0);
      EXPECT_EQ(x.layout(), key.vector);
      EXPECT_EQ(x.count(), k);
      registry.spmm(key, alpha, a, x, beta, y);
      const auto got = y.to_host();
      for (int j = 0; j < k; ++j)
        compound_sparse_test::expect_matches_reference<Entry>(key.name() + " vector " + std::to_string(j), alpha, host,
                                                              x_host[j], beta, y0[j], got[j]);
    }
  }
  EXPECT_GT(with_spmm, 0);
}

TEST(Registry, EverySpmmVariantMatchesReferenceComplexFloat) {
  check_all_registered_spmm<Kokkos::complex<float>>(11);
}
TEST(Registry, EverySpmmVariantMatchesReferenceQuaternionDouble) {
  check_all_registered_spmm<cs::Quaternion<double>>(12);
}
TEST(Registry, EverySpmmVariantMatchesReferenceBlock3Mixed) {
  check_all_registered_spmm<cs::Mixed<cs::Block<float, 3>>>(13);
}

TEST(Registry, SpmmRefusesVariantsWithoutOneAndMismatchedMultivectors) {
  const auto& registry = cs::variant_registry<C>();
  std::mt19937 rng(14);
  const auto host = compound_sparse_test::random_csr<C>(20, 12, 1, 3, -1, rng);
  const auto a = registry.convert_matrix("csr", "aos", host);
  const std::vector<std::vector<C>> two_x(2, compound_sparse_test::random_vector<C>(12, rng));
  const std::vector<std::vector<C>> two_y(2, compound_sparse_test::random_vector<C>(20, rng));
  const auto x = registry.convert_multivector("aos", two_x);
  const auto y = registry.convert_multivector("aos", two_y);
  const auto x_soa = registry.convert_multivector("soa", two_x);
  // A variant whose launch bounds compile no SpMM (GPU builds: COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS
  // is a subset there; every pair on the host, where no such variant exists).
  for (const auto& key : registry.variants())
    if (!registry.supports_spmm(key) && key.layout_name() == "csr.aos") {
      try {
        registry.spmm(key, C(1, 0), a, key.vector == "aos" ? x : x_soa, C(0, 0),
                      registry.convert_multivector(key.vector, two_y));
        ADD_FAILURE() << "expected no SpMM for " << key.name();
      } catch (const cs::NotCompiled& e) {
        EXPECT_NE(std::string(e.what()).find("COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS"), std::string::npos) << e.what();
      }
      break;
    }
  cs::VariantKey row;
  for (const auto& key : registry.variants())
    if (key.layout_name() == "csr.aos" && key.vector == "aos" && key.kind == cs::ScheduleKind::Static &&
        registry.supports_spmm(key))
      row = key;
  ASSERT_FALSE(row.outer.empty()) << "no static csr.aos variant with an SpMM is compiled";
  EXPECT_THROW(registry.spmm(row, C(1, 0), a, x_soa, C(0, 0), y), cs::Error);     // soa X for an aos key
  EXPECT_THROW(registry.spmm(row, C(1, 0), a, y, C(0, 0), y), cs::InvalidInput);  // X of A's rows
  const std::vector<std::vector<C>> ragged = {std::vector<C>(12), std::vector<C>(11)};
  EXPECT_THROW(registry.convert_multivector("aos", ragged), cs::InvalidInput);
  EXPECT_THROW(registry.convert_multivector("rows", two_x), cs::NotCompiled);
}

TEST(Registry, RefusesUnknownVariantsAndMismatchedLayouts) {
  const auto& registry = cs::variant_registry<C>();
  std::mt19937 rng(4);
  const auto host = compound_sparse_test::random_csr<C>(10, 10, 1, 3, -1, rng);
  const auto a = registry.convert_matrix("ell", "soa", host);
  const auto x = registry.convert_vector("aos", compound_sparse_test::random_vector<C>(10, rng));
  const auto y = registry.convert_vector("aos", compound_sparse_test::random_vector<C>(10, rng));
  const auto key = registry.variants().front();  // a csr variant
  try {
    registry.spmv(key, C(1, 0), a, x, C(0, 0), y);
    FAIL() << "expected a layout mismatch";
  } catch (const cs::Error& e) {
    EXPECT_NE(std::string(e.what()).find("stored as 'ell.soa'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(registry.spmv(cs::parse_variant_key("ell.soa.aos.static.t7.b3.l1"), C(1, 0), a, x, C(0, 0), y),
               cs::Error);
  EXPECT_THROW(registry.convert_matrix("coo", "aos", host), cs::Error);
  EXPECT_THROW(registry.convert_vector("xyz", {}), cs::Error);
}

TEST(Timing, MedianOfBatchesAndRunningIndex) {
  std::vector<int> seen;
  cs::TimingOptions options;
  options.warmup = 2;
  options.batch = 3;
  options.samples = 5;
  const auto result = cs::time_launches([&](int i) { seen.push_back(i); }, options);
  ASSERT_EQ(seen.size(), 17u);  // 2 warm-up + 3 x 5 timed, indices keep counting for rotation
  for (int i = 0; i < 17; ++i) EXPECT_EQ(seen[i], i);
  EXPECT_EQ(result.launches, 15);
  EXPECT_LE(result.min_seconds, result.median_seconds);
  EXPECT_LE(result.median_seconds, result.max_seconds);
  options.samples = 0;
  EXPECT_THROW(cs::time_launches([](int) {}, options), cs::Error);
}

TEST(Timing, StopsAfterTheFirstBatchWhenTheCallerSaysSo) {
  cs::TimingOptions options;
  options.warmup = 2;
  options.batch = 3;
  options.samples = 5;
  int launched = 0;
  std::vector<double> asked;
  const auto stop = [&](double first) {
    asked.push_back(first);
    return true;
  };
  const auto stopped = cs::time_launches([&](int) { ++launched; }, options, Kokkos::DefaultExecutionSpace(), stop);
  EXPECT_EQ(launched, 2 + 3);  // warm-up and one batch, not five
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_GE(asked[0], 0.0);
  EXPECT_EQ(stopped.samples, 1);
  EXPECT_EQ(stopped.launches, 3);
  EXPECT_EQ(stopped.median_seconds, asked[0]);
  EXPECT_EQ(stopped.min_seconds, asked[0]);
  EXPECT_EQ(stopped.max_seconds, asked[0]);
  // Asked once, answered "go on": the full timing.
  launched = 0;
  asked.clear();
  const auto full = cs::time_launches([&](int) { ++launched; }, options, Kokkos::DefaultExecutionSpace(),
                                      [&](double first) {
                                        asked.push_back(first);
                                        return false;
                                      });
  EXPECT_EQ(launched, 2 + 3 * 5);
  EXPECT_EQ(asked.size(), 1u);
  EXPECT_EQ(full.samples, 5);
  EXPECT_EQ(full.launches, 15);
}

namespace {
/// A kernel of `n` independent multiply-adds per element (device work of a known kind).
void busy_kernel(const Kokkos::View<double*>& v, int n) {
  Kokkos::parallel_for(
      "busy", Kokkos::RangePolicy<>(0, v.extent(0)), KOKKOS_LAMBDA(int i) {
        double x = v(i);
        for (int k = 0; k < n; ++k) x = x * 0.999 + 1e-3;
        v(i) = x;
      });
}
}  // namespace

TEST(Timing, QueuedModeIsGpuTimeOnCudaAndAClearErrorElsewhere) {
  cs::TimingOptions options;
  options.warmup = 2;
  options.batch = 20;
  options.samples = 7;
  options.mode = cs::TimingMode::Queued;
  Kokkos::View<double*> v("v", 1 << 20);
  if (!cs::impl::queued_timing_available<Kokkos::DefaultExecutionSpace>()) {
    try {
      cs::time_launches([&](int) { busy_kernel(v, 1); }, options);
      FAIL() << "queued timing on " << Kokkos::DefaultExecutionSpace::name() << " did not throw";
    } catch (const cs::Error& e) {
      EXPECT_NE(std::string(e.what()).find("needs the CUDA backend"), std::string::npos) << e.what();
    }
    return;
  }
  // A long kernel: queued (GPU events) and wall (host clock) agree, launch overhead being small.
  // Not symmetric: ctest runs other GPU tests beside this one, whose work can lengthen the
  // host's clock between fences more than the events around our queued batch (seen on an H200
  // under ctest -j4: queued 0.85 of wall). Queued time well below wall would mean the
  // events missed part of the batch; above it, that they took in the hold.
  // Three alternating pairs, and the pair closest to agreement is judged: other tests' GPU
  // work during one measurement only (seen under ctest -j4: queued 1.11 of wall) moves one
  // pair, while events that missed part of the batch or took in the hold move all three.
  auto wall = options;
  wall.mode = cs::TimingMode::Wall;
  double long_queued = 0, long_wall = 0, closest = 0;
  for (int pair = 0; pair < 3; ++pair) {
    const double q = cs::time_launches([&](int) { busy_kernel(v, 2000); }, options).median_seconds;
    const double w = cs::time_launches([&](int) { busy_kernel(v, 2000); }, wall).median_seconds;
    if (pair == 0 || std::abs(std::log(q / w)) < std::abs(std::log(closest))) {
      long_queued = q;
      long_wall = w;
      closest = q / w;
    }
  }
  EXPECT_GT(long_queued, 50e-6) << "the busy kernel is too short to compare";
  EXPECT_GT(closest, 0.6) << long_queued << " s queued, " << long_wall << " s wall";
  EXPECT_LT(closest, 1.1) << long_queued << " s queued, " << long_wall << " s wall";
  // A tiny kernel: wall time is the host's launch rate, queued time the GPU's, which is shorter.
  Kokkos::View<double*> one("one", 1);
  const double tiny_queued = cs::time_launches([&](int) { busy_kernel(one, 1); }, options).median_seconds;
  const double tiny_wall = cs::time_launches([&](int) { busy_kernel(one, 1); }, wall).median_seconds;
  EXPECT_GT(tiny_queued, 0.0);
  EXPECT_LT(tiny_queued, tiny_wall) << tiny_queued << " s queued, " << tiny_wall << " s wall";
  // A launch that waits for the device cannot be queued: an Error (after the hold gives up), not a hang.
  options.warmup = 0;
  options.samples = 1;
  options.batch = 2;
  EXPECT_THROW(cs::time_launches(
                   [&](int) {
                     busy_kernel(one, 1);
                     Kokkos::fence();
                   },
                   options),
               cs::Error);
}

TEST(Measure, ChecksAndTimesEveryRequestedVariant) {
  std::mt19937 rng(8);
  const auto host = compound_sparse_test::random_csr<cs::Quaternion<double>>(300, 280, 0, 12, 3, rng);
  auto keys = cs::all_variant_keys<cs::Quaternion<double>>({1, 8});
  keys.push_back(cs::parse_variant_key("csr.aos.aos.static.t7.b3.l1"));  // not compiled
  cs::MeasureOptions options;
  options.timing.samples = 3;
  options.timing.batch = 2;
  options.max_padding_ratio = 0;  // every layout, the long row's ELL included (PaddingHeavyLayouts... tests the bound)
  std::size_t calls = 0;
  const auto results =
      cs::measure_variants(host, keys, options, [&](std::size_t done, std::size_t total, const cs::VariantKey&) {
        EXPECT_EQ(done, ++calls);
        EXPECT_EQ(total, keys.size());
      });
  ASSERT_EQ(results.size(), keys.size());
  int failed = 0;
  for (const auto& m : results) {
    if (!m.ok) {
      ++failed;
      EXPECT_NE(m.error.find("not compiled"), std::string::npos) << m.error;
      continue;
    }
    EXPECT_GT(m.seconds, 0) << m.variant;
    EXPECT_LT(m.relative_error, 1e-12) << m.variant;
    EXPECT_EQ(m.memory_bytes, cs::variant_registry<cs::Quaternion<double>>().memory_bytes(m.key().outer, host));
  }
  EXPECT_EQ(failed, 1);
  // A budget below every layout's size: nothing runs, every result says why.
  options.budget.max_bytes = 100;
  for (const auto& m : cs::measure_variants(host, cs::all_variant_keys<cs::Quaternion<double>>({1}), options))
    EXPECT_NE(m.error.find("over the memory budget"), std::string::npos) << m.error;
}

// A variant that passes the check but whose timing throws (on the GPU: queued timing of
// a product that synchronises, the H100's bench of run 4; here: no timed batches) is not
// ok and has no time. Left ok with 0 seconds, it ranked first among the bench's leaders.
TEST(Measure, TimingThatFailsAfterTheCheckIsNotOk) {
  std::mt19937 rng(16);
  const auto host = compound_sparse_test::random_csr<C>(90, 70, 0, 6, 2, rng);
  cs::MeasureOptions options;
  options.timing.samples = 0;  // refused by time_launches, after the check has passed
  const auto keys = cs::all_variant_keys<C>({1});
  ASSERT_FALSE(keys.empty());
  for (const auto& m : cs::measure_variants(host, {keys.front()}, options)) {
    EXPECT_FALSE(m.ok) << m.variant;
    EXPECT_EQ(m.seconds, 0) << m.variant;
    EXPECT_NE(m.error.find("samples must be positive"), std::string::npos) << m.error;
    EXPECT_LT(m.relative_error, 1e-12) << m.variant;  // the check ran and passed
  }
}

TEST(Measure, SeveralVectorsMeasureTheSpmmOfEachKey) {
  using Q = cs::Quaternion<float>;
  std::mt19937 rng(15);
  const auto host = compound_sparse_test::random_csr<Q>(150, 130, 0, 10, 2, rng);
  const auto inputs = cs::make_measure_inputs(host, 3, 4);
  ASSERT_EQ(inputs.vectors(), 4);
  EXPECT_EQ(inputs.x_vectors.front(), inputs.x);  // the first vector is the SpMV's x
  EXPECT_EQ(inputs.multi_reference.size(), 4u * host.num_rows);
  auto keys = cs::all_variant_keys<Q>({1, 4});
  cs::MeasureOptions options;
  options.timing.samples = 2;
  options.timing.batch = 2;
  options.max_padding_ratio = 0;
  const auto results = cs::measure_variants(host, inputs, keys, options);
  ASSERT_EQ(results.size(), keys.size());
  const auto& registry = cs::variant_registry<Q>();
  for (const auto& m : results) {
    EXPECT_EQ(m.k, 4) << m.variant;
    if (registry.supports_spmm(m.key())) {
      EXPECT_TRUE(m.ok) << m.variant << ": " << m.error;
      EXPECT_LT(m.relative_error, 1e-5) << m.variant;
    } else {
      EXPECT_FALSE(m.ok) << m.variant;
      EXPECT_NE(m.error.find("has no SpMM (COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS)"), std::string::npos) << m.error;
    }
  }
  // The check is of every vector: a reference with one vector changed fails a key that
  // has an SpMM (on GPU builds the first keys' launch bounds may have none).
  const auto with_spmm =
      std::find_if(keys.begin(), keys.end(), [&](const cs::VariantKey& key) { return registry.supports_spmm(key); });
  ASSERT_NE(with_spmm, keys.end());
  auto wrong = inputs;
  wrong.multi_reference.back() = {1e3, 0, 0, 0};
  for (const auto& m : cs::measure_variants(host, wrong, {*with_spmm}, options))
    EXPECT_NE(m.error.find("differs from the reference"), std::string::npos) << m.error;
}

TEST(Measure, DropDecisionIsFirstSampleOverFactorTimesFastestSoFar) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(cs::drop_after_first_sample(3.1e-6, 1e-6, 3));
  EXPECT_FALSE(cs::drop_after_first_sample(3.0e-6, 1e-6, 3));  // not over: kept
  EXPECT_FALSE(cs::drop_after_first_sample(2e-6, 1e-6, 3));
  EXPECT_TRUE(cs::drop_after_first_sample(1.5e-6, 1e-6, 1));
  EXPECT_FALSE(cs::drop_after_first_sample(1e3, inf, 3));  // nothing measured yet
  EXPECT_FALSE(cs::drop_after_first_sample(1e3, 0, 3));
  EXPECT_FALSE(cs::drop_after_first_sample(1e3, 1e-6, 0));  // bound off
  EXPECT_FALSE(cs::drop_after_first_sample(1e3, 1e-6, -1));
  EXPECT_FALSE(cs::drop_after_first_sample(1e3, 1e-6, inf));
  EXPECT_FALSE(cs::drop_after_first_sample(NAN, 1e-6, 3));  // no time: keep timing
}

// The drop at the check: only far beyond the bound (4 x factor) and 10 ms over the
// fastest, so that a first launch's module load or a launch gap never drops a candidate.
TEST(Measure, DropAtTheCheckNeedsFourTimesTheBoundAndTenMilliseconds) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(cs::drop_after_check(0.05, 1e-3, 3));    // 50 ms against 1 ms
  EXPECT_FALSE(cs::drop_after_check(0.011, 1e-3, 3));  // 11x, but only 10 ms over: kept
  EXPECT_FALSE(cs::drop_after_check(0.005, 1e-4, 3));  // 50x, 4.9 ms over: kept
  EXPECT_TRUE(cs::drop_after_check(0.2, 0.01, 3));     // 20x and 190 ms over
  EXPECT_FALSE(cs::drop_after_check(0.11, 0.01, 3));   // 11x: under 4 x 3
  EXPECT_FALSE(cs::drop_after_check(1e3, inf, 3));     // nothing measured yet
  EXPECT_FALSE(cs::drop_after_check(1e3, 1e-3, 0));    // bound off
  EXPECT_FALSE(cs::drop_after_check(NAN, 1e-3, 3));
}

TEST(Measure, CandidatesFarSlowerThanTheFastestKnownAreDroppedAfterOneBatch) {
  std::mt19937 rng(5);
  const auto host = compound_sparse_test::random_csr<C>(400, 400, 1, 9, -1, rng);
  const auto keys = cs::all_variant_keys<C>({1});
  cs::MeasureOptions options;
  options.timing.warmup = 1;
  options.timing.batch = 2;
  options.timing.samples = 4;
  // A fastest time no real product reaches: every candidate's first batch is over 3x it.
  options.fastest_known_seconds = 1e-15;
  std::size_t reported_dropped = 0;
  const auto dropped =
      cs::measure_variants(host, cs::make_measure_inputs(host, options.seed), keys, options,
                           [&](std::size_t, std::size_t, const cs::VariantKey& key, const cs::Measurement& m) {
                             EXPECT_EQ(key.name(), m.variant);
                             reported_dropped += m.dropped;
                           });
  ASSERT_EQ(dropped.size(), keys.size());
  for (const auto& m : dropped) {
    EXPECT_TRUE(m.ok) << m.variant << ": " << m.error;  // checked, and its one time is real
    EXPECT_TRUE(m.dropped) << m.variant;
    EXPECT_GT(m.seconds, 0) << m.variant;
    EXPECT_EQ(m.min_seconds, m.seconds) << m.variant;  // one sample
    EXPECT_EQ(m.max_seconds, m.seconds) << m.variant;
    EXPECT_LT(m.relative_error, 1e-12) << m.variant;
  }
  EXPECT_EQ(reported_dropped, keys.size());
  // The bound off: the same fastest time drops nothing.
  options.drop_slower_than = 0;
  for (const auto& m : cs::measure_variants(host, keys, options)) {
    EXPECT_TRUE(m.ok) << m.variant << ": " << m.error;
    EXPECT_FALSE(m.dropped) << m.variant;
  }
  // A fastest time no product is 3x slower than: nothing is dropped either.
  options.drop_slower_than = 3;
  options.fastest_known_seconds = 1e6;
  options.timing.samples = 1;  // one sample: the full timing, nothing to drop
  for (const auto& m : cs::measure_variants(host, keys, options)) EXPECT_FALSE(m.dropped) << m.variant;
  // A factor below 1 would drop the fastest: refused.
  options.drop_slower_than = 0.5;
  EXPECT_THROW(cs::measure_variants(host, keys, options), cs::InvalidInput);
}

TEST(Measure, LayoutsAreMeasuredInTheOrderTheyFirstAppear) {
  std::mt19937 rng(6);
  const auto host = compound_sparse_test::random_csr<C>(100, 100, 1, 6, -1, rng);
  const auto keys = cs::all_variant_keys<C>({1});
  // The last compiled layout first, then the others: its variants are measured first.
  const std::string last = keys.back().layout_name();
  std::vector<cs::VariantKey> order;
  for (const auto& k : keys)
    if (k.layout_name() == last) order.push_back(k);
  for (const auto& k : keys)
    if (k.layout_name() != last) order.push_back(k);
  cs::MeasureOptions options;
  options.timing.samples = 1;
  options.timing.batch = 1;
  const auto results = cs::measure_variants(host, order, options);
  ASSERT_EQ(results.size(), order.size());
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(results[i].variant, order[i].name());

  // likely_fast_first: the given variant's layout, vector layout and kind lead,
  // nearest threads per SM and lanes first; nothing is lost.
  const auto reduced = cs::reduced_variant_keys<C>();
  cs::VariantKey likely = reduced.back();
  likely.lanes_per_row = 8;  // not in the reduced search: its nearest lanes (4) lead
  const auto sorted = cs::likely_fast_first(reduced, likely);
  ASSERT_EQ(sorted.size(), reduced.size());
  const auto names = [](const std::vector<cs::VariantKey>& ks) {
    std::multiset<std::string> n;
    for (const auto& k : ks) n.insert(k.name());
    return n;
  };
  EXPECT_EQ(names(sorted), names(reduced));
  EXPECT_EQ(sorted.front().compiled_name(), likely.compiled_name());
  EXPECT_TRUE(sorted.front().lanes_per_row == 4 || sorted.front().lanes_per_row == 16) << sorted.front().name();
  std::size_t same_layout = 0;
  for (const auto& k : reduced) same_layout += k.layout_name() == likely.layout_name();
  for (std::size_t i = 0; i < sorted.size(); ++i)
    EXPECT_EQ(sorted[i].layout_name() == likely.layout_name(), i < same_layout) << i << " " << sorted[i].name();
}

TEST(Measure, ShortColumnsAreRefusedWhereASliceSpansTooManyColumns) {
  const auto& registry = cs::variant_registry<C>();
  // 64 rows: row 5 reaches column 70000, so its slice spans more than 16-bit offsets hold.
  cs::HostCsr<C> host;
  host.num_rows = 64;
  host.num_cols = 70001;
  host.row_offsets = {0};
  for (int r = 0; r < host.num_rows; ++r) {
    host.col_indices.push_back(r);
    if (r == 5) host.col_indices.push_back(70000);
    host.row_offsets.push_back(static_cast<int>(host.col_indices.size()));
  }
  host.values.assign(host.col_indices.size(), C(1.0, -0.5));
  ASSERT_NE(registry.refusal("sell32c16", host), "");
  EXPECT_EQ(registry.refusal("sell32", host), "");
  EXPECT_THROW(registry.refusal("nonsense", host), cs::NotCompiled);
  cs::MeasureOptions options;
  options.timing.samples = 1;
  options.timing.batch = 1;
  std::vector<cs::VariantKey> keys;
  for (const auto& k : cs::all_variant_keys<C>({1}))
    if (k.kind == cs::ScheduleKind::Static && k.vector == "aos") keys.push_back(k);
  int refused = 0;
  for (const auto& m : cs::measure_variants(host, keys, options)) {
    if (m.key().outer == "sell32c16") {
      ++refused;
      EXPECT_FALSE(m.ok) << m.variant;
      EXPECT_TRUE(m.refused) << m.variant;
      EXPECT_NE(m.error.find("spans columns up to 70000 apart"), std::string::npos) << m.error;
    } else {
      EXPECT_TRUE(m.ok) << m.variant << ": " << m.error;
    }
  }
  EXPECT_GT(refused, 0);
}

TEST(Measure, PaddingHeavyLayoutsAreRefusedBeforeConversion) {
  using Q = C;
  const auto& registry = cs::variant_registry<Q>();
  // 3000 rows of 3 around the diagonal, row 0 with 1500 entries: ELL pads every row to 1500.
  const auto host = compound_sparse_test::banded<Q>(3000, 3, 1500);
  const double nnz = static_cast<double>(host.num_entries());
  EXPECT_EQ(registry.num_slots("csr", host), host.num_entries());
  EXPECT_EQ(registry.num_slots("ell", host), 1500u * 3008u);  // rows rounded up to a multiple of 32
  EXPECT_THROW(registry.num_slots("nonsense", host), cs::NotCompiled);
  cs::MeasureOptions options;
  options.timing.samples = 1;
  options.timing.batch = 1;
  const auto keys = cs::all_variant_keys<Q>({1});
  int refused = 0, ran = 0;
  for (const auto& m : cs::measure_variants(host, keys, options)) {
    const std::string outer = m.key().outer;
    const double ratio = registry.num_slots(outer, host) / nnz;
    if (ratio > 3) {
      ++refused;
      EXPECT_FALSE(m.ok) << m.variant;
      EXPECT_TRUE(m.refused) << m.variant;
      EXPECT_NE(m.error.find(outer + " would store " + std::to_string(registry.num_slots(outer, host)) + " slots for " +
                             std::to_string(host.num_entries()) + " non-zeros"),
                std::string::npos)
          << m.error;
      EXPECT_NE(m.error.find("over the padding bound of 3x: refused before converting"), std::string::npos) << m.error;
      EXPECT_EQ(m.memory_bytes, registry.memory_bytes(outer, host)) << m.variant;  // still says what it would take
    } else {
      ++ran;
      EXPECT_TRUE(m.ok) << m.variant << ": " << m.error;
      EXPECT_FALSE(m.refused) << m.variant;
    }
    if (outer == "ell") {
      EXPECT_FALSE(m.ok) << m.variant;  // ~290x
    }
    if (outer == "csr") {
      EXPECT_TRUE(m.ok) << m.variant;  // never padded
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(ran, 0);
  // The bound off: ELL runs (its memory is small here).
  options.max_padding_ratio = 0;
  for (const auto& m : cs::measure_variants(host, keys, options)) EXPECT_TRUE(m.ok) << m.variant << ": " << m.error;
  options.max_padding_ratio = 0.9;  // would refuse CSR
  EXPECT_THROW(cs::measure_variants(host, keys, options), cs::InvalidInput);

  // Refused before anything is allocated: ELL of 2^21 rows, one of them 1000 long,
  // would be 2.1e9 slots (tens of GB); the bound says so at once.
  const auto huge = compound_sparse_test::one_long_row(1 << 21, 1000, C(1, 0));
  cs::VariantKey ell = cs::all_variant_keys<C>({1}).front();
  ell.outer = "ell";
  cs::MeasureOptions bounded;
  const auto m = cs::measure_variants(huge, {ell}, bounded).at(0);
  EXPECT_TRUE(m.refused);
  EXPECT_NE(m.error.find("over the padding bound of 3x: refused before converting"), std::string::npos) << m.error;
}

TEST(Measure, ReducedSearchKeepsOnePairPerThreadsPerSM) {
  const auto keys = cs::reduced_variant_keys<C>({1, 32});
  std::set<std::string> groups;
  for (const auto& k : keys) {
    EXPECT_TRUE(cs::variant_registry<C>().contains(k)) << k.name();
    groups.insert(k.outer + k.inner + k.vector + cs::to_string(k.kind) + std::to_string(k.threads * k.teams_per_sm) +
                  "l" + std::to_string(k.lanes_per_row));
  }
  // No two keys share layout, kind, threads per SM and lanes, but for kinds that
  // split rows, which keep every compiled pair (n_t sets their tile).
  std::size_t split_rows_keys = 0;
  std::set<std::string> split_groups;
  for (const auto& k : keys)
    if (cs::splits_rows(k.kind)) {
      ++split_rows_keys;
      split_groups.insert(k.outer + k.inner + k.vector + cs::to_string(k.kind) +
                          std::to_string(k.threads * k.teams_per_sm));
    }
  EXPECT_EQ(groups.size(), keys.size() - (split_rows_keys - split_groups.size()));
  // Every compiled pair of the CSR-AoS-AoS kinds that split rows is searched.
  const auto csr_aos_merge_path = [](const cs::VariantKey& k) {
    return cs::splits_rows(k.kind) && k.layout_name() == "csr.aos" && k.vector == "aos";
  };
  const auto& compiled = cs::variant_registry<C>().variants();
  EXPECT_EQ(std::count_if(keys.begin(), keys.end(), csr_aos_merge_path),
            std::count_if(compiled.begin(), compiled.end(), csr_aos_merge_path));
  EXPECT_GE(keys.size(), 4u * 2 * 2 * 3 * 2);
  EXPECT_NEAR(cs::relative_error(std::vector<double>{1, 2}, std::vector<double>{1, 2.5}), 0.5 / std::sqrt(7.25), 1e-15);
  EXPECT_TRUE(std::isnan(cs::relative_error(std::vector<double>{NAN}, std::vector<double>{1})));
}

// measure_variants checks each candidate where its y lives (fill, squared_distance,
// the device relative_error): the same numbers as the host's relative_error, in both
// vector layouts, NaN for any unwritten component, and 0 rows handled.
TEST(Measure, DeviceCheckAgreesWithTheHostRelativeError) {
  using Q = cs::Quaternion<double>;
  using memory_space = Kokkos::DefaultExecutionSpace::memory_space;
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Q> reference(37), y(37);
  for (std::size_t i = 0; i < reference.size(); ++i) {
    reference[i] = Q{u(rng), u(rng), u(rng), u(rng)};
    y[i] = reference[i] + Q{1e-3 * u(rng), 0, 1e-3 * u(rng), 0};
  }
  const auto device_ref = cs::device_reference<memory_space>(reference);
  const double host_error = cs::relative_error(y, reference);
  ASSERT_GT(host_error, 0);
  for (const std::string layout : {"aos", "soa"}) {
    const auto v = cs::variant_registry<Q>().convert_vector(layout, y);
    EXPECT_NEAR(cs::relative_error(v, device_ref), host_error, 1e-14) << layout;
    v.fill(std::numeric_limits<double>::quiet_NaN());
    EXPECT_TRUE(std::isnan(cs::relative_error(v, device_ref))) << layout;
    for (const auto& value : v.to_host())
      for (int c = 0; c < 4; ++c) EXPECT_TRUE(std::isnan(cs::component_traits<Q>::get(value, c))) << layout;
    v.fill(0);
    EXPECT_NEAR(cs::relative_error(v, device_ref), 1.0, 1e-15) << layout;  // ||0 - ref|| / ||ref||
  }
  // A reference of another length is refused, not read out of bounds.
  const auto short_v = cs::variant_registry<Q>().convert_vector("aos", std::vector<Q>(5));
  EXPECT_THROW(short_v.squared_distance(device_ref.values), cs::Error);
  // No rows: nothing to differ, error 0.
  const auto empty_ref = cs::device_reference<memory_space>(std::vector<Q>{});
  EXPECT_EQ(cs::relative_error(cs::variant_registry<Q>().convert_vector("soa", std::vector<Q>{}), empty_ref), 0);
}

// The variant space (variant_space.hpp, from cmake/CompoundSparseVariantSpace.cmake):
// the names the parser accepts, the registry's variants and the Python scripts' list
// all follow the one declaration.
TEST(VariantSpace, ParserRegistryAndGeneratedListAgree) {
  const auto& outers = cs::outer_layout_names();
  const auto& inners = cs::inner_layout_names();
  ASSERT_EQ(outers.size(), cs::OuterLayouts::size);
  ASSERT_EQ(inners.size(), cs::InnerLayouts::size);
  ASSERT_EQ(cs::schedule_kinds().size(), cs::ScheduleKinds::size);
  EXPECT_EQ(std::set<std::string>(outers.begin(), outers.end()).size(), outers.size());  // names are distinct
  // Every point of the space parses, and the registry compiles exactly those.
  std::set<std::string> expected;
  for (const auto& outer : outers)
    for (const auto& inner : inners)
      for (const auto& vector : inners)
        for (const auto kind : cs::schedule_kinds()) {
          const std::string name = outer + "." + inner + "." + vector + "." + cs::to_string(kind) + ".t128.b4.l1";
          if (!cs::schedule_supports_outer(kind, outer)) {  // outside the space: refused, saying why
            EXPECT_THROW(cs::parse_variant_key(name), cs::Error) << name;
            continue;
          }
          cs::VariantKey key = cs::parse_variant_key(name);
          EXPECT_EQ(key.outer, outer);
          EXPECT_EQ(key.kind, kind);
          expected.insert(key.layout_name() + "." + key.vector + "." + cs::to_string(key.kind));
        }
  std::set<std::string> compiled, of_the_set;
  for (const auto& key : cs::variant_registry<C>().variants())
    compiled.insert(key.layout_name() + "." + key.vector + "." + cs::to_string(key.kind));
  for (const auto& point : variants_of_the_set<C>()) {
    const auto key = cs::parse_variant_key(point.first + ".l1");
    of_the_set.insert(key.layout_name() + "." + key.vector + "." + cs::to_string(key.kind));
  }
  EXPECT_EQ(compiled, of_the_set);  // a default set may leave out a schedule on some layout
  for (const auto& point : of_the_set) EXPECT_EQ(expected.count(point), 1u) << point;
  if (cs::impl::compiled_variant_set<C>::every || cs::impl::variant_set_every_bounds::size > 0) {
    EXPECT_EQ(compiled, expected);
  }
  // A name outside the space is refused with the names the space has.
  try {
    cs::parse_variant_key("hyb." + inners[0] + "." + inners[0] + ".static.t128.b4.l1");
    ADD_FAILURE() << "unknown outer layout accepted";
  } catch (const cs::Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown outer layout 'hyb' (" + outers[0] + ", "), std::string::npos)
        << e.what();
  }
  // The default layouts are the first declared ones.
  cs::VariantKey first;
  EXPECT_TRUE(first.has_default_layouts());
  first.vector = inners.back();
  EXPECT_FALSE(first.has_default_layouts());
}

TEST(VariantSpace, GeneratedJsonListsTheSameSpace) {
  std::ifstream in(COMPOUND_SPARSE_VARIANT_SPACE_JSON);
  ASSERT_TRUE(in) << COMPOUND_SPARSE_VARIANT_SPACE_JSON;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Kinds by name; entry types by name, with "compiled" as this build has them.
  for (const auto kind : cs::schedule_kinds())
    EXPECT_NE(text.find("\"" + cs::to_string(kind) + "\""), std::string::npos) << cs::to_string(kind);
  const std::string compiled = COMPOUND_SPARSE_VARIANT_ENTRIES;
  std::size_t compiled_in_json = 0;
  for (std::size_t at = text.find("\"compiled\": true"); at != std::string::npos;
       at = text.find("\"compiled\": true", at + 1))
    ++compiled_in_json;
  EXPECT_EQ(compiled_in_json, cs::CompiledEntries::size);
  EXPECT_EQ(static_cast<std::size_t>(std::count(compiled.begin(), compiled.end(), ',') + 1), cs::CompiledEntries::size);
  EXPECT_NE(text.find("\"name\": \"complex_double\", \"class\": \"complex\", \"precision\": \"double\", "
                      "\"components\": 2"),
            std::string::npos);
}
