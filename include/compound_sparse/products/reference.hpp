#pragma once
// Host reference SpMV in the precision of your choice (tests and the tuner use
// double): y = alpha * A * x + beta * y evaluated sequentially, row by row.
// Inputs are converted component-wise to the entry type rebound to `Scalar`.

#include <vector>

#include "../entries/entry_traits.hpp"
#include "../layouts/host_csr.hpp"

namespace compound_sparse {

/// Converts any compound value to another with the same components (e.g. float -> double).
template <class To, class From>
KOKKOS_INLINE_FUNCTION To convert_components(const From& from) {
  static_assert(component_traits<To>::size == component_traits<From>::size, "component counts differ");
  To to;
  for (int c = 0; c < component_traits<From>::size; ++c)
    component_traits<To>::get(to, c) =
        static_cast<typename component_traits<To>::scalar_type>(component_traits<From>::get(from, c));
  return to;
}

/// A value whose first component is `value` and whose other components are 0:
/// the real number `value` as a coefficient of any kind (1 as complex 1 + 0i).
template <class T>
T real_value(double value) {
  using traits = component_traits<T>;
  T t;
  for (int c = 0; c < traits::size; ++c)
    traits::get(t, c) = static_cast<typename traits::scalar_type>(c == 0 ? value : 0);
  return t;
}

template <class Scalar, class Entry>
std::vector<vector_type_t<typename entry_traits<Entry>::template rebind<Scalar>>> reference_spmv(
    const coefficient_type_t<Entry>& alpha, const HostCsr<Entry>& a, const std::vector<vector_type_t<Entry>>& x,
    const coefficient_type_t<Entry>& beta, const std::vector<vector_type_t<Entry>>& y) {
  using wide_entry = typename entry_traits<Entry>::template rebind<Scalar>;
  using wide = entry_traits<wide_entry>;
  using wide_vector = typename wide::vector_type;
  using wide_coefficient = typename wide::coefficient_type;
  validate(a);
  COMPOUND_SPARSE_REQUIRE(
      x.size() == static_cast<std::size_t>(a.num_cols) && y.size() == static_cast<std::size_t>(a.num_rows),
      "reference_spmv: x or y does not match the matrix size");
  const auto wide_alpha = convert_components<wide_coefficient>(alpha);
  const auto wide_beta = convert_components<wide_coefficient>(beta);
  const bool beta_is_zero = is_zero(beta);
  std::vector<wide_vector> result(a.num_rows);
  for (int r = 0; r < a.num_rows; ++r) {
    wide_vector sum = wide::zero();
    for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
      wide::multiply_add(sum, convert_components<wide_entry>(a.values[k]),
                         convert_components<wide_vector>(x[a.col_indices[k]]));
    result[r] = wide::scale(wide_alpha, sum);
    if (!beta_is_zero) result[r] = wide::add(result[r], wide::scale(wide_beta, convert_components<wide_vector>(y[r])));
  }
  return result;
}

}  // namespace compound_sparse
