#pragma once
// compound-assembly-bench's finite-element cases (fem_assembly_case.cpp): P1 and P2 assembly on
// the device from a tetrahedral mesh (fem/lagrange_assembly.hpp), every way of summing, against
// the COO paths that start from the element contributions.
//
//   fem:N            elasticity, Block<double, 3>, on the box of N^3 cubes (6 N^3 tetrahedra)
//   fem-helmholtz:N  the zoo's Helmholtz operator (volume and absorbing boundary), complex<double>,
//                    on the same box
//   fem-mesh:BASE    elasticity on the TetGen mesh in BASE.node and BASE.ele
//   fem-p2:N         elasticity with P2 elements (nodes: the points, then the edges) on the box
//   fem-p2-mesh:BASE the same on a TetGen mesh

#include <nlohmann/json.hpp>
#include <string>

namespace compound_bench {

/// Whether `kind` (before the colon) names a finite-element case.
bool is_fem_case(const std::string& kind);

/// The case's measurements (timed medians of `samples`); all_ok false where a check failed.
nlohmann::json measure_fem_case(const std::string& spec, int samples, bool& all_ok);

/// The case's table on stdout.
void print_fem_case(const nlohmann::json& r);

}  // namespace compound_bench
