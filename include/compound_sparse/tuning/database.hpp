#pragma once
// The tuning database: per device, which SpMV variant was fastest for which
// matrix. One JSON file per device key (tuning/sm_90.json for a CC 9.0 GPU,
// tuning/host_serial.json for the host Serial backend), written by
// compound-tune and read at run time by TunedSpmv (tuned_spmv.hpp). The JSON
// itself stays in src/tuning/ so that users of this header need no JSON library.
//
// A record is one matrix in one entry type and precision, measured on one device,
// with its features, every measurement the tuner made and the best variant. Records
// are identified by (name, entry_type, precision, device): tuning the same matrix
// again on the same device replaces its record, while devices of one compute
// capability (an H100 and an H200 share sm_90.json) keep their records side by side,
// and selection prefers the records of the device it runs on (selection.hpp).
//
// Records are found by their features and fingerprint (features.hpp); their
// measurements are the measurer's own records (measurement.hpp).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../device_info.hpp"
#include "features.hpp"
#include "measurement.hpp"

namespace compound_sparse {

struct TunedMatrix {
  std::string name;
  std::string source;  ///< file it was read from
  MatrixFeatures features;
  std::string search;  ///< "full" or "reduced"
  /// How the times were taken: "wall" (host clock around fenced batches, launch
  /// overhead included) or "queued" (GPU time of batches queued ahead; timing.hpp).
  /// Records written before the field existed read as "wall".
  std::string timing = "wall";
  std::string best;  ///< fastest ok variant of the SpMV (k = 1), "" if none ran
  double best_seconds = 0;
  /// Wall-clock seconds compound-tune spent on this record (search and re-timing,
  /// conversions included; reading the file not); 0 when unknown (records written
  /// before the field existed, or made by hand).
  double tuning_seconds = 0;
  /// The name of the device it was measured on ("NVIDIA H200"): devices of one compute
  /// capability share a database file, and selection prefers this device's records.
  /// Records written before the field existed take their file's device name when read.
  std::string device;
  std::vector<Measurement> measurements;
};

struct TuningDatabase {
  static constexpr int schema_version = 1;
  DeviceInfo device;
  std::string library_version;
  std::string kokkos_version;
  std::string cuda_version;  ///< "" when built without CUDA
  /// The launch bounds (threads:teams pairs, comma-separated) of the builds that wrote its
  /// records: a write adds the writer's pairs to the file's (joined_launch_bounds).
  std::string launch_bounds;
  std::vector<TunedMatrix> matrices;
};

/// A database as TunedSpmv found it: the database, or null; `note` says which file or
/// why none; `warnings`, what went wrong on the way (never an exception).
struct LoadedDatabase {
  std::shared_ptr<const TuningDatabase> db;
  std::string note;
  std::vector<std::string> warnings;
};

/// The versions this library was built with (library, Kokkos, CUDA or "").
std::string library_version();
std::string kokkos_version();
std::string cuda_version();

/// A database stamped with this process's device and versions, and no matrices.
TuningDatabase empty_tuning_database();

/// "sm_90.json" for CUDA CC 9.0, "host_serial.json" for the Serial backend,
/// "<backend>_<major><minor>.json" for other GPU backends.
std::string database_file_name(const DeviceInfo& device);

/// Directories searched for the database, in order: $COMPOUND_SPARSE_TUNING_DIR
/// alone when set; otherwise the package directories (add_package_tuning_dir), the
/// share/compound_sparse/tuning of the prefix this library was configured for, and the
/// source tree's tuning/ (so that the build tree works without installing).
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

/// Throws compound_sparse::IoError (with the path and the reason) for a path that
/// cannot be opened (the system's reason) or is a directory, text that is not JSON, another
/// schema version, a field missing or of the wrong JSON type ("matrices" an object, a
/// string for a number; the error names the field, e.g. `matrices[3].features.rows`),
/// an ok measurement whose seconds are not a finite positive number (the error names the
/// record and the variant: such a time cannot be ranked, and a database holding one was
/// not written by compound-tune), and two records of one identity (find_record's: name,
/// entry type, precision, device; the error names both positions and their bests), of
/// which selection would use one and a merge keep the other.
/// Variant names are not checked here: selection skips those it does not know.
TuningDatabase read_tuning_database(const std::string& path);

/// read_tuning_database, parsed once per process: later calls for the same path
/// return the same object while the file's size and modification time stay the
/// same (a database is megabytes of JSON, and every TunedSpmv consults it).
/// Thread-safe. Throws like read_tuning_database; a failure is not cached.
std::shared_ptr<const TuningDatabase> read_tuning_database_cached(const std::string& path);

/// read_tuning_database_cached(path) without exceptions: the database and `path` as the
/// note, or no database, the note "unusable (path)" and the warning `prefix` + the reason
/// + `suffix` (TunedSpmv's database and cache, which fall back rather than fail).
LoadedDatabase load_database_file(const std::string& path, const std::string& prefix, const std::string& suffix);

/// Serializes to JSON text: indented by one space a level, each measurement on one line.
std::string to_json_text(const TuningDatabase& db);
/// Parses JSON text; `source` names it in errors. Throws like read_tuning_database.
TuningDatabase parse_tuning_database(const std::string& text, const std::string& source);

/// Writes atomically: the text goes to a temporary file in the same directory,
/// which is then renamed over `path`, so a reader (or an interrupted tuner)
/// sees either the old or the new database, never a partial one. Replaces the
/// whole file: for adding records use update_tuning_database, which does not
/// lose another writer's records.
void write_tuning_database(const TuningDatabase& db, const std::string& path);

/// Adds `records` to the database at `path` (created if absent) without losing
/// records that other processes add at the same time: under an exclusive lock
/// (flock on the sidecar file `<path>.lock`, in the same directory), the file is
/// read again, the records are merged (merge_record) and the result written
/// atomically, then the lock is released. Device and versions become this
/// process's (empty_tuning_database). Returns the database as written. Throws
/// IoError when the lock cannot be taken or the existing file cannot be read
/// (an unreadable database is never overwritten), unless `set_aside_unreadable`
/// is given: then an existing file whose contents do not read is renamed under the lock
/// to the first free `<path>.unreadable.<n>` (n = 1, 2, ...: an earlier one is never
/// replaced), and the update starts from no records; the string receives why (empty
/// when nothing was set aside). A path that cannot be opened or is a directory is not
/// set aside: that still throws. For caches, whose records can be measured again;
/// never for a tuned database.
TuningDatabase update_tuning_database(const std::string& path, const std::vector<TunedMatrix>& records,
                                      std::string* set_aside_unreadable = nullptr);

namespace detail {
/// The whole of `path` as text; IoError "cannot open <what> <path>: <reason>", "<what>
/// <path> is a directory, not a file" or "reading <what> <path> failed: <reason>".
/// read_tuning_database's and read_variant_prior's reading.
std::string read_file_text(const std::string& path, const std::string& what);
/// write_tuning_database's mechanism; `before_rename` (tests) runs between the
/// temporary file being complete and the rename, and may throw to simulate an
/// interruption: the temporary file is removed and `path` left untouched.
void write_file_atomically(const std::string& text, const std::string& path,
                           const std::function<void(const std::string& temporary)>& before_rename = {});
}  // namespace detail

/// The record of matrix `name` in `entry_type` and `precision` measured on `device` (the
/// four identify a record; an unnamed device, here or in a record, matches any), or null
/// when `db` has none.
const TunedMatrix* find_record(const TuningDatabase& db, const std::string& name, const std::string& entry_type,
                               const std::string& precision, const std::string& device);

/// find_record of `device`, else the first record of the matrix from any device: for tools
/// that may read a database measured on another GPU (compound-bench --db).
const TunedMatrix* find_record_preferring(const TuningDatabase& db, const std::string& name,
                                          const std::string& entry_type, const std::string& precision,
                                          const std::string& device);

/// Adds `m`, replacing the record with the same name, entry type, precision and device
/// (find_record with m.device); where that record has the same fingerprint, its
/// measurements at numbers of vectors (k) that `m` has none of are kept in `m`. A record
/// of the same matrix from another device stays beside it.
void merge_record(TuningDatabase& db, TunedMatrix m);
/// Merges every record of `from` into `into`; device and versions become `from`'s (the
/// file's header names its last writer; each record names its own device), the launch
/// bounds both's (joined_launch_bounds).
void merge_database(TuningDatabase& into, const TuningDatabase& from);
/// The pairs of two launch-bounds lists ("256:1,256:2"; ',' or ';' between pairs) once each,
/// ordered by threads, then teams: a database whose records were measured by builds of
/// different bounds names all of them.
std::string joined_launch_bounds(const std::string& a, const std::string& b);

}  // namespace compound_sparse
