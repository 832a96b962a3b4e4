#pragma once
// What every schedule does with a row's sum A(row,:) x: y(row) = alpha * sum +
// beta * y(row), with the BLAS convention that beta == 0 ignores y's old
// contents (NaN included).

#include <Kokkos_Core.hpp>

#include "../entries/entry_traits.hpp"
#include "../layouts/layout_tags.hpp"
#include "value_access.hpp"

namespace compound_sparse {
namespace impl {

template <class Entry, class YInner>
struct RowResult {
  using traits = entry_traits<Entry>;
  using vector_type = typename traits::vector_type;
  using coefficient_type = typename traits::coefficient_type;

  coefficient_type alpha, beta;
  bool beta_is_zero = false;

  /// alpha and beta, with beta_is_zero as the BLAS convention reads it (is_zero).
  static RowResult make(const coefficient_type& alpha, const coefficient_type& beta) {
    RowResult r;
    r.alpha = alpha;
    r.beta = beta;
    r.beta_is_zero = is_zero(beta);
    return r;
  }

  /// y(row) = alpha * sum + beta * y(row).
  template <class View>
  KOKKOS_INLINE_FUNCTION void store(const View& y, int row, const vector_type& sum) const {
    vector_type result = traits::scale(alpha, sum);
    if (!beta_is_zero) result = traits::add(result, traits::scale(beta, load_value<vector_type, YInner>(y, row)));
    store_value<vector_type, YInner>(y, row, result);
  }
  /// *y = alpha * sum + beta * *y, for a value stored whole (components together).
  KOKKOS_INLINE_FUNCTION void store_at(vector_type* y, const vector_type& sum) const {
    vector_type result = traits::scale(alpha, sum);
    if (!beta_is_zero) result = traits::add(result, traits::scale(beta, *y));
    *y = result;
  }
  /// y(row) += alpha * sum: a further part of a row that store() has written.
  template <class View>
  KOKKOS_INLINE_FUNCTION void accumulate(const View& y, int row, const vector_type& sum) const {
    store_value<vector_type, YInner>(y, row,
                                     traits::add(load_value<vector_type, YInner>(y, row), traits::scale(alpha, sum)));
  }
};

}  // namespace impl
}  // namespace compound_sparse
