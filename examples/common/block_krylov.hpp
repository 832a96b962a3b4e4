#pragma once
// Solvers for several right-hand sides at once, written against any operator with
//   void apply(const Multi& X, const Multi& Y) const;   // Y = A X, k vectors
// and the multivector kernels of multi_vector_ops.hpp: one product with all k search
// directions per iteration, so the operator can be an SpMM (spmm.hpp) that reads the
// matrix once for all of them. Each right-hand side keeps its own recurrence (its own
// step lengths), so each converges as its own solve would; a converged one stops
// changing (its step is 0) while the others go on.
//
// The two operators of the examples, both over one TunedSpmv: spmm_operator (the SpMM
// the database selected for k vectors) and columnwise_operator (the tuned SpMV, once per
// vector), each a TimedSpmv (compare.hpp).

#include <Kokkos_Core.hpp>
#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/tuning/tuned_spmv.hpp>
#include <memory>
#include <vector>

#include "compare.hpp"  // TimedSpmv
#include "multi_vector_ops.hpp"

namespace examples {

/// Y = A X through TunedSpmv's SpMM (one kernel for the k vectors), timed by compare.hpp's
/// TimedSpmv (each product fenced before and after).
template <class Entry>
auto spmm_operator(std::shared_ptr<const cs::TunedSpmv<Entry>> op) {
  using multi = cs::MultiVector<cs::vector_type_t<Entry>, cs::Soa>;
  using coefficient = cs::coefficient_type_t<Entry>;
  return timed_spmv<multi>([op](const multi& x, const multi& y) {
    op->apply(cs::real_value<coefficient>(1), x, cs::real_value<coefficient>(0), y);
  });
}

/// Y = A X through TunedSpmv's SpMV, vector by vector (vector_of: the columns of an Soa
/// multivector are Aos vectors, so TunedSpmv must use aos vectors), timed alike.
template <class Entry>
auto columnwise_operator(std::shared_ptr<const cs::TunedSpmv<Entry>> op) {
  using multi = cs::MultiVector<cs::vector_type_t<Entry>, cs::Soa>;
  using coefficient = cs::coefficient_type_t<Entry>;
  return timed_spmv<multi>([op](const multi& x, const multi& y) {
    for (int j = 0; j < x.count(); ++j)
      op->apply(cs::real_value<coefficient>(1), cs::vector_of(x, j), cs::real_value<coefficient>(0),
                cs::vector_of(y, j));
  });
}

/// Seconds per vector of a TimedSpmv whose every product had `k` vectors.
template <class Operator>
double seconds_per_vector(const Operator& op, int k) {
  return op.products > 0 ? op.seconds / (static_cast<double>(op.products) * k) : 0;
}

struct BlockSolveResult {
  std::vector<int> iterations;            ///< per right-hand side
  std::vector<double> relative_residual;  ///< ||b_j - A x_j|| / ||b_j||, recomputed from x at the end
  int products = 0;                       ///< products with all k vectors (iterations of the longest)
  bool converged = false;                 ///< every right-hand side
};

/// ||b_j - A x_j|| / ||b_j|| for every column, computed afresh.
template <class Operator, class Multi>
std::vector<double> column_relative_residuals(const Operator& a, const Multi& b, const Multi& x) {
  const Multi r = zero_multivector_like(b, "r");
  a.apply(x, r);
  const int k = b.count();
  axpby_columns(std::vector<Kokkos::complex<double>>(k, 1.0), b, std::vector<Kokkos::complex<double>>(k, -1.0), r);
  const auto rr = column_real_dots(r, r), bb = column_real_dots(b, b);
  std::vector<double> out(k);
  for (int j = 0; j < k; ++j) out[j] = bb[j] > 0 ? std::sqrt(rr[j] / bb[j]) : std::sqrt(rr[j]);
  return out;
}

/// COCG (krylov.hpp's cocg) for the k complex symmetric systems A x_j = b_j together,
/// from the given X: one product with the k directions per iteration. A right-hand side
/// whose residual norm falls under tolerance ||b_j|| stops: its step length is 0 and its
/// direction is kept, so its x_j no longer changes.
template <class Operator, class Multi>
BlockSolveResult block_cocg(const Operator& a, const Multi& b, const Multi& x, double tolerance, int max_iterations) {
  using complex = Kokkos::complex<double>;
  const int k = b.count();
  const std::vector<complex> one(k, 1.0), minus_one(k, -1.0);
  const Multi r = zero_multivector_like(b, "r"), p = zero_multivector_like(b, "p"), ap = zero_multivector_like(b, "ap");
  a.apply(x, r);
  axpby_columns(one, b, minus_one, r);  // r = b - A x
  Kokkos::deep_copy(p.data, r.data);
  const auto bb = column_real_dots(b, b);
  std::vector<double> target(k);
  for (int j = 0; j < k; ++j) target[j] = tolerance * std::sqrt(bb[j]);
  std::vector<complex> rho = column_bilinear_dots(r, r);
  auto rr = column_real_dots(r, r);
  BlockSolveResult result;
  result.iterations.assign(k, 0);
  const auto active = [&](int j) { return std::sqrt(rr[j]) > target[j]; };
  const auto any_active = [&] {
    for (int j = 0; j < k; ++j)
      if (active(j)) return true;
    return false;
  };
  while (any_active() && result.products < max_iterations) {
    a.apply(p, ap);
    ++result.products;
    const auto pap = column_bilinear_dots(p, ap);
    std::vector<complex> alpha(k, 0.0), minus_alpha(k, 0.0);
    for (int j = 0; j < k; ++j)
      if (active(j)) {
        alpha[j] = rho[j] / pap[j];
        minus_alpha[j] = -alpha[j];
      }
    axpby_columns(alpha, p, one, x);
    axpby_columns(minus_alpha, ap, one, r);
    const auto rho_next = column_bilinear_dots(r, r);
    std::vector<complex> keep_r(k, 0.0), beta(k, 1.0);  // stopped: p unchanged
    for (int j = 0; j < k; ++j)
      if (active(j)) {
        keep_r[j] = 1.0;
        beta[j] = rho_next[j] / rho[j];
        rho[j] = rho_next[j];
        ++result.iterations[j];
      }
    axpby_columns(keep_r, r, beta, p);
    rr = column_real_dots(r, r);
  }
  result.relative_residual = column_relative_residuals(a, b, x);
  result.converged = true;
  for (const double res : result.relative_residual) result.converged &= res <= 10 * tolerance;
  return result;
}

}  // namespace examples
