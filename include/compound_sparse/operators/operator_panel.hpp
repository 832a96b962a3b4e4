#pragma once
// The panels a constant operator is applied to: n vectors of `rows` values each, stored so that
// one thread per vector reads coalesced. Component c of row r of every vector is one contiguous
// run of n scalars, row r * components + c of a LayoutRight View (rows * components) x n: the
// Soa layout, with the vectors as the fast index. That row numbering is the operator
// expansion's (constant_operator.hpp), so a kernel indexes panel rows by expanded column.

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "../error.hpp"
#include "../impl/overlap.hpp"
#include "constant_operator.hpp"

namespace compound_sparse {

template <class Entry, class MemorySpace = typename Kokkos::DefaultExecutionSpace::memory_space>
using OperatorPanel = Kokkos::View<typename ConstantOperator<Entry>::scalar_type**, Kokkos::LayoutRight, MemorySpace>;

/// An uninitialised panel of n vectors of `rows` values.
template <class Entry, class MemorySpace = typename Kokkos::DefaultExecutionSpace::memory_space>
OperatorPanel<Entry, MemorySpace> make_operator_panel(const std::string& label, int rows, std::int64_t n) {
  COMPOUND_SPARSE_REQUIRE(rows >= 0 && n >= 0, "operator panel '" << label << "': " << rows << " rows of " << n
                                                                  << " vectors is no panel size");
  return OperatorPanel<Entry, MemorySpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                                           static_cast<std::size_t>(rows) * ConstantOperator<Entry>::components,
                                           static_cast<std::size_t>(n));
}

/// A device panel from host values, value (r, j) of vector j at values[r * n + j].
template <class Entry, class MemorySpace = typename Kokkos::DefaultExecutionSpace::memory_space>
OperatorPanel<Entry, MemorySpace> operator_panel_from_host(
    const std::string& label, int rows, std::int64_t n,
    const std::vector<typename ConstantOperator<Entry>::vector_type>& values) {
  using vector_components = component_traits<typename ConstantOperator<Entry>::vector_type>;
  COMPOUND_SPARSE_REQUIRE(static_cast<std::int64_t>(values.size()) == static_cast<std::int64_t>(rows) * n,
                          "operator panel '" << label << "': " << values.size() << " values for " << rows << " rows of "
                                             << n << " vectors");
  auto panel = make_operator_panel<Entry, MemorySpace>(label, rows, n);
  auto host = Kokkos::create_mirror_view(panel);
  for (int r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < n; ++j)
      for (int c = 0; c < vector_components::size; ++c)
        host(static_cast<std::size_t>(r) * vector_components::size + c, j) =
            vector_components::get(values[static_cast<std::size_t>(r * n + j)], c);
  Kokkos::deep_copy(panel, host);
  return panel;
}

/// The panel's values on the host, value (r, j) at [r * n + j].
template <class Entry, class MemorySpace>
std::vector<typename ConstantOperator<Entry>::vector_type> operator_panel_to_host(
    const OperatorPanel<Entry, MemorySpace>& panel) {
  using vector_type = typename ConstantOperator<Entry>::vector_type;
  using vector_components = component_traits<vector_type>;
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), panel);
  const std::int64_t rows = static_cast<std::int64_t>(panel.extent(0)) / vector_components::size;
  const std::int64_t n = static_cast<std::int64_t>(panel.extent(1));
  std::vector<vector_type> values(static_cast<std::size_t>(rows * n));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < n; ++j)
      for (int c = 0; c < vector_components::size; ++c)
        vector_components::get(values[static_cast<std::size_t>(r * n + j)], c) =
            host(static_cast<std::size_t>(r * vector_components::size + c), j);
  return values;
}

namespace impl {

/// What every kernel of a rows x cols operator requires of its panels, else InvalidInput
/// naming `who`: B of cols rows, C of rows rows, as many vectors in each, and C not
/// overlapping B (the product would read values it had overwritten).
template <class Entry, class MemorySpace>
void require_operator_panels(const OperatorPanel<Entry, MemorySpace>& b, const OperatorPanel<Entry, MemorySpace>& c,
                             int rows, int cols, const char* who) {
  constexpr int components = ConstantOperator<Entry>::components;
  COMPOUND_SPARSE_REQUIRE(static_cast<std::int64_t>(b.extent(0)) == static_cast<std::int64_t>(cols) * components,
                          who << ": B has " << b.extent(0) / components << " rows, the " << rows << " x " << cols
                              << " operator needs " << cols);
  COMPOUND_SPARSE_REQUIRE(static_cast<std::int64_t>(c.extent(0)) == static_cast<std::int64_t>(rows) * components,
                          who << ": C has " << c.extent(0) / components << " rows, the " << rows << " x " << cols
                              << " operator needs " << rows);
  COMPOUND_SPARSE_REQUIRE(b.extent(1) == c.extent(1),
                          who << ": B holds " << b.extent(1) << " vectors and C " << c.extent(1));
  COMPOUND_SPARSE_REQUIRE(!overlaps(footprint_of(b), footprint_of(c)),
                          who << ": the output panel C overlaps the input B; the product would read values it has "
                                 "already overwritten");
}

}  // namespace impl

}  // namespace compound_sparse
