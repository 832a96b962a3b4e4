#pragma once
// A portable prior for variant selection on a device without a tuning database
// (a GPU of another compute capability): a ranking of variants per region of
// feature space, learned from other devices' databases by compound-tune
// --learn-prior and shipped as tuning/prior.json. Selection uses it after the
// database's rules and before the heuristic (selection.hpp).
//
// A region is (entry type, precision, irregular, size class):
//   irregular   row lengths spread: stddev > 0.5 mean or max > 4 mean (the
//               heuristic's test for a dynamic schedule);
//   size class  0: under 1e5 non-zeros, 1: under 1e6, 2: 1e6 or more.
// In a region every variant is scored by the mean, over the region's records, of
// log(its time / that record's best time), a variant a record did not run
// counting as a slowdown of 4 (as selection's nearest rule counts it); the
// lowest score ranks first. Times are relative to each record's best, so
// records of devices of different speeds can be pooled.
//
// A matrix whose region holds no record takes the nearest size class of its
// entry type, precision and irregularity, then the nearest region of its entry
// type and precision (docs/tuning.md has the leave-one-out measurement).

#include <string>
#include <vector>

#include "features.hpp"
#include "selection_database.hpp"

namespace compound_sparse {

/// The prior's file name, searched for in the tuning directories (default_tuning_dirs).
inline constexpr const char* prior_file_name = "prior.json";

struct PriorRegion {
  std::string entry_type;
  std::string precision;
  bool irregular = false;
  int size_class = 0;  ///< 0: nnz < 1e5, 1: < 1e6, 2: >= 1e6
};

/// A region's ranking: variant names, best first, with their scores (mean log slowdown).
struct PriorRanking {
  PriorRegion region;
  int records = 0;  ///< the records it was learned from
  std::vector<std::string> variants;
  std::vector<double> scores;
};

struct VariantPrior {
  static constexpr int schema_version = 1;
  bool gpu = true;                        ///< learned from GPU databases (else from host backends')
  std::vector<std::string> learned_from;  ///< one line per database: file, device, records
  std::vector<PriorRanking> rankings;
};

PriorRegion prior_region(const MatrixFeatures& f);
/// "complex/float, regular, 1e5-1e6 non-zeros".
std::string to_string(const PriorRegion& region);

/// Learns the prior from `databases` (`sources` names each, for learned_from),
/// ignoring records named `skip_record_name` (leave-one-out), keeping the `keep`
/// best variants of each region. Throws InvalidInput when the databases mix GPU
/// and host backends, or `sources` does not match `databases`.
VariantPrior learn_prior(const std::vector<const SelectionDatabase*>& databases,
                         const std::vector<std::string>& sources, const std::string& skip_record_name = "",
                         std::size_t keep = 64);

/// The ranking for `f`: its region's, else the nearest as above; null when the
/// prior has no region of f's entry type and precision.
const PriorRanking* find_prior_ranking(const VariantPrior& prior, const MatrixFeatures& f);

/// JSON text (2-space indented).
std::string to_json_text(const VariantPrior& prior);
/// Parses JSON text; `source` names it in errors. Throws IoError for text that is
/// not JSON, has another schema version, or a malformed region.
VariantPrior parse_variant_prior(const std::string& text, const std::string& source);
/// Reads and parses `path`; throws IoError (with the path and the reason).
VariantPrior read_variant_prior(const std::string& path);
/// Writes atomically (a temporary file in the same directory, renamed over `path`).
void write_variant_prior(const VariantPrior& prior, const std::string& path);

}  // namespace compound_sparse
