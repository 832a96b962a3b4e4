// The non-template half of TunedSpmv: finding and loading the device's
// database (TunedSpmv passes its warnings to warn_once, warnings.hpp).
#include "compound_sparse/tuning/tuned_spmv.hpp"

#include <filesystem>

namespace compound_sparse {

LoadedDatabase load_device_database(const DeviceInfo& device, const std::string& database_dir) {
  LoadedDatabase result;
  const std::string file = database_file_name(device);
  const std::vector<std::string> dirs =
      database_dir.empty() ? default_tuning_dirs() : std::vector<std::string>{database_dir};
  std::string path;
  for (const auto& dir : dirs) {
    const auto candidate = std::filesystem::path(dir) / file;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) {
      path = candidate.string();
      break;
    }
  }
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
  const std::vector<std::string> dirs =
      database_dir.empty() ? default_tuning_dirs() : std::vector<std::string>{database_dir};
  for (const auto& dir : dirs) {
    const auto candidate = std::filesystem::path(dir) / prior_file_name;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(candidate, ec)) continue;
    try {
      auto prior = std::make_shared<const VariantPrior>(read_variant_prior(candidate.string()));
      const bool gpu = device.compute_major > 0;
      if (prior->gpu != gpu) {
        result.note = candidate.string() + " (learned on " + (prior->gpu ? "GPUs" : "host backends") + ", not used)";
        return result;
      }
      result.prior = std::move(prior);
      result.note = candidate.string();
    } catch (const std::exception& e) {
      result.note = "unusable (" + candidate.string() + ")";
      result.warnings.push_back(std::string("variant prior not used: ") + e.what());
    }
    return result;
  }
  result.note = "none";
  return result;
}

}  // namespace compound_sparse
