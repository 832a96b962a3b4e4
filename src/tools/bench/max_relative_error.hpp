#pragma once
// The check of compound-assembly-bench's products (ours tuned, cuSPARSE's): the largest
// component distance from the double reference over the reference's largest component. The
// max norm, not the 2-norm of measure.hpp's relative_error, so that one wrong row of a 55M-row
// product is not averaged away.

#include <algorithm>
#include <cmath>
#include <compound_sparse/layouts/host_csr.hpp>
#include <compound_sparse/products/reference.hpp>
#include <limits>
#include <type_traits>
#include <vector>

namespace compound_bench {

/// Of y against the double reference of A x; NaN where y holds a NaN or infinity (an
/// unwritten or poisoned output never passes).
template <class Entry>
double max_relative_error(const compound_sparse::HostCsr<Entry>& a,
                          const std::vector<compound_sparse::vector_type_t<Entry>>& x,
                          const std::vector<compound_sparse::vector_type_t<Entry>>& y) {
  namespace cs = compound_sparse;
  using coefficient = cs::coefficient_type_t<Entry>;
  const auto expected = cs::reference_spmv<double>(cs::real_value<coefficient>(1), a, x, cs::real_value<coefficient>(0),
                                                   std::vector<cs::vector_type_t<Entry>>(a.num_rows));
  using wide = cs::component_traits<typename std::decay<decltype(expected[0])>::type>;
  using narrow = cs::component_traits<cs::vector_type_t<Entry>>;
  double largest = 0, worst = 0;
  for (std::size_t i = 0; i < y.size(); ++i)
    for (int k = 0; k < narrow::size; ++k) {
      const double want = wide::get(expected[i], k);
      const double got = static_cast<double>(narrow::get(y[i], k));
      if (!std::isfinite(got)) return std::numeric_limits<double>::quiet_NaN();
      largest = std::max(largest, std::abs(want));
      worst = std::max(worst, std::abs(want - got));
    }
  return largest > 0 ? worst / largest : worst;
}

}  // namespace compound_bench
