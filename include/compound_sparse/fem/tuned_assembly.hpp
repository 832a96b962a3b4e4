#pragma once
// Finite-element assembly straight into the layout TunedSpmv chooses, chosen before any value
// exists: TunedSpmv's selection reads the pattern's features only, so the P1 pattern counted
// from the mesh is enough to choose the layout and build it; P1Assembly then writes every
// step's values into that matrix's slots, and the tuned product multiplies with them. No CSR
// of values and no refresh in between. The topology (nodes and pattern) is built once, for
// both.
//
//   const auto topology = lagrange_topology<1>(mesh);
//   const auto tuned = tuned_spmv_of_pattern<Block<double, 3>>(topology.pattern, options);
//   with_tuned_layout(tuned, [&](const auto& matrix) {  // the chosen layout's typed matrix
//     using M = std::decay_t<decltype(matrix)>;
//     const P1Assembly<Block<double, 3>, typename M::outer_layout, typename M::inner_layout> assembly(
//         mesh, topology, Summation::per_node_inline, matrix);
//     for (int step = 0; step < steps; ++step) {
//       assembly.assemble(problem);
//       solve(tuned, b, x);  // tuned.apply(...) multiplies with the assembled values
//     }
//   });
//
// The callback is compiled for every layout of the build (one runs), so it holds the whole loop
// that uses the typed assembly.

#include <Kokkos_Core.hpp>
#include <string>
#include <utility>

#include "../error.hpp"
#include "../layouts/device_csr.hpp"
#include "../tuning/tuned_spmv.hpp"
#include "p1_pattern.hpp"

namespace compound_sparse {

/// The TunedSpmv of a pattern on the device (p1_pattern, p2_pattern), its values zero until an
/// assembly writes them. Its options must not ask for transposed copies, which the assembly
/// would not update (InvalidInput).
template <class Entry>
TunedSpmv<Entry> tuned_spmv_of_pattern(const DevicePattern<typename TunedSpmv<Entry>::memory_space>& pattern,
                                       const TunedSpmvOptions& options = {}) {
  COMPOUND_SPARSE_REQUIRE(options.transposes.empty(),
                          "tuned_spmv_of_pattern: transposed copies would keep the values they were built with; "
                          "ask for none");
  using memory_space = typename TunedSpmv<Entry>::memory_space;
  // Zero values for the build (freed with it): the selection reads the pattern only.
  const Kokkos::View<Entry*, memory_space> zeros("compound_sparse::pattern_values", pattern.entries.extent(0));
  return TunedSpmv<Entry>(make_device_csr(pattern.num_cols, pattern.row_map, pattern.entries, zeros), options);
}

/// Calls f(matrix) with `tuned`'s matrix as the SparseMatrix of the layout it chose.
template <class Entry, class F>
void with_tuned_layout(const TunedSpmv<Entry>& tuned, F&& f) {
  bool found = false;
  for_each_type(OuterLayouts{}, [&](auto outer) {
    using Outer = typename decltype(outer)::type;
    for_each_type(InnerLayouts{}, [&](auto inner) {
      using Inner = typename decltype(inner)::type;
      if (found || tuned.matrix().layout() != Outer::name() + "." + Inner::name()) return;
      found = true;
      f(tuned.matrix().template get<Outer, Inner>());
    });
  });
  COMPOUND_SPARSE_REQUIRE(found, "with_tuned_layout: layout " << tuned.matrix().layout() << " is not in this build");
}

}  // namespace compound_sparse
