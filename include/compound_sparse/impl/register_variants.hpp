#pragma once
// Compile-time loops that instantiate SpMV variants and register them. Used
// only by the generated translation units (cmake/CompoundSparseVariants.cmake).

#include <type_traits>

#include "../layouts.hpp"
#include "../registry.hpp"
#include "../spmv.hpp"

namespace compound_sparse {
namespace impl {

template <unsigned Threads, unsigned MinTeams>
struct Bounds {
  static constexpr unsigned threads = Threads;
  static constexpr unsigned min_teams = MinTeams;
};

template <class Entry, class MemorySpace, class Outer, class Inner, class Vec, ScheduleKind Kind, class B>
void run_variant(const AnyMatrix<Entry, MemorySpace>& a, const coefficient_type_t<Entry>& alpha,
                 const AnyVector<vector_type_t<Entry>, MemorySpace>& x, const coefficient_type_t<Entry>& beta,
                 const AnyVector<vector_type_t<Entry>, MemorySpace>& y, int lanes_per_row) {
  Schedule<Kind, B::threads, B::min_teams> schedule;
  schedule.lanes_per_row = lanes_per_row;
  spmv(schedule, alpha, a.template get<Outer, Inner>(), x.template get<Vec>(), beta, y.template get<Vec>());
}

template <class Entry, class MemorySpace, class Outer, class Inner>
AnyMatrix<Entry, MemorySpace> convert_any(const HostCsr<Entry>& a, MemoryBudget budget) {
  return AnyMatrix<Entry, MemorySpace>(to_device<Outer, Inner, MemorySpace>(a, budget));
}

template <class Entry, class MemorySpace, class Inner>
AnyVector<vector_type_t<Entry>, MemorySpace> convert_any_vector(const std::vector<vector_type_t<Entry>>& v) {
  return AnyVector<vector_type_t<Entry>, MemorySpace>(to_device<Inner, MemorySpace>(v));
}

template <class Entry, class MemorySpace, class Outer, class Inner, class Vec, ScheduleKind Kind, class... B>
void register_bounds(VariantRegistry<Entry, MemorySpace>& registry) {
  const auto add = [&](auto bounds) {
    using Bd = decltype(bounds);
    VariantKey key;
    key.outer = Outer::name();
    key.inner = Inner::name();
    key.vector = Vec::name();
    key.kind = Kind;
    key.threads = Bd::threads;
    key.teams_per_sm = Bd::min_teams;
    registry.add_variant(key, &run_variant<Entry, MemorySpace, Outer, Inner, Vec, Kind, Bd>);
  };
  (add(B{}), ...);
}

/// Registers every variant of one (outer, matrix inner) layout with the launch bounds B...
template <class Entry, class MemorySpace, class Outer, class Inner, class... B>
void register_layout(VariantRegistry<Entry, MemorySpace>& registry) {
  registry.add_matrix_layout(Outer::name() + "." + Inner::name(), &convert_any<Entry, MemorySpace, Outer, Inner>,
                             &layout_memory_bytes<Outer, Entry>);
  registry.add_vector_layout("aos", &convert_any_vector<Entry, MemorySpace, Aos>);
  registry.add_vector_layout("soa", &convert_any_vector<Entry, MemorySpace, Soa>);
  const auto for_kinds = [&](auto vec) {
    using V = decltype(vec);
    register_bounds<Entry, MemorySpace, Outer, Inner, V, ScheduleKind::Static, B...>(registry);
    register_bounds<Entry, MemorySpace, Outer, Inner, V, ScheduleKind::DynamicTeam, B...>(registry);
    register_bounds<Entry, MemorySpace, Outer, Inner, V, ScheduleKind::DynamicWarp, B...>(registry);
  };
  for_kinds(Aos{});
  for_kinds(Soa{});
}

}  // namespace impl
}  // namespace compound_sparse
