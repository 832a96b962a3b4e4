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

MatrixFeatures features_from_json(const Json& j) {
  MatrixFeatures f;
  f.entry_type = j.at("entry_type").get<std::string>();
  f.precision = j.at("precision").get<std::string>();
  f.rows = j.at("rows").get<long long>();
  f.cols = j.at("cols").get<long long>();
  f.nnz = j.at("nnz").get<long long>();
  f.nnz_per_row_mean = j.at("nnz_per_row_mean").get<double>();
  f.nnz_per_row_max = j.at("nnz_per_row_max").get<double>();
  f.nnz_per_row_stddev = j.at("nnz_per_row_stddev").get<double>();
  f.bandwidth_mean = j.at("bandwidth_mean").get<double>();
  f.bandwidth_max = j.at("bandwidth_max").get<double>();
  f.fingerprint = j.at("fingerprint").get<std::string>();
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
  m.variant = j.at("variant").get<std::string>();
  m.ok = j.at("ok").get<bool>();
  m.k = j.value("k", 1);
  m.memory_bytes = j.value("memory_bytes", std::uint64_t{0});
  if (m.ok) {
    m.seconds = j.at("seconds").get<double>();
    m.min_seconds = j.value("min_seconds", m.seconds);
    m.max_seconds = j.value("max_seconds", m.seconds);
    m.relative_error = j.value("relative_error", 0.0);
    m.retimed = j.value("retimed", false);
    m.dropped = j.value("dropped", false);
  } else {
    m.error = j.value("error", std::string());
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
  t.name = j.at("name").get<std::string>();
  t.source = j.value("source", std::string());
  t.search = j.value("search", std::string());
  t.timing = j.value("timing", std::string("wall"));
  t.features = features_from_json(j.at("features"));
  t.best = j.at("best").get<std::string>();
  t.best_seconds = j.value("best_seconds", 0.0);
  t.tuning_seconds = j.value("tuning_seconds", 0.0);
  t.device = j.value("device", std::string());
  for (const auto& m : j.at("measurements")) t.measurements.push_back(measurement_from_json(m));
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
    const Json& d = j.at("device");
    db.device.backend = d.at("backend").get<std::string>();
    db.device.name = d.value("name", std::string());
    db.device.compute_major = d.at("compute_major").get<int>();
    db.device.compute_minor = d.at("compute_minor").get<int>();
    db.device.multiprocessors = d.value("multiprocessors", 1);
    db.device.memory_bytes = d.value("memory_bytes", std::size_t{0});
    db.device.l2_cache_bytes = d.value("l2_cache_bytes", std::size_t{0});
    const Json& v = j.at("versions");
    db.library_version = v.value("compound_sparse", std::string());
    db.kokkos_version = v.value("kokkos", std::string());
    db.cuda_version = v.value("cuda", std::string());
    db.launch_bounds = j.value("launch_bounds", std::string());
    for (const auto& m : j.at("matrices")) db.matrices.push_back(matrix_from_json(m));
    for (auto& m : db.matrices)
      if (m.device.empty()) m.device = db.device.name;  // written before records named their device
  } catch (const nlohmann::json::exception& e) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, false, source << " is not a valid tuning database: " << e.what());
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
  std::ifstream in(path, std::ios::binary);
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, in, "cannot open " << what << " " << path);
  std::ostringstream text;
  text << in.rdbuf();
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, !in.bad(), "reading " << what << " " << path << " failed");
  return text.str();
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
    fs::rename(temporary, target);
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
    try {
      const TuningDatabase file = read_tuning_database(path);  // under the lock: the latest file
      db.matrices = file.matrices;
      db.launch_bounds = joined_launch_bounds(file.launch_bounds, db.launch_bounds);  // its records' builds too
    } catch (const IoError& e) {
      if (!set_aside_unreadable) throw;
      const std::string aside = path + ".unreadable";
      std::error_code ec;
      fs::rename(target, aside, ec);
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, !ec,
                                   e.what() << "; and it could not be moved to " << aside << ": " << ec.message());
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
