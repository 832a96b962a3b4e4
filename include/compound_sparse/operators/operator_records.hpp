#pragma once
// The timed choices of kernel shape (operator_choice.hpp) kept across processes: one file per
// device key, operators_<key>.json (operators_sm_90.json, ...), in the quick-tuning cache's
// directory (tuning_cache.hpp). A record holds the operator's features (shape, density, entry
// type and precision), the panel width it was timed on, and every shape's time, so the next
// process with the same operator and width times nothing. Like the quick-tuning cache it is a
// convenience, never a reason to fail: problems come back as warnings. Writes take the
// database files' lock and replace the file atomically, so processes that choose at once keep
// each other's records. Defined in src/operators/operator_records.cpp.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../device_info.hpp"

namespace compound_sparse {

struct OperatorRecord {
  std::string operator_hash;  ///< ConstantOperator::hash, 16 hex digits
  std::string entry_type;     ///< "real", "complex", "quaternion", "block3", ...
  std::string precision;      ///< "float" or "double"
  int rows = 0;
  int cols = 0;
  double density = 0;                                   ///< entries with a non-zero component
  std::int64_t vectors = 0;                             ///< the panel width timed
  std::string backend;                                  ///< Kokkos execution space, e.g. "Cuda"
  std::string device;                                   ///< e.g. "NVIDIA H200"
  std::string shape;                                    ///< the fastest (to_string(OperatorShape))
  std::vector<std::pair<std::string, double>> seconds;  ///< each shape timed, median per application
};

/// `dir`/operators_<device key>.json for `device`, or "" when dir is "".
std::string operator_records_path(const std::string& dir, const DeviceInfo& device);

/// The record of this operator, width, backend and device in the file at `path`, if any. A file
/// that is absent gives none; one that does not read gives none and a warning in `warnings`.
bool find_operator_record(const std::string& path, const std::string& operator_hash, std::int64_t vectors,
                          const std::string& backend, const std::string& device, OperatorRecord& found,
                          std::vector<std::string>& warnings);

/// Adds `record` to the file at `path` (created with its directories; a record of the same
/// operator, width, backend and device is replaced; an unreadable file is moved aside). Returns
/// the warnings.
std::vector<std::string> store_operator_record(const std::string& path, const OperatorRecord& record);

}  // namespace compound_sparse
