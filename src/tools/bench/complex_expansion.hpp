#pragma once
// Quaternions as 2x2 complex blocks, the smaller of the two forms cuSPARSE can run
// them in (8 scalars per entry against the 4x4 real block's 16).
//
// q = a + bi + cj + dk = z1 + z2 j with z1 = a + bi, z2 = c + di maps to
//   M(q) = [[ z1, z2 ], [ -conj(z2), conj(z1) ]] = [[a+bi, c+di], [-c+di, a-bi]],
// and M(q p) = M(q) M(p). A vector element p = w + xi + yj + zk travels as the
// first column of M(p), the complex pair (w + xi, -y + zi): M(q) times that
// column is the first column of M(q p). As scalars the pair is (w, x, -y, z),
// so x goes to cuSPARSE with its j components negated, and y comes back with
// them negated (compare it with a reference negated the same way).

#include <compound_sparse/entries/quaternion.hpp>
#include <compound_sparse/layouts/host_csr.hpp>
#include <vector>

namespace compound_sparse_bench {

/// BSR values of `a` as 2x2 complex blocks, row-major within a block, each complex
/// number as (re, im): 8 scalars per entry, in CSR order.
template <class T>
std::vector<T> complex_bsr_values(const compound_sparse::HostCsr<compound_sparse::Quaternion<T>>& a) {
  std::vector<T> values;
  values.reserve(a.num_entries() * 8);
  for (const auto& q : a.values) values.insert(values.end(), {q.w, q.x, q.y, q.z, -q.y, q.z, q.w, -q.x});
  return values;
}

/// A quaternion vector in the pair form above (and back: the map is its own inverse).
template <class Q>
std::vector<Q> complex_pair_form(std::vector<Q> v) {
  for (auto& q : v) q.y = -q.y;
  return v;
}

}  // namespace compound_sparse_bench
