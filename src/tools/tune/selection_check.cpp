// Selection quality measured on the device (selection_check.hpp): the left-out
// databases and the report.
#include "selection_check.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compound_sparse/error.hpp"
#include "leave_one_out.hpp"  // without_matrix
#include "report_text.hpp"

namespace compound_tune {

namespace cs = compound_sparse;

void write_left_out_database(const cs::SelectionDatabase& db, const std::string& name, const std::string& dir) {
  cs::write_selection_database(
      without_matrix(db, name),
      (std::filesystem::path(dir) / cs::database_file_name(cs::default_device_info())).string());
}

ComparedChoices read_compared_choices(const std::string& path) {
  std::ifstream in(path);
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, in, "cannot open the compared report " << path);
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, false, "the compared report " << path << " is not JSON: " << e.what());
  }
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, j.is_object() && j.contains("rows") && j["rows"].is_array(),
                               path << " is not a --check-selection report (no rows array)");
  ComparedChoices choices;
  const auto text = [&path](const nlohmann::json& object, const char* field, std::size_t at) {
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, object.is_object() && object.contains(field) && object[field].is_string(),
                                 path << ": rows[" << at << "]." << field << " is missing or not a string");
    return object[field].get<std::string>();
  };
  for (std::size_t i = 0; i < j["rows"].size(); ++i) {
    const nlohmann::json& row = j["rows"][i];
    std::array<std::string, 3> variants;
    const char* const modes[] = {"never", "always", "auto"};
    for (int m = 0; m < 3; ++m) {
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, row.is_object() && row.contains(modes[m]),
                                   path << ": rows[" << i << "]." << modes[m] << " is missing");
      variants[m] = text(row[modes[m]], "variant", i);
    }
    const std::string key = pair_key(text(row, "matrix", i), text(row, "entry_type", i), text(row, "precision", i));
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, !choices.count(key), path << ": rows[" << i << "] repeats " << key);
    choices[key] = variants;
  }
  return choices;
}

namespace {

struct ModeSummary : RatioSummary {
  int most_spmvs = 0;  ///< quick tuning's largest spend over the rows
};

ModeSummary summarize(const std::vector<SelectionCheckRow>& rows, CheckedChoice SelectionCheckRow::*mode) {
  std::vector<double> r;
  int most_spmvs = 0;
  for (const auto& row : rows) {
    const CheckedChoice& c = row.*mode;
    most_spmvs = std::max(most_spmvs, c.spmvs);
    if (c.ratio > 0) r.push_back(c.ratio);
  }
  ModeSummary s;
  static_cast<RatioSummary&>(s) = summarize_ratios(r);
  s.most_spmvs = most_spmvs;
  return s;
}

nlohmann::json choice_json(const CheckedChoice& c) {
  return {{"variant", c.variant}, {"rule", c.rule},   {"spmvs", c.spmvs},
          {"seconds", c.seconds}, {"ratio", c.ratio}, {"error", c.error}};
}

/// "1.023" or why the choice has no ratio.
std::string ratio_text(const CheckedChoice& c) {
  if (c.ratio > 0) return fixed(c.ratio, 3);
  return c.error.empty() ? "-" : "failed: " + c.error;
}

}  // namespace

void write_selection_check(const std::vector<SelectionCheckRow>& rows, const std::string& db_path,
                           const std::string& best_from, const SelectionCheckOptions& options,
                           const std::string& command, const std::string& out, const std::string& compared_with) {
  using ChoiceMember = CheckedChoice SelectionCheckRow::*;  // an alias: nvcc's host code warns otherwise
  struct Mode {
    const char* name;
    ChoiceMember choice, compared;
    double median_target, worst_target;  // 0: none
  };
  // Quick tuning's targets are the quick-tuning design's (docs/tuning.md); the database's
  // own selection is judged against the leave-one-out targets.
  const Mode modes[] = {{"never", &SelectionCheckRow::never, &SelectionCheckRow::compared_never, 1.05, 1.25},
                        {"always", &SelectionCheckRow::always, &SelectionCheckRow::compared_always, 1.10, 1.35},
                        {"auto", &SelectionCheckRow::automatic, &SelectionCheckRow::compared_automatic, 1.10, 1.35}};
  const cs::DeviceInfo device = cs::default_device_info();
  nlohmann::json summary = nlohmann::json::object();
  std::ostringstream summary_md;
  for (const auto& mode : modes) {
    const ModeSummary s = summarize(rows, mode.choice);
    const bool met = s.count > 0 && s.median <= mode.median_target && s.worst <= mode.worst_target &&
                     s.most_spmvs <= options.quick_tune_spmvs;
    summary[mode.name] = {
        {"count", s.count},           {"median", s.median},
        {"worst", s.worst},           {"geometric_mean", s.geometric_mean},
        {"most_spmvs", s.most_spmvs}, {"target", {{"median", mode.median_target}, {"worst", mode.worst_target}}},
        {"meets_target", met}};
    summary_md << "| " << mode.name << " | " << s.count << " | " << fixed(s.median, 3) << " | " << fixed(s.worst, 3)
               << " | " << fixed(s.geometric_mean, 3) << " | " << s.most_spmvs
               << " | <= " << fixed(mode.median_target, 2) << " / <= " << fixed(mode.worst_target, 2) << ": "
               << (met ? "met" : "NOT met") << " |\n";
  }
  // The compared build's choice over this build's, per mode: a variant set that loses
  // nothing gives a geometric mean of 1 (both choices alike) or below.
  nlohmann::json comparison = nlohmann::json::object();
  std::ostringstream comparison_md;
  if (!compared_with.empty()) {
    for (const auto& mode : modes) {
      std::vector<double> ratios;
      int same = 0, beyond_5_percent = 0;
      std::string worst_pair;
      double worst = 0;
      for (const auto& r : rows) {
        const CheckedChoice& mine = r.*mode.choice;
        const CheckedChoice& theirs = r.*mode.compared;
        if (mine.seconds <= 0 || theirs.seconds <= 0) continue;
        const double ratio = mine.variant == theirs.variant ? 1.0 : theirs.seconds / mine.seconds;
        ratios.push_back(ratio);
        same += mine.variant == theirs.variant;
        beyond_5_percent += ratio > 1.05;
        if (ratio > worst) {
          worst = ratio;
          worst_pair = pair_key(r.name, r.entry_type, r.precision);
        }
      }
      const RatioSummary s = summarize_ratios(ratios);
      comparison[mode.name] = {
          {"count", s.count}, {"same_choice", same},      {"geometric_mean", s.geometric_mean},  {"median", s.median},
          {"worst", s.worst}, {"worst_pair", worst_pair}, {"beyond_5_percent", beyond_5_percent}};
      comparison_md << "| " << mode.name << " | " << s.count << " | " << same << " | " << fixed(s.geometric_mean, 3)
                    << " | " << fixed(s.worst, 3) << " (" << worst_pair << ") | " << beyond_5_percent << " |\n";
    }
  }
  nlohmann::json j_rows = nlohmann::json::array();
  for (const auto& r : rows)
    j_rows.push_back({{"matrix", r.name},
                      {"entry_type", r.entry_type},
                      {"precision", r.precision},
                      {"rows", r.rows},
                      {"nnz", r.nnz},
                      {"best", r.best},
                      {"best_seconds", r.best_seconds},
                      {"stored_best_seconds", r.stored_seconds},
                      {"never", choice_json(r.never)},
                      {"always", choice_json(r.always)},
                      {"auto", choice_json(r.automatic)},
                      {"compared",
                       {{"never", choice_json(r.compared_never)},
                        {"always", choice_json(r.compared_always)},
                        {"auto", choice_json(r.compared_automatic)}}},
                      {"error", r.error}});
  const nlohmann::json j = {{"command", command},
                            {"database", db_path},
                            {"best_from", best_from},
                            {"device", device.name},
                            {"backend", device.backend},
                            {"timing",
                             {{"mode", cs::to_string(options.timing.mode)},
                              {"warmup", options.timing.warmup},
                              {"batch", options.timing.batch},
                              {"samples", options.timing.samples}}},
                            {"quick_tune_spmvs", options.quick_tune_spmvs},
                            {"neighbours", options.neighbours},
                            {"summary", summary},
                            {"compared_with", compared_with},
                            {"comparison", comparison},
                            {"rows", j_rows}};
  write_json_report(j, out);

  std::ofstream md(out + ".md");
  md << "# Selection quality on the device\n\n"
     << "`" << command << "`\n\n"
     << "Device: " << device.name << " (" << device.backend << "). Database `" << db_path
     << "`, each matrix's own records removed before TunedSpmv reads it; the exhaustive search's best from `"
     << best_from << "`. For each matrix TunedSpmv chose in three modes (QuickTune::Never: the database's selection; "
     << "Always: quick tuning on the matrix, at most " << options.quick_tune_spmvs
     << " SpMVs; Auto: quick tuning where no record is close), and each choice was timed in this process beside "
     << "the exhaustive best (" << cs::to_string(options.timing.mode) << " timing, " << options.timing.warmup
     << " warm-up, median of " << options.timing.samples << " batches of " << options.timing.batch
     << "). ratio = choice / best, both timed here.\n\n"
     << "| mode | pairs | median | worst | geometric mean | most SpMVs of tuning | target (median / worst) |\n"
     << "|---|---|---|---|---|---|---|\n"
     << summary_md.str() << "\n";
  if (!compared_with.empty())
    md << "Against the choices of `" << compared_with << "` (another build's report), timed here too: their time / "
       << "this build's choice's, per pair (1 where both chose alike).\n\n"
       << "| mode | pairs | same choice | geometric mean | worst (pair) | pairs beyond 1.05 |\n"
       << "|---|---|---|---|---|---|\n"
       << comparison_md.str() << "\n";
  md << "| matrix | precision | nnz | best (µs here / stored) | never: rule, ratio | always: choice, SpMVs, ratio "
        "| auto: rule, ratio |\n"
     << "|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows) {
    md << "| " << r.name << " | " << r.precision << " | " << r.nnz << " | ";
    if (!r.error.empty()) {
      md << r.error << " | " << r.never.rule << " | " << r.always.spmvs << " | " << r.automatic.rule << " |\n";
      continue;
    }
    md << "`" << r.best << "` " << fixed(r.best_seconds * 1e6, 2) << " / " << fixed(r.stored_seconds * 1e6, 2) << " | "
       << r.never.rule << ", " << ratio_text(r.never) << " | `" << r.always.variant << "`, " << r.always.spmvs << ", "
       << ratio_text(r.always) << " | " << r.automatic.rule << ", " << ratio_text(r.automatic) << " |\n";
  }
  COMPOUND_SPARSE_REQUIRE(md, "writing " << out << ".md failed");
}

}  // namespace compound_tune
