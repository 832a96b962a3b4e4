// The tuning database as the library reads it at run time
// (include/compound_sparse/tuning/selection_database.hpp): where it is found, its JSON
// (schema version 2, docs/tuning.md), the cached read, and the locked update that the
// quick-tuning cache uses. Bump the schema version when a reader of the old version would
// misread the new one.
#include "compound_sparse/tuning/selection_database.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <unordered_map>

#include "compound_sparse/error.hpp"
#include "compound_sparse/tuning/impl/database_files.hpp"
#include "compound_sparse/tuning/vector_bucket.hpp"
#include "json_fields.hpp"
#include "record_identity.hpp"

namespace compound_sparse {

using namespace json_fields;

namespace {
/// The longest time a record holds: 100 days in picoseconds stays far inside 64 bits.
constexpr double most_seconds = 100.0 * 86400.0;
}  // namespace

RecordTimes record_times(int k, std::vector<std::pair<std::string, double>> seconds) {
  for (const auto& [variant, s] : seconds)
    COMPOUND_SPARSE_REQUIRE(std::isfinite(s) && s > 0 && s <= most_seconds,
                            "variant '" << variant << "' at k = " << k << " has time " << s
                                        << " s, not a finite positive time of at most 100 days");
  // Rounded in order of time: a time above the one before it stays above it, an equal one
  // stays equal, so a record's ranking (and its ties) is exactly the measured one.
  std::vector<std::size_t> by_time(seconds.size());
  for (std::size_t i = 0; i < by_time.size(); ++i) by_time[i] = i;
  std::stable_sort(by_time.begin(), by_time.end(),
                   [&](std::size_t a, std::size_t b) { return seconds[a].second < seconds[b].second; });
  std::vector<std::int64_t> rounded(seconds.size());
  for (std::size_t n = 0; n < by_time.size(); ++n) {
    const std::size_t i = by_time[n];
    std::int64_t ps = std::max<std::int64_t>(1, std::llround(seconds[i].second * 1e12));
    if (n > 0) {
      const std::size_t previous = by_time[n - 1];
      if (seconds[i].second == seconds[previous].second)
        ps = rounded[previous];
      else
        ps = std::max(ps, rounded[previous] + 1);
    }
    rounded[i] = ps;
  }
  std::vector<std::size_t> by_name(seconds.size());
  for (std::size_t i = 0; i < by_name.size(); ++i) by_name[i] = i;
  std::sort(by_name.begin(), by_name.end(),
            [&](std::size_t a, std::size_t b) { return seconds[a].first < seconds[b].first; });
  auto names = std::make_shared<std::vector<std::string>>();
  RecordTimes t;
  t.k = k;
  for (const std::size_t i : by_name) {
    COMPOUND_SPARSE_REQUIRE(names->empty() || names->back() != seconds[i].first,
                            "variant '" << seconds[i].first << "' timed twice at k = " << k);
    names->push_back(std::move(seconds[i].first));
    t.picoseconds.push_back(rounded[i]);
  }
  t.variants = std::move(names);
  return t;
}

const RecordTimes* SelectionRecord::at(int k) const {
  for (const auto& t : times)
    if (t.k == k) return &t;
  return nullptr;
}

double SelectionRecord::seconds(const std::string& variant, int k) const {
  const RecordTimes* t = at(k);
  if (t == nullptr) return 0;
  const auto& names = *t->variants;
  const auto it = std::lower_bound(names.begin(), names.end(), variant);
  return it != names.end() && *it == variant ? t->seconds(static_cast<std::size_t>(it - names.begin())) : 0.0;
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
  const std::string installed = COMPOUND_SPARSE_INSTALLED_TUNING_DIR;
  if (std::find(dirs.begin(), dirs.end(), installed) == dirs.end()) dirs.push_back(installed);
  return dirs;
}

// ---- JSON ----------------------------------------------------------------------

namespace {

/// Written with its keys in the order given (the reader takes any order): a record reads
/// name, device, best, features, then its times, each k before its long list of times.
using OrderedJson = nlohmann::ordered_json;

/// The shipped form writes a record's times at one k and a variant list on one line each
/// (append_json_lines): the file then diffs by record and by k, in about a tenth of the lines.
bool one_line_times(const std::string& key) {
  return key == "times" || key == "variant_lists";
}

std::string identity_text(const SelectionRecord& r) {
  return "matrix '" + r.name + "', entry type " + r.features.entry_type + ", precision " + r.features.precision;
}

}  // namespace

std::string to_json_text(const SelectionDatabase& db) {
  // The variant table, sorted by name, and each distinct list of variants once: the records
  // of one search share their candidates, so 148 records at 5 numbers of vectors hold 26
  // lists (tuning/sm_90.json).
  std::vector<std::string> variants;
  for (const auto& r : db.records)
    for (const auto& t : r.times) variants.insert(variants.end(), t.variants->begin(), t.variants->end());
  std::sort(variants.begin(), variants.end());
  variants.erase(std::unique(variants.begin(), variants.end()), variants.end());
  const auto index_of = [&variants](const std::string& name) {
    return static_cast<std::size_t>(std::lower_bound(variants.begin(), variants.end(), name) - variants.begin());
  };
  std::map<const std::vector<std::string>*, std::size_t> list_of;  // a shared list is looked up once
  std::map<std::vector<std::size_t>, std::size_t> lists;
  OrderedJson variant_lists = OrderedJson::array();
  OrderedJson records = OrderedJson::array();
  for (const auto& r : db.records) {
    OrderedJson times = OrderedJson::array();
    for (const auto& t : r.times) {
      auto found = list_of.find(t.variants.get());
      if (found == list_of.end()) {
        std::vector<std::size_t> indices;
        for (const auto& name : *t.variants) indices.push_back(index_of(name));
        auto [at, added] = lists.emplace(indices, lists.size());
        if (added) variant_lists.push_back(indices);
        found = list_of.emplace(t.variants.get(), at->second).first;
      }
      times.push_back({{"k", t.k}, {"variants", found->second}, {"ps", t.picoseconds}});
    }
    OrderedJson record = {{"name", r.name}, {"device", r.device}};
    if (!r.best.empty()) record["best"] = r.best;
    record["features"] = features_to_json<OrderedJson>(r.features);
    record["times"] = times;
    records.push_back(record);
  }
  const OrderedJson j = {{"schema_version", SelectionDatabase::schema_version},
                         {"generator", "compound_sparse"},
                         {"device",
                          {{"backend", db.device.backend},
                           {"name", db.device.name},
                           {"compute_major", db.device.compute_major},
                           {"compute_minor", db.device.compute_minor},
                           {"multiprocessors", db.device.multiprocessors}}},
                         {"variants", variants},
                         {"variant_lists", variant_lists},
                         {"records", records}};
  std::string text;
  text.reserve(1 << 20);
  append_json_lines(text, j, 0, one_line_times);
  return text + "\n";
}

SelectionDatabase parse_selection_database(const std::string& text, const std::string& source) {
  int version = 0;
  const Json j = parse_database_text(text, source, version);
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, version != 1,
                               source << " is the tuner's full output (schema version 1): the library reads the "
                                         "shipped form (schema version "
                                      << SelectionDatabase::schema_version << "), which `compound-tune --ship "
                                      << source << " --out FILE` makes of it");
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, version == SelectionDatabase::schema_version,
                               source << " has schema version " << version << ", this library reads version "
                                      << SelectionDatabase::schema_version);
  SelectionDatabase db;
  reading_database(source, [&] {
    db.device = read_device_header(j);
    const Json& variant_table = as_array(member(j, "variants"), "variants");
    std::vector<std::string> variants;
    variants.reserve(variant_table.size());
    for (std::size_t i = 0; i < variant_table.size(); ++i)
      variants.push_back(within([i] { return "variants[" + std::to_string(i) + "]"; },
                                [&] { return as_string(variant_table[i], ""); }));
    // Each list as names, sorted (a list's times follow its order), shared by its records.
    const Json& list_table = as_array(member(j, "variant_lists"), "variant_lists");
    std::vector<std::shared_ptr<const std::vector<std::string>>> lists;
    lists.reserve(list_table.size());
    for (std::size_t l = 0; l < list_table.size(); ++l) {
      const std::string field = "variant_lists[" + std::to_string(l) + "]";
      const Json& list = as_array(list_table[l], field.c_str());
      auto names = std::make_shared<std::vector<std::string>>();
      names->reserve(list.size());
      for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string item = field + "[" + std::to_string(i) + "]";
        const auto v = as_integer<std::size_t>(list[i], item.c_str());
        if (v >= variants.size())
          field_error(item.c_str(),
                      "is " + std::to_string(v) + ", beyond the " + std::to_string(variants.size()) + " variants");
        if (!names->empty() && !(names->back() < variants[v]))
          field_error(item.c_str(), "names '" + variants[v] + "' out of order or twice: a list is sorted by name");
        names->push_back(variants[v]);
      }
      lists.push_back(std::move(names));
    }
    const Json& records = as_array(member(j, "records"), "records");
    db.records.reserve(records.size());
    for (std::size_t r = 0; r < records.size(); ++r) {
      SelectionRecord record;
      try {
        within([r] { return "records[" + std::to_string(r) + "]"; },
               [&] {
                 const Json& o = as_object(records[r], "");
                 record.name = as_string(member(o, "name"), "name");
                 record.device = optional_string(o, "device", std::string());
                 record.features =
                     within([] { return std::string("features"); },
                            [&] { return features_from_json(as_object(member(o, "features"), "features")); });
                 record.best = optional_string(o, "best", std::string());
                 const Json& times = as_array(member(o, "times"), "times");
                 for (std::size_t n = 0; n < times.size(); ++n)
                   record.times.push_back(
                       within([n] { return "times[" + std::to_string(n) + "]"; },
                              [&] {
                                const Json& t = as_object(times[n], "");
                                RecordTimes at;
                                at.k = as_integer<int>(member(t, "k"), "k");
                                if (!is_vector_bucket(at.k))
                                  field_error("k", "is " + std::to_string(at.k) +
                                                       " vectors, not one of the buckets 1, 2, 4, "
                                                       "8, 16");
                                const auto list = as_integer<std::size_t>(member(t, "variants"), "variants");
                                if (list >= lists.size())
                                  field_error("variants", "is " + std::to_string(list) + ", beyond the " +
                                                              std::to_string(lists.size()) + " variant lists");
                                at.variants = lists[list];
                                const Json& ps = as_array(member(t, "ps"), "ps");
                                if (ps.size() != at.variants->size())
                                  field_error("ps", "holds " + std::to_string(ps.size()) + " times for the " +
                                                        std::to_string(at.variants->size()) + " variants of its list");
                                at.picoseconds.reserve(ps.size());
                                for (const Json& p : ps) {
                                  // Selection divides by a record's fastest time.
                                  const auto value = as_integer<std::int64_t>(p, "ps");
                                  if (value <= 0)
                                    field_error("ps", "holds " + std::to_string(value) + ", not a positive time");
                                  at.picoseconds.push_back(value);
                                }
                                return at;
                              }));
               });
      } catch (FieldError& e) {
        e.record = record.name;
        throw;
      }
      if (record.device.empty()) record.device = db.device.name;
      std::sort(record.times.begin(), record.times.end(),
                [](const RecordTimes& a, const RecordTimes& b) { return a.k < b.k; });
      for (std::size_t n = 1; n < record.times.size(); ++n)
        COMPOUND_SPARSE_REQUIRE_KIND(IoError, record.times[n].k != record.times[n - 1].k,
                                     source << ": records[" << r << "] (" << identity_text(record)
                                            << ") has times at k = " << record.times[n].k << " twice");
      db.records.push_back(std::move(record));
    }
  });
  // One record per identity (find_record's): of two, selection would take the first.
  record_identity::refuse_repeated_identities(db.records, source, "records", identity_text);
  return db;
}

SelectionDatabase read_selection_database(const std::string& path) {
  return parse_selection_database(detail::read_file_text(path, "tuning database"), path);
}

std::shared_ptr<const SelectionDatabase> read_selection_database_cached(const std::string& path) {
  // The file's identity: write_selection_database renames a new file into place, so a
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
    std::shared_ptr<const SelectionDatabase> db;
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
  auto db = std::make_shared<const SelectionDatabase>(read_selection_database(path));  // throws: nothing cached
  if (known) cache[path] = Cached{identity, db};
  return db;
}

LoadedDatabase load_database_file(const std::string& path, const std::string& prefix, const std::string& suffix) {
  LoadedDatabase result;
  try {
    result.db = read_selection_database_cached(path);
    result.note = path;
  } catch (const std::exception& e) {
    result.note = "unusable (" + path + ")";
    result.warnings.push_back(prefix + e.what() + suffix);
  }
  return result;
}

void write_selection_database(const SelectionDatabase& db, const std::string& path) {
  detail::write_file_atomically(to_json_text(db), path);
}

SelectionDatabase update_selection_database(const std::string& path, const std::vector<SelectionRecord>& records,
                                            std::string* set_aside_unreadable) {
  namespace fs = std::filesystem;
  SelectionDatabase db;
  db.device = default_device_info();
  if (set_aside_unreadable) set_aside_unreadable->clear();
  detail::with_file_lock(path, [&] {
    if (fs::exists(path)) {
      // Under the lock: the latest file. A file that cannot be opened or read at all (a
      // directory, no permission) is no cache to set aside: only text that does not parse is.
      const std::string text = detail::read_file_text(path, "tuning database");
      try {
        db.records = parse_selection_database(text, path).records;
      } catch (const IoError& e) {
        if (!set_aside_unreadable) throw;
        const std::string aside = detail::set_aside_unreadable(path, e.reason());
        *set_aside_unreadable = std::string(e.what()) + "; moved to " + aside;
      }
    }
    for (const auto& r : records) {
      const SelectionRecord* existing = find_record(db, r.name, r.features.entry_type, r.features.precision, r.device);
      if (existing != nullptr)
        db.records[static_cast<std::size_t>(existing - db.records.data())] = r;
      else
        db.records.push_back(r);
    }
    write_selection_database(db, path);
  });
  return db;
}

const SelectionRecord* find_record(const SelectionDatabase& db, const std::string& name, const std::string& entry_type,
                                   const std::string& precision, const std::string& device) {
  return record_identity::find(db.records, name, entry_type, precision, device);
}

const SelectionRecord* find_record_preferring(const SelectionDatabase& db, const std::string& name,
                                              const std::string& entry_type, const std::string& precision,
                                              const std::string& device) {
  return record_identity::find_preferring(db.records, name, entry_type, precision, device);
}

}  // namespace compound_sparse
