#pragma once
// VariantKey: the name of one compiled SpMV variant plus its run-time lane count,
//   outer layout . matrix inner layout . vector layout . schedule kind
//   . t<threads per team n_t> . b<min teams per SM n_b> . l<lanes per row>
// e.g. "<outer>.soa.aos.dynamic_warp.t256.b4.l1". Keys are what the tuning database
// stores and what selection returns. The names of each part come from the variant
// space (variant_space.hpp): the layout tags' name() and schedule_kind_names.

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "../error.hpp"
#include "../schedules/schedule.hpp"
#include "compound_sparse/variant_space.hpp"

namespace compound_sparse {

namespace impl {
template <class List>
std::vector<std::string> tag_names(List list) {
  std::vector<std::string> names;
  for_each_type(list, [&](auto tag) { names.push_back(decltype(tag)::type::name()); });
  return names;
}
/// "a, b, c" (or with another separator).
inline std::string joined(const std::vector<std::string>& names, const char* separator = ", ") {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : separator) + n;
  return text;
}
}  // namespace impl

/// Names of the outer layouts, in declaration order (the first is the default).
inline const std::vector<std::string>& outer_layout_names() {
  static const std::vector<std::string> names = impl::tag_names(OuterLayouts{});
  return names;
}
/// Names of the inner layouts, for matrices and vectors alike (the first is the default).
inline const std::vector<std::string>& inner_layout_names() {
  static const std::vector<std::string> names = impl::tag_names(InnerLayouts{});
  return names;
}
/// Every schedule kind, in declaration order.
inline const std::vector<ScheduleKind>& schedule_kinds() {
  static const std::vector<ScheduleKind> kinds = [] {
    std::vector<ScheduleKind> k;
    for_each_value(ScheduleKinds{}, [&](auto kind) { k.push_back(decltype(kind)::value); });
    return k;
  }();
  return kinds;
}

/// Whether `kind` uses lanes_per_row; a kind that does not takes lanes_per_row = 1 only.
inline bool uses_lanes(ScheduleKind kind) {
  return schedule_kind_uses_lanes[static_cast<int>(kind)];
}

/// Whether `kind` shares a long row among threads (the others give each row to one lane group).
inline bool splits_rows(ScheduleKind kind) {
  return schedule_kind_splits_rows[static_cast<int>(kind)];
}

/// Whether `kind` runs on the outer layout named `outer` (the declaration's OUTER).
inline bool schedule_supports_outer(ScheduleKind kind, const std::string& outer) {
  bool supported = false;
  for_each_value(ScheduleKinds{}, [&](auto k) {
    constexpr ScheduleKind K = decltype(k)::value;
    if (K == kind)
      for_each_type(typename schedule_outer_layouts<K>::type{},
                    [&](auto tag) { supported = supported || decltype(tag)::type::name() == outer; });
  });
  return supported;
}

struct VariantKey {
  std::string outer = outer_layout_names().front();
  std::string inner = inner_layout_names().front();   ///< matrix entries
  std::string vector = inner_layout_names().front();  ///< x and y
  ScheduleKind kind = schedule_kinds().front();
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
  /// Whether the matrix and the vectors are in the default layouts (the first
  /// declared outer and inner layouts): the layouts of schedule-only tuning.
  bool has_default_layouts() const {
    return outer == outer_layout_names().front() && inner == inner_layout_names().front() &&
           vector == inner_layout_names().front();
  }

  friend bool operator==(const VariantKey& a, const VariantKey& b) { return a.name() == b.name(); }
  friend bool operator<(const VariantKey& a, const VariantKey& b) { return a.name() < b.name(); }
};

inline ScheduleKind parse_schedule_kind(const std::string& text) {
  std::vector<std::string> names;
  for (ScheduleKind k : schedule_kinds()) {
    if (to_string(k) == text) return k;
    names.push_back(to_string(k));
  }
  COMPOUND_SPARSE_REQUIRE(false, "unknown schedule kind '" << text << "' (" << impl::joined(names) << ")");
  return schedule_kinds().front();
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
  const auto one_of = [&](const std::string& part, const std::vector<std::string>& names, const char* what) {
    COMPOUND_SPARSE_REQUIRE(
        std::find(names.begin(), names.end(), part) != names.end(),
        "variant key '" << text << "': unknown " << what << " '" << part << "' (" << impl::joined(names) << ")");
    return part;
  };
  VariantKey key;
  key.outer = one_of(parts[0], outer_layout_names(), "outer layout");
  key.inner = one_of(parts[1], inner_layout_names(), "inner layout");
  key.vector = one_of(parts[2], inner_layout_names(), "inner layout");
  key.kind = parse_schedule_kind(parts[3]);
  key.threads = number(parts[4], 't');
  key.teams_per_sm = number(parts[5], 'b');
  key.lanes_per_row = number(parts[6], 'l');
  COMPOUND_SPARSE_REQUIRE(
      schedule_supports_outer(key.kind, key.outer),
      "variant key '" << text << "': schedule kind " << parts[3] << " does not run on outer layout " << key.outer);
  COMPOUND_SPARSE_REQUIRE(uses_lanes(key.kind) || key.lanes_per_row == 1, "variant key '"
                                                                              << text << "': schedule kind " << parts[3]
                                                                              << " does not use lanes (l1 only)");
  return key;
}

}  // namespace compound_sparse
