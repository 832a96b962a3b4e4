// The non-template half of TunedSpmv: finding and loading the device's
// database (TunedSpmv passes its warnings to warn_once, warnings.hpp).
#include "compound_sparse/tuning/tuned_spmv.hpp"

#include <filesystem>

namespace compound_sparse {

namespace {
/// The directories searched: `database_dir` alone when set, else default_tuning_dirs().
std::vector<std::string> tuning_dirs(const std::string& database_dir) {
  return database_dir.empty() ? default_tuning_dirs() : std::vector<std::string>{database_dir};
}
/// `file` in the first of `dirs` that holds it, or "".
std::string first_holding(const std::vector<std::string>& dirs, const std::string& file) {
  for (const auto& dir : dirs) {
    const auto candidate = std::filesystem::path(dir) / file;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate.string();
  }
  return "";
}
}  // namespace

LoadedDatabase load_device_database(const DeviceInfo& device, const std::string& database_dir) {
  LoadedDatabase result;
  const std::string file = database_file_name(device);
  const std::vector<std::string> dirs = tuning_dirs(database_dir);
  const std::string path = first_holding(dirs, file);
  if (path.empty()) {
    std::string where;
    for (const auto& dir : dirs) where += (where.empty() ? "" : ", ") + dir;
    result.note = "none (no " + file + " in " + where + ")";
    result.warnings.push_back("no tuning database " + file + " for this device (searched " + where +
                              "); using the portable prior or the heuristic");
    return result;
  }
  return load_database_file(path, "", "; using the portable prior or the heuristic");
}

LoadedPrior load_device_prior(const DeviceInfo& device, const std::string& database_dir) {
  LoadedPrior result;
  const std::string path = first_holding(tuning_dirs(database_dir), prior_file_name);
  if (path.empty()) return result;
  try {
    auto prior = std::make_shared<const VariantPrior>(read_variant_prior(path));
    if (prior->gpu == (device.compute_major > 0)) result.prior = std::move(prior);
  } catch (const std::exception& e) {
    result.warnings.push_back(std::string("variant prior not used: ") + e.what());
  }
  return result;
}

}  // namespace compound_sparse
