// The per-user cache of quick tuning (include/compound_sparse/tuning/tuning_cache.hpp).
#include "compound_sparse/tuning/tuning_cache.hpp"

#include <cstdlib>
#include <exception>
#include <filesystem>

namespace compound_sparse {

namespace {
std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}
}  // namespace

std::string default_tuning_cache_dir() {
  namespace fs = std::filesystem;
  if (const std::string dir = environment("COMPOUND_SPARSE_CACHE_DIR"); !dir.empty()) return dir;
  if (const std::string xdg = environment("XDG_CACHE_HOME"); !xdg.empty() && fs::path(xdg).is_absolute())
    return (fs::path(xdg) / "compound_sparse").string();
  if (const std::string home = environment("HOME"); !home.empty())
    return (fs::path(home) / ".cache" / "compound_sparse").string();
  return "";
}

LoadedDatabase load_tuning_cache(const std::string& path) {
  LoadedDatabase result;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    result.note = "none (no " + path + ")";
    return result;
  }
  return load_database_file(path, "tuning cache not used: ", "");
}

std::vector<std::string> store_in_tuning_cache(const std::string& path, const SelectionRecord& record) {
  std::vector<std::string> warnings;
  try {
    std::string set_aside;
    update_selection_database(path, {record}, &set_aside);
    if (!set_aside.empty()) warnings.push_back("tuning cache was unreadable: " + set_aside);
  } catch (const std::exception& e) {
    warnings.push_back("quick-tuning result not stored in the cache " + path + ": " + e.what());
  }
  return warnings;
}

}  // namespace compound_sparse
