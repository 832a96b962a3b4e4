#pragma once
// The tuner's full output: per device, every measurement compound-tune made of every
// matrix (times with their spread, relative errors, memory, failures and why), the best
// variant and how the record was tuned. Schema version 1, one JSON file per device key,
// written and merged by compound-tune (--resume, --extend, --merge read it back) and read by
// compound-bench --db. The library does not read it at run time: `compound-tune --ship`
// makes the shipped database (selection_database.hpp, schema version 2) of it, which holds
// only what selection reads; ship_database below is that step.
//
// A record is one matrix in one entry type and precision, measured on one device,
// with its features, every measurement the tuner made and the best variant. Records
// are identified by (name, entry_type, precision, device): tuning the same matrix
// again on the same device replaces its record, while devices of one compute
// capability (an H100 and an H200 share sm_90.json) keep their records side by side.
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
#include "impl/database_files.hpp"
#include "measurement.hpp"
#include "selection_database.hpp"

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

/// The versions this library was built with (library, Kokkos, CUDA or "").
std::string library_version();
std::string kokkos_version();
std::string cuda_version();

/// A database stamped with this process's device and versions, and no matrices.
TuningDatabase empty_tuning_database();

/// Throws compound_sparse::IoError (with the path and the reason) for a path that
/// cannot be opened (the system's reason) or is a directory, text that is not JSON, another
/// schema version (a shipped database, version 2, with the reason), a field missing or of the wrong JSON type
/// ("matrices" an object, a string for a number; the error names the field, e.g. `matrices[3].features.rows`), an ok
/// measurement whose seconds are not a finite positive number (the error names the record and the variant: such a time
/// cannot be ranked, and a database holding one was not written by compound-tune), and two records of one identity
/// (find_record's: name, entry type, precision, device; the error names both positions and their bests), of which
/// selection would use one and a merge keep the other. Variant names are not checked here: selection skips those it
/// does not know.
TuningDatabase read_tuning_database(const std::string& path);

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
/// (detail::with_file_lock: flock on the sidecar file `<path>.lock`), the file is
/// read again, the records are merged (merge_record) and the result written
/// atomically, then the lock is released. Device and versions become this
/// process's (empty_tuning_database). Returns the database as written. Throws
/// IoError when the lock cannot be taken or the existing file cannot be read
/// (an unreadable database is never overwritten), unless `set_aside_unreadable`
/// is given: then an existing file whose contents do not read is renamed under the lock
/// to the first free `<path>.unreadable.<n>` (n = 1, 2, ...: an earlier one is never
/// replaced), and the update starts from no records; the string receives why (empty
/// when nothing was set aside). A path that cannot be opened or is a directory is not
/// set aside: that still throws. For files whose records can be measured again; never for
/// a tuned database.
TuningDatabase update_tuning_database(const std::string& path, const std::vector<TunedMatrix>& records,
                                      std::string* set_aside_unreadable = nullptr);

/// The shipped form of a record (selection_database.hpp): its identity, features and best,
/// and at each k the variants that ran correctly with a positive time (Measurement::timed_at),
/// dropped ones included, their times in whole picoseconds (record_times).
SelectionRecord ship_record(const TunedMatrix& m);
/// The shipped form of a database: its device and every record (ship_record), in order, a
/// record without a device taking the database's (as read_tuning_database does).
SelectionDatabase ship_database(const TuningDatabase& db);
/// A database in either form as selection reads it: the shipped form (schema version 2) as
/// it is, the tuner's full output (version 1) shipped in memory. For compound-tune's reports,
/// which take either. Throws IoError as the reader of the file's form.
SelectionDatabase read_for_selection(const std::string& path);

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
