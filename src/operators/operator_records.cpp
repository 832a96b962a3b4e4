// The constant operators' timed choices across processes
// (include/compound_sparse/operators/operator_records.hpp).
#include "compound_sparse/operators/operator_records.hpp"

#include <exception>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "compound_sparse/error.hpp"
#include "compound_sparse/tuning/impl/database_files.hpp"
#include "compound_sparse/tuning/selection_database.hpp"  // database_file_name

namespace compound_sparse {

namespace {

using Json = nlohmann::json;
constexpr const char* schema = "compound_sparse operator choices";
constexpr int version = 1;

Json to_json(const OperatorRecord& r) {
  Json seconds = Json::object();
  for (const auto& [shape, s] : r.seconds) seconds[shape] = s;
  return {{"operator", r.operator_hash},
          {"entry_type", r.entry_type},
          {"precision", r.precision},
          {"rows", r.rows},
          {"cols", r.cols},
          {"density", r.density},
          {"vectors", r.vectors},
          {"backend", r.backend},
          {"device", r.device},
          {"shape", r.shape},
          {"seconds", seconds}};
}

OperatorRecord record_from_json(const Json& j) {
  OperatorRecord r;
  r.operator_hash = j.at("operator").get<std::string>();
  r.entry_type = j.at("entry_type").get<std::string>();
  r.precision = j.at("precision").get<std::string>();
  r.rows = j.at("rows").get<int>();
  r.cols = j.at("cols").get<int>();
  r.density = j.at("density").get<double>();
  r.vectors = j.at("vectors").get<std::int64_t>();
  r.backend = j.at("backend").get<std::string>();
  r.device = j.at("device").get<std::string>();
  r.shape = j.at("shape").get<std::string>();
  for (const auto& [shape, s] : j.at("seconds").items()) r.seconds.emplace_back(shape, s.get<double>());
  return r;
}

/// The records of the file at `path`; IoError naming the file and the reason when it does not
/// read as such a file.
std::vector<OperatorRecord> read_records(const std::string& path) {
  const std::string text = detail::read_file_text(path, "operator choices");
  std::vector<OperatorRecord> records;
  try {
    const Json j = Json::parse(text);
    COMPOUND_SPARSE_REQUIRE_KIND(
        IoError, j.value("schema", "") == schema && j.value("version", 0) == version,
        path << " is not a file of operator choices (schema '" << schema << "', version " << version << ")");
    for (const auto& r : j.at("records")) records.push_back(record_from_json(r));
  } catch (const Json::exception& e) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, false, path << " does not read as operator choices: " << e.what());
  }
  return records;
}

bool same_identity(const OperatorRecord& r, const std::string& hash, std::int64_t vectors, const std::string& backend,
                   const std::string& device) {
  return r.operator_hash == hash && r.vectors == vectors && r.backend == backend && r.device == device;
}

}  // namespace

std::string operator_records_path(const std::string& dir, const DeviceInfo& device) {
  if (dir.empty()) return "";
  return (std::filesystem::path(dir) / ("operators_" + database_file_name(device))).string();
}

bool find_operator_record(const std::string& path, const std::string& operator_hash, std::int64_t vectors,
                          const std::string& backend, const std::string& device, OperatorRecord& found,
                          std::vector<std::string>& warnings) {
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec)) return false;
  try {
    for (const auto& r : read_records(path))
      if (same_identity(r, operator_hash, vectors, backend, device)) {
        found = r;
        return true;
      }
  } catch (const std::exception& e) {
    warnings.push_back(std::string("operator choices not used: ") + e.what());
  }
  return false;
}

std::vector<std::string> store_operator_record(const std::string& path, const OperatorRecord& record) {
  std::vector<std::string> warnings;
  if (path.empty()) return warnings;
  try {
    detail::with_file_lock(path, [&] {
      std::vector<OperatorRecord> records;
      std::error_code ec;
      if (std::filesystem::exists(path, ec)) {
        try {
          records = read_records(path);
        } catch (const IoError& e) {
          warnings.push_back("operator choices were unreadable: " + std::string(e.what()) + "; moved to " +
                             detail::set_aside_unreadable(path, e.reason()));
          records.clear();
        }
      }
      bool replaced = false;
      for (auto& r : records)
        if (same_identity(r, record.operator_hash, record.vectors, record.backend, record.device)) {
          r = record;
          replaced = true;
        }
      if (!replaced) records.push_back(record);
      Json j = {{"schema", schema}, {"version", version}, {"records", Json::array()}};
      for (const auto& r : records) j["records"].push_back(to_json(r));
      detail::write_file_atomically(j.dump(1) + "\n", path);
    });
  } catch (const std::exception& e) {
    warnings.push_back("operator choice not stored in " + path + ": " + e.what());
  }
  return warnings;
}

}  // namespace compound_sparse
