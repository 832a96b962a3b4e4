// The non-template half of quick tuning (include/compound_sparse/tuning/quick_tune.hpp).
#include "compound_sparse/tuning/quick_tune.hpp"

namespace compound_sparse {

QuickTunePlan quick_tune_plan(int candidates, int max_spmvs, TimingMode mode) {
  QuickTunePlan plan;
  plan.timing.mode = mode;
  plan.timing.warmup = 1;
  plan.timing.samples = 3;  // a median of three batches: one outlier does not decide
  plan.timing.batch = 1;
  const int least = plan.spmvs_per_candidate();
  plan.count = std::max(0, std::min({candidates, max_quick_tune_candidates, max_spmvs / least}));
  if (plan.count <= 0) return plan;
  const int each = max_spmvs / plan.count;
  plan.timing.batch = std::max(1, (each - 1 - plan.timing.warmup) / plan.timing.samples);
  return plan;
}

std::vector<VariantKey> quick_tune_candidates(const std::vector<VariantKey>& ranked, const VariantKey& heuristic,
                                              const std::vector<VariantKey>& alternatives, int count) {
  std::vector<VariantKey> out;
  const auto add = [&](const VariantKey& k) {
    if (static_cast<int>(out.size()) >= count) return;
    for (const auto& o : out)
      if (o.name() == k.name()) return;
    out.push_back(k);
  };
  // The database's best-ranked first, but the heuristic always gets a place: it is the
  // one candidate that looked at this matrix rather than at its neighbours.
  for (const auto& k : ranked) {
    if (static_cast<int>(out.size()) + 1 >= count) break;
    add(k);
  }
  add(heuristic);
  for (const auto& k : ranked) add(k);  // the heuristic was among them: the next-ranked fill its place
  for (const auto& k : alternatives) add(k);
  return out;
}

int spmvs_of(const Measurement& m, const TimingOptions& timing) {
  if (m.refused) return 0;
  if (!m.ok) return 1;
  return 1 + timing.warmup + timing.batch * (m.dropped ? 1 : timing.samples);
}

}  // namespace compound_sparse
