#pragma once
// A record's identity in either form of the tuning database (name, entry type, precision
// and device, an unnamed device matching any): the lookup both forms' find_record use and
// the readers' refusal of one identity twice. Private to src/tuning.

#include <string>
#include <unordered_map>
#include <vector>

#include "compound_sparse/error.hpp"

namespace compound_sparse {
namespace record_identity {

/// The first of `records` with this identity, or null.
template <class Record>
const Record* find(const std::vector<Record>& records, const std::string& name, const std::string& entry_type,
                   const std::string& precision, const std::string& device) {
  for (const auto& r : records)
    if (r.name == name && r.features.entry_type == entry_type && r.features.precision == precision &&
        (device.empty() || r.device.empty() || r.device == device))
      return &r;
  return nullptr;
}

/// The record of `device`, else the first of the matrix from any device.
template <class Record>
const Record* find_preferring(const std::vector<Record>& records, const std::string& name,
                              const std::string& entry_type, const std::string& precision, const std::string& device) {
  const Record* own = find(records, name, entry_type, precision, device);
  return own != nullptr ? own : find(records, name, entry_type, precision, std::string());
}

/// Refuses two records of one identity (name, entry type, precision and device, an unnamed
/// device matching any): selection would take the first and a merge keep the last, so
/// neither is right. `list` names the records' array in errors ("records"), `identity`
/// describes a record.
template <class Record, class Identity>
void refuse_repeated_identities(const std::vector<Record>& records, const std::string& source, const char* list,
                                Identity&& identity) {
  std::unordered_map<std::string, std::vector<std::size_t>> by_matrix;  // name/entry type/precision
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& m = records[i];
    auto& seen = by_matrix[m.name + '\n' + m.features.entry_type + '\n' + m.features.precision];
    for (const std::size_t first : seen) {
      const auto& f = records[first];
      COMPOUND_SPARSE_REQUIRE_KIND(
          IoError, !(f.device.empty() || m.device.empty() || f.device == m.device),
          source << ": the same record twice, " << list << "[" << first << "] and " << list << "[" << i
                 << "]: " << identity(m) << ", device '" << (f.device.empty() ? m.device : f.device) << "' (bests '"
                 << f.best << "' and '" << m.best
                 << "'); a database holds one record per matrix, entry type, precision and device");
    }
    seen.push_back(i);
  }
}

}  // namespace record_identity
}  // namespace compound_sparse
