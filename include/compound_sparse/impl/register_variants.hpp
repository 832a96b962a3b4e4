#pragma once
// The definition of register_layouts (variant_units.hpp): compile-time loops over
// the variant space's lists (variant_space.hpp) that instantiate SpMV variants and
// register them. Included only by the generated units, which instantiate it
// explicitly (cmake/templates/variant_unit.cpp.in).

#include <compound_sparse/variant_set.hpp>
#include <type_traits>

#include "../error.hpp"
#include "../layouts/layout_tags.hpp"
#include "../products/spmm.hpp"
#include "../products/spmv.hpp"
#include "variant_units.hpp"

namespace compound_sparse {
namespace impl {

template <class Entry, class MemorySpace, class Outer, class Inner, class Vec, ScheduleKind Kind, class Bounds>
void run_variant(const AnyMatrix<Entry, MemorySpace>& a, const coefficient_type_t<Entry>& alpha,
                 const AnyVector<vector_type_t<Entry>, MemorySpace>& x, const coefficient_type_t<Entry>& beta,
                 const AnyVector<vector_type_t<Entry>, MemorySpace>& y, int lanes_per_row) {
  Schedule<Kind, Bounds::threads, Bounds::min_teams> schedule;
  schedule.lanes_per_row = lanes_per_row;
  spmv(schedule, alpha, a.template get<Outer, Inner>(), x.template get<Vec>(), beta, y.template get<Vec>());
}

/// The SpMM of the variant, on multivectors of layout Vec (the key's vector layout).
template <class Entry, class MemorySpace, class Outer, class Inner, class Vec, ScheduleKind Kind, class Bounds>
void run_spmm_variant(const AnyMatrix<Entry, MemorySpace>& a, const coefficient_type_t<Entry>& alpha,
                      const AnyMultiVector<vector_type_t<Entry>, MemorySpace>& x, const coefficient_type_t<Entry>& beta,
                      const AnyMultiVector<vector_type_t<Entry>, MemorySpace>& y, int lanes_per_row) {
  Schedule<Kind, Bounds::threads, Bounds::min_teams> schedule;
  schedule.lanes_per_row = lanes_per_row;
  spmm(schedule, alpha, a.template get<Outer, Inner>(), x.template get<Vec>(), beta, y.template get<Vec>());
}

/// run_spmm_variant for the variants whose SpMM the build compiles: those of the launch
/// bounds of SpmmLaunchBounds, all of them in the full space, those the set lists in the
/// default set (variant_set.hpp); null for the others.
template <class Entry, class MemorySpace, class Outer, class Inner, class Vec, ScheduleKind Kind, class Bounds>
constexpr auto spmm_variant_or_null() {
  using function = void (*)(const AnyMatrix<Entry, MemorySpace>&, const coefficient_type_t<Entry>&,
                            const AnyMultiVector<vector_type_t<Entry>, MemorySpace>&, const coefficient_type_t<Entry>&,
                            const AnyMultiVector<vector_type_t<Entry>, MemorySpace>&, int);
  if constexpr (variant_spmm_in_set_v<Entry, Outer, Inner, Vec, Kind, Bounds>)
    return static_cast<function>(&run_spmm_variant<Entry, MemorySpace, Outer, Inner, Vec, Kind, Bounds>);
  else
    return static_cast<function>(nullptr);
}

template <class Entry, class MemorySpace, class Outer, class Inner>
AnyMatrix<Entry, MemorySpace> convert_any(const HostCsr<Entry>& a, MemoryBudget budget) {
  return AnyMatrix<Entry, MemorySpace>(to_device<Outer, Inner, MemorySpace>(a, budget));
}

template <class Entry, class MemorySpace, class Outer, class Inner>
AnyMatrix<Entry, MemorySpace> convert_device_any(const DeviceCsr<Entry, MemorySpace>& a, MemoryBudget budget) {
  return AnyMatrix<Entry, MemorySpace>(to_layout<Outer, Inner>(a, budget));
}
template <class Entry, class MemorySpace, class Outer>
std::uint64_t device_memory_bytes(const DeviceCsr<Entry, MemorySpace>& a) {
  return layout_memory_bytes<Outer>(a);
}
template <class Entry, class MemorySpace, class Outer>
std::string device_refusal(const DeviceCsr<Entry, MemorySpace>& a) {
  return layout_refusal<Outer>(a);
}

/// Registers the (Outer, Inner) matrix layout and its variants: every vector
/// layout x schedule kind that runs on Outer x compiled launch bounds in the build's
/// variant set (variant_set.hpp), each with its SpMV and, where it runs, its SpMM. The
/// vector layouts are the registry unit's (register_vector_layouts.hpp).
template <class Entry, class MemorySpace, class Outer, class Inner>
void register_layout(VariantRegistry<Entry, MemorySpace>& registry) {
  registry.add_matrix_layout(Outer::name(), Inner::name(), &convert_any<Entry, MemorySpace, Outer, Inner>,
                             &layout_memory_bytes<Outer, Entry>, &layout_refusal<Outer, Entry>);
  registry.add_device_build(Outer::name(), Inner::name(), &convert_device_any<Entry, MemorySpace, Outer, Inner>,
                            &device_memory_bytes<Entry, MemorySpace, Outer>,
                            &device_refusal<Entry, MemorySpace, Outer>);
  VariantKey key;  // filled in place: one key per layout keeps the host code of the many variants small
  key.outer = Outer::name();
  key.inner = Inner::name();
  for_each_type(InnerLayouts{}, [&](auto vec) {
    using Vec = typename decltype(vec)::type;
    key.vector = Vec::name();
    for_each_value(ScheduleKinds{}, [&](auto kind) {
      constexpr ScheduleKind Kind = decltype(kind)::value;
      if constexpr (schedule_supports_outer_v<Kind, Outer>) {
        key.kind = Kind;
        for_each_type(CompiledLaunchBounds{}, [&](auto bounds) {
          using Bounds = typename decltype(bounds)::type;
          if constexpr (variant_in_set_v<Entry, Outer, Inner, Vec, Kind, Bounds>) {
            key.threads = Bounds::threads;
            key.teams_per_sm = Bounds::min_teams;
            registry.add_variant(key, &run_variant<Entry, MemorySpace, Outer, Inner, Vec, Kind, Bounds>,
                                 spmm_variant_or_null<Entry, MemorySpace, Outer, Inner, Vec, Kind, Bounds>());
          }
        });
      }
    });
  });
}

template <class Entry, std::size_t First, std::size_t Last>
void register_layouts(VariantRegistry<Entry>& registry) {
  using MemorySpace = typename Kokkos::DefaultExecutionSpace::memory_space;
  for_each_index<First, Last>([&](auto index) {
    constexpr std::size_t i = decltype(index)::value;
    using Outer = type_at_t<OuterLayouts, i / InnerLayouts::size>;
    using Inner = type_at_t<InnerLayouts, i % InnerLayouts::size>;
    // Variant sets list variants by the declared names: they must be the keys' names.
    COMPOUND_SPARSE_REQUIRE(Outer::name() == declared_outer_layout_names[i / InnerLayouts::size] &&
                                Inner::name() == declared_inner_layout_names[i % InnerLayouts::size],
                            "cmake/CompoundSparseVariantSpace.cmake names the layout "
                                << declared_outer_layout_names[i / InnerLayouts::size] << "."
                                << declared_inner_layout_names[i % InnerLayouts::size] << ", its tags' names are "
                                << Outer::name() << "." << Inner::name());
    register_layout<Entry, MemorySpace, Outer, Inner>(registry);
  });
}

}  // namespace impl
}  // namespace compound_sparse
