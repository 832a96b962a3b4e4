// Variant selection from the tuning database (include/compound_sparse/tuning/selection.hpp).
#include "compound_sparse/tuning/selection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

namespace compound_sparse {

double feature_distance(const MatrixFeatures& a, const MatrixFeatures& b) {
  const auto f = [](double x) { return std::log2(1.0 + std::max(0.0, x)); };
  // Relative bandwidth (per mille of the rows): locality of x accesses.
  const auto bw = [](const MatrixFeatures& m) { return m.rows > 0 ? 1000.0 * m.bandwidth_mean / m.rows : 0.0; };
  const double terms[][3] = {{1, double(a.rows), double(b.rows)},
                             {1, double(a.nnz), double(b.nnz)},
                             {2, a.nnz_per_row_mean, b.nnz_per_row_mean},
                             {1, a.nnz_per_row_max, b.nnz_per_row_max},
                             {1, a.nnz_per_row_stddev, b.nnz_per_row_stddev},
                             {0.5, bw(a), bw(b)}};
  double sum = 0, weights = 0;
  for (const auto& t : terms) {
    sum += t[0] * std::pow(f(t[1]) - f(t[2]), 2);
    weights += t[0];
  }
  return std::sqrt(sum / weights);
}

double dense_row_threshold(const MatrixFeatures& f, const DeviceInfo& device) {
  const bool gpu = device.compute_major > 0;
  const double resident = static_cast<double>(std::max(1, device.multiprocessors)) * (gpu ? 2048 : 1);
  const double share = std::max(1.0, static_cast<double>(f.rows + f.nnz) / resident);
  return 4 * share * (gpu ? 32 : 1);
}

VariantKey heuristic_variant(const MatrixFeatures& f, const std::vector<VariantKey>& compiled,
                             const std::function<bool(const std::string&)>& fits, double dense_row_threshold) {
  COMPOUND_SPARSE_REQUIRE_KIND(NotCompiled, !compiled.empty(),
                               "no SpMV variant is compiled for " << f.entry_type << " " << f.precision);
  // The default outer layout, or else the first in declaration order that fits.
  const auto& outers = outer_layout_names();
  std::string outer = outers.front();
  if (fits && !fits(outer))
    for (const auto& o : outers)
      if (fits(o)) {
        outer = o;
        break;
      }
  const std::string& inner = inner_layout_names().front();
  const double mean = f.nnz_per_row_mean;
  ScheduleKind kind = rows_spread(f) ? ScheduleKind::DynamicWarp : ScheduleKind::Static;
  if (f.nnz_per_row_max > dense_row_threshold) {
    // A dense row: a kind that splits rows, on the first layout it runs on that fits.
    const auto splitting = std::find_if(compiled.begin(), compiled.end(), [&](const VariantKey& k) {
      return splits_rows(k.kind) && (!fits || fits(k.outer));
    });
    if (splitting != compiled.end()) {
      kind = splitting->kind;
      outer = splitting->outer;
    }
  }
  int lanes = 1;
  while (lanes < 32 && 2 * lanes <= mean / 4) lanes *= 2;

  // 128 x 4 = 512 threads per SM: a middle occupancy that suits every entry type
  // (docs/tuning.md). A build without that pair takes the one nearest in threads
  // per SM, so a narrower launch-bounds set still gets a sensible default.
  const auto threads_per_sm = [](const VariantKey& k) { return double(k.threads) * k.teams_per_sm; };
  const auto preferred = [&](const VariantKey& k) { return k.threads == 128 && k.teams_per_sm == 4; };
  const auto pick = [&](const std::function<bool(const VariantKey&)>& match) -> const VariantKey* {
    const VariantKey* best = nullptr;
    for (const auto& k : compiled)
      if (match(k)) {
        if (preferred(k)) return &k;
        if (best == nullptr ||
            std::abs(std::log2(threads_per_sm(k) / 512)) < std::abs(std::log2(threads_per_sm(*best) / 512)))
          best = &k;
      }
    return best;
  };
  const VariantKey* key = pick(
      [&](const VariantKey& k) { return k.outer == outer && k.inner == inner && k.vector == inner && k.kind == kind; });
  if (key == nullptr) key = pick([&](const VariantKey& k) { return k.outer == outer; });
  if (key == nullptr) key = &compiled.front();
  VariantKey result = *key;
  result.lanes_per_row = uses_lanes(result.kind) ? lanes : 1;
  return result;
}

namespace {

/// A record's variants at k vectors, fastest first: (name, seconds); empty when it has none.
std::vector<std::pair<const std::string*, double>> ranked(const SelectionRecord& m, int k) {
  std::vector<std::pair<const std::string*, double>> r;
  const RecordTimes* times = m.at(k);
  if (times == nullptr) return r;
  r.reserve(times->size());
  for (std::size_t i = 0; i < times->size(); ++i) r.push_back({&times->variant(i), times->seconds(i)});
  std::stable_sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return r;
}

/// Why `name` cannot be used here, or "" if it can.
std::string unusable(const std::string& name, const SelectionContext& context, const MatrixFeatures& f,
                     VariantKey& key) {
  try {
    key = parse_variant_key(name);
  } catch (const std::exception& e) {
    return std::string("unknown variant: ") + e.what();
  }
  if (f.nnz_per_row_max > context.dense_row_threshold && !splits_rows(key.kind))
    return "would serialise the matrix's dense row (" + std::to_string(static_cast<long long>(f.nnz_per_row_max)) +
           " non-zeros)";
  std::string why;
  if (context.usable && !context.usable(key, why)) return why.empty() ? "not usable" : why;
  return "";
}

struct Candidate {
  VariantKey key;
  double score = 0;
};

/// Scores every variant of `records` (see the header); returns usable ones, best first.
std::vector<Candidate> score(const std::vector<std::pair<const SelectionRecord*, double>>& records,
                             const SelectionContext& context, const MatrixFeatures& f,
                             std::vector<std::string>& skipped) {
  const double missing_penalty = std::log(4.0);
  std::map<std::string, std::vector<double>> logs;  // variant -> per record log slowdown (NaN: missing)
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto r = ranked(*records[i].first, context.vectors);
    if (r.empty()) continue;
    for (const auto& [variant, seconds] : r) {
      auto& v = logs[*variant];
      v.resize(records.size(), std::numeric_limits<double>::quiet_NaN());
      v[i] = std::log(seconds / r.front().second);
    }
  }
  std::vector<Candidate> out;
  for (auto& [name, v] : logs) {
    v.resize(records.size(), std::numeric_limits<double>::quiet_NaN());
    double sum = 0, weights = 0;
    for (std::size_t i = 0; i < records.size(); ++i) {
      const double w = 1.0 / (records[i].second + 0.05);
      sum += w * (std::isnan(v[i]) ? missing_penalty : v[i]);
      weights += w;
    }
    Candidate c;
    const std::string why = unusable(name, context, f, c.key);
    if (!why.empty()) {
      skipped.push_back(name + " (" + why + ")");
      continue;
    }
    c.score = sum / weights;
    out.push_back(c);
  }
  std::stable_sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) { return a.score < b.score; });
  return out;
}

/// Each record's own fastest variant among `usable` (score's result for those records, which
/// holds every usable variant they measured), nearest first, without repeats; equal times go
/// to the smaller name, as score() of that record alone would break them.
std::vector<VariantKey> own_bests(const std::vector<std::pair<const SelectionRecord*, double>>& records,
                                  const std::vector<Candidate>& usable, int vectors) {
  std::vector<std::string> names;
  names.reserve(usable.size());
  for (const auto& c : usable) names.push_back(c.key.name());
  std::vector<VariantKey> out;
  for (const auto& record : records) {
    std::size_t best = usable.size();
    double best_seconds = 0;
    for (std::size_t i = 0; i < usable.size(); ++i) {
      const double seconds = record.first->seconds(names[i], vectors);
      if (seconds > 0 &&
          (best == usable.size() || seconds < best_seconds || (seconds == best_seconds && names[i] < names[best]))) {
        best = i;
        best_seconds = seconds;
      }
    }
    if (best < usable.size() &&
        std::none_of(out.begin(), out.end(), [&](const VariantKey& listed) { return listed.name() == names[best]; }))
      out.push_back(usable[best].key);
  }
  return out;
}

std::string summary(const std::vector<std::string>& skipped) {
  std::ostringstream s;
  s << skipped.size() << " variant(s) skipped";
  for (std::size_t i = 0; i < skipped.size() && i < 3; ++i) s << (i ? "; " : ": ") << skipped[i];
  if (skipped.size() > 3) s << "; ...";
  return s.str();
}

}  // namespace

Selection select_variant(const MatrixFeatures& f, const SelectionDatabase* db, const std::string& db_note,
                         const SelectionContext& context) {
  Selection s;
  std::ostringstream why;
  why << "database: " << db_note << ". ";
  if (context.vectors != 1) why << "for k = " << context.vectors << " vectors (SpMM): ";
  if (db != nullptr) {
    const auto other_device = [&context](const SelectionRecord& m) {
      return !context.device_name.empty() && !m.device.empty() && m.device != context.device_name;
    };
    std::vector<std::pair<const SelectionRecord*, double>> same_type;
    bool others = false;
    const auto collect = [&](const std::string& precision) {
      for (const auto& m : db->records)
        if (m.features.entry_type == f.entry_type && m.features.precision == precision &&
            m.name != context.skip_record_name && m.at(context.vectors) != nullptr &&
            m.at(context.vectors)->size() > 0) {
          others = others || other_device(m);
          same_type.push_back(
              {&m, feature_distance(f, m.features) + (other_device(m) ? context.other_device_distance : 0.0)});
        }
    };
    collect(f.precision);
    // Mixed precision stores float entries, and its variants are named as float's: where no
    // mixed record was measured at this k, the entry type's float records stand in (rule
    // nearest; a fingerprint holds the precision, so never rule exact). On the H200's six
    // mixed-precision matrices float's best ran within 1.00-1.11x of mixed's own best.
    std::string precision = f.precision;
    if (same_type.empty() && f.precision == "mixed") {
      precision = "float";
      collect(precision);
      if (!same_type.empty())
        why << "no " << f.entry_type << "/mixed record" << (context.vectors != 1 ? " at this k" : "")
            << ": its float records stand in (mixed stores float entries); ";
    }
    std::stable_sort(same_type.begin(), same_type.end(),
                     [](const auto& a, const auto& b) { return a.second < b.second; });
    if (others)
      why << "records of this device (" << context.device_name << ") preferred: another device's count "
          << context.other_device_distance << " farther; ";
    const auto measured_on = [&](const SelectionRecord& m) {
      return other_device(m) ? std::string(", measured on ") + m.device : std::string();
    };

    // Rule 1: exact fingerprint; its own ranking.
    for (const auto& [m, d] : same_type)
      if (m->features.fingerprint == f.fingerprint) {
        std::vector<std::string> skipped;
        const auto c = score({{m, 0.0}}, context, f, skipped);
        if (!c.empty()) {
          s.key = c.front().key;
          for (const auto& candidate : c) s.ranked.push_back(candidate.key);
          s.rule = "exact";
          s.record = m->name;
          s.record_device = m->device;
          why << "rule exact: fingerprint " << f.fingerprint << " matches record '" << m->name << "'" << measured_on(*m)
              << "; its fastest usable variant";
          if (!skipped.empty()) why << " (" << summary(skipped) << ")";
          s.explanation = why.str();
          return s;
        }
        why << "exact match '" << m->name << "' has no usable variant (" << summary(skipped) << "); ";
        s.warnings.push_back("tuning database record '" + m->name + "' names no usable variant: " + summary(skipped));
      }

    // Rule 2: k nearest of the same entry type and precision.
    const std::size_t k = std::min<std::size_t>(std::max(1, context.neighbours), same_type.size());
    if (k > 0) {
      std::vector<std::pair<const SelectionRecord*, double>> nearest(same_type.begin(), same_type.begin() + k);
      std::vector<std::string> skipped;
      const auto c = score(nearest, context, f, skipped);
      if (!c.empty()) {
        s.key = c.front().key;
        for (const auto& candidate : c) s.ranked.push_back(candidate.key);
        s.rule = "nearest";
        s.record = nearest.front().first->name;
        s.record_device = nearest.front().first->device;
        s.distance = nearest.front().second;
        s.neighbour_bests = own_bests(nearest, c, context.vectors);
        why << "rule nearest: " << k << " nearest " << f.entry_type << "/" << precision << " record(s)";
        for (const auto& [m, d] : nearest) why << " '" << m->name << "' (distance " << d << measured_on(*m) << ")";
        why << "; lowest weighted mean slowdown " << std::exp(c.front().score);
        if (!skipped.empty()) why << " (" << summary(skipped) << ")";
        s.explanation = why.str();
        return s;
      }
      why << "the nearest records name no usable variant (" << summary(skipped) << "); ";
      s.warnings.push_back("tuning database names no usable variant for the nearest records: " + summary(skipped));
    } else {
      why << "no " << f.entry_type << "/" << f.precision << " record";
      if (context.vectors != 1) why << " measured at k = " << context.vectors;
      why << "; ";
    }
  }
  // Rule 3: the portable prior's ranking for the matrix's region.
  if (context.prior != nullptr) {
    const PriorRanking* ranking = find_prior_ranking(*context.prior, f);
    if (ranking == nullptr) {
      why << "the prior has no " << f.entry_type << "/" << f.precision << " region; ";
    } else {
      std::vector<std::string> skipped;
      for (const auto& name : ranking->variants) {
        VariantKey key;
        const std::string why_not = unusable(name, context, f, key);
        if (why_not.empty())
          s.ranked.push_back(key);
        else
          skipped.push_back(name + " (" + why_not + ")");
      }
      if (!s.ranked.empty()) {
        s.key = s.ranked.front();
        s.rule = "prior";
        const PriorRegion own = prior_region(f);
        why << "rule prior: region " << to_string(ranking->region) << " (" << ranking->records << " record(s)";
        if (ranking->region.irregular != own.irregular || ranking->region.size_class != own.size_class)
          why << "; the nearest to this matrix's " << to_string(own);
        why << "), learned from";
        for (std::size_t i = 0; i < context.prior->learned_from.size(); ++i)
          why << (i ? "; " : " ") << context.prior->learned_from[i];
        why << "; mean slowdown there " << std::exp(ranking->scores.front());
        if (!skipped.empty()) why << " (" << summary(skipped) << ")";
        s.explanation = why.str();
        return s;
      }
      why << "the prior's " << to_string(ranking->region) << " ranking names no usable variant (" << summary(skipped)
          << "); ";
    }
  }
  s.key = heuristic_variant(f, context.compiled, context.fits, context.dense_row_threshold);
  s.rule = "heuristic";
  why << "rule heuristic: ";
  if (f.nnz_per_row_max > context.dense_row_threshold)
    why << "a dense row (" << f.nnz_per_row_max << " non-zeros, over " << context.dense_row_threshold << ") -> "
        << to_string(s.key.kind);
  else
    why << "mean " << f.nnz_per_row_mean << " nnz/row -> " << s.key.lanes_per_row
        << " lane(s) per row; row-length stddev " << f.nnz_per_row_stddev << ", max " << f.nnz_per_row_max << " -> "
        << to_string(s.key.kind);
  s.explanation = why.str();
  return s;
}

}  // namespace compound_sparse
