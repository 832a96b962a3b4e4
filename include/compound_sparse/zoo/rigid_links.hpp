#pragma once
// Rigid links (multi-point constraints) added to a 3x3-block stiffness matrix by
// the penalty method, as FE preprocessors make them (Nastran's RBE2, Abaqus'
// *KINEMATIC COUPLING): a master node with a translation u_m and a rotation
// theta_m, and slave nodes that must follow it rigidly,
//   u_s = u_m + theta_m x (x_s - x_m).
// With r_s = x_s - x_m and [r]_x the cross-product matrix ([r]_x v = r x v), the
// residual of slave s is g_s = u_s - u_m + [r_s]_x theta_m, and the penalty energy
// kappa / 2 sum_s |g_s|^2 adds kappa C_s^T C_s, C_s = [I, -I, [r_s]_x] on
// (u_s, u_m, theta_m):
//   (s,s) += I         (s,m) = -I          (s,theta) = [r]_x
//   (m,m) += I         (m,theta) += -[r]_x  (theta,theta) += |r|^2 I - r r^T
// and the transposes below the diagonal. Each link appends two block rows (u_m,
// then theta_m), which hold a block per slave: a link with thousands of slaves
// gives rows thousands of blocks long in a matrix whose other rows hold about 15.
// The result is symmetric bit for bit (each block is computed once and transposed
// exactly) and keeps K's positive (semi-)definiteness; the rigid motions of a link
// and its slaves are in the null space of the penalty term.

#include <vector>

#include "../entries/block.hpp"
#include "../layouts/host_csr.hpp"
#include "tet_mesh.hpp"

namespace compound_sparse {
namespace zoo {

struct RigidLink {
  Point3 master;            ///< where the master node sits: the centre of the link's rotation
  std::vector<int> slaves;  ///< distinct block rows of the stiffness matrix (nodes) tied to the master
};

/// k (one block row per node, the node at points[i]) with the links' penalty terms
/// added, `penalty` = kappa > 0. Link l's translation is block row
/// k.num_rows + 2 l, its rotation block row k.num_rows + 2 l + 1. Columns come out
/// sorted when k's are.
HostCsr<Block<double, 3>> add_rigid_links(const HostCsr<Block<double, 3>>& k, const std::vector<Point3>& points,
                                          const std::vector<RigidLink>& links, double penalty);

/// The zoo's elasticity with rigid links: P1 elasticity (E = 1, nu = 0.3) on
/// box_mesh(n, n, n), its bottom (z = 0) clamped as apply_dirichlet does, and five
/// links with kappa = 1000 times K's largest diagonal coefficient:
///  - a rigid cap: every node of the top floor(cap_fraction (n + 1)) layers, tied
///    to a master above the top face's centre (a stiff part bonded onto an
///    elastic base, both meshed, the stiff one made rigid as preprocessors do);
///  - four side patches: the nodes of each side face between the clamped layer and
///    the cap, tied to a master outside the face's centre (bolts or load
///    introduction points); a node on a vertical edge belongs to the x face.
/// (n + 1)^3 + 10 block rows. The cap's two rows hold about cap_fraction (n + 1)^3
/// blocks; the median row holds 15 while the cap's slaves (whose rows gain 2
/// blocks) are fewer than the other nodes, 17 once they are more.
HostCsr<Block<double, 3>> rigid_link_elasticity(int n, double cap_fraction);

}  // namespace zoo
}  // namespace compound_sparse
