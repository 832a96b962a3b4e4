#pragma once
// Selection quality by leave-one-out over a tuning database, without measuring
// anything: for each record M, select a variant for M's features from the
// database without M (compound_sparse/tuning/selection.hpp, restricted to variants that ran on
// M), then look the selected variant's time up in M's own times and divide by the time of
// M's best. On the shipped form (selection_database.hpp), which holds all of that: the
// tuner's full output is shipped in memory first (compound-tune reads either).
#include <string>
#include <vector>

#include "compound_sparse/tuning/quick_tune.hpp"
#include "compound_sparse/tuning/selection_database.hpp"
#include "report_text.hpp"

namespace compound_tune {

struct LooRow {
  std::string name, entry_type, precision;
  std::string device;            ///< the device that measured the left-out record
  std::string rule;              ///< exact, nearest, heuristic
  std::string neighbour;         ///< the closest record used
  std::string neighbour_device;  ///< the device that measured it
  double distance = 0;
  std::string selected, best;
  double selected_seconds = 0, best_seconds = 0;
  double ratio = 0;  ///< selected / best; 0 when the selected variant was not measured
  /// Quick tuning simulated (quick_tune.hpp): of the candidates TunedSpmv would time
  /// (those the left-out matrix has times for), the fastest by its stored times.
  std::string quick_selected;
  int quick_candidates = 0;  ///< candidates with stored times
  double quick_ratio = 0;    ///< quick_selected / best; 0 when no candidate was measured
  /// QuickTune::Auto: quick tuning when no record is close, else the selection.
  double auto_ratio = 0;
  /// Whether Auto may trust the selection at all: an exact record, or a nearest one (within
  /// the close distance); never the prior or the heuristic.
  bool exact = false, nearest = false;
};

/// QuickTune::Auto's ratio for `row` had TunedSpmvOptions::close_distance been `close_distance`.
double auto_ratio_at(const LooRow& row, double close_distance);

/// Auto over the rows at one close distance: its ratios summed up, and how many rows
/// trusted the selection.
struct CloseDistanceSummary {
  double close_distance = 0;
  int trusted = 0;
  RatioSummary summary;
  int beyond_5_percent = 0;  ///< rows whose Auto ratio exceeds 1.05
};
/// Auto at each of `distances`, from the rows' stored ratios.
std::vector<CloseDistanceSummary> close_distance_sweep(const std::vector<LooRow>& rows,
                                                       const std::vector<double>& distances);

using LooSummary = RatioSummary;  ///< over the rows with a ratio

/// `db` without the records of matrix `name` (every entry type and precision): what
/// selection sees of a database that never met that matrix.
compound_sparse::SelectionDatabase without_matrix(const compound_sparse::SelectionDatabase& db,
                                                  const std::string& name);

std::vector<LooRow> leave_one_out(const compound_sparse::SelectionDatabase& db, int neighbours,
                                  double close_distance = compound_sparse::default_close_distance);
/// Over the rows' `ratio`, or another of their ratios.
LooSummary summarize(const std::vector<LooRow>& rows, double LooRow::*ratio = &LooRow::ratio);

/// Writes <out>.json and <out>.md (the table plus a k = 1..5 sweep, and Auto's close-distance
/// sweep).
void write_loo_report(const compound_sparse::SelectionDatabase& db, const std::string& db_path, int neighbours,
                      const std::string& out);

/// Leave-one-out of the portable prior alone (no database): for each record M of `db`,
/// the prior learned from `prior_databases` without records named as M, then selection
/// with that prior only; `neighbour` holds the prior region used.
std::vector<LooRow> prior_leave_one_out(const compound_sparse::SelectionDatabase& db,
                                        const std::vector<const compound_sparse::SelectionDatabase*>& prior_databases,
                                        const std::vector<std::string>& prior_sources);
/// Writes <out>.md: prior_leave_one_out's table and summary (target median <= 1.25, worst <= 2.0).
void write_prior_loo_report(const compound_sparse::SelectionDatabase& db, const std::string& db_path,
                            const std::vector<const compound_sparse::SelectionDatabase*>& prior_databases,
                            const std::vector<std::string>& prior_sources, const std::string& out);

}  // namespace compound_tune
