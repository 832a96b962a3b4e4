#pragma once
// The tuning database: per device, which SpMV variant was fastest for which
// matrix. One JSON file per device key (tuning/sm_90.json for a CC 9.0 GPU,
// tuning/host_serial.json for the host Serial backend), written by
// compound-tune and read at run time by TunedSpmv (tuned_spmv.hpp). The JSON
// itself stays in src/tuning/ so that users of this header need no JSON library.
//
// A record is one matrix in one entry type and precision, with its features,
// every measurement the tuner made and the best variant. Records are identified
// by (name, entry_type, precision): tuning the same matrix again replaces them.
//
// The fingerprint is a 64-bit FNV-1a hash of the sparsity pattern (sizes, row
// offsets, column indices) and the entry type and precision, not of the
// values: SpMV speed depends on the pattern, and a solver that re-assembles its
// matrix with new values each step should keep hitting the same record.

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "device_info.hpp"
#include "entry_traits.hpp"
#include "host_csr.hpp"
#include "io/compound_format.hpp"

namespace compound_sparse {

/// What selection compares matrices by (docs/tuning.md lists the distance).
struct MatrixFeatures {
  std::string entry_type;  ///< "complex", "quaternion", "block3", ... (Matrix Market field)
  std::string precision;   ///< "float" or "double"
  long long rows = 0;
  long long cols = 0;
  long long nnz = 0;  ///< compound non-zeros
  double nnz_per_row_mean = 0;
  double nnz_per_row_max = 0;
  double nnz_per_row_stddev = 0;  ///< the spread of row lengths
  double bandwidth_mean = 0;      ///< mean over rows of max |j - i|
  double bandwidth_max = 0;
  std::string fingerprint;  ///< 16 hex digits, see above
};

/// Features of a sparsity pattern; entry_type and precision go into the fingerprint.
MatrixFeatures pattern_features(int num_rows, int num_cols, const std::vector<int>& row_offsets,
                                const std::vector<int>& col_indices, const std::string& entry_type,
                                const std::string& precision);

/// "complex", "quaternion", "block3", ...: the entry's Matrix Market field name.
template <class Entry>
std::string entry_type_name() {
  return io::mm_field<typename entry_traits<Entry>::template rebind<double>>::name();
}
template <class Entry>
std::string precision_name() {
  return std::is_same<scalar_type_t<Entry>, float>::value ? "float" : "double";
}

template <class Entry>
MatrixFeatures matrix_features(const HostCsr<Entry>& a) {
  return pattern_features(a.num_rows, a.num_cols, a.row_offsets, a.col_indices, entry_type_name<Entry>(),
                          precision_name<Entry>());
}

/// One variant run by the tuner on one matrix.
struct TunedMeasurement {
  std::string variant;  ///< VariantKey::name(); kept as text, the reader need not know it
  bool ok = false;
  std::string error;   ///< why not ok
  double seconds = 0;  ///< median per product
  double min_seconds = 0;
  double max_seconds = 0;
  double relative_error = 0;
  std::uint64_t memory_bytes = 0;
  bool retimed = false;  ///< timed again with the full timing (the search's top candidates)
};

struct TunedMatrix {
  std::string name;
  std::string source;  ///< file it was read from
  MatrixFeatures features;
  std::string search;  ///< "full" or "reduced"
  /// How the times were taken: "wall" (host clock around fenced batches, launch
  /// overhead included) or "queued" (GPU time of batches queued ahead; timing.hpp).
  /// Records written before the field existed read as "wall".
  std::string timing = "wall";
  std::string best;  ///< fastest ok variant, "" if none ran
  double best_seconds = 0;
  std::vector<TunedMeasurement> measurements;
};

struct TuningDatabase {
  static constexpr int schema_version = 1;
  DeviceInfo device;
  std::string library_version;
  std::string kokkos_version;
  std::string cuda_version;  ///< "" when built without CUDA
  std::string launch_bounds;
  std::vector<TunedMatrix> matrices;
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
/// alone when set; otherwise the installed share/compound_sparse/tuning and the
/// source tree's tuning/ (so that the build tree works without installing).
std::vector<std::string> default_tuning_dirs();

/// Throws compound_sparse::IoError (with the path and the reason) for a file that
/// cannot be read, is not JSON, has another schema version or a malformed record.
/// Variant names are not checked here: selection skips those it does not know.
TuningDatabase read_tuning_database(const std::string& path);

/// Serializes to JSON text (2-space indented).
std::string to_json_text(const TuningDatabase& db);
/// Parses JSON text; `source` names it in errors. Throws like read_tuning_database.
TuningDatabase parse_tuning_database(const std::string& text, const std::string& source);

/// Writes atomically: the text goes to a temporary file in the same directory,
/// which is then renamed over `path`, so a reader (or an interrupted tuner)
/// sees either the old or the new database, never a partial one.
void write_tuning_database(const TuningDatabase& db, const std::string& path);

namespace detail {
/// write_tuning_database's mechanism; `before_rename` (tests) runs between the
/// temporary file being complete and the rename, and may throw to simulate an
/// interruption: the temporary file is removed and `path` left untouched.
void write_file_atomically(const std::string& text, const std::string& path,
                           const std::function<void(const std::string& temporary)>& before_rename = {});
}  // namespace detail

/// Adds `m`, replacing a record with the same name, entry type and precision.
void merge_record(TuningDatabase& db, TunedMatrix m);
/// Merges every record of `from` into `into`; device and versions become `from`'s.
void merge_database(TuningDatabase& into, const TuningDatabase& from);

}  // namespace compound_sparse
