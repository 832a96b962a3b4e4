// The portable prior (include/compound_sparse/tuning/prior.hpp): learning it from
// databases, finding a matrix's ranking, and its JSON file.
#include "compound_sparse/tuning/prior.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "compound_sparse/error.hpp"
#include "compound_sparse/tuning/impl/database_files.hpp"

namespace compound_sparse {

using Json = nlohmann::json;

namespace {
const char* const size_class_names[] = {"under 1e5 non-zeros", "1e5-1e6 non-zeros", "1e6 non-zeros or more"};

bool same_type(const PriorRegion& a, const PriorRegion& b) {
  return a.entry_type == b.entry_type && a.precision == b.precision;
}
}  // namespace

PriorRegion prior_region(const MatrixFeatures& f) {
  PriorRegion r;
  r.entry_type = f.entry_type;
  r.precision = f.precision;
  r.irregular = rows_spread(f);
  r.size_class = f.nnz < 100000 ? 0 : (f.nnz < 1000000 ? 1 : 2);
  return r;
}

std::string to_string(const PriorRegion& r) {
  return r.entry_type + "/" + r.precision + ", " + (r.irregular ? "irregular" : "regular") + ", " +
         size_class_names[std::clamp(r.size_class, 0, 2)];
}

VariantPrior learn_prior(const std::vector<const SelectionDatabase*>& databases,
                         const std::vector<std::string>& sources, const std::string& skip_record_name,
                         std::size_t keep) {
  COMPOUND_SPARSE_REQUIRE(sources.size() == databases.size(), "learn_prior: " << sources.size() << " source names for "
                                                                              << databases.size() << " databases");
  VariantPrior prior;
  for (std::size_t i = 0; i < databases.size(); ++i) {
    const bool gpu = databases[i]->device.compute_major > 0;
    if (i == 0) prior.gpu = gpu;
    COMPOUND_SPARSE_REQUIRE(gpu == prior.gpu, "learn_prior: " << sources[i] << " is a "
                                                              << (gpu ? "GPU" : "host backend") << " database, "
                                                              << sources[0] << " is not; a prior is "
                                                              << "learned from one kind of device");
  }
  // Per region: the records' log slowdowns by variant.
  using RegionKey = std::tuple<std::string, std::string, bool, int>;
  struct Pool {
    PriorRegion region;
    std::vector<std::map<std::string, double>> records;
  };
  std::map<RegionKey, Pool> pools;
  for (std::size_t i = 0; i < databases.size(); ++i) {
    // Records used per device, in the file's order: a file may hold several devices' records
    // (tuning/sm_90.json: the H200's and the H100's), each named with its count.
    std::vector<std::pair<std::string, int>> used;
    for (const auto& m : databases[i]->records) {
      if (m.name == skip_record_name) continue;
      // The SpMV's times only (k = 1): the prior ranks the SpMV's variants.
      const RecordTimes* spmv = m.at(1);
      if (spmv == nullptr || spmv->size() == 0) continue;
      double best = spmv->seconds(0);
      for (std::size_t v = 1; v < spmv->size(); ++v) best = std::min(best, spmv->seconds(v));
      std::map<std::string, double> slowdowns;
      for (std::size_t v = 0; v < spmv->size(); ++v) slowdowns[spmv->variant(v)] = std::log(spmv->seconds(v) / best);
      const PriorRegion r = prior_region(m.features);
      auto& pool = pools[{r.entry_type, r.precision, r.irregular, r.size_class}];
      pool.region = r;
      pool.records.push_back(std::move(slowdowns));
      const std::string& device = m.device.empty() ? databases[i]->device.name : m.device;
      auto it = std::find_if(used.begin(), used.end(), [&](const auto& u) { return u.first == device; });
      if (it == used.end()) it = used.insert(used.end(), {device, 0});
      ++it->second;
    }
    if (used.empty()) used.push_back({databases[i]->device.name, 0});
    std::ostringstream line;
    line << sources[i] << ": ";
    for (std::size_t u = 0; u < used.size(); ++u)
      line << (u ? " + " : "") << used[u].first << ", " << used[u].second << " record(s)";
    prior.learned_from.push_back(line.str());
  }
  const double missing = std::log(4.0);
  for (auto& [key, pool] : pools) {
    std::map<std::string, double> sums;
    for (const auto& record : pool.records)
      for (const auto& [variant, s] : record) sums[variant];  // every variant any record ran
    for (auto& [variant, sum] : sums)
      for (const auto& record : pool.records) {
        const auto it = record.find(variant);
        sum += it == record.end() ? missing : it->second;
      }
    std::vector<std::pair<double, std::string>> scored;
    for (const auto& [variant, sum] : sums) scored.push_back({sum / pool.records.size(), variant});
    std::sort(scored.begin(), scored.end());
    PriorRanking ranking;
    ranking.region = pool.region;
    ranking.records = static_cast<int>(pool.records.size());
    for (std::size_t j = 0; j < scored.size() && j < keep; ++j) {
      ranking.scores.push_back(scored[j].first);
      ranking.variants.push_back(scored[j].second);
    }
    prior.rankings.push_back(std::move(ranking));
  }
  return prior;
}

const PriorRanking* find_prior_ranking(const VariantPrior& prior, const MatrixFeatures& f) {
  const PriorRegion want = prior_region(f);
  // Nearest: the same irregularity first, then the closest size class (the smaller on a tie).
  const PriorRanking* best = nullptr;
  int best_cost = 0;
  for (const auto& r : prior.rankings) {
    if (!same_type(r.region, want) || r.variants.empty()) continue;
    const int cost = (r.region.irregular != want.irregular ? 10 : 0) +
                     2 * std::abs(r.region.size_class - want.size_class) +
                     (r.region.size_class > want.size_class ? 1 : 0);
    if (best == nullptr || cost < best_cost) {
      best = &r;
      best_cost = cost;
    }
  }
  return best;
}

std::string to_json_text(const VariantPrior& prior) {
  Json j;
  j["schema_version"] = VariantPrior::schema_version;
  j["what"] = "compound_sparse variant prior (include/compound_sparse/tuning/prior.hpp)";
  j["gpu"] = prior.gpu;
  j["learned_from"] = prior.learned_from;
  j["regions"] = Json::array();
  for (const auto& r : prior.rankings) {
    Json variants = Json::array();
    for (std::size_t i = 0; i < r.variants.size(); ++i) variants.push_back({r.variants[i], r.scores[i]});
    j["regions"].push_back({{"entry_type", r.region.entry_type},
                            {"precision", r.region.precision},
                            {"irregular", r.region.irregular},
                            {"size_class", r.region.size_class},
                            {"records", r.records},
                            {"variants", variants}});
  }
  return j.dump(2) + "\n";
}

VariantPrior parse_variant_prior(const std::string& text, const std::string& source) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, false, source << " is not valid JSON (truncated or corrupt?): " << e.what());
  }
  VariantPrior prior;
  try {
    const int version = j.at("schema_version").get<int>();
    COMPOUND_SPARSE_REQUIRE_KIND(
        IoError, version == VariantPrior::schema_version,
        source << " has prior schema version " << version << ", this library reads " << VariantPrior::schema_version);
    prior.gpu = j.at("gpu").get<bool>();
    prior.learned_from = j.at("learned_from").get<std::vector<std::string>>();
    for (const auto& r : j.at("regions")) {
      PriorRanking ranking;
      ranking.region.entry_type = r.at("entry_type").get<std::string>();
      ranking.region.precision = r.at("precision").get<std::string>();
      ranking.region.irregular = r.at("irregular").get<bool>();
      ranking.region.size_class = r.at("size_class").get<int>();
      ranking.records = r.at("records").get<int>();
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, ranking.region.size_class >= 0 && ranking.region.size_class <= 2,
                                   source << ": region " << ranking.region.entry_type << "/" << ranking.region.precision
                                          << " has size class " << ranking.region.size_class << " (0, 1 or 2)");
      for (const auto& v : r.at("variants")) {
        ranking.variants.push_back(v.at(0).get<std::string>());
        ranking.scores.push_back(v.at(1).get<double>());
      }
      prior.rankings.push_back(std::move(ranking));
    }
  } catch (const nlohmann::json::exception& e) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, false, source << " is not a valid variant prior: " << e.what());
  }
  return prior;
}

VariantPrior read_variant_prior(const std::string& path) {
  return parse_variant_prior(detail::read_file_text(path, "variant prior"), path);
}

void write_variant_prior(const VariantPrior& prior, const std::string& path) {
  detail::write_file_atomically(to_json_text(prior), path);
}

}  // namespace compound_sparse
