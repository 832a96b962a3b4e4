// TunedSpmv and selection: exact and nearest-neighbour hits, the memory
// budget, and the heuristic whenever the database is missing, corrupt or
// names variants this build does not have; results equal the host reference.
#include <gtest/gtest.h>

#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/tuning/measure.hpp>  // relative_error
#include <compound_sparse/tuning/tuned_spmv.hpp>
#include <cstring>
#include <functional>
#include <limits>

#include "device_arrays.hpp"
#include "test_matrices.hpp"
#include "tuning_test_helpers.hpp"

namespace cs = compound_sparse;
using namespace compound_sparse_test;
using C = Kokkos::complex<double>;

namespace {

/// A key's launch bounds as variant names write them: "t128.b4".
std::string bounds_name(const cs::VariantKey& k) {
  return "t" + std::to_string(k.threads) + ".b" + std::to_string(k.teams_per_sm);
}

/// Launch bounds of the variants the records below name: 128:4 where compiled (the
/// default host build), else this build's first pair with an SpMM, so that the tests hold
/// for any COMPOUND_SPARSE_LAUNCH_BOUNDS and COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS.
std::string test_bounds() {
  const auto& registry = cs::variant_registry<C>();
  const auto compiled = registry.variants();
  for (const auto& k : compiled)
    if (k.threads == 128 && k.teams_per_sm == 4) return bounds_name(k);
  // The multivector tests' records name SpMM variants: bounds with an SpMM (the GPU build's
  // first pair, 256:1, has none; with it the H100 run failed MultivectorsUseTheRecords...).
  for (const auto& k : compiled)
    if (registry.supports_spmm(k)) return bounds_name(k);
  return bounds_name(compiled.front());
}

/// ("csr.aos.aos.static", "l1") -> "csr.aos.aos.static.t128.b4.l1" (with test_bounds()).
std::string variant(const std::string& layout_and_kind, const std::string& lanes) {
  return layout_and_kind + "." + test_bounds() + "." + lanes;
}

/// The first of the variants a test's records name that this build lacks (`spmm`: its SpMM),
/// with the reason, or "". The host build and the full variant set compile them all; a lean
/// GPU build (COMPOUND_SPARSE_VARIANT_SET=default) may not, and there such a test cannot
/// set its scene.
std::string missing_from_build(const std::vector<std::string>& spmv, const std::vector<std::string>& spmm = {}) {
  const auto& registry = cs::variant_registry<C>();
  for (const auto& name : spmv)
    if (!registry.contains(cs::parse_variant_key(name))) return name + " is not compiled";
  for (const auto& name : spmm)
    if (!registry.supports_spmm(cs::parse_variant_key(name))) return name + " has no SpMM compiled";
  return "";
}
/// Skips the test, naming the variant, where missing_from_build finds one.
#define SKIP_UNLESS_COMPILED(...)                                                                          \
  do {                                                                                                     \
    const std::string missing = missing_from_build(__VA_ARGS__);                                           \
    if (!missing.empty())                                                                                  \
      GTEST_SKIP() << missing << " in this build's variant set (COMPOUND_SPARSE_VARIANT_SET=full has it)"; \
  } while (0)

const std::string kExactBest = variant("sell32.soa.soa.dynamic_team", "l4");
const std::string kNearBest = variant("ell.soa.aos.static", "l2");
const std::string kFarBest = variant("csr.aos.soa.dynamic_warp", "l32");

/// Selection from the database in `dir` alone: no quick tuning, no cache.
cs::TunedSpmvOptions in(const ScratchDir& dir) {
  cs::TunedSpmvOptions o;
  o.database_dir = dir.str();
  o.quick_tune = cs::QuickTune::Never;
  o.use_cache = false;
  return o;
}

/// Hand-made records as the shipped database TunedSpmv reads in `dir`.
void write(const ScratchDir& dir, const std::vector<cs::TunedMatrix>& records) {
  cs::write_selection_database(shipped(records), dir.database());
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// y = alpha A x + beta y with the tuned variant equals the double host reference.
void expect_reference(const cs::TunedSpmv<C>& op, const cs::HostCsr<C>& a) {
  std::mt19937 rng(7);
  const auto x = random_vector<C>(a.num_cols, rng), y0 = random_vector<C>(a.num_rows, rng);
  const C alpha(0.5, -1), beta(2, 0.25);
  const auto y = op.make_vector(y0);
  op.apply(alpha, op.make_vector(x), beta, y);
  const auto got = y.to_host();
  const auto want = cs::reference_spmv<double>(alpha, a, x, beta, y0);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i].real(), want[i].real(), 1e-12) << op.variant().name() << " row " << i;
    EXPECT_NEAR(got[i].imag(), want[i].imag(), 1e-12) << op.variant().name() << " row " << i;
  }
}

/// k random host vectors of n values.
std::vector<std::vector<C>> random_vectors(int k, int n, std::mt19937& rng) {
  std::vector<std::vector<C>> v;
  for (int j = 0; j < k; ++j) v.push_back(random_vector<C>(n, rng));
  return v;
}

/// Y = alpha op(A) X + beta Y on multivectors of k = 1, 3, 8 and 17 vectors (buckets 1, 4,
/// 8, 16) equals the double host reference, vector by vector.
void expect_multivector_reference(const cs::TunedSpmv<C>& op, const cs::HostCsr<C>& a, cs::Op o = cs::Op::N) {
  std::mt19937 rng(9);
  const auto t = cs::transposed(a, o);
  const C alpha(0.5, -1), beta(2, 0.25);
  for (const int k : {1, 3, 8, 17}) {
    const auto x = random_vectors(k, t.num_cols, rng), y0 = random_vectors(k, t.num_rows, rng);
    const auto y = op.make_multivector(y0);
    op.apply(o, alpha, op.make_multivector(x), beta, y);
    const auto got = y.to_host();
    for (int j = 0; j < k; ++j)
      EXPECT_LE(cs::relative_error(got[j], cs::reference_spmv<double>(alpha, t, x[j], beta, y0[j])), 1e-14)
          << op.spmm_variant(k).name() << " k " << k << " vector " << j;
  }
}

}  // namespace

TEST(TunedSpmv, ExactFingerprintHitUsesItsRecord) {
  SKIP_UNLESS_COMPILED({kFarBest, variant("csr.aos.aos.static", "l1"), kExactBest});
  const ScratchDir dir("tuned_exact");
  const auto a = banded<C>(300, 7);
  write(dir, {record("far", cs::matrix_features(banded<C>(3000, 60)), {{kFarBest, 1e-6}}),
              record("me", cs::matrix_features(a), {{variant("csr.aos.aos.static", "l1"), 3e-6}, {kExactBest, 2e-6}})});
  const cs::TunedSpmv<C> op(a, in(dir));
  EXPECT_EQ(op.rule(), "exact");
  EXPECT_EQ(op.variant().name(), kExactBest);
  EXPECT_EQ(op.matrix().layout(), "sell32.soa");
  EXPECT_TRUE(contains(op.explanation(), "'me'")) << op.explanation();
  expect_reference(op, a);
  // Typed vectors in the chosen layout work too; another layout is refused.
  const auto x = cs::to_device<cs::Soa>(std::vector<C>(a.num_cols, C(1, 0)));
  const auto y = cs::to_device<cs::Soa>(std::vector<C>(a.num_rows));
  op.apply(C(1, 0), x, C(0, 0), y);
  double row5 = 0;  // x = 1: the row sum
  for (int k = a.row_offsets[5]; k < a.row_offsets[6]; ++k) row5 += a.values[k].real();
  EXPECT_NEAR(cs::to_host(y)[5].real(), row5, 1e-12);
  const auto x_aos = cs::to_device<cs::Aos>(std::vector<C>(a.num_cols));
  EXPECT_THROW(op.apply(C(1, 0), x_aos, C(0, 0), x_aos), cs::Error);
}

TEST(TunedSpmv, NearestNeighbourOfTheSameEntryTypeWins) {
  SKIP_UNLESS_COMPILED({variant("csr.aos.aos.static", "l1"), kNearBest, kFarBest});
  const ScratchDir dir("tuned_nearest");
  const auto a = banded<C>(300, 7);
  auto other_type = cs::matrix_features(banded<Kokkos::complex<float>>(300, 7));  // identical shape, float
  write(dir, {record("near", cs::matrix_features(banded<C>(280, 7)),
                     {{variant("csr.aos.aos.static", "l1"), 2e-6}, {kNearBest, 1e-6}}),
              record("far", cs::matrix_features(banded<C>(3000, 60)), {{kFarBest, 1e-6}}),
              record("float", other_type, {{kFarBest, 1e-7}})});
  for (int k : {1, 3}) {
    auto o = in(dir);
    o.neighbours = k;
    const cs::TunedSpmv<C> op(a, o);
    EXPECT_EQ(op.rule(), "nearest");
    EXPECT_EQ(op.variant().name(), kNearBest) << op.explanation();
    EXPECT_TRUE(contains(op.explanation(), "'near' (distance")) << op.explanation();
    EXPECT_FALSE(contains(op.explanation(), "'float'")) << op.explanation();
    expect_reference(op, a);
  }
}

TEST(TunedSpmv, MemoryBudgetSkipsLayoutsThatDoNotFit) {
  const ScratchDir dir("tuned_budget");
  const auto a = banded<C>(1000, 3, 1000);  // one row of 1000: ELL pads every row to it
  const auto& registry = cs::variant_registry<C>();
  ASSERT_GT(registry.memory_bytes("ell", a), 20 * registry.memory_bytes("csr", a));
  write(dir,
        {record("me", cs::matrix_features(a),
                {{variant("ell.aos.aos.static", "l1"), 1e-6}, {variant("csr.aos.aos.dynamic_warp", "l4"), 2e-6}})});
  auto o = in(dir);
  // The budget alone: on a GPU the row of 1000 is dense (TunedSpmv.NeverSerialisesADenseRow).
  o.dense_row_threshold = std::numeric_limits<double>::infinity();
  EXPECT_EQ(cs::TunedSpmv<C>(a, o).variant().outer, "ell");  // unlimited: the database's best
  o.budget.max_bytes = 2 * registry.memory_bytes("csr", a);
  const cs::TunedSpmv<C> op(a, o);
  EXPECT_EQ(op.rule(), "exact");
  EXPECT_EQ(op.variant().name(), variant("csr.aos.aos.dynamic_warp", "l4"));
  EXPECT_LE(op.matrix().memory_bytes(), o.budget.max_bytes);
  EXPECT_TRUE(contains(op.explanation(), "over the budget")) << op.explanation();
  expect_reference(op, a);
}

TEST(TunedSpmv, SkipsShortColumnsWhereTheMatrixSpansTooManyColumns) {
  const ScratchDir dir("tuned_short_columns");
  // Banded, plus row 3 reaching column 80000: its slice spans more than 16-bit offsets hold.
  cs::HostCsr<C> a = banded<C>(80001, 3);
  a.col_indices.insert(a.col_indices.begin() + a.row_offsets[4], 80000);
  a.values.insert(a.values.begin() + a.row_offsets[4], C(0.25, 1));
  for (std::size_t r = 4; r < a.row_offsets.size(); ++r) ++a.row_offsets[r];
  ASSERT_NE(cs::variant_registry<C>().refusal("sell32c16", a), "");
  write(dir,
        {record("me", cs::matrix_features(a),
                {{variant("sell32c16.aos.aos.static", "l1"), 1e-6}, {variant("sell32.aos.aos.static", "l1"), 2e-6}})});
  auto o = in(dir);
  o.dense_row_threshold = std::numeric_limits<double>::infinity();
  const cs::TunedSpmv<C> op(a, o);
  EXPECT_EQ(op.rule(), "exact");
  EXPECT_EQ(op.variant().name(), variant("sell32.aos.aos.static", "l1"));
  EXPECT_TRUE(contains(op.explanation(), "16-bit column offsets")) << op.explanation();
  expect_reference(op, a);
}

TEST(TunedSpmv, MissingDatabaseUsesTheHeuristic) {
  const ScratchDir dir("tuned_missing");
  const auto a = banded<C>(300, 7);
  const cs::TunedSpmv<C> op(a, in(dir));
  EXPECT_EQ(op.rule(), "heuristic");
  EXPECT_EQ(op.variant().name(),
            cs::heuristic_variant(cs::matrix_features(a), cs::variant_registry<C>().variants()).name());
  EXPECT_EQ(op.variant().name().rfind("csr.aos.aos.static.t", 0), 0u) << op.variant().name();
  EXPECT_TRUE(contains(op.explanation(), "no tuning database " + cs::database_file_name(cs::default_device_info())))
      << op.explanation();
  expect_reference(op, a);
}

TEST(TunedSpmv, CorruptDatabasesUseTheHeuristic) {
  const ScratchDir dir("tuned_corrupt");
  const auto a = banded<C>(300, 7);
  write(dir, {record("me", cs::matrix_features(a), {{kExactBest, 1e-6}})});
  std::string good;
  {
    std::ifstream in_file(dir.database());
    good.assign(std::istreambuf_iterator<char>(in_file), {});
  }
  const std::string file = cs::database_file_name(cs::default_device_info());
  std::string v9 = good;
  v9.replace(v9.find("\"schema_version\": 2"), 19, "\"schema_version\": 9");
  // The tuner's full output (schema version 1), which earlier versions read at run time: the
  // warning names the step that makes the shipped form of it.
  auto full = cs::empty_tuning_database();
  full.matrices = {record("me", cs::matrix_features(a), {{kExactBest, 1e-6}})};
  const std::pair<std::string, std::string> cases[] = {
      {good.substr(0, good.size() - 40), "not valid JSON"},
      {v9, "schema version 9"},
      {"{}", "no schema_version"},
      {cs::to_json_text(full), "is the tuner's full output (schema version 1): the library reads the shipped form"}};
  for (const auto& [text, reason] : cases) {
    dir.write(file, text);
    const cs::TunedSpmv<C> op(a, in(dir));
    EXPECT_EQ(op.rule(), "heuristic") << reason;
    EXPECT_TRUE(contains(op.explanation(), reason)) << op.explanation();
    expect_reference(op, a);
  }
}

TEST(TunedSpmv, UnknownVariantNamesUseTheHeuristic) {
  SKIP_UNLESS_COMPILED({kExactBest});
  const ScratchDir dir("tuned_unknown");
  const auto a = banded<C>(300, 7);
  write(dir, {record("me", cs::matrix_features(a),
                     {{"coo.aos.aos.static.t128.b4.l1", 1e-6},          // no such layout
                      {"csr.aos.aos.static.t96.b3.l1", 2e-6},           // not compiled
                      {"csr.aos.aos.turbo.t128.b4.l1", 3e-6},           // no such schedule
                      {"sell32.soa.soa.static.t128.b4.l64", 4e-6}})});  // lanes out of range
  const cs::TunedSpmv<C> op(a, in(dir));
  EXPECT_EQ(op.rule(), "heuristic");
  EXPECT_TRUE(contains(op.explanation(), "unknown variant")) << op.explanation();
  EXPECT_TRUE(contains(op.explanation(), "not compiled")) << op.explanation();
  expect_reference(op, a);
  // A usable variant further down the list is taken instead of the heuristic.
  write(dir, {record("me", cs::matrix_features(a), {{"coo.aos.aos.static.t128.b4.l1", 1e-6}, {kExactBest, 5e-6}})});
  EXPECT_EQ(cs::TunedSpmv<C>(a, in(dir)).variant().name(), kExactBest);
}

TEST(Heuristic, FollowsTheDocumentedRules) {
  const auto compiled = cs::variant_registry<C>().variants();
  const auto pick = [&](const cs::HostCsr<C>& a) { return cs::heuristic_variant(cs::matrix_features(a), compiled); };
  const auto short_rows = pick(banded<C>(500, 7));
  EXPECT_EQ(short_rows.name().rfind("csr.aos.aos.static.t", 0), 0u) << short_rows.name();
  EXPECT_EQ(short_rows.lanes_per_row, 1);
  EXPECT_EQ(pick(banded<C>(500, 40)).lanes_per_row, 8);                         // 40 / 4 -> 8
  EXPECT_EQ(pick(banded<C>(500, 300)).lanes_per_row, 32);                       // capped
  EXPECT_EQ(pick(banded<C>(500, 5, 400)).kind, cs::ScheduleKind::DynamicWarp);  // one long row
  const auto no_csr = cs::heuristic_variant(cs::matrix_features(banded<C>(50, 3)), compiled,
                                            [](const std::string& outer) { return outer == "sell16"; });
  EXPECT_EQ(no_csr.outer, "sell16");
  // Launch bounds: 128:4 wherever it is in the list, else the pair nearest to its
  // 512 threads per SM (the first of equally near ones).
  const auto bounds_from = [](const std::vector<std::string>& pairs) {
    std::vector<cs::VariantKey> keys;
    for (const auto& p : pairs) keys.push_back(cs::parse_variant_key("csr.aos.aos.static." + p + ".l1"));
    return bounds_name(cs::heuristic_variant(cs::matrix_features(banded<C>(50, 3)), keys));
  };
  EXPECT_EQ(bounds_from({"t128.b1", "t256.b4", "t128.b4"}), "t128.b4");
  EXPECT_EQ(bounds_from({"t256.b1", "t256.b2", "t256.b4", "t256.b8", "t512.b4"}), "t256.b2");
  EXPECT_EQ(bounds_from({"t128.b1", "t512.b4", "t256.b8"}), "t128.b1");  // 4x below and 4x above: the first
  EXPECT_EQ(bounds_from({"t512.b4", "t128.b1"}), "t512.b4");
  // Always a compiled variant, whatever the compiled list.
  const std::vector<cs::VariantKey> only = {cs::parse_variant_key("ell.soa.soa.dynamic_team.t128.b4.l1")};
  EXPECT_EQ(cs::heuristic_variant(cs::matrix_features(banded<C>(50, 3)), only).compiled_name(),
            only[0].compiled_name());
  EXPECT_THROW(cs::heuristic_variant(cs::matrix_features(banded<C>(50, 3)), {}), cs::Error);
}

TEST(TunedSpmv, FixedVectorLayoutSkipsVariantsWithOtherVectors) {
  const ScratchDir dir("tuned_vector_layout");
  const auto a = banded<C>(300, 7);
  // The fastest record variant has SoA vectors; the caller's vectors are AoS.
  write(dir, {record("me", cs::matrix_features(a),
                     {{kExactBest, 1e-6}, {variant("ell.aos.aos.static", "l2"), 2e-6}, {kFarBest, 3e-6}})});
  auto options = in(dir);
  options.vector_layout = "aos";
  const cs::TunedSpmv<C> op(a, options);
  EXPECT_EQ(op.rule(), "exact");
  EXPECT_EQ(op.variant().name(), variant("ell.aos.aos.static", "l2"));
  EXPECT_TRUE(contains(op.explanation(), "the caller's vectors are aos")) << op.explanation();
  expect_reference(op, a);
  // Without a database the heuristic's vector layout is overridden the same way.
  const ScratchDir empty("tuned_vector_layout_empty");  // no database in it
  auto soa = in(empty);
  soa.vector_layout = "soa";
  const cs::TunedSpmv<C> heuristic(a, soa);
  EXPECT_EQ(heuristic.rule(), "heuristic");
  EXPECT_EQ(heuristic.variant().vector, "soa");
  expect_reference(heuristic, a);
  options.vector_layout = "xyz";
  EXPECT_THROW(cs::TunedSpmv<C>(a, options), cs::Error);
}

// Issue 14: whatever the database says, a matrix with a row too long for one lane
// group gets a kind that splits rows (merge_path), by every rule.
TEST(TunedSpmv, NeverSerialisesADenseRow) {
  const ScratchDir dir("tuned_dense_row");
  const auto a = banded<C>(2000, 5, 2000);  // row 0 holds every column
  const std::string row_kernel = variant("csr.aos.aos.dynamic_warp", "l32");
  const std::string merge_path = variant("csr.aos.aos.merge_path", "l1");
  const auto features = cs::matrix_features(a);
  auto options = in(dir);
  options.dense_row_threshold = 100;  // this host's own threshold is above any row
  // Exact rule: the record's fastest variant serialises the row, so the next best.
  write(dir, {record("me", features, {{row_kernel, 1e-6}, {merge_path, 2e-6}})});
  {
    const cs::TunedSpmv<C> op(a, options);
    EXPECT_EQ(op.rule(), "exact");
    EXPECT_EQ(op.variant().name(), merge_path) << op.explanation();
    EXPECT_TRUE(contains(op.explanation(), "would serialise the matrix's dense row (2000 non-zeros)"))
        << op.explanation();
    expect_reference(op, a);
  }
  // Nearest rule with neighbours that never ran a splitting kind, and no
  // database at all: the heuristic's splitting kind.
  write(dir, {record("near", cs::matrix_features(banded<C>(1900, 5, 1900)), {{row_kernel, 1e-6}})});
  for (const std::string& db_dir : {dir.str(), dir.str() + "/none"}) {
    options.database_dir = db_dir;
    const cs::TunedSpmv<C> op(a, options);
    EXPECT_EQ(op.rule(), "heuristic") << op.explanation();
    EXPECT_TRUE(cs::splits_rows(op.variant().kind)) << op.explanation();
    EXPECT_EQ(op.variant().lanes_per_row, 1);
    EXPECT_TRUE(contains(op.explanation(), "a dense row (2000 non-zeros")) << op.explanation();
    expect_reference(op, a);
  }
  // Without the override, this device's own threshold decides (on a GPU, 2000
  // non-zeros in a 2000-row matrix are dense; on one host thread they are not).
  options.database_dir = dir.str();
  options.dense_row_threshold = -1;
  const cs::TunedSpmv<C> op(a, options);
  const bool dense = features.nnz_per_row_max > cs::dense_row_threshold(features, cs::default_device_info());
  EXPECT_EQ(cs::splits_rows(op.variant().kind), dense) << op.explanation();
  expect_reference(op, a);
}

TEST(Selection, DenseRowThresholdFollowsTheDevice) {
  // The circuit matrix of issue 14: 512K rows, 3.9M non-zeros, rows of 32K.
  cs::MatrixFeatures f;
  f.rows = 512 * 1024;
  f.nnz = 3900000;
  f.nnz_per_row_max = 32768;
  cs::DeviceInfo gpu;
  gpu.compute_major = 9;
  gpu.multiprocessors = 132;
  const double share = double(f.rows + f.nnz) / (132 * 2048);  // about 16 merge items per resident thread
  EXPECT_DOUBLE_EQ(cs::dense_row_threshold(f, gpu), 4 * share * 32);
  EXPECT_LT(cs::dense_row_threshold(f, gpu), f.nnz_per_row_max);
  cs::DeviceInfo host;  // one hardware thread: no row outlasts the rest
  EXPECT_DOUBLE_EQ(cs::dense_row_threshold(f, host), 4.0 * double(f.rows + f.nnz));
  // A small matrix never goes below one item per thread.
  cs::MatrixFeatures tiny;
  tiny.rows = 10;
  tiny.nnz = 20;
  EXPECT_DOUBLE_EQ(cs::dense_row_threshold(tiny, gpu), 4 * 32);
  // The heuristic's choice for such a matrix splits rows, with one lane.
  const auto key = cs::heuristic_variant(f, cs::variant_registry<C>().variants(), {}, cs::dense_row_threshold(f, gpu));
  EXPECT_TRUE(cs::splits_rows(key.kind)) << key.name();
  EXPECT_EQ(key.lanes_per_row, 1);
  EXPECT_FALSE(cs::splits_rows(cs::heuristic_variant(f, cs::variant_registry<C>().variants()).kind));
}

// Aᵀx and Aᴴx through TunedSpmvOptions::transposes: tuned copies of op(A) in A's vector
// layout, against the reference of the transposed matrix; their memory counts in the budget.
TEST(TunedSpmv, TransposedCopiesServeApplyWithOp) {
  const ScratchDir dir("tuned_transposes");
  std::mt19937 rng(11);
  const auto a = random_csr<C>(230, 170, 0, 9, 5, rng);  // non-square, empty rows, one long row
  auto options = in(dir);
  options.transposes = {cs::Op::H, cs::Op::T};
  const cs::TunedSpmv<C> op(a, options);
  EXPECT_TRUE(contains(op.explanation(), "A^T: variant")) << op.explanation();
  EXPECT_TRUE(contains(op.explanation(), "A^H: variant")) << op.explanation();
  EXPECT_EQ(op.transposed(cs::Op::H).variant().vector, op.variant().vector);
  EXPECT_EQ(op.memory_bytes(), op.matrix().memory_bytes() + op.transposed(cs::Op::T).matrix().memory_bytes() +
                                   op.transposed(cs::Op::H).matrix().memory_bytes());
  const C alpha(0.5, -1), beta(2, 0.25);
  for (const cs::Op o : {cs::Op::N, cs::Op::T, cs::Op::H}) {
    const auto t = cs::transposed(a, o);
    const auto x = random_vector<C>(t.num_cols, rng), y0 = random_vector<C>(t.num_rows, rng);
    const auto y = op.make_vector(y0);
    op.apply(o, alpha, op.make_vector(x), beta, y);
    const auto want = cs::reference_spmv<double>(alpha, t, x, beta, y0);
    EXPECT_LE(cs::relative_error(y.to_host(), want), 1e-14) << cs::to_string(o);
  }
  // Not asked for: a clear error. A budget that A's layout fills: no room for the copy.
  const cs::TunedSpmv<C> plain(a, in(dir));
  const auto x = plain.make_vector(std::vector<C>(a.num_rows)), y = plain.make_vector(std::vector<C>(a.num_cols));
  try {
    plain.apply(cs::Op::H, C(1, 0), x, C(0, 0), y);
    ADD_FAILURE() << "Op::H without a copy ran";
  } catch (const cs::InvalidInput& e) {
    EXPECT_TRUE(contains(e.what(), "TunedSpmvOptions::transposes")) << e.what();
  }
  auto tight = in(dir);
  tight.budget.max_bytes = plain.memory_bytes();
  tight.transposes = {cs::Op::T};
  EXPECT_THROW(cs::TunedSpmv<C>(a, tight), cs::BudgetExceeded);
}

// Real blocks have no conjugate: Aᴴ is Aᵀ, and one copy serves both.
TEST(TunedSpmv, BlocksShareOneCopyForTransposeAndConjugateTranspose) {
  using B = cs::Block<double, 3>;
  const ScratchDir dir("tuned_transposes_blocks");
  std::mt19937 rng(12);
  const auto a = random_csr<B>(90, 70, 1, 6, -1, rng);
  auto options = in(dir);
  options.transposes = {cs::Op::T, cs::Op::H};
  const cs::TunedSpmv<B> op(a, options);
  EXPECT_EQ(&op.transposed(cs::Op::T), &op.transposed(cs::Op::H));
  EXPECT_EQ(op.memory_bytes(), op.matrix().memory_bytes() + op.transposed(cs::Op::T).matrix().memory_bytes());
  const auto x = random_vector<cs::BlockVector<double, 3>>(a.num_rows, rng);
  const auto y = op.make_vector(std::vector<cs::BlockVector<double, 3>>(a.num_cols));
  op.apply(cs::Op::H, 1.0, op.make_vector(x), 0.0, y);
  const auto want = cs::reference_spmv<double>(1.0, cs::transposed(a, cs::Op::T), x, 0.0,
                                               std::vector<cs::BlockVector<double, 3>>(a.num_cols));
  EXPECT_LE(cs::relative_error(y.to_host(), want), 1e-14);
}

// Several vectors: each vector bucket's SpMM variant comes from the record's measurements
// at that k, on the matrix layout the SpMV chose; buckets without any run the SpMV's
// schedule; options.vectors lets the SpMM choose the matrix layout instead.
TEST(TunedSpmv, MultivectorsUseTheRecordsMeasurementsAtTheirBucket) {
  SKIP_UNLESS_COMPILED({kExactBest, variant("csr.aos.aos.static", "l1")},
                       {variant("sell32.soa.aos.dynamic_warp", "l2"), variant("sell32.soa.aos.static", "l1"),
                        variant("csr.aos.aos.static", "l1"), variant("sell32.soa.soa.static", "l1"),
                        variant("sell32.soa.aos.dynamic_team", "l4")});
  const ScratchDir dir("tuned_spmm");
  const auto a = banded<C>(300, 7);
  const std::string spmm8 = variant("sell32.soa.aos.dynamic_warp", "l2");
  const std::string spmm2 = variant("sell32.soa.aos.static", "l1");
  const std::string other_layout8 = variant("csr.aos.aos.static", "l1");  // fastest at 8, on csr.aos
  auto me = record("me", cs::matrix_features(a), {{variant("csr.aos.aos.static", "l1"), 3e-6}, {kExactBest, 2e-6}});
  for (const auto& m : {at_k(spmm8, 8, 1e-5), at_k(variant("sell32.soa.soa.static", "l1"), 8, 2e-5),
                        at_k(other_layout8, 8, 1e-6), at_k(spmm2, 2, 4e-6)})
    me.measurements.push_back(m);
  write(dir, {me});
  const cs::TunedSpmv<C> op(a, in(dir));
  EXPECT_EQ(op.variant().name(), kExactBest);  // the SpMV's choice is unchanged by the SpMM's records
  EXPECT_EQ(op.matrix().layout(), "sell32.soa");
  EXPECT_EQ(op.multivector_layout(), "aos") << op.explanation();  // the database's at k = 8 on sell32.soa
  EXPECT_EQ(op.spmm_variant(8).name(), spmm8) << op.explanation();
  EXPECT_EQ(op.spmm_variant(6).name(), spmm8);  // bucket 8
  EXPECT_EQ(op.spmm_variant(2).name(), spmm2);
  // k = 4 and 16: no measurement, the SpMV's schedule on aos multivectors.
  EXPECT_EQ(op.spmm_variant(4).name(), variant("sell32.soa.aos.dynamic_team", "l4")) << op.explanation();
  EXPECT_EQ(op.spmm_variant(40).name(), op.spmm_variant(4).name());
  EXPECT_TRUE(contains(op.explanation(), "SpMM on aos multivectors (the database's at k = 8)")) << op.explanation();
  EXPECT_TRUE(contains(op.explanation(), "no record measured at k = 4")) << op.explanation();
  expect_multivector_reference(op, a);
  // Typed multivectors in the chosen layout work; the other layout is refused.
  std::mt19937 rng(3);
  const auto x = cs::to_device<cs::Aos>(random_vectors(2, a.num_cols, rng));
  const auto y = cs::to_device<cs::Aos>(random_vectors(2, a.num_rows, rng));
  op.apply(C(1, 0), x, C(0, 0), y);
  const auto x_soa = cs::to_device<cs::Soa>(random_vectors(2, a.num_cols, rng));
  EXPECT_THROW(op.apply(C(1, 0), x_soa, C(0, 0), x_soa), cs::InvalidInput);
  EXPECT_THROW(op.spmm_variant(0), cs::InvalidInput);

  // options.vectors = 8: the SpMM at k = 8 chooses the matrix layout; the SpMV runs on it.
  auto o8 = in(dir);
  o8.vectors = 8;
  const cs::TunedSpmv<C> op8(a, o8);
  EXPECT_EQ(op8.matrix().layout(), "csr.aos") << op8.explanation();
  EXPECT_EQ(op8.spmm_variant(8).name(), other_layout8);
  EXPECT_EQ(op8.variant().name(), variant("csr.aos.aos.static", "l1")) << op8.explanation();
  expect_multivector_reference(op8, a);
  expect_reference(op8, a);

  // The caller's layout, and the transposed copies on multivectors.
  auto soa = in(dir);
  soa.multivector_layout = "soa";
  soa.transposes = {cs::Op::H};
  const cs::TunedSpmv<C> op_soa(a, soa);
  EXPECT_EQ(op_soa.multivector_layout(), "soa");
  EXPECT_EQ(op_soa.spmm_variant(8).name(), variant("sell32.soa.soa.static", "l1")) << op_soa.explanation();
  EXPECT_EQ(op_soa.transposed(cs::Op::H).multivector_layout(), "soa");
  expect_multivector_reference(op_soa, a);
  expect_multivector_reference(op_soa, a, cs::Op::H);
}

TEST(TunedSpmv, SoaMultivectorsRunInBlocksWhereTheRecordFoundFewerVectorsCheaper) {
  SKIP_UNLESS_COMPILED({kExactBest}, {variant("sell32.soa.soa.static", "l1"), variant("sell32.soa.aos.static", "l1")});
  const ScratchDir dir("tuned_spmm_blocks");
  const auto a = banded<C>(300, 7);
  const std::string soa = variant("sell32.soa.soa.static", "l1"), aos = variant("sell32.soa.aos.static", "l1");
  // Per vector: k = 2 2 us, k = 4 1 us, k = 8 2 us, k = 16 1.5 us; the same on aos.
  auto me = record("me", cs::matrix_features(a), {{kExactBest, 2e-6}});
  for (const auto& name : {soa, aos})
    for (const auto& m : {at_k(name, 2, 4e-6), at_k(name, 4, 4e-6), at_k(name, 8, 16e-6), at_k(name, 16, 24e-6)})
      me.measurements.push_back(m);
  write(dir, {me});
  for (const int vectors : {1, 16}) {  // the bucket's record from select_on_layout, or the primary's
    auto o = in(dir);
    o.multivector_layout = "soa";
    o.vectors = vectors;
    const cs::TunedSpmv<C> op(a, o);
    SCOPED_TRACE(op.explanation());
    EXPECT_EQ(op.spmm_variant(16).name(), soa);
    EXPECT_EQ(op.spmm_block(1), 1);
    EXPECT_EQ(op.spmm_block(2), 2);
    EXPECT_EQ(op.spmm_block(3), 3);  // bucket 4: as measured
    EXPECT_EQ(op.spmm_block(8), 4);
    EXPECT_EQ(op.spmm_block(16), 4);
    EXPECT_EQ(op.spmm_block(17), 4);  // four products of 4 and one of 1
    EXPECT_TRUE(contains(op.explanation(), "soa products of k=16 run as blocks of 4 vectors (record me: 1.5x less"));
    expect_multivector_reference(op, a);  // k = 1, 3, 8, 17
    // With the same variant at k = 4 and 16, each column has the bits of the whole product's:
    // the blocks change no sum.
    std::mt19937 rng(5);
    const auto x = random_vectors(16, a.num_cols, rng), y0 = random_vectors(16, a.num_rows, rng);
    const auto blocked = op.make_multivector(y0);
    op.apply(C(0.5, 1), op.make_multivector(x), C(-1, 0.5), blocked);
    const auto whole = op.make_multivector(y0);
    cs::variant_registry<C>().spmm(op.spmm_variant(16), C(0.5, 1), op.matrix(), op.make_multivector(x), C(-1, 0.5),
                                   whole);
    EXPECT_EQ(blocked.to_host(), whole.to_host());
  }
  // Aos multivectors run whole: a block of their vectors is strided.
  auto o = in(dir);
  o.multivector_layout = "aos";
  const cs::TunedSpmv<C> op_aos(a, o);
  EXPECT_EQ(op_aos.spmm_block(16), 16) << op_aos.explanation();
  EXPECT_FALSE(contains(op_aos.explanation(), "blocks of"));
  // A record without the smaller buckets' variants timed: no blocks.
  const ScratchDir sparse_dir("tuned_spmm_no_blocks");
  auto only16 = record("me", cs::matrix_features(a), {{kExactBest, 2e-6}});
  only16.measurements.push_back(at_k(soa, 16, 24e-6));
  write(sparse_dir, {only16});
  auto o16 = in(sparse_dir);
  o16.multivector_layout = "soa";
  const cs::TunedSpmv<C> op16(a, o16);
  EXPECT_EQ(op16.spmm_block(16), 16) << op16.explanation();
  // Multivectors of different counts are refused before any block runs.
  auto oblocks = in(dir);
  oblocks.multivector_layout = "soa";
  const cs::TunedSpmv<C> op_blocks(a, oblocks);
  std::mt19937 rng(6);
  EXPECT_THROW(op_blocks.apply(C(1, 0), op_blocks.make_multivector(random_vectors(8, a.num_cols, rng)), C(0, 0),
                               op_blocks.make_multivector(random_vectors(9, a.num_rows, rng))),
               cs::InvalidInput);
}

TEST(TunedSpmv, RefusesOutputsThatOverlapInputs) {
  SKIP_UNLESS_COMPILED({kExactBest}, {variant("sell32.soa.soa.static", "l1")});
  // A product whose y is its x, or whose blocks of Y overwrite vectors a later block reads
  // as X, returned wrong values with no error.
  const ScratchDir dir("tuned_overlap");
  const auto a = banded<C>(300, 7);
  const std::string soa = variant("sell32.soa.soa.static", "l1");
  auto me = record("me", cs::matrix_features(a), {{kExactBest, 2e-6}});
  for (const auto& m : {at_k(soa, 2, 4e-6), at_k(soa, 4, 4e-6), at_k(soa, 8, 16e-6)}) me.measurements.push_back(m);
  write(dir, {me});
  auto o = in(dir);
  o.multivector_layout = "soa";
  o.transposes = {cs::Op::T};
  const cs::TunedSpmv<C> op(a, o);
  ASSERT_EQ(op.spmm_block(8), 4) << op.explanation();
  std::mt19937 rng(7);
  const auto vectors = random_vectors(12, a.num_rows, rng);
  const auto m = cs::to_device<cs::Soa>(vectors);
  const auto expect_refused = [&](auto&& call, const char* what) {
    try {
      call();
      ADD_FAILURE() << what << ": accepted";
    } catch (const cs::InvalidInput& e) {
      EXPECT_TRUE(contains(e.what(), "shares memory with the input")) << what << ": " << e.what();
    }
    EXPECT_EQ(cs::to_host(m), vectors) << what << ": a refused product wrote its vectors";
  };
  // Vectors 0-7 into 4-11 in blocks of 4: each block's X and Y are disjoint, the whole not.
  expect_refused([&] { op.apply(C(1, 0), cs::vectors_of(m, 0, 8), C(0, 0), cs::vectors_of(m, 4, 8)); }, "blocks");
  expect_refused([&] { op.apply(C(1, 0), m, C(1, 0), m); }, "the same multivector");
  expect_refused([&] { op.apply(cs::Op::T, C(1, 0), m, C(0, 0), m); }, "the same multivector, op T");
  const auto x = op.make_vector(vectors[0]);  // in the chosen vector layout
  const auto x_before = x.to_host();
  expect_refused([&] { op.apply(C(1, 0), x, C(0, 0), x); }, "the same vector");
  expect_refused([&] { op.apply(cs::Op::T, C(1, 0), x, C(0, 0), x); }, "the same vector, op T");
  EXPECT_EQ(x.to_host(), x_before) << "a refused product wrote its vector";
  // Disjoint ranges of one multivector are fine: vectors 0-3 into 4-7.
  op.apply(C(1, 0), cs::vectors_of(m, 0, 4), C(0, 0), cs::vectors_of(m, 4, 4));
  const auto result = cs::to_host(m);
  for (int j = 0; j < 4; ++j) {
    const auto want = cs::reference_spmv<double>(C(1, 0), a, vectors[j], C(0, 0), std::vector<C>(a.num_rows));
    EXPECT_LE(cs::relative_error(result[4 + j], want), 1e-14) << j;
  }
}

TEST(TunedSpmv, OptionsOutsideTheirRangeAreRefusedByName) {
  const ScratchDir dir("tuned_bad_options");
  const auto a = banded<C>(50, 3);
  const auto refused = [&](const std::function<void(cs::TunedSpmvOptions&)>& set, const std::string& option) {
    auto o = in(dir);
    set(o);
    try {
      cs::TunedSpmv<C>(a, o);
      ADD_FAILURE() << option << ": accepted";
    } catch (const cs::InvalidInput& e) {
      EXPECT_TRUE(contains(e.what(), "TunedSpmvOptions::" + option)) << e.what();
    }
  };
  refused([](auto& o) { o.neighbours = 0; }, "neighbours must be at least 1, got 0");
  refused([](auto& o) { o.neighbours = -3; }, "neighbours");
  refused([](auto& o) { o.close_distance = std::nan(""); }, "close_distance must be a finite distance >= 0");
  refused([](auto& o) { o.close_distance = -0.5; }, "close_distance");
  refused([](auto& o) { o.close_distance = std::numeric_limits<double>::infinity(); }, "close_distance");
  refused([](auto& o) { o.dense_row_threshold = std::nan(""); }, "dense_row_threshold must be a number");
  refused([](auto& o) { o.quick_tune = static_cast<cs::QuickTune>(7); }, "quick_tune must be QuickTune::Never");
  refused([](auto& o) { o.quick_tune_spmvs = -1; }, "quick_tune_spmvs must not be negative");
  refused([](auto& o) { o.transposes = {cs::Op::N}; }, "transposes holds Op::T or Op::H, got Op::N");
  // The edges of each range are accepted: one neighbour, distance 0, an infinite threshold.
  auto edges = in(dir);
  edges.neighbours = 1;
  edges.close_distance = 0;
  edges.dense_row_threshold = std::numeric_limits<double>::infinity();
  expect_reference(cs::TunedSpmv<C>(a, edges), a);
}

TEST(TunedSpmv, SoaBlocksFollowTheRecordOfTheDeviceThatChoseTheBucket) {
  SKIP_UNLESS_COMPILED({kExactBest}, {variant("sell32.soa.soa.static", "l1")});
  // One matrix, two devices' records (an H100's and an H200's in sm_90.json): the other
  // device's, first in the file, found products of 4 cheaper per vector at k = 8 and 16;
  // this device's found each larger bucket cheaper. Selection takes this device's record, and
  // so must the blocks: a lookup by name alone would find the other device's first.
  const ScratchDir dir("tuned_spmm_blocks_devices");
  const auto a = banded<C>(300, 7);
  const std::string soa = variant("sell32.soa.soa.static", "l1");
  const auto with_soa = [&](const std::string& device, const std::vector<double>& per_vector) {
    auto r = record("me", cs::matrix_features(a), {{kExactBest, 2e-6}});
    r.device = device;
    const int ks[] = {2, 4, 8, 16};
    for (int i = 0; i < 4; ++i) r.measurements.push_back(at_k(soa, ks[i], per_vector[i] * ks[i]));
    return r;
  };
  write(dir, {with_soa("Other GPU", {2e-6, 1e-6, 2e-6, 1.5e-6}),
              with_soa(cs::default_device_info().name, {2e-6, 1.5e-6, 1e-6, 0.5e-6})});
  auto o = in(dir);
  o.multivector_layout = "soa";
  const cs::TunedSpmv<C> op(a, o);
  SCOPED_TRACE(op.explanation());
  EXPECT_EQ(op.spmm_variant(16).name(), soa);
  EXPECT_EQ(op.spmm_block(8), 8);
  EXPECT_EQ(op.spmm_block(16), 16);
  EXPECT_FALSE(contains(op.explanation(), "blocks of"));
  // Alone, the other device's record blocks them (what the lookup by name alone found).
  const ScratchDir other_dir("tuned_spmm_blocks_other");
  write(other_dir, {with_soa("Other GPU", {2e-6, 1e-6, 2e-6, 1.5e-6})});
  auto o_other = in(other_dir);
  o_other.multivector_layout = "soa";
  const cs::TunedSpmv<C> op_other(a, o_other);
  EXPECT_EQ(op_other.spmm_block(16), 4) << op_other.explanation();
}

TEST(TunedSpmv, MultivectorsWithoutADatabaseRunTheSpmvSchedule) {
  const ScratchDir dir("tuned_spmm_none");
  std::mt19937 rng(12);
  const auto a = random_csr<C>(211, 97, 0, 11, 4, rng);  // non-square, empty rows
  const cs::TunedSpmv<C> op(a, in(dir));
  EXPECT_EQ(op.multivector_layout(), "aos") << op.explanation();
  for (const int k : {1, 2, 4, 8, 16}) {
    auto want = op.variant();
    want.vector = "aos";
    EXPECT_EQ(op.spmm_variant(k), want) << k;
  }
  expect_multivector_reference(op, a);
  // Bad options are refused with the option's name.
  auto bad = in(dir);
  bad.vectors = 0;
  EXPECT_THROW(cs::TunedSpmv<C>(a, bad), cs::InvalidInput);
  bad.vectors = 1;
  bad.multivector_layout = "rows";
  try {
    cs::TunedSpmv<C>(a, bad);
    ADD_FAILURE() << "accepted multivector layout 'rows'";
  } catch (const cs::InvalidInput& e) {
    EXPECT_TRUE(contains(e.what(), "TunedSpmvOptions::multivector_layout")) << e.what();
  }
}

TEST(TunedSpmv, MultivectorsOfADenseRowMatrixSplitTheRow) {
  const ScratchDir dir("tuned_spmm_dense");
  const auto a = banded<C>(1000, 5, 1000);  // row 0 holds every column
  auto options = in(dir);
  options.dense_row_threshold = 100;
  const cs::TunedSpmv<C> op(a, options);
  ASSERT_TRUE(cs::splits_rows(op.variant().kind)) << op.explanation();
  // Without a database: soa where the SpMV runs the merge path (one SpMV per vector), else aos
  // (the segmented sum reads the matrix once for all k in either layout).
  const bool merge_path = op.variant().kind == cs::ScheduleKind::MergePath;
  EXPECT_EQ(op.multivector_layout(), merge_path ? "soa" : "aos") << op.explanation();
  EXPECT_TRUE(cs::splits_rows(op.spmm_variant(8).kind)) << op.explanation();
  expect_multivector_reference(op, a);
  // The caller's other layout: the same kind (the merge path through soa copies, spmm.hpp);
  // the row is still split.
  options.multivector_layout = merge_path ? "aos" : "soa";
  const cs::TunedSpmv<C> other(a, options);
  EXPECT_EQ(other.multivector_layout(), options.multivector_layout);
  EXPECT_TRUE(cs::splits_rows(other.spmm_variant(8).kind)) << other.explanation();
  expect_multivector_reference(other, a);
  // Each kind from a record measured at k = 1 only (no choice at k = 8): soa for the merge
  // path, aos for the segmented sum.
  for (const std::string kind : {"segmented_sum", "merge_path"}) {
    const ScratchDir kind_dir("tuned_spmm_dense_" + kind);
    write(kind_dir, {record("me", cs::matrix_features(a), {{variant("csr.aos.aos." + kind, "l1"), 1e-6}})});
    auto from_record = in(kind_dir);
    from_record.dense_row_threshold = 100;
    const cs::TunedSpmv<C> recorded(a, from_record);
    ASSERT_EQ(cs::to_string(recorded.variant().kind), kind) << recorded.explanation();
    EXPECT_EQ(recorded.multivector_layout(), kind == "merge_path" ? "soa" : "aos") << recorded.explanation();
    expect_multivector_reference(recorded, a);
  }
}

// TunedSpmv::refresh: after it, A's products and those of its transposed copies are, bit for
// bit, the products of the same variants on a conversion of the new matrix.
TEST(refresh, TunedSpmvRefreshGivesTheProductsOfTheNewValues) {
  std::mt19937 rng(45);
  const auto host = compound_sparse_test::random_csr<C>(300, 280, 0, 9, 11, rng);
  cs::TunedSpmvOptions options;
  options.use_cache = false;
  options.transposes = {cs::Op::T, cs::Op::H};
  const cs::TunedSpmv<C> tuned(host, options);
  auto next = host;
  next.values = random_vector<C>(host.values.size(), rng);
  tuned.refresh(next.values);
  const auto& registry = cs::variant_registry<C>();
  for (const cs::Op op : {cs::Op::N, cs::Op::T, cs::Op::H}) {
    const cs::TunedSpmv<C>& on = op == cs::Op::N ? tuned : tuned.transposed(op);
    const auto matrix = cs::transposed(next, op);
    const auto x = random_vector<C>(matrix.num_cols, rng);
    const auto y0 = random_vector<C>(matrix.num_rows, rng);
    const auto y = on.make_vector(y0);
    tuned.apply(op, C(1.5, -0.5), on.make_vector(x), C(0.25, 1), y);
    const auto expected = registry.convert_vector(on.variant().vector, y0);
    registry.spmv(on.variant(), C(1.5, -0.5), registry.convert_matrix(on.variant().outer, on.variant().inner, matrix),
                  registry.convert_vector(on.variant().vector, x), C(0.25, 1), expected);
    const auto got = y.to_host(), want = expected.to_host();
    EXPECT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(C))) << "op " << cs::to_string(op);
  }
  EXPECT_THROW(tuned.refresh(std::vector<C>(3)), cs::InvalidInput);
}

// TunedSpmv from a matrix on the device (DeviceCsr): the features and fingerprint, the
// transposed copies and the chosen layout are computed there, to the bits of the same
// matrix as a HostCsr; quick tuning builds and checks its candidates there.
namespace {

::testing::AssertionResult same_features(const cs::MatrixFeatures& a, const cs::MatrixFeatures& b) {
  // Bits, not tolerance: selection compares distances, and the cache matches fingerprints.
  const double av[] = {a.nnz_per_row_mean, a.nnz_per_row_max, a.nnz_per_row_stddev, a.bandwidth_mean, a.bandwidth_max};
  const double bv[] = {b.nnz_per_row_mean, b.nnz_per_row_max, b.nnz_per_row_stddev, b.bandwidth_mean, b.bandwidth_max};
  if (a.entry_type != b.entry_type || a.precision != b.precision || a.rows != b.rows || a.cols != b.cols ||
      a.nnz != b.nnz || std::memcmp(av, bv, sizeof av) != 0 || a.fingerprint != b.fingerprint)
    return ::testing::AssertionFailure() << "fingerprints " << a.fingerprint << " and " << b.fingerprint << ", stddev "
                                         << a.nnz_per_row_stddev << " and " << b.nnz_per_row_stddev;
  return ::testing::AssertionSuccess();
}

template <class Entry>
void expect_device_features_and_transposes_as_host(unsigned seed) {
  for (const auto& named : compound_sparse_test::test_matrices<Entry>(seed)) {
    SCOPED_TRACE(named.name);
    const auto& host = named.matrix;
    const auto device = on_device(host);
    EXPECT_TRUE(same_features(cs::matrix_features(device), cs::matrix_features(host)));
    const auto positions = cs::transposed_positions(host);
    EXPECT_TRUE(compound_sparse_test::same_bytes(cs::transposed_positions(device),
                                                 compound_sparse_test::device_copy(positions)));
    for (const cs::Op op : {cs::Op::T, cs::Op::H}) {
      const auto want = cs::transposed(host, op);
      const auto t = cs::transposed(device, op);
      const auto back = cs::host_csr_from_views(t.num_cols, t.row_map, t.entries, t.values);
      EXPECT_EQ(t.num_rows, want.num_rows);
      EXPECT_EQ(back.row_offsets, want.row_offsets) << cs::to_string(op);
      EXPECT_EQ(back.col_indices, want.col_indices) << cs::to_string(op);
      EXPECT_EQ(0, std::memcmp(back.values.data(), want.values.data(), want.values.size() * sizeof(Entry)))
          << cs::to_string(op);
    }
  }
}

/// The sizes the device computes of each padded layout (slots, bytes with the slice offsets
/// and column bases it keeps on the device, refusal) are the host path's.
template <class Outer, class Entry>
void expect_device_layout_size_as_host(const cs::HostCsr<Entry>& host) {
  const auto device = on_device(host);
  EXPECT_EQ(cs::layout_num_slots<Outer>(device), cs::layout_num_slots<Outer>(host)) << Outer::name();
  EXPECT_EQ(cs::layout_memory_bytes<Outer>(device), cs::layout_memory_bytes<Outer>(host)) << Outer::name();
  EXPECT_EQ(cs::layout_refusal<Outer>(device), cs::layout_refusal<Outer>(host)) << Outer::name();
}
template <class Entry, class... Outers>
void expect_device_layout_sizes_as_host(unsigned seed, cs::TypeList<Outers...>) {
  for (const auto& named : compound_sparse_test::test_matrices<Entry>(seed)) {
    SCOPED_TRACE(named.name);
    (expect_device_layout_size_as_host<Outers>(named.matrix), ...);
  }
}

}  // namespace

TEST(device_build, LayoutSizesMatchTheHostPath) {
  expect_device_layout_sizes_as_host<Kokkos::complex<double>>(91u, cs::OuterLayouts{});
  expect_device_layout_sizes_as_host<cs::Quaternion<float>>(92u, cs::OuterLayouts{});
}

TEST(device_build, FeaturesFingerprintAndTransposesMatchTheHostPathComplexDouble) {
  expect_device_features_and_transposes_as_host<C>(61);
}
TEST(device_build, FeaturesFingerprintAndTransposesMatchTheHostPathBlock3Float) {
  expect_device_features_and_transposes_as_host<cs::Block<float, 3>>(62);
}

TEST(device_build, FingerprintChangesWithAnyWordOfThePattern) {
  std::mt19937 rng(63);
  const auto a = compound_sparse_test::random_csr<C>(50, 40, 1, 6, -1, rng);
  const std::string f = cs::matrix_features(a).fingerprint;
  auto moved = a;  // one column index changed
  moved.col_indices[17] = (moved.col_indices[17] + 1) % a.num_cols;
  EXPECT_NE(cs::matrix_features(moved).fingerprint, f);
  auto swapped = a;  // two columns swapped: the same words, in other places
  ASSERT_NE(a.col_indices[0], a.col_indices[1]);
  std::swap(swapped.col_indices[0], swapped.col_indices[1]);
  EXPECT_NE(cs::matrix_features(swapped).fingerprint, f);
  auto shifted = a;  // an entry moved from one row to the next
  shifted.row_offsets[5] -= 1;
  EXPECT_NE(cs::matrix_features(shifted).fingerprint, f);
  EXPECT_EQ(cs::matrix_features(on_device(moved)).fingerprint, cs::matrix_features(moved).fingerprint);
}

TEST(device_build, TunedSpmvFromADeviceCsrIsTheTunedSpmvOfItsHostCsr) {
  std::mt19937 rng(64);
  cs::TunedSpmvOptions options;
  options.use_cache = false;
  options.quick_tune = cs::QuickTune::Never;  // timing would make the two choices differ by noise
  options.transposes = {cs::Op::T, cs::Op::H};
  for (const auto& named : compound_sparse_test::test_matrices<C>(64)) {
    SCOPED_TRACE(named.name);
    const cs::TunedSpmv<C> from_host(named.matrix, options);
    const cs::TunedSpmv<C> from_device(on_device(named.matrix), options);
    EXPECT_EQ(from_device.explanation(), from_host.explanation());
    EXPECT_EQ(from_device.variant().name(), from_host.variant().name());
    for (const cs::Op op : {cs::Op::N, cs::Op::T, cs::Op::H}) {
      const auto& h = op == cs::Op::N ? from_host : from_host.transposed(op);
      const auto& d = op == cs::Op::N ? from_device : from_device.transposed(op);
      ASSERT_EQ(d.variant().name(), h.variant().name()) << cs::to_string(op);
      const auto x = random_vector<C>(h.num_cols(), rng), y0 = random_vector<C>(h.num_rows(), rng);
      const auto yh = h.make_vector(y0), yd = d.make_vector(y0);
      from_host.apply(op, C(0.5, -1), h.make_vector(x), C(2, 0.25), yh);
      from_device.apply(op, C(0.5, -1), d.make_vector(x), C(2, 0.25), yd);
      const auto got = yd.to_host(), want = yh.to_host();
      EXPECT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(C))) << cs::to_string(op);
    }
    expect_reference(from_device, named.matrix);
  }
}

TEST(device_build, QuickTuningOfADeviceCsrChecksItsCandidatesThere) {
  std::mt19937 rng(65);
  const auto host = compound_sparse_test::random_csr<C>(700, 650, 0, 14, 90, rng);
  // The device reference of the measurements is the host's within rounding.
  const auto on_host = cs::make_measure_inputs(host, 3), there = cs::make_measure_inputs(on_device(host), 3);
  ASSERT_EQ(there.x, on_host.x);
  EXPECT_LE(cs::relative_error(there.reference, on_host.reference), 1e-15);
  cs::TunedSpmvOptions options;
  options.use_cache = false;
  options.quick_tune = cs::QuickTune::Always;
  options.quick_tune_spmvs = 40;
  const cs::TunedSpmv<C> tuned(on_device(host), options);
  EXPECT_EQ(tuned.rule(), "quick") << tuned.explanation();
  EXPECT_GT(tuned.tuning_spmvs(), 0);
  EXPECT_FALSE(contains(tuned.explanation(), "failed")) << tuned.explanation();
  expect_reference(tuned, host);
}

TEST(device_build, BadDeviceViewsAreRefusedBeforeTuning) {
  const auto row_map = compound_sparse_test::device_copy(std::vector<int>{0, 2, 1});
  const auto entries = compound_sparse_test::device_copy(std::vector<int>{0, 1});
  const auto values = compound_sparse_test::device_copy(std::vector<C>(2));
  EXPECT_THROW(cs::make_device_csr(2, row_map, entries, values), cs::InvalidInput);
  const auto fine_map = compound_sparse_test::device_copy(std::vector<int>{0, 1, 2});
  EXPECT_THROW(cs::make_device_csr(1, fine_map, entries, values), cs::InvalidInput);  // column 1 of 1
}
