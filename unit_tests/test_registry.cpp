// The generated variant registry: every compiled variant is reachable by name,
// computes the right product, and bad keys or mismatched layouts are refused.
#include <gtest/gtest.h>

#include <compound_sparse.hpp>
#include <compound_sparse/measure.hpp>
#include <compound_sparse/registry.hpp>
#include <set>

#include "spmv_test_suite.hpp"

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

TEST(Registry, ListsEveryConfiguredVariant) {
  const auto& registry = cs::variant_registry<C>();
  const auto keys = registry.variants();
  std::string bounds = COMPOUND_SPARSE_LAUNCH_BOUNDS;
  const std::size_t num_bounds = std::count(bounds.begin(), bounds.end(), ',') + 1;
  EXPECT_EQ(keys.size(), 4u * 2 * 2 * 3 * num_bounds);
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
    key.lanes_per_row = 4;
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

TEST(Measure, ChecksAndTimesEveryRequestedVariant) {
  std::mt19937 rng(8);
  const auto host = compound_sparse_test::random_csr<cs::Quaternion<double>>(300, 280, 0, 12, 3, rng);
  auto keys = cs::all_variant_keys<cs::Quaternion<double>>({1, 8});
  keys.push_back(cs::parse_variant_key("csr.aos.aos.static.t7.b3.l1"));  // not compiled
  cs::MeasureOptions options;
  options.timing.samples = 3;
  options.timing.batch = 2;
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
    EXPECT_GT(m.seconds, 0) << m.key.name();
    EXPECT_LT(m.relative_error, 1e-12) << m.key.name();
    EXPECT_EQ(m.memory_bytes, cs::variant_registry<cs::Quaternion<double>>().memory_bytes(m.key.outer, host));
  }
  EXPECT_EQ(failed, 1);
  // A budget below every layout's size: nothing runs, every result says why.
  options.budget.max_bytes = 100;
  for (const auto& m : cs::measure_variants(host, cs::all_variant_keys<cs::Quaternion<double>>({1}), options))
    EXPECT_NE(m.error.find("over the memory budget"), std::string::npos) << m.error;
}

TEST(Measure, ReducedSearchKeepsOnePairPerThreadsPerSM) {
  const auto keys = cs::reduced_variant_keys<C>({1, 32});
  std::set<std::string> groups;
  for (const auto& k : keys) {
    EXPECT_TRUE(cs::variant_registry<C>().contains(k)) << k.name();
    groups.insert(k.outer + k.inner + k.vector + cs::to_string(k.kind) + std::to_string(k.threads * k.teams_per_sm) +
                  "l" + std::to_string(k.lanes_per_row));
  }
  EXPECT_EQ(groups.size(), keys.size());  // no two keys share layout, kind, threads per SM and lanes
  EXPECT_GE(keys.size(), 4u * 2 * 2 * 3 * 2);
  EXPECT_NEAR(cs::relative_error(std::vector<double>{1, 2}, std::vector<double>{1, 2.5}), 0.5 / std::sqrt(7.25), 1e-15);
  EXPECT_TRUE(std::isnan(cs::relative_error(std::vector<double>{NAN}, std::vector<double>{1})));
}
