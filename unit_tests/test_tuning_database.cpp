// The tuning database files: features and fingerprints; the tuner's full output (JSON round
// trip, atomic writes that survive an interruption, merging, refusal of corrupt files); the
// shipped form the library reads (what shipping keeps, its rounding, its refusals, the
// committed files) and the refusal of each form by the other's reader.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <compound_sparse.hpp>
#include <compound_sparse/tuning/database.hpp>
#include <compound_sparse/tuning/selection.hpp>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "tuning_test_helpers.hpp"

namespace cs = compound_sparse;
using namespace compound_sparse_test;
using C = Kokkos::complex<double>;

namespace {
cs::TuningDatabase sample_database() {
  cs::TuningDatabase db = cs::empty_tuning_database();
  db.matrices.push_back(record("band", cs::matrix_features(banded<C>(100, 5)),
                               {{"csr.aos.aos.static.t128.b4.l1", 2e-5}, {"ell.soa.aos.static.t128.b4.l2", 1e-5}}));
  return db;
}
}  // namespace

TEST(TuningFeatures, DescribeThePatternAndFingerprintIgnoresValues) {
  const auto a = banded<C>(100, 5, 40, 1);
  const auto f = cs::matrix_features(a);
  EXPECT_EQ(f.entry_type, "complex");
  EXPECT_EQ(f.precision, "double");
  EXPECT_EQ(f.rows, 100);
  EXPECT_EQ(f.nnz, static_cast<long long>(a.num_entries()));
  EXPECT_EQ(f.nnz_per_row_max, 40);
  EXPECT_NEAR(f.nnz_per_row_mean, double(a.num_entries()) / 100, 1e-12);
  EXPECT_GT(f.nnz_per_row_stddev, 0);
  EXPECT_EQ(f.bandwidth_max, 39);  // row 0 reaches column 39
  EXPECT_EQ(f.fingerprint.size(), 16u);
  // Same pattern, other values: same fingerprint. Other pattern or entry type: another.
  EXPECT_EQ(cs::matrix_features(banded<C>(100, 5, 40, 2)).fingerprint, f.fingerprint);
  EXPECT_NE(cs::matrix_features(banded<C>(100, 5, 41, 1)).fingerprint, f.fingerprint);
  EXPECT_NE(cs::matrix_features(banded<Kokkos::complex<float>>(100, 5, 40, 1)).fingerprint, f.fingerprint);
  EXPECT_EQ(cs::feature_distance(f, f), 0);
  EXPECT_LT(cs::feature_distance(f, cs::matrix_features(banded<C>(120, 5, 40))),
            cs::feature_distance(f, cs::matrix_features(banded<C>(5000, 60))));
}

TEST(TuningDatabase, FileNameIsKeyedByDevice) {
  cs::DeviceInfo gpu;
  gpu.backend = "Cuda";
  gpu.compute_major = 9;
  gpu.compute_minor = 0;
  EXPECT_EQ(cs::database_file_name(gpu), "sm_90.json");
  cs::DeviceInfo host;
  host.backend = "Serial";
  EXPECT_EQ(cs::database_file_name(host), "host_serial.json");
}

TEST(TuningDatabase, RoundTripsThroughJson) {
  const ScratchDir dir("db_roundtrip");
  const auto db = sample_database();
  cs::write_tuning_database(db, dir.database());
  const auto back = cs::read_tuning_database(dir.database());
  EXPECT_EQ(back.device.backend, db.device.backend);
  EXPECT_EQ(back.kokkos_version, cs::kokkos_version());
  ASSERT_EQ(back.matrices.size(), 1u);
  EXPECT_EQ(back.matrices[0].best, "ell.soa.aos.static.t128.b4.l2");
  EXPECT_EQ(back.matrices[0].features.fingerprint, db.matrices[0].features.fingerprint);
  EXPECT_EQ(back.matrices[0].features.nnz_per_row_stddev, db.matrices[0].features.nnz_per_row_stddev);
  ASSERT_EQ(back.matrices[0].measurements.size(), 2u);
  EXPECT_EQ(back.matrices[0].measurements[1].seconds, 1e-5);
  EXPECT_EQ(cs::to_json_text(back), cs::to_json_text(db));
}

TEST(TuningDatabase, RecordsSayHowTheyWereTimedAndOldOnesReadAsWall) {
  const ScratchDir dir("db_timing");
  auto db = sample_database();
  db.matrices[0].timing = "queued";
  cs::write_tuning_database(db, dir.database());
  EXPECT_EQ(cs::read_tuning_database(dir.database()).matrices[0].timing, "queued");
  // A database written before the field existed (rename the key so it is absent).
  std::string text = cs::to_json_text(db);
  const std::string key = "\"timing\": \"queued\"";
  const auto at = text.find(key);
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, key.size(), "\"unused\": \"queued\"");
  dir.write(cs::database_file_name(cs::default_device_info()), text);
  EXPECT_EQ(cs::read_tuning_database(dir.database()).matrices[0].timing, "wall");
}

TEST(TuningDatabase, DroppedCandidatesAndTuningSecondsRoundTripAndOldFilesReadWithout) {
  const ScratchDir dir("db_bounds");
  auto db = sample_database();
  db.matrices[0].tuning_seconds = 12.5;
  auto& slow = db.matrices[0].measurements[0];
  slow.dropped = true;  // ok, with its one batch's time
  cs::Measurement refused;
  refused.variant = "ell.aos.aos.static.t128.b4.l1";
  refused.error = "ell would store 300 slots for 10 non-zeros (30x), over the padding bound of 3x";
  refused.refused = true;
  db.matrices[0].measurements.push_back(refused);
  cs::write_tuning_database(db, dir.database());
  const std::string text = cs::to_json_text(db);
  EXPECT_NE(text.find("\"tuning_seconds\": 12.5"), std::string::npos) << text;
  EXPECT_EQ(text.find("\"dropped\":false"), std::string::npos) << "only dropped ones carry the field";
  EXPECT_NE(text.find("\"dropped\":true"), std::string::npos) << text;
  EXPECT_EQ(text.find("\"refused\""), std::string::npos) << "the error says why; not stored";
  const auto back = cs::read_tuning_database(dir.database());
  ASSERT_EQ(back.matrices.size(), 1u);
  EXPECT_EQ(back.matrices[0].tuning_seconds, 12.5);
  ASSERT_EQ(back.matrices[0].measurements.size(), 3u);
  EXPECT_TRUE(back.matrices[0].measurements[0].ok);
  EXPECT_TRUE(back.matrices[0].measurements[0].dropped);
  EXPECT_EQ(back.matrices[0].measurements[0].seconds, 2e-5);
  EXPECT_FALSE(back.matrices[0].measurements[1].dropped);
  EXPECT_FALSE(back.matrices[0].measurements[2].ok);
  EXPECT_EQ(back.matrices[0].measurements[2].error, refused.error);
  EXPECT_EQ(cs::to_json_text(back), text);

  // A file written before the fields existed: no tuning_seconds, no dropped.
  std::string old_text = text;
  for (const std::string key : {"\"tuning_seconds\"", "\"dropped\""}) {
    const auto at = old_text.find(key);
    ASSERT_NE(at, std::string::npos) << key;
    old_text.replace(at, key.size(), "\"unused_" + key.substr(1));
  }
  dir.write(cs::database_file_name(cs::default_device_info()), old_text);
  const auto old = cs::read_tuning_database(dir.database());
  EXPECT_EQ(old.matrices[0].tuning_seconds, 0);
  for (const auto& m : old.matrices[0].measurements) EXPECT_FALSE(m.dropped) << m.variant;
  // A dropped candidate is ranked by its one time: selection knows it is slow.
  cs::SelectionContext context;
  context.compiled = {cs::parse_variant_key("csr.aos.aos.static.t128.b4.l1")};
  const auto shipped_back = cs::ship_database(back);
  const auto s = cs::select_variant(back.matrices[0].features, &shipped_back, "test", context);
  EXPECT_EQ(s.rule, "exact");
  EXPECT_EQ(s.key.name(), "ell.soa.aos.static.t128.b4.l2");
}

TEST(ShippedDatabase, CommittedDatabasesReadQuicklyAndEachRecordHoldsItsBest) {
  // The committed files are the shipped form (tuning/sm_90.json: 148 records, an H200's and
  // an H100's). Each record has SpMV times, and its best among them; a bucket's times are
  // positive and ranked by the rounding as measured. The read is timed: TunedSpmv pays it
  // once per process (the tuner's full output of the same records took about 1 s).
  const std::string dir = COMPOUND_SPARSE_SOURCE_TUNING_DIR;
  for (const std::string name : {"sm_90.json", "host_serial.json"}) {
    const auto start = std::chrono::steady_clock::now();
    const auto db = cs::read_selection_database(dir + "/" + name);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::cout << name << ": read in " << ms << " ms, " << db.records.size() << " records\n";
    RecordProperty(name + "_read_ms", std::to_string(ms));
    EXPECT_LT(ms, 1000) << name << " is no longer the shipped form's size";
    EXPECT_FALSE(db.records.empty()) << name;
    for (const auto& r : db.records) {
      ASSERT_NE(r.at(1), nullptr) << name << " " << r.name;
      EXPECT_GT(r.seconds(r.best, 1), 0) << name << " " << r.name << ": best " << r.best << " has no SpMV time";
      EXPECT_FALSE(r.device.empty()) << name << " " << r.name;
    }
  }
  const auto gpu = cs::read_selection_database(dir + "/sm_90.json");
  std::map<std::string, int> per_device;
  for (const auto& r : gpu.records) ++per_device[r.device];
  EXPECT_EQ(per_device.size(), 2u);
  for (const auto& [device, n] : per_device) EXPECT_EQ(n, 74) << device;
}

TEST(TuningDatabase, InterruptedWriteLeavesThePreviousDatabase) {
  const ScratchDir dir("db_atomic");
  const auto old_db = sample_database();
  cs::write_tuning_database(old_db, dir.database());
  auto new_db = old_db;
  new_db.matrices.clear();
  // Interrupted after the temporary file is complete, before the rename.
  std::string temporary;
  EXPECT_THROW(cs::detail::write_file_atomically(cs::to_json_text(new_db), dir.database(),
                                                 [&](const std::string& t) {
                                                   temporary = t;
                                                   EXPECT_TRUE(std::filesystem::exists(t));
                                                   throw std::runtime_error("killed");
                                                 }),
               std::runtime_error);
  EXPECT_FALSE(temporary.empty());
  EXPECT_FALSE(std::filesystem::exists(temporary));
  EXPECT_EQ(cs::read_tuning_database(dir.database()).matrices.size(), 1u);
  // A tuner killed outright leaves a partial temporary file: the database is still the old one.
  dir.write(cs::database_file_name(cs::default_device_info()) + ".tmp.12345", "{\"schema_version\": 1, \"matr");
  EXPECT_EQ(cs::to_json_text(cs::read_tuning_database(dir.database())), cs::to_json_text(old_db));
  // And a completed write replaces it.
  cs::write_tuning_database(new_db, dir.database());
  EXPECT_TRUE(cs::read_tuning_database(dir.database()).matrices.empty());
}

TEST(TuningDatabase, MergeReplacesTheSameRecordAndKeepsOthers) {
  auto db = sample_database();
  const auto f = db.matrices[0].features;
  cs::merge_record(db, record("band", f, {{"csr.soa.soa.static.t128.b4.l1", 3e-6}}));  // same: replaced
  auto f_float = f;
  f_float.precision = "float";
  cs::merge_record(db, record("band", f_float, {{"csr.aos.aos.static.t128.b4.l1", 1e-6}}));  // other precision
  cs::merge_record(db, record("other", f, {{"csr.aos.aos.static.t128.b4.l1", 1e-6}}));
  ASSERT_EQ(db.matrices.size(), 3u);
  EXPECT_EQ(db.matrices[0].best, "csr.soa.soa.static.t128.b4.l1");
  EXPECT_EQ(db.matrices[0].measurements.size(), 1u);
  cs::TuningDatabase into = cs::empty_tuning_database();
  into.matrices.push_back(record("old", f, {{"csr.aos.aos.static.t128.b4.l1", 1e-6}}));
  into.library_version = "0.0.0";
  cs::merge_database(into, db);
  EXPECT_EQ(into.matrices.size(), 4u);
  EXPECT_EQ(into.library_version, cs::library_version());
}

TEST(TuningDatabase, LaunchBoundsNameEveryBuildThatWroteRecords) {
  EXPECT_EQ(cs::joined_launch_bounds("256:8,128:16", "128:4;256:8; 512:4"), "128:4,128:16,256:8,512:4");
  EXPECT_EQ(cs::joined_launch_bounds("", "256:1"), "256:1");
  EXPECT_EQ(cs::joined_launch_bounds("older text", "256:1"), "256:1,older text");
  // Merging keeps both's; a write through update_tuning_database adds this build's.
  auto into = cs::empty_tuning_database();
  into.launch_bounds = "512:4";
  auto from = sample_database();
  from.launch_bounds = "128:4";
  cs::merge_database(into, from);
  EXPECT_EQ(into.launch_bounds, "128:4,512:4");
  const ScratchDir dir("db_bounds");
  auto file = sample_database();
  file.launch_bounds = "1024:1";
  cs::write_tuning_database(file, dir.database());
  const auto updated = cs::update_tuning_database(dir.database(), {file.matrices[0]});
  const std::string expected = cs::joined_launch_bounds("1024:1", cs::empty_tuning_database().launch_bounds);
  EXPECT_EQ(updated.launch_bounds, expected);
  EXPECT_EQ(cs::read_tuning_database(dir.database()).launch_bounds, expected);
  EXPECT_NE(expected.find("1024:1"), std::string::npos);
}

TEST(TuningDatabase, SpmmMeasurementsRoundTripWithTheirNumberOfVectors) {
  const ScratchDir dir("db_vectors");
  auto db = sample_database();
  auto spmm = db.matrices[0].measurements[0];
  spmm.k = 8;
  spmm.seconds = spmm.min_seconds = spmm.max_seconds = 9e-5;
  db.matrices[0].measurements.push_back(spmm);
  const std::string text = cs::to_json_text(db);
  EXPECT_NE(text.find("\"k\":8"), std::string::npos) << "k is written for SpMM measurements";
  EXPECT_EQ(text.find("\"k\":1"), std::string::npos) << "and left out for the SpMV's (k = 1)";
  cs::write_tuning_database(db, dir.database());
  const auto back = cs::read_tuning_database(dir.database());
  ASSERT_EQ(back.matrices[0].measurements.size(), 3u);
  EXPECT_EQ(back.matrices[0].measurements[0].k, 1);
  EXPECT_EQ(back.matrices[0].measurements[2].k, 8);
  EXPECT_EQ(back.matrices[0].measurements[2].seconds, 9e-5);
  // A k that is no bucket is refused naming the record and the variant.
  std::string bad = text;
  bad.replace(bad.find("\"k\":8"), 5, "\"k\":3");
  dir.write("bad_k.json", bad);
  try {
    cs::read_tuning_database(dir.str() + "/bad_k.json");
    ADD_FAILURE() << "accepted k = 3";
  } catch (const cs::IoError& e) {
    EXPECT_NE(std::string(e.what()).find("record 'band'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("k = 3 vectors"), std::string::npos) << e.what();
  }
}

TEST(TuningDatabase, RetuningAtOtherVectorsKeepsTheRecordsOtherMeasurements) {
  auto db = sample_database();
  const auto f = db.matrices[0].features;
  auto at8 = record("band", f, {{"csr.aos.soa.static.t128.b4.l2", 5e-5}});
  at8.measurements[0].k = 8;
  cs::merge_record(db, at8);  // the k = 1 measurements stay
  ASSERT_EQ(db.matrices.size(), 1u);
  ASSERT_EQ(db.matrices[0].measurements.size(), 3u);
  EXPECT_EQ(db.matrices[0].measurements[0].k, 8);
  auto again = record("band", f, {{"csr.soa.soa.static.t128.b4.l1", 3e-6}});  // k = 1 again: replaces those
  cs::merge_record(db, again);
  ASSERT_EQ(db.matrices[0].measurements.size(), 2u);
  EXPECT_EQ(db.matrices[0].measurements[0].variant, "csr.soa.soa.static.t128.b4.l1");
  EXPECT_EQ(db.matrices[0].measurements[1].k, 8);
  // Another pattern under the same name: nothing of the old record stays.
  auto changed = record("band", cs::matrix_features(banded<C>(90, 5)), {{"csr.aos.aos.static.t128.b4.l1", 1e-6}});
  cs::merge_record(db, changed);
  EXPECT_EQ(db.matrices[0].measurements.size(), 1u);
}

TEST(TuningDatabase, DevicesOfOneComputeCapabilityKeepTheirRecordsSideBySide) {
  // A record measures one device: an H100's k = 8 must not join an H200's SpMV, and must
  // not replace it either (both read sm_90.json; selection prefers its own device's).
  auto db = sample_database();
  const auto f = db.matrices[0].features;
  db.matrices[0].device = "NVIDIA H200";
  auto at8 = record("band", f, {{"csr.aos.soa.static.t128.b4.l2", 5e-5}});
  at8.measurements[0].k = 8;
  at8.device = "NVIDIA H100 80GB HBM3";
  cs::merge_record(db, at8);
  ASSERT_EQ(db.matrices.size(), 2u);
  EXPECT_EQ(db.matrices[0].device, "NVIDIA H200");
  EXPECT_EQ(db.matrices[0].measurements.size(), 2u);  // the sample's two SpMV measurements, untouched
  ASSERT_EQ(db.matrices[1].measurements.size(), 1u);
  EXPECT_EQ(db.matrices[1].measurements[0].k, 8);
  // Each is found by its device; an unnamed device finds the first.
  const auto* h200 = cs::find_record(db, "band", f.entry_type, f.precision, "NVIDIA H200");
  const auto* h100 = cs::find_record(db, "band", f.entry_type, f.precision, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h200, &db.matrices[0]);
  EXPECT_EQ(h100, &db.matrices[1]);
  EXPECT_EQ(cs::find_record(db, "band", f.entry_type, f.precision, ""), &db.matrices[0]);
  EXPECT_EQ(cs::find_record(db, "band", f.entry_type, f.precision, "NVIDIA B200"), nullptr);
  EXPECT_EQ(cs::find_record_preferring(db, "band", f.entry_type, f.precision, "NVIDIA H100 80GB HBM3"), h100);
  EXPECT_EQ(cs::find_record_preferring(db, "band", f.entry_type, f.precision, "NVIDIA B200"), h200);
  // The same device keeps its record's other k, as above, and the other device's stays.
  auto at1 = record("band", f, {{"csr.soa.soa.static.t128.b4.l1", 3e-6}});
  at1.device = "NVIDIA H100 80GB HBM3";
  cs::merge_record(db, at1);
  ASSERT_EQ(db.matrices.size(), 2u);
  ASSERT_EQ(db.matrices[1].measurements.size(), 2u);
  EXPECT_EQ(db.matrices[1].measurements[1].k, 8);
  EXPECT_EQ(db.matrices[0].measurements.size(), 2u);
  // Written and read again, each record keeps its device, whatever the file's header names.
  const ScratchDir dir("db_devices");
  db.device.name = "NVIDIA H200";
  cs::write_tuning_database(db, dir.database());
  const auto back = cs::read_tuning_database(dir.database());
  ASSERT_EQ(back.matrices.size(), 2u);
  EXPECT_EQ(back.matrices[0].device, "NVIDIA H200");
  EXPECT_EQ(back.matrices[1].device, "NVIDIA H100 80GB HBM3");
}

TEST(TuningDatabase, CorruptFilesAreRefusedWithTheReason) {
  const ScratchDir dir("db_corrupt");
  const std::string good = cs::to_json_text(sample_database());
  const auto expect_error = [&](const std::string& text, const std::string& reason) {
    dir.write("bad.json", text);
    try {
      cs::read_tuning_database(dir.str() + "/bad.json");
      ADD_FAILURE() << "accepted: " << reason;
    } catch (const cs::Error& e) {
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  };
  expect_error(good.substr(0, good.size() / 2), "not valid JSON");
  expect_error("", "not valid JSON");
  expect_error("[1, 2]", "no schema_version");
  std::string v2 = good;
  v2.replace(v2.find("\"schema_version\": 1"), 19, "\"schema_version\": 2");
  expect_error(v2, "schema version 2");
  std::string no_features = good;
  no_features.replace(no_features.find("\"features\""), 10, "\"featurez\"");
  expect_error(no_features, "not a valid tuning database");
  EXPECT_THROW(cs::read_tuning_database(dir.str() + "/absent.json"), cs::Error);
}

TEST(ShippedDatabase, CommittedDatabasesAreInTheWritersFormat) {
  // What compound-tune --ship would write for them, byte for byte: a new database diffs by
  // record and by number of vectors, not by formatting.
  const std::string dir = COMPOUND_SPARSE_SOURCE_TUNING_DIR;
  for (const std::string name : {"sm_90.json", "host_serial.json"}) {
    const std::string text = cs::detail::read_file_text(dir + "/" + name, "test");
    const std::string written = cs::to_json_text(cs::parse_selection_database(text, name));
    ASSERT_EQ(written.size(), text.size()) << name;
    EXPECT_TRUE(written == text) << name;
  }
}

TEST(TuningDatabase, TheFullOutputIsWrittenOneMeasurementALine) {
  const std::string text = cs::to_json_text(sample_database());
  const auto at = text.find("\"measurements\": [\n");
  ASSERT_NE(at, std::string::npos) << text;
  const auto line_end = text.find('\n', text.find('{', at));
  EXPECT_NE(text.substr(text.find('{', at), line_end - text.find('{', at)).find("\"variant\":"), std::string::npos)
      << text;
}

TEST(ShippedDatabase, CachedReadParsesOnceAndSeesRewrites) {
  const ScratchDir dir("db_cache");
  const std::string path = dir.str() + "/db.json";
  std::vector<cs::TunedMatrix> records = {
      record("first", cs::matrix_features(banded<C>(50, 3)), {{"csr.aos.aos.static.t128.b4.l1", 1e-6}})};
  cs::write_selection_database(shipped(records), path);
  const auto a = cs::read_selection_database_cached(path);
  const auto b = cs::read_selection_database_cached(path);
  EXPECT_EQ(a.get(), b.get());  // the same parsed object, not a second parse
  ASSERT_EQ(a->records.size(), 1u);
  records.push_back(record("second", cs::matrix_features(banded<C>(60, 3)), {{"csr.aos.aos.static.t128.b4.l1", 2e-6}}));
  cs::write_selection_database(shipped(records), path);
  const auto c = cs::read_selection_database_cached(path);
  EXPECT_NE(c.get(), a.get());
  EXPECT_EQ(c->records.size(), 2u);
  EXPECT_EQ(a->records.size(), 1u);  // holders of the old one keep it intact
  dir.write("broken.json", "{");
  EXPECT_THROW(cs::read_selection_database_cached(dir.str() + "/broken.json"), cs::IoError);
}

TEST(TuningDatabase, ConcurrentUpdatesKeepEveryRecord) {
  // Several writers adding records to one file at once, each its own read-merge-write
  // (as tuners in separate processes do): the lock serialises them, so none loses
  // another's records. Threads open the lock file separately, and flock excludes
  // separate open files as it excludes processes.
  const ScratchDir dir("db_concurrent");
  const std::string path = dir.str() + "/sub/db.json";  // the directory is created too
  const auto f = cs::matrix_features(banded<C>(50, 3));
  constexpr int writers = 4, per_writer = 6;
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w)
    threads.emplace_back([&, w] {
      for (int i = 0; i < per_writer; ++i)
        cs::update_tuning_database(path, {record("w" + std::to_string(w) + "_" + std::to_string(i), f,
                                                 {{"csr.aos.aos.static.t128.b4.l1", 1e-6 * (i + 1)}})});
    });
  for (auto& t : threads) t.join();
  const auto db = cs::read_tuning_database(path);
  std::set<std::string> names;
  for (const auto& m : db.matrices) names.insert(m.name);
  EXPECT_EQ(names.size(), std::size_t{writers * per_writer});
  EXPECT_EQ(db.matrices.size(), std::size_t{writers * per_writer});
  EXPECT_TRUE(std::filesystem::exists(path + ".lock"));
  // An update replaces a record of the same name, entry type and precision.
  const auto after = cs::update_tuning_database(path, {record("w0_0", f, {{"ell.soa.aos.static.t128.b4.l2", 5e-7}})});
  EXPECT_EQ(after.matrices.size(), std::size_t{writers * per_writer});
  // (Found by name: which writer's record came first depends on how the threads ran.)
  const auto updated = cs::read_tuning_database(path).matrices;
  const auto w0_0 =
      std::find_if(updated.begin(), updated.end(), [](const cs::TunedMatrix& m) { return m.name == "w0_0"; });
  ASSERT_NE(w0_0, updated.end());
  EXPECT_EQ(w0_0->best, "ell.soa.aos.static.t128.b4.l2");
  // A database that cannot be read is not overwritten.
  dir.write("sub/db.json", "{");
  EXPECT_THROW(cs::update_tuning_database(path, {record("x", f, {{"csr.aos.aos.static.t128.b4.l1", 1e-6}})}),
               cs::IoError);
}

TEST(TuningDatabase, NonPositiveOrNonFiniteTimesAreRefusedNamingTheRecord) {
  // Selection ranks by time and divides by the fastest: a record whose ok times are
  // 0 or negative was used with an explanation that did not hold. Now the file is
  // refused, naming it, the record and the variant (TunedSpmv then warns and uses
  // the heuristic).
  const ScratchDir dir("db_seconds");
  for (const double seconds : {0.0, -1e-6}) {
    auto db = sample_database();
    db.matrices[0].measurements[1].seconds = seconds;
    dir.write("bad.json", cs::to_json_text(db));
    try {
      cs::read_tuning_database(dir.str() + "/bad.json");
      ADD_FAILURE() << "accepted seconds " << seconds;
    } catch (const cs::IoError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(dir.str() + "/bad.json: record 'band' (complex/double), variant "
                                      "'ell.soa.aos.static.t128.b4.l2': ok measurement has seconds"),
                std::string::npos)
          << what;
      EXPECT_NE(what.find("not a finite positive time"), std::string::npos) << what;
    }
  }
  // A failed measurement has no time to check.
  auto db = sample_database();
  db.matrices[0].measurements[1].ok = false;
  db.matrices[0].measurements[1].seconds = 0;
  dir.write("failed.json", cs::to_json_text(db));
  EXPECT_EQ(cs::read_tuning_database(dir.str() + "/failed.json").matrices.size(), 1u);
}

TEST(TuningDatabase, RecordsNameTheirDeviceAndSelectionPrefersThisOne) {
  const ScratchDir dir("db_device");
  const auto a = banded<C>(200, 5);
  const auto f = cs::matrix_features(a);
  auto db = cs::empty_tuning_database();
  db.device.name = "NVIDIA H200";
  auto h200 =
      record("h200-record", f, {{"ell.soa.aos.static.t128.b4.l2", 1e-5}, {"csr.aos.aos.static.t128.b4.l1", 2e-5}});
  auto h100 =
      record("h100-record", f, {{"csr.aos.aos.static.t128.b4.l1", 1e-5}, {"ell.soa.aos.static.t128.b4.l2", 2e-5}});
  h100.device = "NVIDIA H100";  // h200 keeps "", the file's device
  db.matrices = {h200, h100};
  cs::write_tuning_database(db, dir.database());
  const auto back = cs::read_tuning_database(dir.database());
  ASSERT_EQ(back.matrices.size(), 2u);
  EXPECT_EQ(back.matrices[0].device, "NVIDIA H200");  // filled in from the file
  EXPECT_EQ(back.matrices[1].device, "NVIDIA H100");
  EXPECT_EQ(cs::to_json_text(back), cs::to_json_text(db));

  // Both records match the fingerprint: each device takes its own.
  const auto selectable = cs::ship_database(back);
  cs::SelectionContext context;
  context.compiled = cs::variant_registry<C>().variants();
  for (const auto& [device, best] : std::vector<std::pair<std::string, std::string>>{
           {"NVIDIA H100", "csr.aos.aos.static.t128.b4.l1"}, {"NVIDIA H200", "ell.soa.aos.static.t128.b4.l2"}}) {
    context.device_name = device;
    const auto s = cs::select_variant(f, &selectable, "test", context);
    EXPECT_EQ(s.rule, "exact");
    EXPECT_EQ(s.key.name(), best) << device;
    EXPECT_NE(s.explanation.find("records of this device (" + device + ") preferred"), std::string::npos)
        << s.explanation;
  }
  // Nearest: another device's record nearer by less than 0.3 loses; by more, it wins.
  auto other = selectable;
  other.records[1].features.fingerprint = "0000000000000001";  // no exact match on either
  other.records[0].features.fingerprint = "0000000000000002";
  other.records[0].features.nnz_per_row_mean *= 1.2;  // the H200 record a little farther
  context.device_name = "NVIDIA H200";
  context.neighbours = 1;
  auto s = cs::select_variant(f, &other, "test", context);
  EXPECT_EQ(s.rule, "nearest");
  EXPECT_EQ(s.record, "h200-record") << s.explanation;
  // Quick tuning's extra candidates: each neighbour's own fastest, nearest first, once.
  context.neighbours = 2;
  s = cs::select_variant(f, &other, "test", context);
  EXPECT_EQ(s.rule, "nearest");
  ASSERT_EQ(s.neighbour_bests.size(), 2u) << s.explanation;
  EXPECT_EQ(s.neighbour_bests[0].name(), "ell.soa.aos.static.t128.b4.l2");
  EXPECT_EQ(s.neighbour_bests[1].name(), "csr.aos.aos.static.t128.b4.l1");
  other.records[1].times = other.records[0].times;  // both records' best the same: listed once
  s = cs::select_variant(f, &other, "test", context);
  EXPECT_EQ(s.neighbour_bests.size(), 1u);
  other = selectable;
  other.records[1].features.fingerprint = "0000000000000001";
  other.records[0].features.fingerprint = "0000000000000002";
  other.records[0].features.nnz_per_row_mean *= 1.2;
  context.neighbours = 1;
  other.records[0].features.nnz_per_row_mean *= 4;  // now far beyond the other device's 0.3
  s = cs::select_variant(f, &other, "test", context);
  EXPECT_EQ(s.record, "h100-record") << s.explanation;
  EXPECT_NE(s.explanation.find("measured on NVIDIA H100"), std::string::npos) << s.explanation;
  // No device given: no preference, no mention.
  context.device_name.clear();
  s = cs::select_variant(f, &selectable, "test", context);
  EXPECT_EQ(s.explanation.find("preferred"), std::string::npos) << s.explanation;
}

TEST(TuningDatabase, MixedPrecisionWithoutItsOwnRecordsIsSelectedFromFloats) {
  // Mixed stores float entries: with no mixed record (at that k) the float records of the
  // entry type stand in, by rule nearest (a fingerprint holds the precision); a mixed record
  // of its own, however far, is used instead.
  auto f = cs::matrix_features(banded<C>(200, 5));
  auto as = [&f](const std::string& precision, const std::string& fingerprint) {
    auto g = f;
    g.precision = precision;
    g.fingerprint = fingerprint;
    return g;
  };
  const auto mixed = as("mixed", "00000000000000a1");
  auto db = cs::empty_tuning_database();
  db.matrices = {record("band", as("float", "00000000000000f1"),
                        {{"ell.soa.aos.static.t128.b4.l2", 1e-5}, {"csr.aos.aos.static.t128.b4.l1", 2e-5}}),
                 record("band", as("double", "00000000000000d1"),
                        {{"csr.aos.aos.static.t128.b4.l1", 1e-5}, {"ell.soa.aos.static.t128.b4.l2", 2e-5}})};
  db.matrices[0].measurements.push_back(at_k("csr.aos.soa.static.t128.b4.l2", 8, 4e-5));
  auto selectable = cs::ship_database(db);
  cs::SelectionContext context;
  context.compiled = cs::variant_registry<C>().variants();
  auto s = cs::select_variant(mixed, &selectable, "test", context);
  EXPECT_EQ(s.rule, "nearest");
  EXPECT_EQ(s.key.name(), "ell.soa.aos.static.t128.b4.l2") << s.explanation;  // the float record's best
  EXPECT_EQ(s.distance, 0);
  EXPECT_NE(s.explanation.find("no complex/mixed record: its float records stand in"), std::string::npos)
      << s.explanation;
  EXPECT_NE(s.explanation.find("nearest complex/float record(s)"), std::string::npos) << s.explanation;
  context.vectors = 8;
  s = cs::select_variant(mixed, &selectable, "test", context);
  EXPECT_EQ(s.key.name(), "csr.aos.soa.static.t128.b4.l2") << s.explanation;
  EXPECT_NE(s.explanation.find("record at this k: its float records stand in"), std::string::npos) << s.explanation;
  // A mixed record of its own (another matrix, measured at k = 1 only) decides the SpMV; at
  // k = 8, which it lacks, the float records still stand in.
  auto far = as("mixed", "00000000000000a2");
  far.rows *= 64;
  far.nnz *= 64;
  db.matrices.push_back(record("far", far, {{"csr.aos.aos.static.t128.b4.l1", 1e-4}}));
  selectable = cs::ship_database(db);
  s = cs::select_variant(mixed, &selectable, "test", context);
  EXPECT_EQ(s.key.name(), "csr.aos.soa.static.t128.b4.l2") << s.explanation;
  context.vectors = 1;
  s = cs::select_variant(mixed, &selectable, "test", context);
  EXPECT_EQ(s.record, "far") << s.explanation;
  EXPECT_EQ(s.key.name(), "csr.aos.aos.static.t128.b4.l1");
  EXPECT_EQ(s.explanation.find("stand in"), std::string::npos) << s.explanation;
  // Double and float matrices never borrow another precision's records.
  s = cs::select_variant(as("double", "00000000000000d9"), &selectable, "test", context);
  EXPECT_EQ(s.record, "band");
  EXPECT_EQ(s.key.name(), "csr.aos.aos.static.t128.b4.l1") << s.explanation;  // the double record's best
}

TEST(TuningDatabase, AVectorBucketOnlyAnotherDeviceMeasuredIsSelectedFromItsRecord) {
  // tuning/sm_90.json: an H200's records of the SpMV and an H100's of the same matrices at
  // every k. On the H200, k = 1 comes from its own record, k = 8 from the H100's, and the
  // selection names which record (name and device) decided, for TunedSpmv's spmm_block.
  const auto a = banded<C>(200, 5);
  const auto f = cs::matrix_features(a);
  auto db = cs::empty_tuning_database();
  db.device.name = "NVIDIA H200";
  auto h200 = record("band", f, {{"ell.soa.aos.static.t128.b4.l2", 1e-5}, {"csr.aos.aos.static.t128.b4.l1", 2e-5}});
  h200.device = "NVIDIA H200";
  auto h100 = record("band", f,
                     {{"csr.aos.aos.static.t128.b4.l1", 1e-5},
                      {"ell.soa.aos.static.t128.b4.l2", 2e-5},
                      {"csr.aos.soa.static.t128.b4.l2", 4e-5},
                      {"csr.aos.aos.static.t128.b4.l1", 6e-5}});
  h100.measurements[2].k = h100.measurements[3].k = 8;
  h100.device = "NVIDIA H100 80GB HBM3";
  cs::merge_record(db, h200);
  cs::merge_record(db, h100);
  ASSERT_EQ(db.matrices.size(), 2u);
  const auto selectable = cs::ship_database(db);
  cs::SelectionContext context;
  context.compiled = cs::variant_registry<C>().variants();
  context.device_name = "NVIDIA H200";
  auto s = cs::select_variant(f, &selectable, "test", context);
  EXPECT_EQ(s.rule, "exact");
  EXPECT_EQ(s.key.name(), "ell.soa.aos.static.t128.b4.l2");
  EXPECT_EQ(s.record_device, "NVIDIA H200");
  context.vectors = 8;
  s = cs::select_variant(f, &selectable, "test", context);
  EXPECT_EQ(s.rule, "exact");
  EXPECT_EQ(s.key.name(), "csr.aos.soa.static.t128.b4.l2");
  EXPECT_EQ(s.record, "band");
  EXPECT_EQ(s.record_device, "NVIDIA H100 80GB HBM3");
  EXPECT_NE(s.explanation.find("measured on NVIDIA H100 80GB HBM3"), std::string::npos) << s.explanation;
  EXPECT_EQ(cs::find_record(selectable, s.record, f.entry_type, f.precision, s.record_device), &selectable.records[1]);
}

TEST(TuningDatabase, TheSameRecordIdentityTwiceIsRefusedNamingBoth) {
  // Selection took the first of two such records and --merge kept the last: a file holds
  // one record per matrix, entry type, precision and device, and the reader says which two
  // collide rather than pick one.
  const ScratchDir dir("db_duplicate");
  auto db = sample_database();
  db.device.name = "NVIDIA H200";
  auto again = db.matrices[0];
  again.best = "csr.aos.aos.static.t128.b4.l1";
  db.matrices.push_back(record("other", db.matrices[0].features, {{"csr.aos.aos.static.t128.b4.l1", 1e-6}}));
  db.matrices.push_back(again);
  const std::string path = dir.str() + "/twice.json";
  dir.write("twice.json", cs::to_json_text(db));
  try {
    cs::read_tuning_database(path);
    ADD_FAILURE() << "accepted the same record twice";
  } catch (const cs::IoError& e) {
    const std::string what = e.what();
    for (const std::string& part : std::vector<std::string>{
             path + ":", "matrices[0] and matrices[2]", "matrix 'band'", "entry type complex", "precision double",
             "device 'NVIDIA H200'", "'ell.soa.aos.static.t128.b4.l2'", "'csr.aos.aos.static.t128.b4.l1'"})
      EXPECT_NE(what.find(part), std::string::npos) << part << " not in: " << what;
  }
  // The shipped form refuses it alike, and TunedSpmv's loading turns that into a warning and
  // uses no record of the file.
  dir.write("twice_shipped.json", cs::to_json_text(cs::ship_database(db)));
  const auto loaded = cs::load_database_file(dir.str() + "/twice_shipped.json", "database not used: ", "");
  EXPECT_EQ(loaded.db, nullptr);
  ASSERT_EQ(loaded.warnings.size(), 1u);
  for (const std::string& part : std::vector<std::string>{"records[0] and records[2]", "matrix 'band'",
                                                          "device 'NVIDIA H200'", "'ell.soa.aos.static.t128.b4.l2'"})
    EXPECT_NE(loaded.warnings[0].find(part), std::string::npos) << part << " not in: " << loaded.warnings[0];
  // Identical copies are refused too: the file was not written by merging records.
  db.matrices[2] = db.matrices[0];
  dir.write("twice.json", cs::to_json_text(db));
  EXPECT_THROW(cs::read_tuning_database(path), cs::IoError);
  // Another device's record of the matrix stands beside it.
  db.matrices[2].device = "NVIDIA H100 80GB HBM3";
  dir.write("twice.json", cs::to_json_text(db));
  EXPECT_EQ(cs::read_tuning_database(path).matrices.size(), 3u);
  // An unnamed device matches any (find_record), so a record without a device beside one
  // that names its device is the same identity when the file names no device either.
  db.device.name.clear();
  db.matrices[2].device = "NVIDIA H100 80GB HBM3";
  dir.write("twice.json", cs::to_json_text(db));
  try {
    cs::read_tuning_database(path);
    ADD_FAILURE() << "accepted an unnamed device's record beside a named one";
  } catch (const cs::IoError& e) {
    EXPECT_NE(std::string(e.what()).find("matrices[0] and matrices[2]"), std::string::npos) << e.what();
  }
}

TEST(TuningDatabase, WrongJsonTypesAreRefusedNamingTheField) {
  // "matrices": {} once read as an empty database, and other wrong types as the
  // library's JSON exception without the field: each names the file and the field now.
  const ScratchDir dir("db_types");
  const std::string path = dir.str() + "/typed.json";
  const auto expect_refused = [&](std::string text, const std::string& find, const std::string& replace,
                                  const std::string& field, const std::string& problem) {
    const auto at = text.find(find);
    ASSERT_NE(at, std::string::npos) << find << " not in:\n" << text;
    text.replace(at, find.size(), replace);
    dir.write("typed.json", text);
    try {
      const auto db = cs::read_tuning_database(path);
      ADD_FAILURE() << "accepted " << replace << " (" << db.matrices.size() << " records)";
    } catch (const cs::IoError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path + " is not a valid tuning database: field '" + field + "'"), std::string::npos) << what;
      EXPECT_NE(what.find(problem), std::string::npos) << what;
    }
  };
  auto no_records = sample_database();
  no_records.matrices.clear();
  const std::string empty = cs::to_json_text(no_records);
  expect_refused(empty, "\"matrices\": []", "\"matrices\": {}", "matrices", "is an object, expected an array");
  expect_refused(empty, "\"matrices\": []", "\"matrices\": {\"band\": 1}", "matrices", "is an object");
  expect_refused(empty, "\"matrices\": []", "\"matrices\": [1]", "matrices[0]", "is a number, expected an object");
  expect_refused(empty, "\"matrices\": []", "\"records\": []", "matrices", "is missing");
  expect_refused(empty, "\"matrices\": []", "\"matrices\": null", "matrices", "is null, expected an array");
  expect_refused(empty, "\"device\": {", "\"device\": [], \"unused\": {", "device", "is an array, expected an object");
  expect_refused(empty, "\"compute_major\": ", "\"compute_major\": \"9\", \"unused\": ", "device.compute_major",
                 "is a string, expected an integer");
  expect_refused(empty, "\"multiprocessors\": ", "\"multiprocessors\": true, \"unused\": ", "device.multiprocessors",
                 "is a boolean, expected an integer");
  expect_refused(empty, "\"versions\": {", "\"versions\": \"0.1\", \"unused\": {", "versions",
                 "is a string, expected an object");
  expect_refused(empty, "\"launch_bounds\": ", "\"launch_bounds\": 256, \"unused\": ", "launch_bounds",
                 "is a number, expected a string");

  const std::string good = cs::to_json_text(sample_database());
  expect_refused(good, "\"rows\": ", "\"rows\": \"100\", \"unused\": ", "matrices[0].features.rows",
                 "is a string, expected an integer");
  expect_refused(good, "\"rows\": ", "\"rows\": 1.5, \"unused\": ", "matrices[0].features.rows", "expected an integer");
  expect_refused(good, "\"features\": {", "\"features\": [], \"unused\": {", "matrices[0].features",
                 "is an array, expected an object");
  expect_refused(good, "\"best\": ", "\"best\": 3, \"unused\": ", "matrices[0].best", "expected a string");
  expect_refused(good, "\"timing\": ", "\"timing\": null, \"unused\": ", "matrices[0].timing", "is null");
  expect_refused(good, "\"measurements\": [", "\"measurements\": {}, \"unused\": [", "matrices[0].measurements",
                 "is an object, expected an array");
  expect_refused(good, "\"seconds\":", "\"seconds\":\"fast\",\"unused\":", "matrices[0].measurements[0].seconds",
                 "is a string, expected a number");
  expect_refused(good, "\"ok\":", "\"ok\":1,\"unused\":", "matrices[0].measurements[0].ok",
                 "is a number, expected a boolean");
  // (Compact, without a space: the measurement's, not the device's.)
  expect_refused(good, "\"memory_bytes\":0", "\"memory_bytes\":-1", "matrices[0].measurements[0].memory_bytes",
                 "is -1, expected a non-negative integer");
  expect_refused(good, "\"variant\":", "\"unused\":", "matrices[0].measurements[0].variant", "is missing");
  // The record's name goes with the field once it is known.
  expect_refused(good, "\"rows\": ", "\"rows\": {}, \"unused\": ", "matrices[0].features.rows", "(record 'band')");
}

TEST(TuningDatabase, ADirectoryOrMissingFileIsAClearIoError) {
  // A directory once read as empty text: "not valid JSON ... unexpected end of input".
  const ScratchDir dir("db_paths");
  for (const auto& read : std::vector<std::function<void(const std::string&)>>{
           [](const std::string& p) { cs::read_tuning_database(p); },
           [](const std::string& p) { cs::read_selection_database(p); },
           [](const std::string& p) { cs::read_selection_database_cached(p); }}) {
    try {
      read(dir.str());
      ADD_FAILURE() << "read a directory";
    } catch (const cs::IoError& e) {
      EXPECT_NE(std::string(e.what()).find("tuning database " + dir.str() + " is a directory, not a file"),
                std::string::npos)
          << e.what();
    }
    try {
      read(dir.str() + "/absent.json");
      ADD_FAILURE() << "read a missing file";
    } catch (const cs::IoError& e) {
      EXPECT_NE(std::string(e.what()).find("cannot open tuning database " + dir.str() +
                                           "/absent.json: " + std::strerror(ENOENT)),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(ShippedDatabase, KeepsWhatSelectionReadsAndNothingElse) {
  // A record with a dropped candidate, a failed one and an SpMM time: shipped, it keeps its
  // identity, features, best and the times of what ran (the dropped one too: selection ranks
  // it by its one time), per k; the spread, errors, memory, search and timing stay in the
  // tuner's output.
  auto db = sample_database();
  db.device.name = "NVIDIA H200";
  auto& m = db.matrices[0];
  m.device = "NVIDIA H100 80GB HBM3";
  m.timing = "queued";
  m.tuning_seconds = 3.5;
  m.measurements[0].dropped = true;
  m.measurements[0].relative_error = 1e-15;
  m.measurements[0].memory_bytes = 4096;
  cs::Measurement failed;
  failed.variant = "sell32.aos.aos.static.t128.b4.l1";
  failed.error = "wrong result";
  m.measurements.push_back(failed);
  m.measurements.push_back(at_k("csr.aos.soa.static.t128.b4.l2", 8, 9e-5));
  const auto shipped_db = cs::ship_database(db);
  const std::string text = cs::to_json_text(shipped_db);
  for (const std::string gone :
       {"min_seconds", "max_seconds", "relative_error", "memory_bytes", "error", "dropped", "retimed", "search",
        "timing", "tuning_seconds", "source", "launch_bounds", "versions", "sell32.aos.aos.static.t128.b4.l1"})
    EXPECT_EQ(text.find(gone), std::string::npos) << gone << " in:\n" << text;
  const auto back = cs::parse_selection_database(text, "shipped.json");
  EXPECT_EQ(cs::to_json_text(back), text);
  EXPECT_EQ(back.device.name, "NVIDIA H200");
  EXPECT_EQ(back.device.compute_major, db.device.compute_major);
  ASSERT_EQ(back.records.size(), 1u);
  const auto& r = back.records[0];
  EXPECT_EQ(r.name, "band");
  EXPECT_EQ(r.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r.best, "ell.soa.aos.static.t128.b4.l2");
  EXPECT_EQ(r.features.fingerprint, m.features.fingerprint);
  EXPECT_EQ(r.features.nnz_per_row_stddev, m.features.nnz_per_row_stddev);
  ASSERT_EQ(r.times.size(), 2u);
  EXPECT_EQ(r.times[0].k, 1);
  EXPECT_EQ(r.times[1].k, 8);
  EXPECT_EQ(r.seconds("csr.aos.aos.static.t128.b4.l1", 1), 2e-5);  // the dropped one
  EXPECT_EQ(r.seconds("ell.soa.aos.static.t128.b4.l2", 1), 1e-5);
  EXPECT_EQ(r.seconds("sell32.aos.aos.static.t128.b4.l1", 1), 0);  // failed: no time
  EXPECT_EQ(r.seconds("csr.aos.soa.static.t128.b4.l2", 8), 9e-5);
  EXPECT_EQ(r.seconds("csr.aos.soa.static.t128.b4.l2", 1), 0);
  EXPECT_EQ(r.at(2), nullptr);
  // A record's variants sit once in the table, and records timed on the same ones share a list.
  auto two = db;
  two.matrices.push_back(m);
  two.matrices.back().name = "again";
  const std::string both = cs::to_json_text(cs::ship_database(two));
  const auto lists = cs::parse_selection_database(both, "two.json");
  EXPECT_EQ(lists.records[0].times[0].variants, lists.records[1].times[0].variants);
  EXPECT_EQ(both.find("\"csr.aos.aos.static.t128.b4.l1\""), both.rfind("\"csr.aos.aos.static.t128.b4.l1\""));
}

TEST(ShippedDatabase, TimesKeepEveryRecordsOrderAndTiesInWholePicoseconds) {
  // Picoseconds are below any timing's resolution, but two times a hair apart (the medians
  // of float event times, 1e-16 apart) would round to one: they stay apart, in their order,
  // and equal times stay equal, so a record ranks its variants exactly as measured.
  const double t = 4.1234567891234e-6;
  const auto times = cs::record_times(1, {{"d", t * (1 + 1e-15)}, {"a", t}, {"b", t}, {"c", 2 * t}, {"e", 1e-20}});
  ASSERT_EQ(times.size(), 5u);
  EXPECT_EQ(*times.variants, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  const auto ps = times.picoseconds;
  EXPECT_EQ(ps[0], 4123457);    // rounded
  EXPECT_EQ(ps[1], ps[0]);      // equal stays equal
  EXPECT_EQ(ps[3], ps[0] + 1);  // a hair above stays above
  EXPECT_EQ(ps[2], 8246914);
  EXPECT_EQ(ps[4], 1);  // a positive time stays positive
  EXPECT_DOUBLE_EQ(times.seconds(2), 8.246914e-6);
  for (const auto& bad : std::vector<double>{0.0, -1e-6, std::nan(""), 1e300}) {
    try {
      cs::record_times(2, {{"a", bad}});
      ADD_FAILURE() << "accepted " << bad;
    } catch (const cs::InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find("variant 'a' at k = 2"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(cs::record_times(1, {{"a", 1e-6}, {"a", 2e-6}}), cs::InvalidInput);
}

TEST(ShippedDatabase, EachReaderRefusesTheOtherFormAndTheToolsReadBoth) {
  // The old schema (1, the tuner's full output) is refused at run time with the step that
  // ships it; the tuner's reader refuses the shipped form; compound-tune's reports read either
  // (read_for_selection), and both give the same database.
  const ScratchDir dir("db_forms");
  auto db = sample_database();
  db.matrices.push_back(record("other", cs::matrix_features(banded<C>(120, 5)),
                               {{"csr.aos.aos.static.t128.b4.l1", 3e-5}, {"sell32.soa.aos.static.t128.b4.l4", 2e-5}}));
  const std::string full = dir.str() + "/full.json", shipped_path = dir.str() + "/shipped.json";
  cs::write_tuning_database(db, full);
  cs::write_selection_database(cs::ship_database(db), shipped_path);
  try {
    cs::read_selection_database(full);
    ADD_FAILURE() << "the run-time reader read the tuner's full output";
  } catch (const cs::IoError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(full +
                        " is the tuner's full output (schema version 1): the library reads the shipped form "
                        "(schema version 2), which `compound-tune --ship " +
                        full + " --out FILE` makes of it"),
              std::string::npos)
        << what;
  }
  const auto loaded = cs::load_database_file(full, "", "; using the heuristic");
  EXPECT_EQ(loaded.db, nullptr);
  ASSERT_EQ(loaded.warnings.size(), 1u);
  EXPECT_NE(loaded.warnings[0].find("compound-tune --ship"), std::string::npos) << loaded.warnings[0];
  try {
    cs::read_tuning_database(shipped_path);
    ADD_FAILURE() << "the tuner's reader read a shipped database";
  } catch (const cs::IoError& e) {
    EXPECT_NE(std::string(e.what()).find(shipped_path + " is a shipped tuning database (schema version 2"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(cs::to_json_text(cs::read_for_selection(full)), cs::to_json_text(cs::read_for_selection(shipped_path)));
  EXPECT_EQ(cs::to_json_text(cs::read_for_selection(shipped_path)), cs::detail::read_file_text(shipped_path, "test"));
}

TEST(ShippedDatabase, SelectionDecidesAsFromTheRecordsItWasShippedFrom) {
  // Many variants a hair apart: the exact rule's ranking is the measured one, the nearest
  // rule's scores the same from the shipped file as from the database shipped in memory.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> spread(1.0, 1.05);
  const auto compiled = cs::variant_registry<C>().variants();
  std::vector<cs::TunedMatrix> records;
  for (int r = 0; r < 6; ++r) {
    std::vector<std::pair<std::string, double>> times;
    for (std::size_t v = 0; v < compiled.size(); ++v) times.push_back({compiled[v].name(), 1e-5 * spread(rng)});
    times[3].second = times[5].second;  // a tie
    records.push_back(record("m" + std::to_string(r), cs::matrix_features(banded<C>(200 + 40 * r, 5)), times));
  }
  const auto in_memory = shipped(records);
  const auto from_file = cs::parse_selection_database(cs::to_json_text(in_memory), "db.json");
  cs::SelectionContext context;
  context.compiled = compiled;
  for (const auto& m : records) {
    // Exact: the record's own ranking, fastest first, ties in name order.
    auto measured = m.measurements;
    std::stable_sort(measured.begin(), measured.end(),
                     [](const cs::Measurement& a, const cs::Measurement& b) { return a.variant < b.variant; });
    std::stable_sort(measured.begin(), measured.end(),
                     [](const cs::Measurement& a, const cs::Measurement& b) { return a.seconds < b.seconds; });
    const auto exact = cs::select_variant(m.features, &from_file, "test", context);
    ASSERT_EQ(exact.rule, "exact");
    ASSERT_EQ(exact.ranked.size(), measured.size());
    for (std::size_t i = 0; i < measured.size(); ++i) EXPECT_EQ(exact.ranked[i].name(), measured[i].variant) << i;
    // Nearest: the other records, from the file and from memory alike.
    context.skip_record_name = m.name;
    const auto a = cs::select_variant(m.features, &from_file, "test", context);
    const auto b = cs::select_variant(m.features, &in_memory, "test", context);
    EXPECT_EQ(a.rule, "nearest");
    EXPECT_EQ(a.key.name(), b.key.name());
    EXPECT_EQ(a.explanation, b.explanation);
    context.skip_record_name.clear();
  }
}

TEST(ShippedDatabase, CorruptFilesAreRefusedNamingTheFieldAndTheRecord) {
  const ScratchDir dir("db_shipped_corrupt");
  auto db = sample_database();
  db.matrices[0].measurements.push_back(at_k("csr.aos.soa.static.t128.b4.l2", 8, 9e-5));
  const std::string good = cs::to_json_text(cs::ship_database(db));
  const auto expect_refused = [&](const std::string& find, const std::string& replace, const std::string& reason) {
    std::string text = good;
    const auto at = text.find(find);
    ASSERT_NE(at, std::string::npos) << find << " not in:\n" << good;
    text.replace(at, find.size(), replace);
    try {
      const auto back = cs::parse_selection_database(text, "bad.json");
      ADD_FAILURE() << "accepted " << replace << " (" << back.records.size() << " records)";
    } catch (const cs::IoError& e) {
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  };
  EXPECT_NO_THROW(cs::parse_selection_database(good, "good.json"));
  expect_refused("\"schema_version\": 2", "\"schema_version\": 3", "bad.json has schema version 3");
  expect_refused("\"records\": [", "\"recordz\": [", "field 'records' is missing");
  expect_refused("\"variant_lists\": [\n  [", "\"variant_lists\": [\n  [7,",
                 "field 'variant_lists[0][0]' is 7, beyond");
  expect_refused("\"variant_lists\": [\n  [0,2]", "\"variant_lists\": [\n  [2,0]",
                 "field 'variant_lists[0][1]' names 'csr.aos.aos.static.t128.b4.l1' out of order or twice");
  expect_refused("{\"k\":1,\"variants\":0,\"ps\":[", "{\"k\":1,\"variants\":5,\"ps\":[",
                 "field 'records[0].times[0].variants' (record 'band') is 5, beyond the 2 variant lists");
  expect_refused("{\"k\":1,\"variants\":0,\"ps\":[", "{\"k\":1,\"variants\":0,\"ps\":[1,",
                 "field 'records[0].times[0].ps' (record 'band') holds 3 times for the 2 variants");
  expect_refused("{\"k\":1,\"variants\":0,\"ps\":[20000000,", "{\"k\":1,\"variants\":0,\"ps\":[0,",
                 "field 'records[0].times[0].ps' (record 'band') holds 0, not a positive time");
  expect_refused("{\"k\":1,\"variants\":0,\"ps\":[20000000,", "{\"k\":1,\"variants\":0,\"ps\":[2e7,",
                 "field 'records[0].times[0].ps' (record 'band') is a floating-point number, expected an integer");
  expect_refused("{\"k\":8,", "{\"k\":3,", "field 'records[0].times[1].k' (record 'band') is 3 vectors");
  expect_refused("{\"k\":8,", "{\"k\":1,",
                 "records[0] (matrix 'band', entry type complex, precision double) has "
                 "times at k = 1 twice");
  expect_refused("\"rows\": ", "\"rows\": \"100\", \"unused\": ",
                 "field 'records[0].features.rows' (record 'band') is a string, expected an integer");
}
