#pragma once
// The tuning database as the library reads it at run time: per device, which SpMV (and
// SpMM) variants ran how fast on which matrix. One JSON file per device key
// (tuning/sm_90.json for a CC 9.0 GPU, tuning/host_serial.json for the host Serial
// backend), made from the tuner's full output by `compound-tune --ship` (database.hpp
// holds that output: every measurement with its spread, errors and memory) and read by
// TunedSpmv (tuned_spmv.hpp). The quick-tuning cache (tuning_cache.hpp) is a file of the
// same form, written at run time.
//
// It holds what selection (selection.hpp), the prior's learning (prior.hpp), quick tuning
// and the reports of compound-tune read, nothing else: each record's identity (name,
// device, entry type and precision, the last two in its features), its features and
// fingerprint, the tuner's best SpMV variant, and for each number of vectors k the
// variants that ran correctly with their time per product. Records are identified by
// (name, entry_type, precision, device); devices of one compute capability (an H100 and
// an H200 share sm_90.json) keep their records side by side, and selection prefers the
// records of the device it runs on.
//
// Times are whole picoseconds in the file and here: a record's times keep their order and
// their ties exactly (rounding never merges two different times of one record and number
// of vectors, nor reorders them), so that selection, which compares a record's times with
// each other, decides as from the tuner's own measurements. The JSON itself stays in
// src/tuning/ so that users of this header need no JSON library.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../device_info.hpp"
#include "features.hpp"

namespace compound_sparse {

/// The times of one record at one number of vectors: every variant that ran correctly.
struct RecordTimes {
  /// Vectors per product: 1 for the SpMV, k > 1 for the SpMM with k vectors (the variants'
  /// vector layout is then the multivector layout); a vector bucket (vector_bucket.hpp).
  int k = 1;
  /// The variants (VariantKey::name(), lanes included), sorted by name and shared by the
  /// records timed on the same candidates. Kept as text: a database may name variants that
  /// this build does not know (another version's), and selection skips those.
  std::shared_ptr<const std::vector<std::string>> variants;
  /// Time per product of each variant, all k vectors, in whole picoseconds (> 0).
  std::vector<std::int64_t> picoseconds;

  std::size_t size() const { return picoseconds.size(); }
  const std::string& variant(std::size_t i) const { return (*variants)[i]; }
  double seconds(std::size_t i) const { return static_cast<double>(picoseconds[i]) / 1e12; }
};

/// `k` and (variant, seconds) pairs as RecordTimes: sorted by variant, each time rounded to
/// whole picoseconds (at least 1) such that different times stay different and in the same
/// order. InvalidInput for a time that is not finite and positive, beyond 100 days, or a
/// variant named twice.
RecordTimes record_times(int k, std::vector<std::pair<std::string, double>> seconds);

struct SelectionRecord {
  std::string name;
  /// The device it was measured on ("NVIDIA H200"): devices of one compute capability share
  /// a file, and selection prefers this device's records.
  std::string device;
  MatrixFeatures features;         ///< with the entry type, the precision and the fingerprint
  std::string best;                ///< the tuner's best SpMV variant (its careful timing's fastest), "" if none
  std::vector<RecordTimes> times;  ///< by increasing k, each k once

  /// The times at k vectors, or null when the record has none.
  const RecordTimes* at(int k) const;
  /// The time of `variant` at k vectors in seconds, or 0 when it has none.
  double seconds(const std::string& variant, int k) const;
};

struct SelectionDatabase {
  /// Version 1 is the tuner's full output (database.hpp), which this form replaced at run
  /// time; a reader of one refuses the other, naming the step between them.
  static constexpr int schema_version = 2;
  /// The device that wrote it (its header): backend, name, compute capability and
  /// multiprocessors are kept; each record names its own device.
  DeviceInfo device;
  std::vector<SelectionRecord> records;
};

/// A database as TunedSpmv found it: the database, or null; `note` says which file or
/// why none; `warnings`, what went wrong on the way (never an exception).
struct LoadedDatabase {
  std::shared_ptr<const SelectionDatabase> db;
  std::string note;
  std::vector<std::string> warnings;
};

/// "sm_90.json" for CUDA CC 9.0, "host_serial.json" for the Serial backend,
/// "<backend>_<major><minor>.json" for other GPU backends.
std::string database_file_name(const DeviceInfo& device);

/// Directories searched for the database and the prior, in order: $COMPOUND_SPARSE_TUNING_DIR
/// alone when set; otherwise the package directories (add_package_tuning_dir), then the
/// share/compound_sparse/tuning of the prefix this library was configured for. The library
/// names no source or build tree: the project's own targets in its build tree register a
/// copy of the shipped files there as a package directory, as an installed package does.
std::vector<std::string> default_tuning_dirs();

/// Adds `dir` to the package directories default_tuning_dirs() searches first (once;
/// thread-safe); returns true. An application rarely calls it: built against the
/// installed package, it gets COMPOUND_SPARSE_PACKAGE_TUNING_DIR from the package's
/// CMake config, the share/compound_sparse/tuning beside wherever find_package found
/// the package (a prefix that was moved after installing included), and this header
/// registers that directory at start-up. The configure-time prefix alone would miss
/// an install to another prefix (cmake --install build --prefix P).
bool add_package_tuning_dir(const std::string& dir);

#ifdef COMPOUND_SPARSE_PACKAGE_TUNING_DIR
namespace impl {
inline const bool package_tuning_dir_registered = add_package_tuning_dir(COMPOUND_SPARSE_PACKAGE_TUNING_DIR);
}  // namespace impl
#endif

/// Parses the JSON text of a database; `source` names it in errors. Throws
/// compound_sparse::IoError for text that is not JSON, another schema version (the tuner's
/// full output, version 1, with the command that ships it), a field missing or of the wrong
/// JSON type (the error names the field, e.g. `records[3].features.rows`, and the record),
/// an index into the variant table or the variant lists out of range, times that do not
/// match their list, a time that is not a positive integer, a k that is not a vector bucket,
/// one k twice in a record, and two records of one identity (find_record's: name, entry
/// type, precision, device; the error names both positions and their bests). Variant names
/// are not checked: selection skips those it does not know.
SelectionDatabase parse_selection_database(const std::string& text, const std::string& source);

/// Reads and parses `path`; throws IoError as parse_selection_database, and for a path that
/// cannot be opened (the system's reason) or is a directory.
SelectionDatabase read_selection_database(const std::string& path);

/// read_selection_database, parsed once per process: later calls for the same path return
/// the same object while the file's identity, size and modification time stay the same
/// (every TunedSpmv consults the database). Thread-safe. Throws like
/// read_selection_database; a failure is not cached.
std::shared_ptr<const SelectionDatabase> read_selection_database_cached(const std::string& path);

/// read_selection_database_cached(path) without exceptions: the database and `path` as the
/// note, or no database, the note "unusable (path)" and the warning `prefix` + the reason
/// + `suffix` (TunedSpmv's database and cache, which fall back rather than fail).
LoadedDatabase load_database_file(const std::string& path, const std::string& prefix, const std::string& suffix);

/// The JSON text: a table of variant names, the lists of them that records were timed on,
/// and the records, each number of vectors' times on one line.
std::string to_json_text(const SelectionDatabase& db);

/// Writes atomically (detail::write_file_atomically): a reader sees the old or the new file.
void write_selection_database(const SelectionDatabase& db, const std::string& path);

/// Adds `records` to the database at `path` (created if absent, with this process's device
/// as its header) without losing records that other processes add at the same time: under
/// the file's lock (detail::with_file_lock) the file is read again, each record replaces the
/// one of its identity or is appended, and the result is written atomically. Returns the
/// database as written. Throws IoError when the lock cannot be taken or the existing file
/// cannot be read, unless `set_aside_unreadable` is given: then an existing file whose
/// contents do not read is renamed under the lock to the first free `<path>.unreadable.<n>`,
/// and the update starts from no records; the string receives why (empty when nothing was
/// set aside). A path that cannot be opened or is a directory still throws. The
/// quick-tuning cache's write (tuning_cache.hpp): run-time code.
SelectionDatabase update_selection_database(const std::string& path, const std::vector<SelectionRecord>& records,
                                            std::string* set_aside_unreadable = nullptr);

/// The record of matrix `name` in `entry_type` and `precision` measured on `device` (the
/// four identify a record; an unnamed device, here or in a record, matches any), or null
/// when `db` has none.
const SelectionRecord* find_record(const SelectionDatabase& db, const std::string& name, const std::string& entry_type,
                                   const std::string& precision, const std::string& device);

/// find_record of `device`, else the first record of the matrix from any device: for tools
/// that may read a database measured on another GPU.
const SelectionRecord* find_record_preferring(const SelectionDatabase& db, const std::string& name,
                                              const std::string& entry_type, const std::string& precision,
                                              const std::string& device);

}  // namespace compound_sparse
