// Quick tuning in TunedSpmv and its per-user cache (tuning/quick_tune.hpp,
// tuning/tuning_cache.hpp): when it runs, what it spends, what it stores, and that the
// cache survives concurrent writers and corruption.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <compound_sparse/products/reference.hpp>
#include <compound_sparse/tuning/tuned_spmv.hpp>
#include <compound_sparse/tuning/tuning_cache.hpp>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "tuning_test_helpers.hpp"

namespace {

namespace cs = compound_sparse;
using namespace compound_sparse_test;
using C = Kokkos::complex<double>;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// No database (an empty directory), the cache in `cache`.
cs::TunedSpmvOptions no_database(const ScratchDir& database, const ScratchDir& cache) {
  cs::TunedSpmvOptions o;
  o.database_dir = database.str();
  o.cache_dir = cache.str();
  return o;
}

std::string cache_file(const ScratchDir& cache) {
  return cache.str() + "/" + cs::database_file_name(cs::default_device_info());
}

void expect_reference(const cs::TunedSpmv<C>& op, const cs::HostCsr<C>& a) {
  std::mt19937 rng(3);
  const auto x = random_vector<C>(a.num_cols, rng);
  const auto y = op.make_vector(std::vector<C>(a.num_rows));
  op.apply(C(1, 0), op.make_vector(x), C(0, 0), y);
  const auto got = y.to_host();
  const auto want = cs::reference_spmv<double>(C(1, 0), a, x, C(0, 0), std::vector<C>(a.num_rows));
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i].real(), want[i].real(), 1e-12) << op.variant().name() << " row " << i;
    ASSERT_NEAR(got[i].imag(), want[i].imag(), 1e-12) << op.variant().name() << " row " << i;
  }
}

/// Sets an environment variable for one scope, restoring the old value after.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnvironment() {
    if (had_)
      ::setenv(name_.c_str(), old_.c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }

 private:
  std::string name_, old_;
  bool had_ = false;
};

}  // namespace

TEST(QuickTune, DefaultCacheDirFollowsTheXdgRules) {
  const ScopedEnvironment no_override("COMPOUND_SPARSE_CACHE_DIR", nullptr);
  {
    const ScopedEnvironment xdg("XDG_CACHE_HOME", "/var/tmp/xdg");
    EXPECT_EQ(cs::default_tuning_cache_dir(), "/var/tmp/xdg/compound_sparse");
  }
  {
    const ScopedEnvironment relative("XDG_CACHE_HOME", "relative/cache");  // ignored: not absolute
    const ScopedEnvironment home("HOME", "/home/someone");
    EXPECT_EQ(cs::default_tuning_cache_dir(), "/home/someone/.cache/compound_sparse");
  }
  {
    const ScopedEnvironment xdg("XDG_CACHE_HOME", nullptr);
    const ScopedEnvironment home("HOME", nullptr);
    EXPECT_EQ(cs::default_tuning_cache_dir(), "");
  }
  const ScopedEnvironment override_dir("COMPOUND_SPARSE_CACHE_DIR", "/opt/cache");
  EXPECT_EQ(cs::default_tuning_cache_dir(), "/opt/cache");
}

TEST(QuickTune, PlanStaysWithinTheBudget) {
  for (int budget : {0, 4, 5, 12, 40, 199, 200, 1000})
    for (int candidates : {1, 3, 6, 9}) {
      const auto plan = cs::quick_tune_plan(candidates, budget, cs::TimingMode::Wall);
      EXPECT_LE(plan.count * plan.spmvs_per_candidate(), budget) << budget << " " << candidates;
      EXPECT_LE(plan.count, std::min(candidates, cs::max_quick_tune_candidates));
      EXPECT_EQ(plan.count == 0, budget < 5) << budget << " " << candidates;
    }
  const auto plan = cs::quick_tune_plan(6, 200, cs::TimingMode::Wall);
  EXPECT_EQ(plan.count, 6);
  EXPECT_EQ(plan.timing.samples, 3);
  EXPECT_GE(plan.timing.batch, 9);  // the budget is spent, not left over
}

TEST(QuickTune, CandidatesKeepAPlaceForTheHeuristic) {
  std::vector<cs::VariantKey> ranked;
  for (const char* name : {"ell.aos.aos.static.t128.b4.l1", "csr.aos.aos.static.t128.b4.l1",
                           "sell32.aos.aos.static.t128.b4.l1", "csr.soa.aos.static.t128.b4.l1"})
    ranked.push_back(cs::parse_variant_key(name));
  const auto heuristic = cs::parse_variant_key("csr.aos.aos.dynamic_warp.t128.b4.l4");
  const auto three = cs::quick_tune_candidates(ranked, {}, heuristic, {}, 3);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[0].name(), ranked[0].name());
  EXPECT_EQ(three[1].name(), ranked[1].name());
  EXPECT_EQ(three[2].name(), heuristic.name());
  // The heuristic among the ranked: no duplicate, the next-ranked takes the place.
  const auto again = cs::quick_tune_candidates(ranked, {}, ranked[1], {}, 3);
  ASSERT_EQ(again.size(), 3u);
  EXPECT_EQ(again[2].name(), ranked[2].name());
  // Alternatives fill the places the database leaves.
  const auto filled = cs::quick_tune_candidates({ranked[0]}, {}, heuristic, {ranked[0], ranked[3]}, 6);
  ASSERT_EQ(filled.size(), 3u);
  EXPECT_EQ(filled[2].name(), ranked[3].name());
}

TEST(QuickTune, NeighboursOwnBestsComeRightAfterTheFirstRanked) {
  std::vector<cs::VariantKey> ranked, neighbours;
  for (const char* name : {"ell.aos.aos.static.t256.b2.l1", "sell32.aos.aos.static.t256.b2.l1",
                           "ell.soa.aos.static.t256.b2.l1", "sell16.aos.aos.static.t256.b2.l1"})
    ranked.push_back(cs::parse_variant_key(name));
  // The nearest record's own best is the first ranked: it is not timed twice.
  for (const char* name :
       {"ell.aos.aos.static.t256.b2.l1", "ell.aos.aos.static.t256.b4.l1", "sell32c16.aos.soa.static.t256.b4.l2"})
    neighbours.push_back(cs::parse_variant_key(name));
  const auto heuristic = cs::parse_variant_key("csr.aos.aos.static.t256.b2.l1");
  const auto six = cs::quick_tune_candidates(ranked, neighbours, heuristic, {}, 6);
  std::vector<std::string> names;
  for (const auto& k : six) names.push_back(k.name());
  EXPECT_EQ(names, (std::vector<std::string>{"ell.aos.aos.static.t256.b2.l1", "ell.aos.aos.static.t256.b4.l1",
                                             "sell32c16.aos.soa.static.t256.b4.l2", "sell32.aos.aos.static.t256.b2.l1",
                                             "ell.soa.aos.static.t256.b2.l1", "csr.aos.aos.static.t256.b2.l1"}));
  // Few places: the heuristic keeps its one, the neighbours come before the next-ranked.
  const auto three = cs::quick_tune_candidates(ranked, neighbours, heuristic, {}, 3);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[1].name(), "ell.aos.aos.static.t256.b4.l1");
  EXPECT_EQ(three[2].name(), heuristic.name());
  // Neighbours left out for want of places fill what the others leave.
  const auto filled = cs::quick_tune_candidates({ranked[0]}, neighbours, ranked[0], {}, 6);
  EXPECT_EQ(filled.size(), 3u);
}

TEST(QuickTune, NoDatabaseTimesCandidatesWithinTheBudgetAndStoresThem) {
  const ScratchDir database("quick_nodb"), cache("quick_nodb_cache");
  const auto a = banded<C>(700, 9);
  auto options = no_database(database, cache);
  options.quick_tune_spmvs = 120;
  const cs::TunedSpmv<C> op(a, options);
  EXPECT_EQ(op.rule(), "quick") << op.explanation();
  EXPECT_GT(op.tuning_spmvs(), 0);
  EXPECT_LE(op.tuning_spmvs(), 120);
  EXPECT_TRUE(contains(op.explanation(), "rule quick (no database record): timed ")) << op.explanation();
  EXPECT_TRUE(contains(op.explanation(), "stored in " + cache_file(cache))) << op.explanation();
  expect_reference(op, a);

  const auto stored = cs::read_selection_database(cache_file(cache));
  ASSERT_EQ(stored.records.size(), 1u);
  const auto& record = stored.records[0];
  EXPECT_EQ(record.name, "quick-" + cs::matrix_features(a).fingerprint);
  EXPECT_EQ(record.device, cs::default_device_info().name);
  EXPECT_EQ(record.best, op.variant().name());
  EXPECT_EQ(record.features.fingerprint, cs::matrix_features(a).fingerprint);
  ASSERT_EQ(record.times.size(), 1u);  // the SpMV's
  EXPECT_EQ(record.times[0].k, 1);
  EXPECT_GE(record.times[0].size(), 2u);  // the heuristic and its schedule on other layouts
  EXPECT_LE(record.times[0].size(), static_cast<std::size_t>(cs::max_quick_tune_candidates));
  EXPECT_GT(record.seconds(record.best, 1), 0);
}

TEST(QuickTune, SecondConstructionIsAnExactHitInTheCache) {
  const ScratchDir database("quick_again"), cache("quick_again_cache");
  const auto a = banded<C>(500, 5, 40);
  const cs::TunedSpmv<C> first(a, no_database(database, cache));
  ASSERT_EQ(first.rule(), "quick") << first.explanation();
  const cs::TunedSpmv<C> second(a, no_database(database, cache));
  EXPECT_EQ(second.rule(), "exact") << second.explanation();
  EXPECT_EQ(second.tuning_spmvs(), 0);
  EXPECT_EQ(second.variant().name(), first.variant().name());
  EXPECT_TRUE(contains(second.explanation(), "database: cache " + cache_file(cache))) << second.explanation();
  // Without the cache, the same matrix is tuned again.
  auto no_cache = no_database(database, cache);
  no_cache.use_cache = false;
  EXPECT_EQ(cs::TunedSpmv<C>(a, no_cache).rule(), "quick");
}

TEST(QuickTune, CorruptCacheIsAWarningAndIsReplaced) {
  const ScratchDir database("quick_corrupt"), cache("quick_corrupt_cache");
  cache.write(cs::database_file_name(cs::default_device_info()), "{\"schema_version\": 1, \"matr");
  const auto a = banded<C>(400, 7);
  const cs::TunedSpmv<C> op(a, no_database(database, cache));
  EXPECT_EQ(op.rule(), "quick") << op.explanation();
  EXPECT_TRUE(contains(op.explanation(), "warning: tuning cache not used")) << op.explanation();
  EXPECT_TRUE(contains(op.explanation(), "moved to " + cache_file(cache) + ".unreadable.1")) << op.explanation();
  EXPECT_TRUE(std::filesystem::exists(cache_file(cache) + ".unreadable.1"));
  EXPECT_EQ(cs::read_selection_database(cache_file(cache)).records.size(), 1u);
  expect_reference(op, a);
  // A cache directory that cannot be written is a warning too.
  auto unwritable = no_database(database, cache);
  unwritable.cache_dir = cache_file(cache) + "/inside_a_file";
  const cs::TunedSpmv<C> still(a, unwritable);
  EXPECT_EQ(still.rule(), "quick");
  EXPECT_TRUE(contains(still.explanation(), "warning: quick-tuning result not stored")) << still.explanation();
}

TEST(QuickTune, CloseRecordNeedsNoQuickTuning) {
  const ScratchDir database("quick_close"), cache("quick_close_cache");
  const auto a = banded<C>(600, 7);
  auto near = cs::matrix_features(a);
  near.fingerprint = "0123456789abcdef";  // another pattern, 5% more rows: close, not exact
  near.rows = near.rows * 21 / 20;
  const auto variant = cs::heuristic_variant(near, cs::variant_registry<C>().variants()).name();
  cs::write_selection_database(shipped({record("near", near, {{variant, 1e-5}})}), database.database());

  const cs::TunedSpmv<C> op(a, no_database(database, cache));
  EXPECT_EQ(op.rule(), "nearest") << op.explanation();
  EXPECT_EQ(op.tuning_spmvs(), 0);
  EXPECT_FALSE(std::filesystem::exists(cache_file(cache)));

  auto strict = no_database(database, cache);
  strict.close_distance = 0;  // only an exact match is close
  const cs::TunedSpmv<C> tuned(a, strict);
  EXPECT_EQ(tuned.rule(), "quick") << tuned.explanation();
  EXPECT_TRUE(contains(tuned.explanation(), "the nearest record is at distance")) << tuned.explanation();

  auto never = strict;
  never.quick_tune = cs::QuickTune::Never;
  never.use_cache = false;
  EXPECT_EQ(cs::TunedSpmv<C>(a, never).rule(), "nearest");
}

TEST(QuickTune, AutoTimesCandidatesWhereTheNearestRecordIsFartherThanTheDefaultDistance) {
  // A record of 1.5 times the rows and non-zeros: between 0.3 (the default close distance)
  // and 0.5 (the old one), so Auto no longer takes the record's choice untimed.
  const ScratchDir database("quick_far"), cache("quick_far_cache");
  const auto a = banded<C>(600, 7);
  auto far = cs::matrix_features(a);
  far.fingerprint = "0123456789abcdef";
  far.rows = far.rows * 3 / 2;
  far.cols = far.cols * 3 / 2;
  far.nnz = far.nnz * 3 / 2;
  const double distance = cs::feature_distance(cs::matrix_features(a), far);
  ASSERT_GT(distance, cs::default_close_distance);
  ASSERT_LT(distance, 0.5);
  const auto variant = cs::heuristic_variant(far, cs::variant_registry<C>().variants()).name();
  cs::write_selection_database(shipped({record("far", far, {{variant, 1e-5}})}), database.database());

  const cs::TunedSpmv<C> op(a, no_database(database, cache));
  EXPECT_EQ(op.rule(), "quick") << op.explanation();
  EXPECT_GT(op.tuning_spmvs(), 0);
  EXPECT_TRUE(contains(op.explanation(), "the nearest record is at distance")) << op.explanation();
  expect_reference(op, a);

  auto old_default = no_database(database, cache);
  old_default.close_distance = 0.5;
  old_default.use_cache = false;  // the pattern is in the cache now
  EXPECT_EQ(cs::TunedSpmv<C>(a, old_default).rule(), "nearest");
}

TEST(QuickTune, TooSmallABudgetTimesNothing) {
  const ScratchDir database("quick_small"), cache("quick_small_cache");
  auto options = no_database(database, cache);
  options.quick_tune_spmvs = 4;
  const cs::TunedSpmv<C> op(banded<C>(100, 3), options);
  EXPECT_EQ(op.rule(), "heuristic");
  EXPECT_EQ(op.tuning_spmvs(), 0);
  EXPECT_TRUE(contains(op.explanation(), "no quick tuning: a budget of 4 SpMVs")) << op.explanation();
  options.quick_tune_spmvs = -1;
  EXPECT_THROW(cs::TunedSpmv<C>(banded<C>(100, 3), options), cs::Error);
}

TEST(QuickTune, DenseRowKeepsARowSplittingChoice) {
  const ScratchDir database("quick_dense"), cache("quick_dense_cache");
  const auto a = banded<C>(800, 3, 800);  // row 0 holds every column
  auto options = no_database(database, cache);
  options.dense_row_threshold = 100;
  options.quick_tune = cs::QuickTune::Always;
  const cs::TunedSpmv<C> op(a, options);
  EXPECT_EQ(op.rule(), "quick") << op.explanation();
  EXPECT_TRUE(cs::splits_rows(op.variant().kind)) << op.explanation();
  const auto stored = cs::read_selection_database(cache_file(cache));
  ASSERT_EQ(stored.records.size(), 1u);
  ASSERT_EQ(stored.records[0].times.size(), 1u);
  const auto& times = stored.records[0].times[0];
  EXPECT_GE(times.size(), 1u);
  for (std::size_t i = 0; i < times.size(); ++i)
    EXPECT_TRUE(cs::splits_rows(cs::parse_variant_key(times.variant(i)).kind))
        << times.variant(i) << " was timed on a matrix with a dense row";
  expect_reference(op, a);
}

// Without a database the candidates beside the heuristic are its schedule on the other
// layouts. One that pads past the measurement's bound would be refused unmeasured and take
// a place, so none is named: every candidate quick tuning names is timed.
TEST(QuickTune, CandidatesThatWouldPadPastTheBoundTakeNoPlace) {
  const ScratchDir database("quick_padded"), cache("quick_padded_cache");
  std::mt19937 rng(65);
  const auto a = random_csr<C>(700, 650, 0, 14, 90, rng);  // one row of 90, the others 0-14
  ASSERT_GT(static_cast<double>(cs::layout_num_slots<cs::Ell>(a)) / a.num_entries(), 3.0)
      << "ELL must pad past the bound for this test to mean anything";
  auto options = no_database(database, cache);
  options.quick_tune = cs::QuickTune::Always;
  options.dense_row_threshold = 1000;  // the long row is not dense: every layout may be tried
  const cs::TunedSpmv<C> op(a, options);
  EXPECT_EQ(op.rule(), "quick") << op.explanation();
  EXPECT_FALSE(contains(op.explanation(), "padding bound")) << op.explanation();
  EXPECT_FALSE(contains(op.explanation(), "failed")) << op.explanation();
  expect_reference(op, a);
}

TEST(QuickTune, ConcurrentWritersKeepEveryRecord) {
  const ScratchDir cache("quick_concurrent");
  const std::string path = cache_file(cache);
  const auto features = cs::matrix_features(banded<C>(50, 3));
  const auto store = [&](const std::string& writer, int count) {
    for (int i = 0; i < count; ++i) {
      const auto r = record(writer + "-" + std::to_string(i), features, {{"csr.aos.aos.static.t128.b4.l1", 1e-5}});
      const auto warnings = cs::store_in_tuning_cache(path, cs::ship_record(r));
      if (!warnings.empty()) return false;
    }
    return true;
  };
  // Processes: each child writes its records and exits without touching Kokkos.
  std::vector<pid_t> children;
  for (int p = 0; p < 3; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) ::_exit(store("process" + std::to_string(p), 5) ? 0 : 1);
    children.push_back(pid);
  }
  // Threads of this process at the same time.
  std::vector<std::thread> threads;
  std::vector<char> ok(4, 0);
  for (int t = 0; t < 4; ++t) threads.emplace_back([&, t] { ok[t] = store("thread" + std::to_string(t), 5); });
  for (auto& t : threads) t.join();
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  for (char o : ok) EXPECT_TRUE(o);
  EXPECT_EQ(cs::read_selection_database(path).records.size(), 35u);  // (3 + 4) writers x 5 records
}

TEST(QuickTune, EveryUnreadableCacheIsKeptUnderANameOfItsOwn) {
  // Two library versions that cannot read each other's cache, used in turn, each move the
  // other's file aside: one fixed backup name lost the records of all but the last.
  const ScratchDir cache("quick_aside");
  const std::string path = cache_file(cache);
  const std::string name = cs::database_file_name(cs::default_device_info());
  const auto r =
      cs::ship_record(record("kept", cs::matrix_features(banded<C>(50, 3)), {{"csr.aos.aos.static.t128.b4.l1", 1e-5}}));
  cache.write(name + ".unreadable", "an older library's backup");
  // Schema version 1: the tuner's full form, in which versions before the shipped form kept
  // their cache.
  const std::vector<std::string> others = {"{\"schema_version\": 1, \"first\": true}", "{\"schema_version\": 3}",
                                           "{\"schema_version\": 1, \"third\": true}"};
  for (std::size_t i = 0; i < others.size(); ++i) {
    cache.write(name, others[i]);
    const auto warnings = cs::store_in_tuning_cache(path, r);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(contains(warnings[0], "schema version")) << warnings[0];
    EXPECT_TRUE(contains(warnings[0], "moved to " + path + ".unreadable." + std::to_string(i + 1))) << warnings[0];
    EXPECT_EQ(cs::read_selection_database(path).records.size(), 1u);
  }
  for (std::size_t i = 0; i < others.size(); ++i)
    EXPECT_EQ(cs::detail::read_file_text(path + ".unreadable." + std::to_string(i + 1), "backup"), others[i]);
  EXPECT_EQ(cs::detail::read_file_text(path + ".unreadable", "backup"), "an older library's backup");
  EXPECT_FALSE(std::filesystem::exists(path + ".unreadable.4"));

  // A cache path that is no file to read is not moved aside: a directory stays where it is.
  const std::string directory = cache.str() + "/in/" + name;
  std::filesystem::create_directories(directory);
  cache.write("in/" + name + "/mine.txt", "someone's file");
  const auto warnings = cs::store_in_tuning_cache(directory, r);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(contains(warnings[0], "quick-tuning result not stored in the cache " + directory)) << warnings[0];
  EXPECT_TRUE(contains(warnings[0], "is a directory")) << warnings[0];
  EXPECT_TRUE(std::filesystem::exists(directory + "/mine.txt"));
  EXPECT_FALSE(std::filesystem::exists(directory + ".unreadable.1"));
}
