#pragma once
// VariantKey: the name of one compiled SpMV variant plus its run-time lane count,
// e.g. "sell32.soa.aos.dynamic_warp.t256.b4.l1":
//   outer layout . matrix inner layout . vector layout . schedule kind
//   . t<threads per team n_t> . b<min teams per SM n_b> . l<lanes per row>
// Keys are what the tuning database stores and what selection returns.

#include <sstream>
#include <string>
#include <vector>

#include "error.hpp"
#include "schedule.hpp"

namespace compound_sparse {

struct VariantKey {
  std::string outer = "csr";   ///< csr | ell | sell16 | sell32
  std::string inner = "aos";   ///< matrix entries: aos | soa
  std::string vector = "aos";  ///< x and y: aos | soa
  ScheduleKind kind = ScheduleKind::Static;
  int threads = 128;      ///< n_t
  int teams_per_sm = 4;   ///< n_b
  int lanes_per_row = 1;  ///< 1, 2, 4, ..., 32

  /// The compiled part of the key (everything but the lanes): names one function.
  std::string compiled_name() const {
    return outer + "." + inner + "." + vector + "." + to_string(kind) + ".t" + std::to_string(threads) + ".b" +
           std::to_string(teams_per_sm);
  }
  std::string layout_name() const { return outer + "." + inner; }
  std::string name() const { return compiled_name() + ".l" + std::to_string(lanes_per_row); }

  friend bool operator==(const VariantKey& a, const VariantKey& b) { return a.name() == b.name(); }
  friend bool operator<(const VariantKey& a, const VariantKey& b) { return a.name() < b.name(); }
};

inline ScheduleKind parse_schedule_kind(const std::string& text) {
  for (ScheduleKind k : {ScheduleKind::Static, ScheduleKind::DynamicTeam, ScheduleKind::DynamicWarp})
    if (to_string(k) == text) return k;
  COMPOUND_SPARSE_REQUIRE(false, "unknown schedule kind '" << text << "' (static, dynamic_team, dynamic_warp)");
  return ScheduleKind::Static;
}

/// Parses VariantKey::name(); throws compound_sparse::Error naming the bad part.
inline VariantKey parse_variant_key(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, '.');) parts.push_back(part);
  COMPOUND_SPARSE_REQUIRE(parts.size() == 7, "variant key '" << text << "' does not have the form "
                                                             << "outer.inner.vector.kind.tN.bN.lN");
  const auto number = [&](const std::string& part, char prefix) {
    COMPOUND_SPARSE_REQUIRE(part.size() >= 2 && part[0] == prefix &&
                                part.find_first_not_of("0123456789", 1) == std::string::npos && part.size() < 7,
                            "variant key '" << text << "': '" << part << "' should be " << prefix << "<number>");
    return std::stoi(part.substr(1));
  };
  VariantKey key;
  key.outer = parts[0];
  key.inner = parts[1];
  key.vector = parts[2];
  COMPOUND_SPARSE_REQUIRE(key.outer == "csr" || key.outer == "ell" || key.outer == "sell16" || key.outer == "sell32",
                          "variant key '" << text << "': unknown outer layout '" << key.outer << "'");
  for (const auto* layout : {&key.inner, &key.vector})
    COMPOUND_SPARSE_REQUIRE(*layout == "aos" || *layout == "soa",
                            "variant key '" << text << "': unknown inner layout '" << *layout << "'");
  key.kind = parse_schedule_kind(parts[3]);
  key.threads = number(parts[4], 't');
  key.teams_per_sm = number(parts[5], 'b');
  key.lanes_per_row = number(parts[6], 'l');
  return key;
}

}  // namespace compound_sparse
