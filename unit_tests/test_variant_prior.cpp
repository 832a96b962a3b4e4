// The portable prior (compound_sparse/tuning/prior.hpp): regions, learning from
// databases, the nearest region, its file, and selection and TunedSpmv using it.
#include <gtest/gtest.h>

#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/tuning/prior.hpp>
#include <compound_sparse/tuning/tuned_spmv.hpp>

#include "tuning_test_helpers.hpp"

namespace cs = compound_sparse;
using namespace compound_sparse_test;
using C = Kokkos::complex<double>;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// A compiled variant of this build: the heuristic's choice for `a` with `lanes` lanes.
std::string compiled_variant(const cs::HostCsr<C>& a, const std::string& kind) {
  for (const auto& k : cs::variant_registry<C>().variants())
    if (cs::to_string(k.kind) == kind) return k.name();
  return cs::heuristic_variant(cs::matrix_features(a), cs::variant_registry<C>().variants()).name();
}

/// The records as a GPU's shipped database, which the prior is learned from.
cs::SelectionDatabase gpu_database(const std::vector<cs::TunedMatrix>& records) {
  auto db = cs::empty_tuning_database();
  db.device.name = "Test GPU";
  db.device.compute_major = 9;
  db.matrices = records;
  return cs::ship_database(db);
}

}  // namespace

TEST(VariantPrior, RegionsSplitByIrregularityAndSize) {
  const auto regular = cs::prior_region(cs::matrix_features(banded<C>(1000, 7)));  // 7k non-zeros
  EXPECT_EQ(regular.entry_type, "complex");
  EXPECT_EQ(regular.precision, "double");
  EXPECT_FALSE(regular.irregular);
  EXPECT_EQ(regular.size_class, 0);
  EXPECT_EQ(cs::to_string(regular), "complex/double, regular, under 1e5 non-zeros");
  EXPECT_TRUE(cs::prior_region(cs::matrix_features(banded<C>(1000, 7, 900))).irregular);  // one long row
  cs::MatrixFeatures f = cs::matrix_features(banded<C>(1000, 7));
  f.nnz = 99999;
  EXPECT_EQ(cs::prior_region(f).size_class, 0);
  f.nnz = 100000;
  EXPECT_EQ(cs::prior_region(f).size_class, 1);
  f.nnz = 1000000;
  EXPECT_EQ(cs::prior_region(f).size_class, 2);
}

TEST(VariantPrior, RanksByMeanLogSlowdownWithMissingVariantsAtFour) {
  const auto f = cs::matrix_features(banded<C>(1000, 7));
  // Same region: A is best on one record and 1.1x on the other; B is best on the
  // other and 2x on the first; C ran only on the first, at 1.5x (missing: 4x).
  const auto db =
      gpu_database({record("one", f, {{"A", 1.0}, {"B", 2.0}, {"C", 1.5}}), record("two", f, {{"A", 1.1}, {"B", 1.0}}),
                    record("left-out", f, {{"C", 1.0}, {"A", 9.0}})});
  const auto prior = cs::learn_prior({&db}, {"db.json"}, "left-out");
  ASSERT_EQ(prior.rankings.size(), 1u);
  const auto& r = prior.rankings[0];
  EXPECT_EQ(r.records, 2);
  ASSERT_EQ(r.variants, (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_NEAR(r.scores[0], std::log(1.1) / 2, 1e-12);
  EXPECT_NEAR(r.scores[1], std::log(2.0) / 2, 1e-12);
  EXPECT_NEAR(r.scores[2], (std::log(1.5) + std::log(4.0)) / 2, 1e-12);
  EXPECT_TRUE(prior.gpu);
  ASSERT_EQ(prior.learned_from.size(), 1u);
  EXPECT_EQ(prior.learned_from[0], "db.json: Test GPU, 2 record(s)");
  // The left-out record counts when not skipped; `keep` truncates.
  EXPECT_EQ(cs::learn_prior({&db}, {"db.json"}).rankings[0].records, 3);
  EXPECT_EQ(cs::learn_prior({&db}, {"db.json"}, "", 2).rankings[0].variants.size(), 2u);
}

TEST(VariantPrior, NamesEachDeviceOfAFileWithItsRecords) {
  // tuning/sm_90.json holds an H200's and an H100's records: learned_from counts each device's
  // (it named the header's device with every record's count), and both pool in one ranking.
  const auto f = cs::matrix_features(banded<C>(1000, 7));
  auto other = record("one", f, {{"A", 2.0}, {"B", 1.0}});
  other.device = "Other GPU";
  const auto db = gpu_database({record("one", f, {{"A", 1.0}, {"B", 1.2}}), other, record("two", f, {{"A", 1.0}})});
  const auto prior = cs::learn_prior({&db}, {"db.json"});
  ASSERT_EQ(prior.learned_from.size(), 1u);
  EXPECT_EQ(prior.learned_from[0], "db.json: Test GPU, 2 record(s) + Other GPU, 1 record(s)");
  ASSERT_EQ(prior.rankings.size(), 1u);
  EXPECT_EQ(prior.rankings[0].records, 3);
  // Leaving a matrix out leaves out its records of every device.
  EXPECT_EQ(cs::learn_prior({&db}, {"db.json"}, "one").learned_from[0], "db.json: Test GPU, 1 record(s)");
}

TEST(VariantPrior, LearnsFromTheSpmvMeasurementsOnly) {
  // SpMM measurements (k > 1) share the SpMV's variant names; the prior is the SpMV's.
  const auto f = cs::matrix_features(banded<C>(1000, 7));
  auto with_spmm = record("one", f, {{"A", 1.0}, {"B", 2.0}});
  for (const auto& m : {at_k("A", 8, 0.5), at_k("B", 8, 8.0), at_k("D", 8, 0.1)}) with_spmm.measurements.push_back(m);
  const auto spmv_only = gpu_database({record("one", f, {{"A", 1.0}, {"B", 2.0}})});
  const auto both = gpu_database({with_spmm});
  const auto expected = cs::learn_prior({&spmv_only}, {"db.json"});
  const auto learned = cs::learn_prior({&both}, {"db.json"});
  ASSERT_EQ(learned.rankings.size(), 1u);
  EXPECT_EQ(learned.rankings[0].variants, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(learned.rankings[0].variants, expected.rankings[0].variants);
  EXPECT_NEAR(learned.rankings[0].scores[1], std::log(2.0), 1e-12);
}

TEST(VariantPrior, RefusesMixedDevicesAndMismatchedNames) {
  const auto f = cs::matrix_features(banded<C>(1000, 7));
  const auto gpu = gpu_database({record("one", f, {{"A", 1.0}})});
  auto host = gpu;
  host.device.compute_major = 0;
  host.device.name = "host";
  try {
    cs::learn_prior({&gpu, &host}, {"gpu.json", "host.json"});
    FAIL() << "mixed GPU and host databases were accepted";
  } catch (const cs::InvalidInput& e) {
    EXPECT_TRUE(contains(e.what(), "host.json is a host backend database")) << e.what();
  }
  EXPECT_THROW(cs::learn_prior({&gpu}, {}), cs::InvalidInput);
  EXPECT_FALSE(cs::learn_prior({&host}, {"host.json"}).gpu);
}

TEST(VariantPrior, TakesTheNearestRegionOfTheSameEntryTypeAndPrecision) {
  cs::MatrixFeatures small = cs::matrix_features(banded<C>(1000, 7));
  cs::MatrixFeatures large = small, irregular_small = small;
  large.nnz = 5000000;
  irregular_small.nnz_per_row_max = 100 * small.nnz_per_row_mean;
  large.fingerprint = "1";
  irregular_small.fingerprint = "2";
  const auto db = gpu_database({record("small", small, {{"S", 1.0}}), record("large", large, {{"L", 1.0}}),
                                record("irregular", irregular_small, {{"I", 1.0}})});
  const auto prior = cs::learn_prior({&db}, {"db.json"});
  EXPECT_EQ(prior.rankings.size(), 3u);
  cs::MatrixFeatures medium = small;
  medium.nnz = 500000;  // no region: the same irregularity, the nearer (then the smaller) size class
  EXPECT_EQ(cs::find_prior_ranking(prior, medium)->variants.front(), "S");
  cs::MatrixFeatures irregular_large = large;
  irregular_large.nnz_per_row_max = 100 * large.nnz_per_row_mean;
  EXPECT_EQ(cs::find_prior_ranking(prior, irregular_large)->variants.front(), "I");
  cs::MatrixFeatures other = small;
  other.precision = "float";
  EXPECT_EQ(cs::find_prior_ranking(prior, other), nullptr);
}

TEST(VariantPrior, RoundTripsThroughItsFileAndRefusesCorruptOnes) {
  const ScratchDir dir("prior_file");
  const auto f = cs::matrix_features(banded<C>(1000, 7));
  const auto db = gpu_database({record("one", f, {{"A", 1.0}, {"B", 2.0}})});
  const auto prior = cs::learn_prior({&db}, {"db.json"});
  const std::string path = dir.str() + "/" + cs::prior_file_name;
  cs::write_variant_prior(prior, path);
  const auto back = cs::read_variant_prior(path);
  EXPECT_EQ(cs::to_json_text(back), cs::to_json_text(prior));
  const std::string good = cs::to_json_text(prior);
  std::string v2 = good, bad_size = good;
  v2.replace(v2.find("\"schema_version\": 1"), 19, "\"schema_version\": 2");
  bad_size.replace(bad_size.find("\"size_class\": 0"), 15, "\"size_class\": 7");
  const std::pair<std::string, std::string> cases[] = {{good.substr(0, good.size() / 2), "not valid JSON"},
                                                       {v2, "prior schema version 2"},
                                                       {bad_size, "size class 7"},
                                                       {"{\"schema_version\": 1}", "not a valid variant prior"}};
  for (const auto& [text, reason] : cases) {
    dir.write(cs::prior_file_name, text);
    try {
      cs::read_variant_prior(path);
      FAIL() << "accepted a prior with " << reason;
    } catch (const cs::IoError& e) {
      EXPECT_TRUE(contains(e.what(), reason)) << e.what();
      EXPECT_TRUE(contains(e.what(), path)) << e.what();
    }
  }
  EXPECT_THROW(cs::read_variant_prior(dir.str() + "/absent.json"), cs::IoError);
}

TEST(VariantPrior, SelectionUsesItWhereTheDatabaseDoesNotDecide) {
  const auto a = banded<C>(1000, 7);
  const auto f = cs::matrix_features(a);
  const std::string usable = compiled_variant(a, "dynamic_warp");
  // The prior's first variant is not compiled here: skipped, with the reason.
  const auto db = gpu_database({record("one", f, {{"csr.aos.aos.static.t96.b3.l1", 1.0}, {usable, 1.2}})});
  const auto prior = cs::learn_prior({&db}, {"db.json"});
  cs::SelectionContext context;
  context.compiled = cs::variant_registry<C>().variants();
  const auto* registry = &cs::variant_registry<C>();
  context.usable = [registry](const cs::VariantKey& k, std::string& why) {
    why = "not compiled into this build";
    return registry->contains(k);
  };
  context.prior = &prior;
  auto s = cs::select_variant(f, nullptr, "none", context);
  EXPECT_EQ(s.rule, "prior");
  EXPECT_EQ(s.key.name(), usable);
  ASSERT_EQ(s.ranked.size(), 1u);
  EXPECT_TRUE(contains(s.explanation, "rule prior: region complex/double, regular, under 1e5 non-zeros"))
      << s.explanation;
  EXPECT_TRUE(contains(s.explanation, "learned from db.json: Test GPU, 1 record(s)")) << s.explanation;
  EXPECT_TRUE(contains(s.explanation, "csr.aos.aos.static.t96.b3.l1 (not compiled into this build)")) << s.explanation;
  // A database record of the matrix's type decides first.
  const std::string exact = compiled_variant(a, "static");
  const auto own = shipped({record("me", f, {{exact, 1.0}})});
  s = cs::select_variant(f, &own, "test", context);
  EXPECT_EQ(s.rule, "exact");
  // No region of this entry type and precision: the heuristic, and the explanation says why.
  cs::MatrixFeatures single = f;
  single.precision = "float";
  s = cs::select_variant(single, nullptr, "none", context);
  EXPECT_EQ(s.rule, "heuristic");
  EXPECT_TRUE(contains(s.explanation, "the prior has no complex/float region")) << s.explanation;
}

TEST(VariantPrior, TunedSpmvReadsItBesideTheDatabaseAndFallsBackWhenItCannot) {
  const ScratchDir dir("prior_tuned");
  const auto a = banded<C>(1000, 7);
  const auto f = cs::matrix_features(a);
  const std::string choice = compiled_variant(a, "dynamic_team");
  auto db = gpu_database({record("other-device", f, {{choice, 1.0}})});
  db.device.compute_major = cs::default_device_info().compute_major;  // this kind of device
  cs::write_variant_prior(cs::learn_prior({&db}, {"db.json"}), dir.str() + "/" + cs::prior_file_name);
  cs::TunedSpmvOptions o;
  o.database_dir = dir.str();  // holds the prior and no database
  o.quick_tune = cs::QuickTune::Never;
  o.use_cache = false;
  {
    const cs::TunedSpmv<C> op(a, o);
    EXPECT_EQ(op.rule(), "prior") << op.explanation();
    EXPECT_EQ(op.variant().name(), choice);
    EXPECT_TRUE(contains(op.explanation(), "using the portable prior or the heuristic")) << op.explanation();
  }
  // Learned on the other kind of device: not used.
  db.device.compute_major = cs::default_device_info().compute_major > 0 ? 0 : 9;
  cs::write_variant_prior(cs::learn_prior({&db}, {"db.json"}), dir.str() + "/" + cs::prior_file_name);
  EXPECT_EQ(cs::TunedSpmv<C>(a, o).rule(), "heuristic");
  // Corrupt: a warning in the explanation, the heuristic, no exception.
  dir.write(cs::prior_file_name, "{\"schema_version\": ");
  const cs::TunedSpmv<C> op(a, o);
  EXPECT_EQ(op.rule(), "heuristic");
  EXPECT_TRUE(contains(op.explanation(), "variant prior not used")) << op.explanation();
}

TEST(VariantPrior, CommittedPriorReadsAndNamesOnlyVariantsOfTheVariantSpace) {
  const std::string path = std::string(COMPOUND_SPARSE_SOURCE_TUNING_DIR) + "/" + cs::prior_file_name;
  const auto prior = cs::read_variant_prior(path);
  EXPECT_TRUE(prior.gpu);
  EXPECT_FALSE(prior.learned_from.empty());
  EXPECT_FALSE(prior.rankings.empty());
  for (const auto& r : prior.rankings) {
    EXPECT_GT(r.records, 0) << cs::to_string(r.region);
    ASSERT_FALSE(r.variants.empty()) << cs::to_string(r.region);
    for (std::size_t i = 0; i < r.variants.size(); ++i) {
      EXPECT_NO_THROW(cs::parse_variant_key(r.variants[i])) << r.variants[i];
      if (i > 0) {
        EXPECT_LE(r.scores[i - 1], r.scores[i]) << cs::to_string(r.region);
      }
    }
  }
}
