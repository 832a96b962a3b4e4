// Reading, writing, merging and shipping the tuner's full output
// (include/compound_sparse/tuning/database.hpp). The JSON schema is documented in
// docs/tuning.md; bump schema_version when a reader of the old version would misread the new one.
#include "compound_sparse/tuning/database.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>
#include <unordered_map>

#include "compound_sparse/error.hpp"
#include "compound_sparse/tuning/vector_bucket.hpp"
#include "compound_sparse/variant_space.hpp"  // COMPOUND_SPARSE_LAUNCH_BOUNDS
#include "json_fields.hpp"
#include "record_identity.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace compound_sparse {

using namespace json_fields;

std::string library_version() {
  return COMPOUND_SPARSE_VERSION;
}
std::string kokkos_version() {
  return std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
         std::to_string(KOKKOS_VERSION % 100);
}
std::string cuda_version() {
#ifdef CUDART_VERSION
  return std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10);
#else
  return "";
#endif
}

TuningDatabase empty_tuning_database() {
  TuningDatabase db;
  db.device = default_device_info();
  db.library_version = library_version();
  db.kokkos_version = kokkos_version();
  db.cuda_version = cuda_version();
  db.launch_bounds = COMPOUND_SPARSE_LAUNCH_BOUNDS;
  return db;
}

// ---- JSON <-> structs ---------------------------------------------------------

namespace {

Json to_json(const Measurement& m) {
  Json j = {{"variant", m.variant}, {"ok", m.ok}, {"memory_bytes", m.memory_bytes}};
  if (m.k != 1) j["k"] = m.k;  // optional: absent for SpMV measurements and in older files
  if (m.ok) {
    j["seconds"] = m.seconds;
    j["min_seconds"] = m.min_seconds;
    j["max_seconds"] = m.max_seconds;
    j["relative_error"] = m.relative_error;
    j["retimed"] = m.retimed;
    if (m.dropped) j["dropped"] = true;  // optional: absent in older files and for fully timed ones
  } else {
    j["error"] = m.error;
  }
  return j;
}

Measurement measurement_from_json(const Json& j) {
  Measurement m;
  m.variant = as_string(member(j, "variant"), "variant");
  m.ok = as_bool(member(j, "ok"), "ok");
  m.k = optional_integer(j, "k", 1);
  m.memory_bytes = optional_integer(j, "memory_bytes", std::uint64_t{0});
  if (m.ok) {
    m.seconds = as_double(member(j, "seconds"), "seconds");
    m.min_seconds = optional_double(j, "min_seconds", m.seconds);
    m.max_seconds = optional_double(j, "max_seconds", m.seconds);
    m.relative_error = optional_double(j, "relative_error", 0.0);
    m.retimed = optional_bool(j, "retimed", false);
    m.dropped = optional_bool(j, "dropped", false);
  } else {
    m.error = optional_string(j, "error", std::string());
  }
  return m;
}

Json to_json(const TunedMatrix& t) {
  Json measurements = Json::array();
  for (const auto& m : t.measurements) measurements.push_back(to_json(m));
  Json j = {{"name", t.name},
            {"source", t.source},
            {"search", t.search},
            {"timing", t.timing},
            {"features", features_to_json(t.features)},
            {"best", t.best},
            {"best_seconds", t.best_seconds},
            {"measurements", measurements}};
  if (t.tuning_seconds > 0) j["tuning_seconds"] = t.tuning_seconds;  // optional: absent in older records
  return j;
}

TunedMatrix matrix_from_json(const Json& j) {
  TunedMatrix t;
  try {
    t.name = as_string(member(j, "name"), "name");
    t.source = optional_string(j, "source", std::string());
    t.search = optional_string(j, "search", std::string());
    t.timing = optional_string(j, "timing", std::string("wall"));
    const Json& features = as_object(member(j, "features"), "features");
    t.features = within([] { return std::string("features"); }, [&] { return features_from_json(features); });
    t.best = as_string(member(j, "best"), "best");
    t.best_seconds = optional_double(j, "best_seconds", 0.0);
    t.tuning_seconds = optional_double(j, "tuning_seconds", 0.0);
    t.device = optional_string(j, "device", std::string());
    const Json& measurements = as_array(member(j, "measurements"), "measurements");
    t.measurements.reserve(measurements.size());
    for (std::size_t i = 0; i < measurements.size(); ++i)
      t.measurements.push_back(within([i] { return "measurements[" + std::to_string(i) + "]"; },
                                      [&] { return measurement_from_json(as_object(measurements[i], "")); }));
  } catch (FieldError& e) {
    e.record = t.name;
    throw;
  }
  return t;
}

/// The full output writes each element of a "measurements" array on one line of compact
/// JSON (append_json_lines). A zoo record holds about a thousand measurements: one a line
/// keeps a retune's diff readable by variant and the file a fifth smaller (18.9 MB indented,
/// 15.2 MB so, for the H200's 74 records).
bool one_line_measurements(const std::string& key) {
  return key == "measurements";
}

}  // namespace

std::string to_json_text(const TuningDatabase& db) {
  Json matrices = Json::array();
  for (const auto& m : db.matrices) {
    matrices.push_back(to_json(m));
    // Only where it differs from the file's device: the reader fills that in.
    if (!m.device.empty() && m.device != db.device.name) matrices.back()["device"] = m.device;
  }
  const Json j = {
      {"schema_version", TuningDatabase::schema_version},
      {"generator", "compound-tune"},
      {"device",
       {{"backend", db.device.backend},
        {"name", db.device.name},
        {"compute_capability", std::to_string(db.device.compute_major) + "." + std::to_string(db.device.compute_minor)},
        {"compute_major", db.device.compute_major},
        {"compute_minor", db.device.compute_minor},
        {"multiprocessors", db.device.multiprocessors},
        {"memory_bytes", db.device.memory_bytes},
        {"l2_cache_bytes", db.device.l2_cache_bytes}}},
      {"versions", {{"compound_sparse", db.library_version}, {"kokkos", db.kokkos_version}, {"cuda", db.cuda_version}}},
      {"launch_bounds", db.launch_bounds},
      {"matrices", matrices}};
  std::string text;
  append_json_lines(text, j, 0, one_line_measurements);
  return text + "\n";
}

TuningDatabase parse_tuning_database(const std::string& text, const std::string& source) {
  int version = 0;
  const Json j = parse_database_text(text, source, version);
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, version != SelectionDatabase::schema_version,
                               source << " is a shipped tuning database (schema version " << version
                                      << ": each record's times only), not the tuner's full output (schema version "
                                      << TuningDatabase::schema_version
                                      << "), which compound-tune reads and writes; ship a new database from its output "
                                         "instead (compound-tune --ship)");
  COMPOUND_SPARSE_REQUIRE_KIND(
      IoError, version == TuningDatabase::schema_version,
      source << " has schema version " << version << ", this library reads version " << TuningDatabase::schema_version);
  TuningDatabase db;
  reading_database(source, [&] {
    db.device = read_device_header(j);
    const Json& d = member(j, "device");
    within([] { return std::string("device"); },
           [&] {
             db.device.memory_bytes = optional_integer(d, "memory_bytes", std::size_t{0});
             db.device.l2_cache_bytes = optional_integer(d, "l2_cache_bytes", std::size_t{0});
           });
    const Json& v = as_object(member(j, "versions"), "versions");
    within([] { return std::string("versions"); },
           [&] {
             db.library_version = optional_string(v, "compound_sparse", std::string());
             db.kokkos_version = optional_string(v, "kokkos", std::string());
             db.cuda_version = optional_string(v, "cuda", std::string());
           });
    db.launch_bounds = optional_string(j, "launch_bounds", std::string());
    // An object here once read as no records at all: only an array holds them.
    const Json& matrices = as_array(member(j, "matrices"), "matrices");
    db.matrices.reserve(matrices.size());
    for (std::size_t i = 0; i < matrices.size(); ++i)
      db.matrices.push_back(within([i] { return "matrices[" + std::to_string(i) + "]"; },
                                   [&] { return matrix_from_json(as_object(matrices[i], "")); }));
    for (auto& m : db.matrices)
      if (m.device.empty()) m.device = db.device.name;  // written before records named their device
  });
  // One record per identity (find_record's): of two, selection would take the first and a
  // merge keep the last, so neither is right.
  record_identity::refuse_repeated_identities(db.matrices, source, "matrices", [](const TunedMatrix& m) {
    return "matrix '" + m.name + "', entry type " + m.features.entry_type + ", precision " + m.features.precision;
  });
  // A time that is zero, negative or not finite cannot be ranked (selection divides
  // by the fastest); the tuner never writes one (measure_variants fails such a
  // timing), so the file was edited or corrupted: refuse it rather than select
  // from it and explain the result with a ranking that never happened.
  for (const auto& m : db.matrices)
    for (const auto& x : m.measurements)
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, !x.ok || (std::isfinite(x.seconds) && x.seconds > 0),
                                   source << ": record '" << m.name << "' (" << m.features.entry_type << "/"
                                          << m.features.precision << "), variant '" << x.variant << "': ok measurement"
                                          << " has seconds " << x.seconds << ", not a finite positive time");
  // Selection looks measurements up by vector bucket: another k would never be used.
  for (const auto& m : db.matrices)
    for (const auto& x : m.measurements)
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, is_vector_bucket(x.k),
                                   source << ": record '" << m.name << "' (" << m.features.entry_type << "/"
                                          << m.features.precision << "), variant '" << x.variant << "': k = " << x.k
                                          << " vectors, not one of the buckets 1, 2, 4, 8, 16");
  return db;
}

TuningDatabase read_tuning_database(const std::string& path) {
  return parse_tuning_database(detail::read_file_text(path, "tuning database"), path);
}

void write_tuning_database(const TuningDatabase& db, const std::string& path) {
  detail::write_file_atomically(to_json_text(db), path);
}

TuningDatabase update_tuning_database(const std::string& path, const std::vector<TunedMatrix>& records,
                                      std::string* set_aside_unreadable) {
  namespace fs = std::filesystem;
  TuningDatabase db = empty_tuning_database();
  if (set_aside_unreadable) set_aside_unreadable->clear();
  detail::with_file_lock(path, [&] {
    if (fs::exists(path)) {
      // Under the lock: the latest file. A file that cannot be opened or read at all (a
      // directory, no permission) is nothing to set aside: only text that does not parse is.
      const std::string text = detail::read_file_text(path, "tuning database");
      try {
        const TuningDatabase file = parse_tuning_database(text, path);
        db.matrices = file.matrices;
        db.launch_bounds = joined_launch_bounds(file.launch_bounds, db.launch_bounds);  // its records' builds too
      } catch (const IoError& e) {
        if (!set_aside_unreadable) throw;
        const std::string aside = detail::set_aside_unreadable(path, e.reason());
        *set_aside_unreadable = std::string(e.what()) + "; moved to " + aside;
      }
    }
    for (const auto& r : records) merge_record(db, r);
    write_tuning_database(db, path);
  });
  return db;
}

SelectionRecord ship_record(const TunedMatrix& m) {
  SelectionRecord r;
  r.name = m.name;
  r.device = m.device;
  r.features = m.features;
  r.best = m.best;
  std::map<int, std::vector<std::pair<std::string, double>>> by_k;
  for (const auto& x : m.measurements)
    if (x.timed_at(x.k)) by_k[x.k].push_back({x.variant, x.seconds});
  for (auto& [k, times] : by_k) r.times.push_back(record_times(k, std::move(times)));
  return r;
}

SelectionDatabase ship_database(const TuningDatabase& db) {
  SelectionDatabase shipped;
  shipped.device = db.device;
  shipped.records.reserve(db.matrices.size());
  // Records timed on the same candidates share one list of names, as the file does.
  std::map<std::vector<std::string>, std::shared_ptr<const std::vector<std::string>>> lists;
  for (const auto& m : db.matrices) {
    shipped.records.push_back(ship_record(m));
    auto& r = shipped.records.back();
    if (r.device.empty()) r.device = db.device.name;  // as the reader fills it in
    for (auto& t : r.times) t.variants = lists.emplace(*t.variants, t.variants).first->second;
  }
  return shipped;
}

SelectionDatabase read_for_selection(const std::string& path) {
  const std::string text = detail::read_file_text(path, "tuning database");
  int version = 0;
  parse_database_text(text, path, version);
  return version == TuningDatabase::schema_version ? ship_database(parse_tuning_database(text, path))
                                                   : parse_selection_database(text, path);
}

const TunedMatrix* find_record(const TuningDatabase& db, const std::string& name, const std::string& entry_type,
                               const std::string& precision, const std::string& device) {
  return record_identity::find(db.matrices, name, entry_type, precision, device);
}

const TunedMatrix* find_record_preferring(const TuningDatabase& db, const std::string& name,
                                          const std::string& entry_type, const std::string& precision,
                                          const std::string& device) {
  return record_identity::find_preferring(db.matrices, name, entry_type, precision, device);
}

void merge_record(TuningDatabase& db, TunedMatrix m) {
  // Only a record of the same device is replaced (or extended): selection compares a
  // record's measurements with each other, which must come from one device.
  if (const TunedMatrix* existing = find_record(db, m.name, m.features.entry_type, m.features.precision, m.device)) {
    // The same matrix (fingerprint) tuned at other numbers of vectors keeps those
    // measurements: compound-tune --k 8 adds k = 8 to a record tuned at k = 1.
    if (existing->features.fingerprint == m.features.fingerprint) {
      const auto measured_k = [&m](int k) {
        return std::any_of(m.measurements.begin(), m.measurements.end(),
                           [k](const Measurement& x) { return x.k == k; });
      };
      std::vector<Measurement> kept;
      for (const auto& x : existing->measurements)
        if (!measured_k(x.k)) kept.push_back(x);
      m.measurements.insert(m.measurements.end(), kept.begin(), kept.end());
    }
    db.matrices[static_cast<std::size_t>(existing - db.matrices.data())] = std::move(m);
    return;
  }
  db.matrices.push_back(std::move(m));
}

std::string joined_launch_bounds(const std::string& a, const std::string& b) {
  // ';' is CMake's list separator, which some files have between pairs.
  std::string both = a + "," + b;
  std::replace(both.begin(), both.end(), ';', ',');
  std::vector<std::pair<std::pair<long, long>, std::string>> pairs;  // ((threads, teams), text)
  std::istringstream in(both);
  for (std::string part; std::getline(in, part, ',');) {
    const auto first = part.find_first_not_of(" \t"), last = part.find_last_not_of(" \t");
    if (first == std::string::npos) continue;
    part = part.substr(first, last - first + 1);
    // "t:b" sorts by its numbers; text that is not a pair (an older file's) sorts last, as it is.
    long threads = 0, teams = 0;
    int length = 0;
    const bool is_pair = std::sscanf(part.c_str(), "%ld:%ld%n", &threads, &teams, &length) == 2 &&
                         length == static_cast<int>(part.size());
    pairs.push_back(
        {is_pair ? std::make_pair(threads, teams) : std::make_pair(std::numeric_limits<long>::max(), 0L), part});
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  std::string joined;
  for (const auto& p : pairs) joined += (joined.empty() ? "" : ",") + p.second;
  return joined;
}

void merge_database(TuningDatabase& into, const TuningDatabase& from) {
  into.device = from.device;
  into.library_version = from.library_version;
  into.kokkos_version = from.kokkos_version;
  into.cuda_version = from.cuda_version;
  into.launch_bounds = joined_launch_bounds(into.launch_bounds, from.launch_bounds);
  for (const auto& m : from.matrices) merge_record(into, m);
}

}  // namespace compound_sparse
