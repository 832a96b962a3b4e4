#pragma once
// The SpMM's search restricted to the matrix layouts whose SpMV was fastest (compound-tune
// and compound-bench --spmm-layouts N): on the H100's first k-bucket database, searching
// the SpMM only on the two fastest SpMV layouts lost at most 0.5% at any k (docs/tuning.md).
#include <algorithm>
#include <compound_sparse/tuning/measurement.hpp>
#include <map>
#include <string>
#include <vector>

namespace compound_tools {

/// The `n` matrix layouts ("outer.inner") with the fastest passing SpMV (k = 1) among
/// `measured`, fastest first; every measured layout when n is 0 or exceeds them.
inline std::vector<std::string> fastest_layouts(const std::vector<compound_sparse::Measurement>& measured, int n) {
  std::map<std::string, double> fastest;
  for (const auto& m : measured)
    if (m.ok && m.k == 1) {
      const std::string layout = m.key().layout_name();
      const auto it = fastest.find(layout);
      if (it == fastest.end() || m.seconds < it->second) fastest[layout] = m.seconds;
    }
  std::vector<std::string> layouts;
  for (const auto& entry : fastest) layouts.push_back(entry.first);
  std::stable_sort(layouts.begin(), layouts.end(),
                   [&](const std::string& p, const std::string& q) { return fastest.at(p) < fastest.at(q); });
  if (n > 0 && static_cast<std::size_t>(n) < layouts.size()) layouts.resize(static_cast<std::size_t>(n));
  return layouts;
}

/// Whether a search restricted to `layouts` (fastest_layouts; empty: no restriction) keeps `key`.
inline bool searched_layout(const std::vector<std::string>& layouts, const compound_sparse::VariantKey& key) {
  return layouts.empty() || std::find(layouts.begin(), layouts.end(), key.layout_name()) != layouts.end();
}

}  // namespace compound_tools
