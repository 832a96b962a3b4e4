#pragma once
// The problems a LagrangeAssembly (lagrange_assembly.hpp) assembles: each says its entry type
// and element order, and gives entry (a, b) of cell t's element matrix from the cell's geometry,
// a and b being the cell's nodes (P1: corners 0..3; P2: corners, then edges 4..9). A problem of
// your own is a struct with the same members:
//
//   struct MyProblem {
//     using entry_type = ...;                       // the matrix's entry type
//     static constexpr int order = 1;               // 1 (the default) or 2
//     void check(int num_cells) const;              // throws InvalidInput for bad coefficients
//     KOKKOS_FUNCTION entry_type entry(const P1Tet& geometry, int cell, int a, int b) const;
//     // optional, P1 only: terms on the boundary faces, entry (a, b) of a triangle of area `area`
//     static constexpr bool boundary_terms = true;
//     KOKKOS_FUNCTION entry_type boundary_entry(double area, int a, int b) const;
//   };
//
// Coefficients per cell live in Views on the assembly's memory space, so a refresh with new
// coefficients (a changed Young's modulus per cell, a damage or plasticity update) is a new
// problem object passed to assemble(): the pattern, the layout and any map are kept.

#include <Kokkos_Core.hpp>
#include <type_traits>

#include "../entries/block.hpp"
#include "../error.hpp"
#include "p1_elements.hpp"
#include "p2_elements.hpp"

namespace compound_sparse {

/// Linear elasticity in 3x3 blocks with P1 or P2 elements (Order 1 or 2), with Lamé parameters
/// per cell (zoo::lame_parameters turns Young's modulus and Poisson's ratio into them). The same
/// coefficients serve both orders: P2Elasticity<M>{p1.lambda, p1.mu}.
template <int Order, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
struct LagrangeElasticity {
  static_assert(Order == 1 || Order == 2, "LagrangeElasticity: P1 and P2 elements only");
  using entry_type = Block<double, 3>;
  static constexpr int order = Order;
  Kokkos::View<const double*, MemorySpace> lambda;  ///< per cell
  Kokkos::View<const double*, MemorySpace> mu;      ///< per cell

  void check(int num_cells) const {
    COMPOUND_SPARSE_REQUIRE(
        lambda.extent(0) == static_cast<std::size_t>(num_cells) && mu.extent(0) == static_cast<std::size_t>(num_cells),
        "P" << Order << "Elasticity: " << lambda.extent(0) << " lambdas and " << mu.extent(0) << " mus for "
            << num_cells << " cells");
  }
  KOKKOS_INLINE_FUNCTION entry_type entry(const P1Tet& geometry, int cell, int a, int b) const {
    if constexpr (Order == 1)
      return p1_elasticity_block(geometry, a, b, lambda(cell), mu(cell));
    else
      return p2_elasticity_block(geometry, a, b, lambda(cell), mu(cell));
  }
};

template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
using P1Elasticity = LagrangeElasticity<1, MemorySpace>;
template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
using P2Elasticity = LagrangeElasticity<2, MemorySpace>;

/// P1Elasticity with the same Lamé parameters in every cell.
template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
P1Elasticity<MemorySpace> uniform_elasticity(int num_cells, double lambda, double mu) {
  COMPOUND_SPARSE_REQUIRE(num_cells >= 0, "uniform_elasticity: " << num_cells << " cells");
  Kokkos::View<double*, MemorySpace> lambdas(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::lambda"),
                                             num_cells);
  Kokkos::View<double*, MemorySpace> mus(Kokkos::view_alloc(Kokkos::WithoutInitializing, "compound_sparse::mu"),
                                         num_cells);
  Kokkos::deep_copy(lambdas, lambda);
  Kokkos::deep_copy(mus, mu);
  return {lambdas, mus};
}

/// The zoo's Helmholtz operator -Laplace - k^2 with complex scalar entries
/// (zoo::helmholtz_matrix): the volume terms per cell, and an absorbing (impedance) boundary
/// term -i k area/12 (1 + delta_ab) on every boundary face.
struct P1Helmholtz {
  using entry_type = Kokkos::complex<double>;
  /// LagrangeAssembly adds boundary_entry over the mesh's boundary faces after the cells' entries.
  static constexpr bool boundary_terms = true;
  double wavenumber = 1;

  void check(int) const {
    COMPOUND_SPARSE_REQUIRE(wavenumber == wavenumber, "P1Helmholtz: the wavenumber is not a number");
  }
  KOKKOS_INLINE_FUNCTION entry_type entry(const P1Tet& geometry, int, int a, int b) const {
    return entry_type(p1_helmholtz_entry(geometry, a, b, wavenumber * wavenumber), 0.0);
  }
  KOKKOS_INLINE_FUNCTION entry_type boundary_entry(double area, int a, int b) const {
    return entry_type(0.0, p1_impedance_entry(area, a, b, wavenumber));
  }
};

/// Whether a problem has terms on the mesh's boundary faces: its `boundary_terms`, false where
/// it declares none.
template <class Problem, class = void>
struct has_boundary_terms : std::false_type {};
template <class Problem>
struct has_boundary_terms<Problem, std::void_t<decltype(Problem::boundary_terms)>>
    : std::integral_constant<bool, Problem::boundary_terms> {};

}  // namespace compound_sparse
