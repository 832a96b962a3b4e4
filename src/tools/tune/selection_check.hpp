#pragma once
// Selection quality measured on the device (compound-tune --check-selection): for each
// matrix, TunedSpmv is built as a user would build it, against a database that holds no
// record of that matrix (leave-one-out: every record of that name is removed), in three
// modes -- QuickTune::Never (the database's selection alone), QuickTune::Always (quick
// tuning on the matrix, quick_tune.hpp) and QuickTune::Auto (quick tuning only where no
// record is close) -- and the variants it chose are timed in this process, with the
// perf suite's timing, beside the exhaustive search's best for the matrix (the record
// of a full compound-tune run: the left-out record itself, or one from another
// database for matrices the first has never seen). ratio = chosen / best, both timed
// here, so no machine-to-machine difference enters it; it can be below 1 where the
// search's best is not the fastest in this process.
//
// Against `--loo` (leave_one_out.hpp), which looks the chosen variants up in the
// stored times, this is the check with quick tuning's own short timing in it, and on
// matrices the database never saw.
//
// With another build's report (--compare-with), that build's three choices are timed here
// too, so two builds' selections (the default variant set against the full space) are
// compared in one process: a build that lacks a variant cannot time it, so the comparison
// runs in the build that has both.
#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "compound_sparse/tuning/measure.hpp"
#include "compound_sparse/tuning/selection_database.hpp"
#include "compound_sparse/tuning/tuned_spmv.hpp"

namespace compound_tune {

/// One mode's choice for a matrix and its time in this process.
struct CheckedChoice {
  std::string variant;
  std::string rule;  ///< TunedSpmv::rule(): exact, nearest, prior, heuristic or quick
  int spmvs = 0;     ///< SpMVs quick tuning spent (TunedSpmv::tuning_spmvs)
  double seconds = 0;
  double ratio = 0;   ///< seconds / the exhaustive best's seconds; 0 when either did not run
  std::string error;  ///< why it has no time
};

struct SelectionCheckRow {
  std::string name, entry_type, precision;
  long long rows = 0, nnz = 0;
  std::string best;           ///< the exhaustive search's best (its record's)
  double best_seconds = 0;    ///< timed in this process
  double stored_seconds = 0;  ///< the record's time for it (another process, maybe another machine)
  CheckedChoice never, always, automatic;
  /// The compared report's choices for the pair (never, always, auto), timed here; their
  /// variant is empty when there is no compared report or it lacks the pair.
  CheckedChoice compared_never, compared_always, compared_automatic;
  std::string error;  ///< why the row has no ratios (no exhaustive record, the best failed)
};

/// Another report's choices (never, always, auto) by "matrix entry_type/precision".
using ComparedChoices = std::map<std::string, std::array<std::string, 3>>;

/// The choices of the report `<path>` (a .json that write_selection_check wrote); throws
/// naming the file and the field when it is not one.
ComparedChoices read_compared_choices(const std::string& path);

/// The key of ComparedChoices.
inline std::string pair_key(const std::string& name, const std::string& entry_type, const std::string& precision) {
  return name + " " + entry_type + "/" + precision;
}

struct SelectionCheckOptions {
  int quick_tune_spmvs = compound_sparse::default_quick_tune_spmvs;
  int neighbours = 3;
  compound_sparse::TimingOptions timing;  ///< for the chosen variants and the best
};

/// `db` without any record named `name`, written (in the shipped form TunedSpmv reads) as
/// this device's database file in `dir` (where TunedSpmv looks for it).
void write_left_out_database(const compound_sparse::SelectionDatabase& db, const std::string& name,
                             const std::string& dir);

/// Checks selection for matrix `a` (named `name` in the databases). `left_out_dir` holds
/// the database without `name` (write_left_out_database); `best` is the exhaustive
/// record, null when there is none (the row then says so and has no ratios); `compared`,
/// another build's choices for the pair, or null.
template <class Entry>
SelectionCheckRow check_selection(const compound_sparse::HostCsr<Entry>& a, const std::string& name,
                                  const std::string& left_out_dir, const compound_sparse::SelectionRecord* best,
                                  const SelectionCheckOptions& options,
                                  const std::array<std::string, 3>* compared = nullptr) {
  namespace cs = compound_sparse;
  SelectionCheckRow row;
  row.name = name;
  row.entry_type = cs::entry_type_name<Entry>();
  row.precision = cs::precision_name<Entry>();
  row.rows = a.num_rows;
  row.nnz = static_cast<long long>(a.num_entries());
  const auto choose = [&](cs::QuickTune mode) {
    cs::TunedSpmvOptions o;
    o.database_dir = left_out_dir;
    o.quick_tune = mode;
    o.quick_tune_spmvs = options.quick_tune_spmvs;
    o.neighbours = options.neighbours;
    o.use_cache = false;  // every mode decides afresh: no earlier quick tuning is an exact hit
    const cs::TunedSpmv<Entry> op(a, o);
    CheckedChoice c;
    c.variant = op.variant().name();
    c.rule = op.rule();
    c.spmvs = op.tuning_spmvs();
    return c;
  };
  row.never = choose(cs::QuickTune::Never);
  row.always = choose(cs::QuickTune::Always);
  row.automatic = choose(cs::QuickTune::Auto);
  CheckedChoice* const compared_choices[] = {&row.compared_never, &row.compared_always, &row.compared_automatic};
  if (compared != nullptr)
    for (int i = 0; i < 3; ++i) compared_choices[i]->variant = (*compared)[i];
  if (best == nullptr || best->best.empty()) {
    row.error = "no exhaustive record of " + name + " " + row.entry_type + "/" + row.precision;
    return row;
  }
  row.best = best->best;
  row.stored_seconds = best->seconds(best->best, 1);

  // The best and the three choices, each variant once, timed alike.
  std::vector<cs::VariantKey> keys;
  for (const std::string& v : {row.best, row.never.variant, row.always.variant, row.automatic.variant,
                               row.compared_never.variant, row.compared_always.variant, row.compared_automatic.variant})
    if (!v.empty() && std::none_of(keys.begin(), keys.end(), [&](const cs::VariantKey& k) { return k.name() == v; }))
      keys.push_back(cs::parse_variant_key(v));
  cs::MeasureOptions measure;
  measure.timing = options.timing;
  measure.drop_slower_than = 0;  // every one gets the full timing
  measure.max_padding_ratio = 0;
  const auto measured = cs::measure_variants(a, keys, measure);
  // The measurement of variant `v`; one that did not run says why.
  const auto find = [&measured](const std::string& v) {
    const auto it =
        std::find_if(measured.begin(), measured.end(), [&](const cs::Measurement& m) { return m.variant == v; });
    if (it != measured.end()) return *it;
    cs::Measurement missing;
    missing.variant = v;
    missing.error = "not measured";
    return missing;
  };
  const cs::Measurement b = find(row.best);
  if (b.ok)
    row.best_seconds = b.seconds;
  else
    row.error = "the exhaustive best " + row.best + " failed here: " + b.error;
  for (CheckedChoice* c :
       {&row.never, &row.always, &row.automatic, &row.compared_never, &row.compared_always, &row.compared_automatic}) {
    if (c->variant.empty()) continue;
    const cs::Measurement m = find(c->variant);
    if (!m.ok) {
      c->error = m.error;
      continue;
    }
    c->seconds = m.seconds;
    if (row.best_seconds > 0) c->ratio = c->seconds / row.best_seconds;
  }
  return row;
}

/// Writes <out>.json and <out>.md: every row, and per mode the median and worst ratio
/// against the targets (quick tuning: median <= 1.10, worst <= 1.35, <= 200 SpMVs). With
/// `compared_with` (the compared report's path, "" for none), per mode the compared
/// choice's time over this build's: geometric mean, worst and the pairs beyond 5%.
void write_selection_check(const std::vector<SelectionCheckRow>& rows, const std::string& db_path,
                           const std::string& best_from, const SelectionCheckOptions& options,
                           const std::string& command, const std::string& out, const std::string& compared_with = "");

}  // namespace compound_tune
