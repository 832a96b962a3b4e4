#pragma once
// A circuit-like complex matrix, shaped like the nodal admittance matrices of
// circuit simulation (RFdevice, the Freescale and ASIC matrices of SuiteSparse):
// most rows hold 4-6 entries, the row lengths have a power-law tail, and a few
// supply and ground nets touch a large share of all nodes, which makes their
// rows AND columns dense.
//
// Of the n nodes, 8 are nets, at rows (2k + 1) n / 16. Net k is attached to
// min(n / 4, {48, 32, 24, 16, 12, 8, 6, 4}[k] sqrt(n)) distinct other nodes
// (49,152 down to 4,096 for n = 2^20; 8,192 = n / 4 down to 724 for n = 2^15): the net's
// row holds those nodes, and each of them has the net in its row. Every other node i gets d_i off-diagonal entries, d_i
// drawn with probability proportional to d^-3.5 on [3, min(2000, n / 8)] (so about 56% of the rows have 4 entries and
// 86% have 4 to 6); its attached nets fill slots first, the rest are other nodes, three in four of them within 16 of i
// (the locality of a netlist's hierarchy), the others anywhere. The pattern is general. Off-diagonal values have real
// and imaginary parts uniform in [-1, 1); the diagonal is (1 + s_i) + i s_i u_i, s_i = sum_j |a_ij| over the row's
// other entries and u_i uniform in [-1/2, 1/2): present in every row and strictly dominant. Columns are sorted and
// distinct within each row. The numbers come from std::mt19937(seed) through platform-independent draws: the same seed
// gives the same matrix, bit for bit, on every IEEE-754 platform.

#include <Kokkos_Core.hpp>
#include <cstdint>

#include "../layouts/host_csr.hpp"

namespace compound_sparse {
namespace zoo {

/// The n x n circuit-like matrix described above (n >= 1024).
HostCsr<Kokkos::complex<double>> circuit_matrix(int n, std::uint32_t seed = 1);

}  // namespace zoo
}  // namespace compound_sparse
