#pragma once
// A scale-free graph as a complex matrix: R-MAT (Chakrabarti, Zhan, Faloutsos,
// "R-MAT: a recursive model for graph mining", 2004), the generator of the
// Graph500 benchmark's Kronecker graphs.
//
// n = 2^scale vertices and edge_factor * n directed edges. Each edge picks one
// quadrant of the adjacency matrix per level with probabilities a, b, c, d = 0.57,
// 0.19, 0.19, 0.05 (Graph500's), without per-level noise; the vertices are then
// relabelled by a random permutation (as Graph500 does), so the hubs are scattered
// instead of all at row 0. Duplicate edges are merged (their weights summed) and
// self loops fall on the diagonal, which every row has: row i is
// (1 + s_i) on the diagonal and a weight w_ij per edge i -> j, with real and
// imaginary parts uniform in [-1, 1) and s_i = sum_j |a_ij| over j != i, so the
// matrix is strictly diagonally dominant by rows. Columns are sorted and distinct
// within each row; the pattern is general. Out-degrees follow a power law: with
// edge factor 4, over half the rows hold their diagonal only (vertices without
// out-edges) while the largest hold 1,464 entries at scale 15, 13,159 at scale 20.
// Platform-independent draws from std::mt19937(seed): the same seed gives the same
// matrix, bit for bit, on every IEEE-754 platform.

#include <Kokkos_Core.hpp>
#include <cstdint>

#include "../layouts/host_csr.hpp"

namespace compound_sparse {
namespace zoo {

/// The R-MAT matrix described above (1 <= scale <= 30, edge_factor >= 1).
HostCsr<Kokkos::complex<double>> rmat_matrix(int scale, int edge_factor, std::uint32_t seed = 1);

}  // namespace zoo
}  // namespace compound_sparse
