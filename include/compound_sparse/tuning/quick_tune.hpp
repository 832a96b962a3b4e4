#pragma once
// Quick tuning: TunedSpmv times a short list of candidates on the caller's own matrix
// when the database has no record close to it (or always, when asked), within a
// budget of SpMVs, and keeps the fastest (TunedSpmvOptions::quick_tune).
//
// The candidates, at most six and no more than the budget can time: the variant the
// database's selection ranked first for the matrix (its exact record's or its nearest
// records' best-scored, selection.hpp), each nearest record's own best, the next-ranked
// (the first places go to different neighbours' choices because the ranking by a
// weighted mean often puts one launch shape in every top place), then the heuristic's choice, which knows the
// matrix's own row lengths, then where places are left (no database, or few usable
// variants in it) the heuristic's schedule on the other outer layouts that fit. On a
// matrix with a dense row only kinds that split rows are candidates. Each is checked against the double reference, like
// every measurement, then timed by a median of 3 batches after 1 warm-up launch; the batch is as long as the budget
// allows. A candidate whose first batch is over 3x the fastest so far stops there (MeasureOptions::drop_slower_than),
// and one whose layout is over the memory budget or pads beyond 3 slots per non-zero is refused before it is converted.
// Both leave their SpMVs to nobody: the budget is an upper bound.

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "../layouts/host_csr.hpp"
#include "measure.hpp"
#include "selection_database.hpp"
#include "timing.hpp"

namespace compound_sparse {

/// The default budget of quick tuning, in SpMVs of the caller's matrix.
constexpr int default_quick_tune_spmvs = 200;
/// The most candidates quick tuning times.
constexpr int max_quick_tune_candidates = 6;
/// TunedSpmvOptions::close_distance's default: QuickTune::Auto trusts a nearest record within
/// this feature distance (selection.hpp). 0.3 is a ratio of about 1.23 in every feature at
/// once, or 1.5 in one of them. Farther than that, records of other meshes of the same family
/// (a torus beside a subdivided surface) still look close but want other launch shapes, and
/// timing the candidates on the matrix itself lost less on the unseen set and on the tuning
/// zoo left one out (docs/tuning.md). compound-tune --loo reports Auto at other distances.
constexpr double default_close_distance = 0.3;

/// How quick tuning spends `max_spmvs` on `candidates` variants: how many it times and
/// the timing of each (1 check + warmup + batch x samples <= max_spmvs / count). None
/// (count 0) when the budget cannot time one candidate (5 SpMVs).
struct QuickTunePlan {
  int count = 0;
  TimingOptions timing;
  int spmvs_per_candidate() const { return 1 + timing.warmup + timing.batch * timing.samples; }
};
QuickTunePlan quick_tune_plan(int candidates, int max_spmvs, TimingMode mode);

/// At most `count` distinct variants: the first of `ranked` (the database's, best first),
/// then `neighbour_bests` (Selection::neighbour_bests), then the rest of `ranked`, with one
/// place kept for `heuristic`; then `alternatives` where places are left.
std::vector<VariantKey> quick_tune_candidates(const std::vector<VariantKey>& ranked,
                                              const std::vector<VariantKey>& neighbour_bests,
                                              const VariantKey& heuristic, const std::vector<VariantKey>& alternatives,
                                              int count);

/// SpMVs a measurement made under `timing`: the check, the warm-up and its batches
/// (one for a dropped candidate); none for a refused one, one for one that failed.
int spmvs_of(const Measurement& m, const TimingOptions& timing);

struct QuickTuneResult {
  bool ok = false;  ///< some candidate ran correctly and was timed in full; `record.best` is the fastest
  /// For the cache (tuning_cache.hpp): named quick-<fingerprint>, this device's, the features,
  /// the best and the times of the candidates that ran correctly (dropped ones included).
  SelectionRecord record;
  std::vector<Measurement> measurements;  ///< every candidate's, failures with their reason
  double best_seconds = 0;                ///< the best's time, as measured
  int spmvs = 0;                          ///< SpMVs spent, checks included
  std::string timed;                      ///< what was timed, for the explanation
};

/// Times `candidates` (quick_tune_candidates) on `a` within `max_spmvs` SpMVs: a HostCsr,
/// or a DeviceCsr, whose candidates are built and checked on the device.
template <class Matrix>
QuickTuneResult quick_tune(const Matrix& a, const MatrixFeatures& features, const std::vector<VariantKey>& candidates,
                           int max_spmvs, const MemoryBudget& budget) {
  const QuickTunePlan plan = quick_tune_plan(static_cast<int>(candidates.size()), max_spmvs, preferred_timing_mode());
  MeasureOptions options;
  options.timing = plan.timing;
  options.budget = budget;
  const std::vector<VariantKey> keys(candidates.begin(), candidates.begin() + plan.count);
  QuickTuneResult result;
  result.measurements = measure_variants(a, keys, options);
  result.record.name = "quick-" + features.fingerprint;
  result.record.features = features;
  result.record.device = default_device_info().name;
  std::ostringstream timed;
  timed << plan.count << " candidate(s), " << plan.timing.batch << " x " << plan.timing.samples << " timed SpMVs each ("
        << to_string(plan.timing.mode) << " timing):";
  std::vector<std::pair<std::string, double>> times;
  for (const auto& m : result.measurements) {
    result.spmvs += spmvs_of(m, plan.timing);
    timed << " " << m.variant << " ";
    if (m.ok)
      timed << m.seconds * 1e6 << " us" << (m.dropped ? " (dropped after one batch)" : "");
    else
      timed << "failed (" << m.error << ")";
    timed << ";";
    if (m.timed_at(1) && std::isfinite(m.seconds)) times.push_back({m.variant, m.seconds});
    if (m.ok && !m.dropped && (!result.ok || m.seconds < result.best_seconds)) {
      result.ok = true;
      result.record.best = m.variant;
      result.best_seconds = m.seconds;
    }
  }
  if (!times.empty()) result.record.times.push_back(record_times(1, std::move(times)));
  timed << " " << result.spmvs << " SpMVs in all";
  result.timed = timed.str();
  return result;
}

}  // namespace compound_sparse
