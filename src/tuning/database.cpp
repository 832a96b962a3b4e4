// Reading, writing and merging the tuning database (include/compound_sparse/tuning/database.hpp). The
// JSON schema is documented in docs/tuning.md; bump schema_version when a
// reader of the old version would misread the new one.
#include "compound_sparse/tuning/database.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>
#include <unordered_map>

#include "compound_sparse/error.hpp"
#include "compound_sparse/tuning/vector_bucket.hpp"
#include "compound_sparse/variant_space.hpp"  // COMPOUND_SPARSE_LAUNCH_BOUNDS

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace compound_sparse {

using Json = nlohmann::json;

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

std::string database_file_name(const DeviceInfo& device) {
  std::string backend = device.backend;
  for (auto& c : backend) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string cc = std::to_string(device.compute_major) + std::to_string(device.compute_minor);
  if (backend == "cuda") return "sm_" + cc + ".json";
  if (device.compute_major == 0) return "host_" + backend + ".json";
  return backend + "_" + cc + ".json";
}

namespace {
std::mutex package_dirs_mutex;
std::vector<std::string>& package_dirs() {  // constructed on first use: safe from static initialisers
  static std::vector<std::string> dirs;
  return dirs;
}
}  // namespace

bool add_package_tuning_dir(const std::string& dir) {
  std::lock_guard<std::mutex> lock(package_dirs_mutex);
  auto& dirs = package_dirs();
  if (!dir.empty() && std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  return true;
}

std::vector<std::string> default_tuning_dirs() {
  if (const char* env = std::getenv("COMPOUND_SPARSE_TUNING_DIR"); env != nullptr && *env != '\0') return {env};
  std::vector<std::string> dirs;
  {
    std::lock_guard<std::mutex> lock(package_dirs_mutex);
    dirs = package_dirs();
  }
  for (const char* dir : {COMPOUND_SPARSE_INSTALLED_TUNING_DIR, COMPOUND_SPARSE_SOURCE_TUNING_DIR})
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  return dirs;
}

// ---- JSON <-> structs ---------------------------------------------------------

namespace {

Json to_json(const MatrixFeatures& f) {
  return {{"entry_type", f.entry_type},
          {"precision", f.precision},
          {"rows", f.rows},
          {"cols", f.cols},
          {"nnz", f.nnz},
          {"nnz_per_row_mean", f.nnz_per_row_mean},
          {"nnz_per_row_max", f.nnz_per_row_max},
          {"nnz_per_row_stddev", f.nnz_per_row_stddev},
          {"bandwidth_mean", f.bandwidth_mean},
          {"bandwidth_max", f.bandwidth_max},
          {"fingerprint", f.fingerprint}};
}

/// A field of the file that is missing or of the wrong JSON type: `field` is its path below
/// the object that reports it ("features.rows"); each level up prefixes its own part, and
/// the reader turns it into an IoError naming the file. Built only when a file is wrong.
struct FieldError {
  std::string field;
  std::string problem;
  std::string record;  ///< the record's name, once known
};

[[noreturn]] void field_error(const char* key, const std::string& problem) {
  throw FieldError{key, problem, ""};
}

std::string json_kind(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_float:
      return "a floating-point number";
    default:
      return "a number";
  }
}

/// The member `key` of object `j`, or null when absent.
const Json* find_member(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}
const Json& member(const Json& j, const char* key) {
  const Json* v = find_member(j, key);
  if (v == nullptr) field_error(key, "is missing");
  return *v;
}
const Json& as_object(const Json& v, const char* key) {
  if (!v.is_object()) field_error(key, "is " + json_kind(v) + ", expected an object");
  return v;
}
const Json& as_array(const Json& v, const char* key) {
  if (!v.is_array()) field_error(key, "is " + json_kind(v) + ", expected an array");
  return v;
}
std::string as_string(const Json& v, const char* key) {
  if (!v.is_string()) field_error(key, "is " + json_kind(v) + ", expected a string");
  return v.get<std::string>();
}
bool as_bool(const Json& v, const char* key) {
  if (!v.is_boolean()) field_error(key, "is " + json_kind(v) + ", expected a boolean");
  return v.get<bool>();
}
double as_double(const Json& v, const char* key) {
  if (!v.is_number()) field_error(key, "is " + json_kind(v) + ", expected a number");
  return v.get<double>();
}
/// An integer field: a boolean or a fractional number is the wrong type, not a value to convert.
template <class Int>
Int as_integer(const Json& v, const char* key) {
  if (!v.is_number_integer()) field_error(key, "is " + json_kind(v) + ", expected an integer");
  if (std::is_unsigned_v<Int> && !v.is_number_unsigned())
    field_error(key, "is " + v.dump() + ", expected a non-negative integer");
  const bool in_range = v.is_number_unsigned()
                            ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<Int>::max())
                            : v.get<std::int64_t>() >= static_cast<std::int64_t>(std::numeric_limits<Int>::min()) &&
                                  v.get<std::int64_t>() <= static_cast<std::int64_t>(std::numeric_limits<Int>::max());
  if (!in_range) field_error(key, "is " + v.dump() + ", out of range");
  return v.get<Int>();
}
/// Optional fields: `fallback` when absent (files written before the field existed);
/// present, they must have the field's type (null included: it is no value of any).
std::string optional_string(const Json& j, const char* key, const std::string& fallback) {
  const Json* v = find_member(j, key);
  return v == nullptr ? fallback : as_string(*v, key);
}
double optional_double(const Json& j, const char* key, double fallback) {
  const Json* v = find_member(j, key);
  return v == nullptr ? fallback : as_double(*v, key);
}
bool optional_bool(const Json& j, const char* key, bool fallback) {
  const Json* v = find_member(j, key);
  return v == nullptr ? fallback : as_bool(*v, key);
}
template <class Int>
Int optional_integer(const Json& j, const char* key, Int fallback) {
  const Json* v = find_member(j, key);
  return v == nullptr ? fallback : as_integer<Int>(*v, key);
}

/// Runs `read`; a FieldError from it is placed below `prefix()` ("features" + "rows"), which
/// is computed only then.
template <class Prefix, class Read>
auto within(Prefix&& prefix, Read&& read) {
  try {
    return read();
  } catch (FieldError& e) {
    e.field = e.field.empty() ? prefix() : prefix() + "." + e.field;
    throw;
  }
}

MatrixFeatures features_from_json(const Json& j) {
  MatrixFeatures f;
  f.entry_type = as_string(member(j, "entry_type"), "entry_type");
  f.precision = as_string(member(j, "precision"), "precision");
  f.rows = as_integer<long long>(member(j, "rows"), "rows");
  f.cols = as_integer<long long>(member(j, "cols"), "cols");
  f.nnz = as_integer<long long>(member(j, "nnz"), "nnz");
  f.nnz_per_row_mean = as_double(member(j, "nnz_per_row_mean"), "nnz_per_row_mean");
  f.nnz_per_row_max = as_double(member(j, "nnz_per_row_max"), "nnz_per_row_max");
  f.nnz_per_row_stddev = as_double(member(j, "nnz_per_row_stddev"), "nnz_per_row_stddev");
  f.bandwidth_mean = as_double(member(j, "bandwidth_mean"), "bandwidth_mean");
  f.bandwidth_max = as_double(member(j, "bandwidth_max"), "bandwidth_max");
  f.fingerprint = as_string(member(j, "fingerprint"), "fingerprint");
  return f;
}

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
            {"features", to_json(t.features)},
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

/// Appends `value` to `out` as nlohmann's dump(1) would at nesting `depth`, except that each
/// element of a "measurements" array takes one line of compact JSON. A zoo record holds
/// about a thousand measurements: one a line keeps a retune's diff readable by variant and
/// the file a fifth smaller (18.9 MB indented, 15.2 MB so, for the H200's 74 records),
/// which matters for a repository that travels to a GPU machine whole.
void append_database_json(std::string& out, const Json& value, int depth, bool one_line_elements = false) {
  const auto indent = [&](int d) { out.append(static_cast<std::size_t>(d), ' '); };
  if (value.is_object() && !value.empty()) {
    out += "{\n";
    std::size_t i = 0;
    for (auto it = value.begin(); it != value.end(); ++it, ++i) {
      indent(depth + 1);
      out += Json(it.key()).dump() + ": ";
      append_database_json(out, it.value(), depth + 1, it.key() == "measurements");
      out += i + 1 < value.size() ? ",\n" : "\n";
    }
    indent(depth);
    out += "}";
  } else if (value.is_array() && !value.empty()) {
    out += "[\n";
    for (std::size_t i = 0; i < value.size(); ++i) {
      indent(depth + 1);
      if (one_line_elements)
        out += value[i].dump();
      else
        append_database_json(out, value[i], depth + 1);
      out += i + 1 < value.size() ? ",\n" : "\n";
    }
    indent(depth);
    out += "]";
  } else {
    out += value.dump();
  }
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
  append_database_json(text, j, 0);
  return text + "\n";
}

TuningDatabase parse_tuning_database(const std::string& text, const std::string& source) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const std::exception& e) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, false, source << " is not valid JSON (truncated or corrupt?): " << e.what());
  }
  COMPOUND_SPARSE_REQUIRE_KIND(IoError,
                               j.is_object() && j.contains("schema_version") && j["schema_version"].is_number_integer(),
                               source << " is not a tuning database (no schema_version)");
  const int version = j["schema_version"].get<int>();
  COMPOUND_SPARSE_REQUIRE_KIND(
      IoError, version == TuningDatabase::schema_version,
      source << " has schema version " << version << ", this library reads version " << TuningDatabase::schema_version);
  TuningDatabase db;
  try {
    const Json& d = as_object(member(j, "device"), "device");
    within([] { return std::string("device"); },
           [&] {
             db.device.backend = as_string(member(d, "backend"), "backend");
             db.device.name = optional_string(d, "name", std::string());
             db.device.compute_major = as_integer<int>(member(d, "compute_major"), "compute_major");
             db.device.compute_minor = as_integer<int>(member(d, "compute_minor"), "compute_minor");
             db.device.multiprocessors = optional_integer(d, "multiprocessors", 1);
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
  } catch (const FieldError& e) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, false,
                                 source << " is not a valid tuning database: field '" << e.field << "'"
                                        << (e.record.empty() ? "" : " (record '" + e.record + "')") << " "
                                        << e.problem);
  } catch (const nlohmann::json::exception& e) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, false, source << " is not a valid tuning database: " << e.what());
  }
  // One record per identity (find_record's: name, entry type, precision and device, an
  // unnamed device matching any). Of two, selection would take the first and a merge
  // keep the last, so neither is right: the file is refused, naming both.
  {
    std::unordered_map<std::string, std::vector<std::size_t>> by_matrix;  // name/entry type/precision
    for (std::size_t i = 0; i < db.matrices.size(); ++i) {
      const auto& m = db.matrices[i];
      auto& seen = by_matrix[m.name + '\n' + m.features.entry_type + '\n' + m.features.precision];
      for (const std::size_t first : seen) {
        const auto& f = db.matrices[first];
        COMPOUND_SPARSE_REQUIRE_KIND(
            IoError, !(f.device.empty() || m.device.empty() || f.device == m.device),
            source << ": the same record twice, matrices[" << first << "] and matrices[" << i << "]: matrix '" << m.name
                   << "', entry type " << m.features.entry_type << ", precision " << m.features.precision
                   << ", device '" << (f.device.empty() ? m.device : f.device) << "' (bests '" << f.best << "' and '"
                   << m.best << "'); a database holds one record per matrix, entry type, precision and device");
      }
      seen.push_back(i);
    }
  }
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

namespace detail {
std::string read_file_text(const std::string& path, const std::string& what) {
  // POSIX calls rather than a stream: a stream opens a directory and reads it as empty
  // text, and says nothing of why an open failed.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, fd >= 0, "cannot open " << what << " " << path << ": " << std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, ::fstat(fd, &st) == 0,
                               "cannot read " << what << " " << path << ": " << std::strerror(errno));
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, !S_ISDIR(st.st_mode), what << " " << path << " is a directory, not a file");
  std::string text;
  if (S_ISREG(st.st_mode)) text.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0 && errno == EINTR) continue;
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, n > 0,
                                 "reading " << what << " " << path << " failed: " << std::strerror(errno));
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}
}  // namespace detail

TuningDatabase read_tuning_database(const std::string& path) {
  return parse_tuning_database(detail::read_file_text(path, "tuning database"), path);
}

std::shared_ptr<const TuningDatabase> read_tuning_database_cached(const std::string& path) {
  // The file's identity: write_tuning_database renames a new file into place, so a
  // rewrite changes the inode as well as the time and size.
  struct Identity {
    dev_t device;
    ino_t inode;
    off_t size;
    long long modified_ns;
    bool operator==(const Identity& o) const {
      return device == o.device && inode == o.inode && size == o.size && modified_ns == o.modified_ns;
    }
  };
  struct Cached {
    Identity identity;
    std::shared_ptr<const TuningDatabase> db;
  };
  static std::mutex mutex;
  static std::map<std::string, Cached> cache;
  struct stat st {};
  const bool known = ::stat(path.c_str(), &st) == 0;
  const Identity identity{st.st_dev, st.st_ino, st.st_size,
                          static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec};
  const std::lock_guard<std::mutex> lock(mutex);
  const auto it = cache.find(path);
  if (known && it != cache.end() && it->second.identity == identity) return it->second.db;
  auto db = std::make_shared<const TuningDatabase>(read_tuning_database(path));  // throws: nothing cached
  if (known) cache[path] = Cached{identity, db};
  return db;
}

namespace detail {
void write_file_atomically(const std::string& text, const std::string& path,
                           const std::function<void(const std::string&)>& before_rename) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  // Same directory as the target: rename is atomic only within a file system.
  // The pid keeps two concurrent tuners from sharing a temporary file, the counter
  // two threads of one process.
  static std::atomic<unsigned> counter{0};
  const std::string temporary = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  try {
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, out, "cannot create " << temporary);
      out << text;
      out.flush();
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, out, "writing " << temporary << " failed (disk full?)");
    }
    if (before_rename) before_rename(temporary);
    std::error_code ec;
    fs::rename(temporary, target, ec);
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, !ec,
                                 "cannot replace " << path << " by " << temporary << ": " << ec.message());
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
}
}  // namespace detail

LoadedDatabase load_database_file(const std::string& path, const std::string& prefix, const std::string& suffix) {
  LoadedDatabase result;
  try {
    result.db = read_tuning_database_cached(path);
    result.note = path;
  } catch (const std::exception& e) {
    result.note = "unusable (" + path + ")";
    result.warnings.push_back(prefix + e.what() + suffix);
  }
  return result;
}

void write_tuning_database(const TuningDatabase& db, const std::string& path) {
  detail::write_file_atomically(to_json_text(db), path);
}

namespace {
/// An exclusive flock on `path`, created if absent, held until destruction. flock
/// locks belong to the open file description, so two threads that each open the
/// file exclude each other as two processes do. A sidecar file rather than the
/// database itself: the database is replaced by rename, and a lock on the old inode
/// would not exclude a writer that opened the new one.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, fd_ >= 0, "cannot open lock file " << path << ": " << std::strerror(errno));
    int rc;
    do rc = ::flock(fd_, LOCK_EX);
    while (rc != 0 && errno == EINTR);  // a signal while waiting: wait again
    if (rc != 0) {
      const int error = errno;
      ::close(fd_);
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, false, "cannot lock " << path << ": " << std::strerror(error));
    }
  }
  ~FileLock() { ::close(fd_); }  // closing the last descriptor releases the lock
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

/// Renames `path` to the first free `<path>.unreadable.<n>` and returns that name. Never
/// over an earlier one: library versions that cannot read each other's cache, used in
/// turn, each set the other's aside, and one fixed name kept only the last. link(2) fails
/// rather than replace, so a name taken meanwhile by anyone is skipped, not overwritten.
std::string set_aside(const std::string& path, const IoError& why) {
  for (int n = 1;; ++n) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, n <= 10000,
                                 why.reason()
                                     << "; and " << path << ".unreadable.1 to .10000 are all taken: remove old ones");
    const std::string aside = path + ".unreadable." + std::to_string(n);
    if (::link(path.c_str(), aside.c_str()) == 0) {
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, ::unlink(path.c_str()) == 0,
                                   why.reason()
                                       << "; linked to " << aside << " but not removed: " << std::strerror(errno));
      return aside;
    }
    if (errno == EEXIST) continue;
    // A file system without hard links: the same, by a rename to a name seen free under the lock.
    std::error_code ec;
    if (std::filesystem::exists(aside, ec)) continue;
    std::filesystem::rename(path, aside, ec);
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, !ec,
                                 why.reason() << "; and it could not be moved to " << aside << ": " << ec.message());
    return aside;
  }
}
}  // namespace

TuningDatabase update_tuning_database(const std::string& path, const std::vector<TunedMatrix>& records,
                                      std::string* set_aside_unreadable) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  // The lock file stays after the update: removing it would let a writer that
  // already opened it lock an unlinked file while a third one locks a new file.
  const FileLock lock(path + ".lock");
  TuningDatabase db = empty_tuning_database();
  if (set_aside_unreadable) set_aside_unreadable->clear();
  if (fs::exists(target)) {
    // Under the lock: the latest file. A file that cannot be opened or read at all (a
    // directory, no permission) is no cache to set aside: only text that does not parse is.
    const std::string text = detail::read_file_text(path, "tuning database");
    try {
      const TuningDatabase file = parse_tuning_database(text, path);
      db.matrices = file.matrices;
      db.launch_bounds = joined_launch_bounds(file.launch_bounds, db.launch_bounds);  // its records' builds too
    } catch (const IoError& e) {
      if (!set_aside_unreadable) throw;
      const std::string aside = set_aside(path, e);
      *set_aside_unreadable = std::string(e.what()) + "; moved to " + aside;
    }
  }
  for (const auto& r : records) merge_record(db, r);
  write_tuning_database(db, path);
  return db;
}

const TunedMatrix* find_record(const TuningDatabase& db, const std::string& name, const std::string& entry_type,
                               const std::string& precision, const std::string& device) {
  for (const auto& r : db.matrices)
    if (r.name == name && r.features.entry_type == entry_type && r.features.precision == precision &&
        (device.empty() || r.device.empty() || r.device == device))
      return &r;
  return nullptr;
}

const TunedMatrix* find_record_preferring(const TuningDatabase& db, const std::string& name,
                                          const std::string& entry_type, const std::string& precision,
                                          const std::string& device) {
  const TunedMatrix* own = find_record(db, name, entry_type, precision, device);
  return own != nullptr ? own : find_record(db, name, entry_type, precision, std::string());
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
