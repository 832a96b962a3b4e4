#pragma once
// A quaternionic connection Laplacian on a scale-free graph with hubs: the
// operator of synchronisation problems over rotations (Singer, "Angular
// synchronization by eigenvectors and semidefinite programming", 2011) and of
// vector diffusion maps, with unit quaternions as the connection.
//
//   L = D - W,  W_ij = w_ij q_ij,  q_ji = conj(q_ij),  D_ii = sum_j w_ij,
//
// w_ij uniform in [1/2, 3/2) and q_ij uniform on the unit sphere of the
// quaternions (rejection from the 4-ball, then normalised). L is
// quaternion-hermitian bit for bit (L_ji = conj(L_ij), a real diagonal) and
// positive semi-definite: x* L x = sum over edges of w_ij |x_i - q_ij x_j|^2.
//
// The graph: Barabasi-Albert preferential attachment (each new vertex links to m
// distinct earlier vertices chosen in proportion to their degree, after a clique
// of m + 1 seed vertices), which gives a power-law degree tail, plus four hubs,
// the vertices 0 to 3, that link to n / 4, n / 8, n / 16 and n / 32 random
// vertices as well (a broadcast or infrastructure node of a real network), so
// that the largest row holds over a thousand times the median row's entries at
// every size from 32,768 vertices up. Vertices keep their growth order (the old,
// high-degree ones first, as in a graph ordered by time). Duplicate edges are
// merged; columns are sorted and distinct within each row. Platform-independent
// draws from std::mt19937(seed): the same seed gives the same matrix, bit for bit,
// on every IEEE-754 platform.

#include <cstdint>

#include "../entries/quaternion.hpp"
#include "../layouts/host_csr.hpp"

namespace compound_sparse {
namespace zoo {

/// L on an n-vertex graph with m preferential links per vertex (n >= 128, 1 <= m < n / 4).
HostCsr<Quaternion<double>> hub_connection_laplacian(int n, int m = 3, std::uint32_t seed = 1);

}  // namespace zoo
}  // namespace compound_sparse
