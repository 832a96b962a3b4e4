// Leave-one-out selection quality (leave_one_out.hpp).
#include "leave_one_out.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compound_sparse/error.hpp"
#include "compound_sparse/tuning/prior.hpp"
#include "compound_sparse/tuning/quick_tune.hpp"
#include "compound_sparse/tuning/selection.hpp"
#include "report_text.hpp"

namespace compound_tune {

namespace cs = compound_sparse;

namespace {
/// M's SpMV times (variant -> seconds); empty when M has no usable best. Leave-one-out
/// judges the SpMV's selection: the SpMM's times (k > 1) share its variant names.
std::map<std::string, double> measured_times(const cs::SelectionRecord& m) {
  std::map<std::string, double> measured;
  if (const cs::RecordTimes* spmv = m.at(1))
    for (std::size_t i = 0; i < spmv->size(); ++i) measured[spmv->variant(i)] = spmv->seconds(i);
  if (m.best.empty() || !measured.count(m.best)) measured.clear();
  return measured;
}

/// Selection for left-out M as TunedSpmv would run it on the device that measured M,
/// except that only variants that ran on M can be chosen, so the ratio is always defined
/// (a variant over M's memory budget failed there and is excluded too).
cs::SelectionContext left_out_context(const cs::SelectionRecord& m, const std::map<std::string, double>& measured,
                                      const cs::SelectionDatabase& db) {
  cs::SelectionContext context;
  std::map<std::string, cs::VariantKey> compiled;
  for (const auto& [name, s] : measured) {
    auto key = cs::parse_variant_key(name);
    key.lanes_per_row = 1;
    compiled[key.compiled_name()] = key;
  }
  for (const auto& [name, key] : compiled) context.compiled.push_back(key);
  context.usable = [&measured](const cs::VariantKey& k, std::string& why) {
    why = "did not run on the left-out matrix";
    return measured.count(k.name()) > 0;
  };
  context.skip_record_name = m.name;
  context.device_name = m.device;                                                // as TunedSpmv on that device
  context.dense_row_threshold = cs::dense_row_threshold(m.features, db.device);  // likewise
  return context;
}
}  // namespace

cs::SelectionDatabase without_matrix(const cs::SelectionDatabase& db, const std::string& name) {
  cs::SelectionDatabase others = db;
  auto& records = others.records;
  records.erase(
      std::remove_if(records.begin(), records.end(), [&](const cs::SelectionRecord& r) { return r.name == name; }),
      records.end());
  return others;
}

std::vector<LooRow> leave_one_out(const cs::SelectionDatabase& db, int neighbours, double close_distance) {
  std::vector<LooRow> rows;
  for (const auto& m : db.records) {
    std::map<std::string, double> measured = measured_times(m);
    if (measured.empty()) continue;
    cs::SelectionContext context = left_out_context(m, measured, db);
    context.neighbours = neighbours;
    // Same entry type and precision, the only records selection looks at.
    const cs::SelectionDatabase others = without_matrix(db, m.name);
    const auto s = cs::select_variant(m.features, &others, "leave-one-out", context);
    LooRow row;
    row.rule = s.rule;
    row.neighbour = s.record;
    row.neighbour_device = s.record_device;
    row.distance = s.distance;
    row.name = m.name;
    row.device = m.device;
    row.entry_type = m.features.entry_type;
    row.precision = m.features.precision;
    // The heuristic picks lanes freely; a search may have measured only some lane
    // counts (reduced: 1, 2, 4, 32), so take the nearest measured one of the same kernel.
    const auto nearest_measured = [&measured](const cs::VariantKey& key) {
      cs::VariantKey chosen = key;
      if (measured.count(chosen.name())) return chosen;
      double gap = 1e9;
      for (int lanes = 1; lanes <= 32; lanes *= 2) {
        cs::VariantKey k = key;
        k.lanes_per_row = lanes;
        const double g = std::abs(std::log2(double(lanes) / key.lanes_per_row));
        if (measured.count(k.name()) && g < gap) {
          gap = g;
          chosen = k;
        }
      }
      return chosen;
    };
    const cs::VariantKey chosen = nearest_measured(s.key);
    if (chosen.lanes_per_row != s.key.lanes_per_row)
      row.rule += " (lanes " + std::to_string(chosen.lanes_per_row) + ")";
    row.selected = chosen.name();
    row.best = m.best;
    row.best_seconds = measured[m.best];
    const auto it = measured.find(row.selected);
    row.selected_seconds = it == measured.end() ? 0 : it->second;
    row.ratio = it == measured.end() ? 0 : row.selected_seconds / row.best_seconds;

    // Quick tuning, as TunedSpmv builds its candidates (quick_tune.hpp), judged by the
    // stored times: the noise of its own short timing is not in this estimate.
    const bool dense = m.features.nnz_per_row_max > context.dense_row_threshold;
    const auto heuristic =
        nearest_measured(cs::heuristic_variant(m.features, context.compiled, {}, context.dense_row_threshold));
    std::vector<cs::VariantKey> alternatives;
    for (const auto& outer : cs::outer_layout_names()) {
      const auto only = [&outer](const std::string& o) { return o == outer; };
      const auto k =
          nearest_measured(cs::heuristic_variant(m.features, context.compiled, only, context.dense_row_threshold));
      if (k.outer == outer && (!dense || cs::splits_rows(k.kind))) alternatives.push_back(k);
    }
    const auto candidates =
        cs::quick_tune_candidates(s.ranked, s.neighbour_bests, heuristic, alternatives, cs::max_quick_tune_candidates);
    for (const auto& k : candidates) {
      const auto t = measured.find(k.name());
      if (t == measured.end()) continue;
      ++row.quick_candidates;
      if (row.quick_ratio == 0 || t->second / row.best_seconds < row.quick_ratio) {
        row.quick_ratio = t->second / row.best_seconds;
        row.quick_selected = k.name();
      }
    }
    row.exact = s.rule == "exact";
    row.nearest = s.rule == "nearest";
    row.auto_ratio = auto_ratio_at(row, close_distance);
    rows.push_back(row);
  }
  return rows;
}

namespace {
/// Whether Auto takes the selection for `row` at this close distance, as TunedSpmv decides.
bool trusts_selection(const LooRow& row, double close_distance) {
  return row.exact || (row.nearest && row.distance <= close_distance);
}
}  // namespace

double auto_ratio_at(const LooRow& row, double close_distance) {
  return trusts_selection(row, close_distance) ? row.ratio : row.quick_ratio;
}

std::vector<CloseDistanceSummary> close_distance_sweep(const std::vector<LooRow>& rows,
                                                       const std::vector<double>& distances) {
  std::vector<CloseDistanceSummary> sweep;
  for (const double d : distances) {
    CloseDistanceSummary c;
    c.close_distance = d;
    std::vector<double> ratios;
    for (const auto& row : rows) {
      const double r = auto_ratio_at(row, d);
      if (r <= 0) continue;  // the variant it would take has no stored time
      ratios.push_back(r);
      c.trusted += trusts_selection(row, d) ? 1 : 0;
      c.beyond_5_percent += r > 1.05 ? 1 : 0;
    }
    c.summary = summarize_ratios(ratios);
    sweep.push_back(c);
  }
  return sweep;
}

LooSummary summarize(const std::vector<LooRow>& rows, double LooRow::*ratio) {
  std::vector<double> r;
  for (const auto& row : rows)
    if (row.*ratio > 0) r.push_back(row.*ratio);
  return summarize_ratios(r);
}

void write_loo_report(const cs::SelectionDatabase& db, const std::string& db_path, int neighbours,
                      const std::string& out) {
  const auto rows = leave_one_out(db, neighbours);
  const auto summary = summarize(rows);
  const auto quick = summarize(rows, &LooRow::quick_ratio);
  const auto automatic = summarize(rows, &LooRow::auto_ratio);
  const bool pass = summary.count > 0 && summary.median <= 1.05 && summary.worst <= 1.25;
  nlohmann::json j_rows = nlohmann::json::array();
  for (const auto& r : rows)
    j_rows.push_back({{"matrix", r.name},
                      {"entry_type", r.entry_type},
                      {"precision", r.precision},
                      {"device", r.device},
                      {"rule", r.rule},
                      {"neighbour", r.neighbour},
                      {"neighbour_device", r.neighbour_device},
                      {"distance", r.distance},
                      {"selected", r.selected},
                      {"selected_seconds", r.selected_seconds},
                      {"best", r.best},
                      {"best_seconds", r.best_seconds},
                      {"ratio", r.ratio},
                      {"quick_selected", r.quick_selected},
                      {"quick_candidates", r.quick_candidates},
                      {"quick_ratio", r.quick_ratio},
                      {"auto_ratio", r.auto_ratio}});
  nlohmann::json sweep = nlohmann::json::array();
  std::ostringstream sweep_md;
  for (int k = 1; k <= 5; ++k) {
    const auto s = summarize(leave_one_out(db, k));
    sweep.push_back(
        {{"neighbours", k}, {"median", s.median}, {"worst", s.worst}, {"geometric_mean", s.geometric_mean}});
    sweep_md << "| " << k << " | " << std::fixed << std::setprecision(3) << s.median << " | " << s.worst << " | "
             << s.geometric_mean << " |\n";
  }
  // Auto against its one knob: quick tuning is the safer answer where the nearest record is far,
  // so the default close distance should be where trusting records stops paying.
  const double default_close = cs::default_close_distance;
  std::vector<double> distances = {0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0};
  if (std::find(distances.begin(), distances.end(), default_close) == distances.end()) {
    distances.push_back(default_close);  // the default is always a row of its own
    std::sort(distances.begin(), distances.end());
  }
  const auto close_sweep = close_distance_sweep(rows, distances);
  nlohmann::json close_json = nlohmann::json::array();
  std::ostringstream close_md;
  for (const auto& c : close_sweep) {
    close_json.push_back({{"close_distance", c.close_distance},
                          {"trusted", c.trusted},
                          {"median", c.summary.median},
                          {"worst", c.summary.worst},
                          {"geometric_mean", c.summary.geometric_mean},
                          {"beyond_5_percent", c.beyond_5_percent}});
    close_md << "| " << std::fixed << std::setprecision(2) << c.close_distance
             << (c.close_distance == default_close ? " (default)" : "") << " | " << c.trusted << " | "
             << std::setprecision(3) << c.summary.median << " | " << c.summary.worst << " | "
             << c.summary.geometric_mean << " | " << c.beyond_5_percent << " |\n";
  }
  const nlohmann::json j = {
      {"database", db_path},
      {"device", db.device.name},
      {"backend", db.device.backend},
      {"compute_capability", std::to_string(db.device.compute_major) + "." + std::to_string(db.device.compute_minor)},
      {"neighbours", neighbours},
      {"target", {{"median", 1.05}, {"worst", 1.25}}},
      {"summary",
       {{"count", summary.count},
        {"median", summary.median},
        {"worst", summary.worst},
        {"geometric_mean", summary.geometric_mean},
        {"meets_target", pass}}},
      {"neighbour_sweep", sweep},
      {"quick_tuning",
       {{"note",
         "simulated from the stored times: the candidates TunedSpmv would time, the fastest by the "
         "left-out matrix's own measurements (its short timing's noise not included)"},
        {"target", {{"median", 1.10}, {"worst", 1.35}}},
        {"always", {{"median", quick.median}, {"worst", quick.worst}, {"geometric_mean", quick.geometric_mean}}},
        {"auto",
         {{"median", automatic.median}, {"worst", automatic.worst}, {"geometric_mean", automatic.geometric_mean}}},
        {"close_distance_sweep", close_json}}},
      {"rows", j_rows}};
  write_json_report(j, out);

  // A database of several devices' records (devices of one compute capability share a file):
  // each row names its record's device and its neighbour's, and each device is summed up too.
  std::map<std::string, std::vector<LooRow>> per_device;
  for (const auto& r : rows) per_device[r.device].push_back(r);
  const bool several_devices = per_device.size() > 1;
  const auto with_device = [several_devices](const std::string& name, const std::string& device) {
    return several_devices && !name.empty() ? name + " (" + device + ")" : name;
  };
  std::ofstream md(out + ".md");
  md << "# Selection quality: leave-one-out\n\n"
     << "Database `" << db_path << "` (" << db.device.name << ", " << db.device.backend << ", CC "
     << db.device.compute_major << "." << db.device.compute_minor << "). For each matrix, the variant selected from "
     << "the other matrices' records (k = " << neighbours << " nearest neighbours, docs/tuning.md) is looked up in "
     << "the left-out matrix's own measurements; ratio = selected time / exhaustive best time.\n\n"
     << "| matrix | entry | precision | rule | nearest record (distance) | selected | best | ratio |\n"
     << "|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows)
    md << "| " << with_device(r.name, r.device) << " | " << r.entry_type << " | " << r.precision << " | " << r.rule
       << " | " << (r.neighbour.empty() ? "-" : with_device(r.neighbour, r.neighbour_device)) << " ("
       << std::setprecision(2) << std::fixed << r.distance << ") | `" << r.selected << "` | `" << r.best << "` | "
       << (r.ratio > 0 ? fixed(r.ratio, 3) : "not measured") << " |\n";
  md << "\n**Median " << std::setprecision(3) << summary.median << ", worst " << summary.worst << ", geometric mean "
     << summary.geometric_mean << "** over " << summary.count
     << " matrices (target: median <= 1.05, worst <= 1.25: " << (pass ? "met" : "NOT met") << ").\n\n";
  if (several_devices) {
    md << "Per device (each record selected for as TunedSpmv on its device would, preferring that device's "
       << "records):\n\n| device | records | median | worst | geometric mean |\n|---|---|---|---|---|\n";
    for (const auto& [device, device_rows] : per_device) {
      const auto s = summarize(device_rows);
      md << "| " << device << " | " << s.count << " | " << s.median << " | " << s.worst << " | " << s.geometric_mean
         << " |\n";
    }
    md << "\n";
  }
  md << "Neighbour count sweep:\n\n| k | median | worst | geometric mean |\n|---|---|---|---|\n"
     << sweep_md.str()
     << "\n## Quick tuning (simulated)\n\nThe candidates TunedSpmv's quick tuning would time on the left-out matrix "
     << "(docs/tuning.md), judged by that matrix's stored times (the noise of the quick timing itself is not "
     << "included); *auto* is QuickTune::Auto: quick tuning where no record is within distance " << default_close
     << ", the "
     << "selection above elsewhere. Target for quick tuning: median <= 1.10, worst <= 1.35.\n\n"
     << "| mode | median | worst | geometric mean |\n|---|---|---|---|\n"
     << "| always | " << quick.median << " | " << quick.worst << " | " << quick.geometric_mean << " |\n"
     << "| auto | " << automatic.median << " | " << automatic.worst << " | " << automatic.geometric_mean << " |\n\n"
     << "Auto at other close distances (TunedSpmvOptions::close_distance; rows that trust the selection, "
     << "the rest quick-tuned):\n\n| close distance | trusted | median | worst | geometric mean | beyond 1.05 |\n"
     << "|---|---|---|---|---|---|\n"
     << close_md.str() << "\n"
     << "| matrix | precision | candidates with times | quick choice | ratio |\n|---|---|---|---|---|\n";
  for (const auto& r : rows)
    md << "| " << with_device(r.name, r.device) << " | " << r.precision << " | " << r.quick_candidates << " | `"
       << r.quick_selected << "` | " << (r.quick_ratio > 0 ? fixed(r.quick_ratio, 3) : "not measured") << " |\n";
  COMPOUND_SPARSE_REQUIRE(md, "writing " << out << ".md failed");
}

std::vector<LooRow> prior_leave_one_out(const cs::SelectionDatabase& db,
                                        const std::vector<const cs::SelectionDatabase*>& prior_databases,
                                        const std::vector<std::string>& prior_sources) {
  std::vector<LooRow> rows;
  for (const auto& m : db.records) {
    const std::map<std::string, double> measured = measured_times(m);
    if (measured.empty()) continue;
    // No database: the prior learned without M's records (by name: every database's).
    const cs::VariantPrior prior = cs::learn_prior(prior_databases, prior_sources, m.name);
    cs::SelectionContext context = left_out_context(m, measured, db);
    context.prior = &prior;
    const auto s = cs::select_variant(m.features, nullptr, "none (prior only)", context);
    LooRow row;
    row.name = m.name;
    row.entry_type = m.features.entry_type;
    row.precision = m.features.precision;
    row.rule = s.rule;
    if (s.rule == "prior") row.neighbour = cs::to_string(cs::find_prior_ranking(prior, m.features)->region);
    row.selected = s.key.name();
    row.best = m.best;
    row.best_seconds = measured.at(m.best);
    const auto it = measured.find(row.selected);
    row.selected_seconds = it == measured.end() ? 0 : it->second;
    row.ratio = it == measured.end() ? 0 : row.selected_seconds / row.best_seconds;
    rows.push_back(row);
  }
  return rows;
}

void write_prior_loo_report(const cs::SelectionDatabase& db, const std::string& db_path,
                            const std::vector<const cs::SelectionDatabase*>& prior_databases,
                            const std::vector<std::string>& prior_sources, const std::string& out) {
  const auto rows = prior_leave_one_out(db, prior_databases, prior_sources);
  const auto summary = summarize(rows);
  const bool pass = summary.count > 0 && summary.median <= 1.25 && summary.worst <= 2.0;
  std::ofstream md(out + ".md");
  md << "# Selection quality of the portable prior alone: leave-one-out\n\n"
     << "Database judged: `" << db_path << "` (" << db.device.name << "). For each of its matrices, a prior "
     << "(include/compound_sparse/tuning/prior.hpp) is learned from these databases without any record of that "
     << "matrix:\n\n";
  for (const auto& source : prior_sources) md << "- `" << source << "`\n";
  md << "\nand selection runs as on a device without a tuning database (rules prior, then heuristic); the "
     << "selected variant is looked up in the left-out matrix's own measurements; ratio = selected time / "
     << "exhaustive best time.\n\n"
     << "| matrix | entry | precision | rule | region | selected | best | ratio |\n"
     << "|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows)
    md << "| " << r.name << " | " << r.entry_type << " | " << r.precision << " | " << r.rule << " | "
       << (r.neighbour.empty() ? "-" : r.neighbour) << " | `" << r.selected << "` | `" << r.best << "` | "
       << (r.ratio > 0 ? fixed(r.ratio, 3) : "not measured") << " |\n";
  md << "\n**Median " << std::setprecision(3) << std::fixed << summary.median << ", worst " << summary.worst
     << ", geometric mean " << summary.geometric_mean << "** over " << summary.count
     << " matrices (target: median <= 1.25, worst <= 2.0: " << (pass ? "met" : "NOT met") << ").\n";
  COMPOUND_SPARSE_REQUIRE(md, "writing " << out << ".md failed");
}

}  // namespace compound_tune
