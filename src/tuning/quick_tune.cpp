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

std::vector<VariantKey> quick_tune_candidates(const std::vector<VariantKey>& ranked,
                                              const std::vector<VariantKey>& neighbour_bests,
                                              const VariantKey& heuristic, const std::vector<VariantKey>& alternatives,
                                              int count) {
  std::vector<VariantKey> out;
  const auto add = [&](const VariantKey& k) {
    if (static_cast<int>(out.size()) >= count) return;
    for (const auto& o : out)
      if (o.name() == k.name()) return;
    out.push_back(k);
  };
  // The database's first, then its neighbours' own bests and the next-ranked, but the
  // heuristic always gets a place: it is the one candidate that looked at this matrix
  // rather than at its neighbours.
  const auto add_leaving_one = [&](const std::vector<VariantKey>& list, std::size_t most) {
    for (std::size_t i = 0; i < list.size() && i < most; ++i) {
      if (static_cast<int>(out.size()) + 1 >= count) return;
      add(list[i]);
    }
  };
  add_leaving_one(ranked, 1);
  add_leaving_one(neighbour_bests, neighbour_bests.size());
  add_leaving_one(ranked, ranked.size());
  add(heuristic);
  for (const auto& k : ranked) add(k);  // the heuristic was among them: the next-ranked fill its place
  for (const auto& k : neighbour_bests) add(k);
  for (const auto& k : alternatives) add(k);
  return out;
}

int spmvs_of(const Measurement& m, const TimingOptions& timing) {
  if (m.refused) return 0;
  if (!m.ok) return 1;
  return 1 + timing.warmup + timing.batch * (m.dropped ? 1 : timing.samples);
}

}  // namespace compound_sparse
