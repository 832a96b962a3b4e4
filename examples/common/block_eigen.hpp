#pragma once
// The m smallest eigenpairs of an operator that is symmetric in the real inner product
// (quaternion-hermitian matrices, real symmetric ones) by block LOBPCG (Knyazev 2001),
// unpreconditioned: one product with m vectors per iteration (A R), which an SpMM does in
// one kernel. eigen.hpp's lobpcg_smallest is the one-vector case.
//
// Each iteration minimises the Rayleigh quotient over span{X, R, P} (3m directions: the
// Ritz vectors, their residuals R = A X - X Θ, the previous step P), carrying A X, A R and
// A P along by linearity. The Rayleigh-Ritz problem H c = θ G c (G = SᵀS, H = SᵀAS over the
// basis S) is solved through G's eigen-decomposition: directions whose Gram eigenvalue is
// below 1e-13 of the largest are (numerically) in the span of the others and are dropped,
// which is what keeps the block method stable as R and P shrink. R's and P's columns are
// scaled to unit length first. A X is recomputed from X every `refresh` iterations so the
// carried product does not drift.

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "multi_vector_ops.hpp"

namespace examples {

/// The eigen-decomposition of the symmetric s x s matrix h (row-major) by cyclic Jacobi
/// rotations: values ascending, vectors[i * s + j] component i of the eigenvector of values[j].
inline void symmetric_eigen(std::vector<double> h, int s, std::vector<double>& values, std::vector<double>& vectors) {
  std::vector<double> v(static_cast<std::size_t>(s) * s, 0.0);
  for (int i = 0; i < s; ++i) v[i * s + i] = 1;
  double norm = 0;
  for (const double x : h) norm += x * x;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (int p = 0; p < s; ++p)
      for (int q = p + 1; q < s; ++q) off += h[p * s + q] * h[p * s + q];
    if (off <= 1e-32 * norm || off < 1e-300) break;
    for (int p = 0; p < s; ++p)
      for (int q = p + 1; q < s; ++q) {
        const double hpq = h[p * s + q];
        if (hpq == 0) continue;
        const double theta = (h[q * s + q] - h[p * s + p]) / (2 * hpq);
        const double t = (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), sn = t * c;
        for (int k = 0; k < s; ++k) {  // h = Jᵀ h J: columns, then rows
          const double hkp = h[k * s + p], hkq = h[k * s + q];
          h[k * s + p] = c * hkp - sn * hkq;
          h[k * s + q] = sn * hkp + c * hkq;
        }
        for (int k = 0; k < s; ++k) {
          const double hpk = h[p * s + k], hqk = h[q * s + k];
          h[p * s + k] = c * hpk - sn * hqk;
          h[q * s + k] = sn * hpk + c * hqk;
        }
        for (int k = 0; k < s; ++k) {
          const double vkp = v[k * s + p], vkq = v[k * s + q];
          v[k * s + p] = c * vkp - sn * vkq;
          v[k * s + q] = sn * vkp + c * vkq;
        }
      }
  }
  std::vector<int> order(s);
  for (int i = 0; i < s; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](int a, int b) { return h[a * s + a] < h[b * s + b]; });
  values.assign(s, 0.0);
  vectors.assign(static_cast<std::size_t>(s) * s, 0.0);
  for (int j = 0; j < s; ++j) {
    values[j] = h[order[j] * s + order[j]];
    for (int i = 0; i < s; ++i) vectors[i * s + j] = v[i * s + order[j]];
  }
}

struct BlockEigenResult {
  std::vector<double> values;     ///< the Rayleigh quotients of the returned vectors, ascending
  std::vector<double> residuals;  ///< ||A x_j - θ_j x_j|| / scale, from a fresh product (||x_j|| = 1)
  int iterations = 0;             ///< products with the m vectors (the refreshes included)
  bool converged = false;
};

/// The m = x.count() smallest eigenpairs of `a` from the start block x (overwritten with
/// the eigenvectors). Converged when every ||A x_j - θ_j x_j|| <= tolerance * scale, `scale`
/// an estimate of ||A||.
template <class Operator, class Multi>
BlockEigenResult lobpcg_smallest_block(const Operator& a, Multi x, double scale, double tolerance, int max_iterations,
                                       int refresh = 50) {
  const int m = x.count();
  Multi ax = zero_multivector_like(x, "AX"), r = zero_multivector_like(x, "R"), ar = zero_multivector_like(x, "AR");
  Multi p = zero_multivector_like(x, "P"), ap = zero_multivector_like(x, "AP");
  Multi next_x = zero_multivector_like(x, "X+"), next_ax = zero_multivector_like(x, "AX+"),
        next_p = zero_multivector_like(x, "P+"), next_ap = zero_multivector_like(x, "AP+");
  const auto diagonal = [m](const std::vector<double>& d) {
    std::vector<double> out(static_cast<std::size_t>(m) * m, 0.0);
    for (int j = 0; j < m; ++j) out[j * m + j] = d[j];
    return out;
  };
  const Multi caller = x;  // x's handle moves between buffers below; the result goes back here
  // v = v diag(1 / ||v_j||), and av alike when given (columns of length 0 stay 0); through
  // next_x, free at that point.
  const auto unit_columns = [&](const Multi& v, const Multi* av) {
    std::vector<double> inverse = column_real_dots(v, v);
    for (auto& n : inverse) n = n > 0 ? 1 / std::sqrt(n) : 0;
    const auto scaling = diagonal(inverse);
    for (const Multi* w : {&v, av}) {
      if (w == nullptr) continue;
      combine(*w, scaling, next_x, 0.0);
      Kokkos::deep_copy(w->data, next_x.data);
    }
  };
  BlockEigenResult result;
  a.apply(x, ax);
  ++result.iterations;
  bool have_p = false;
  int steps = 0;
  std::vector<double> theta;
  while (true) {
    // Rayleigh-Ritz over span{X, R, P} (span{X} the first time): G and H by blocks.
    const Multi* basis[3] = {&x, &r, &p};
    const Multi* products[3] = {&ax, &ar, &ap};
    const int blocks = theta.empty() ? 1 : (have_p ? 3 : 2);
    const int s = blocks * m;
    std::vector<double> g(static_cast<std::size_t>(s) * s), h(g.size());
    for (int bi = 0; bi < blocks; ++bi)
      for (int bj = 0; bj < blocks; ++bj) {
        const auto gb = real_gram(*basis[bi], *basis[bj]);
        const auto hb = real_gram(*basis[bi], *products[bj]);
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < m; ++j) {
            g[(bi * m + i) * s + bj * m + j] = gb[i * m + j];
            h[(bi * m + i) * s + bj * m + j] = hb[i * m + j];
          }
      }
    for (int i = 0; i < s; ++i)
      for (int j = 0; j < i; ++j) h[i * s + j] = h[j * s + i] = (h[i * s + j] + h[j * s + i]) / 2;
    std::vector<double> lambda, u;
    symmetric_eigen(g, s, lambda, u);
    std::vector<int> kept;
    for (int i = 0; i < s; ++i)
      if (lambda[i] > 1e-13 * lambda.back()) kept.push_back(i);
    const int q = static_cast<int>(kept.size());
    if (q < m) break;  // the block itself became dependent: as good as this arithmetic allows
    std::vector<double> t(static_cast<std::size_t>(s) * q);  // T = U_kept Λ^{-1/2}: S T is orthonormal
    for (int i = 0; i < s; ++i)
      for (int j = 0; j < q; ++j) t[i * q + j] = u[i * s + kept[j]] / std::sqrt(lambda[kept[j]]);
    std::vector<double> reduced(static_cast<std::size_t>(q) * q, 0.0);  // Tᵀ H T
    for (int i = 0; i < q; ++i)
      for (int j = 0; j < q; ++j) {
        double sum = 0;
        for (int k = 0; k < s; ++k)
          for (int l = 0; l < s; ++l) sum += t[k * q + i] * h[k * s + l] * t[l * q + j];
        reduced[i * q + j] = sum;
      }
    std::vector<double> values, w;
    symmetric_eigen(reduced, q, values, w);
    // C = T W[:, :m], split into the blocks' coefficients.
    std::vector<std::vector<double>> c(blocks, std::vector<double>(static_cast<std::size_t>(m) * m, 0.0));
    for (int i = 0; i < s; ++i)
      for (int j = 0; j < m; ++j) {
        double sum = 0;
        for (int k = 0; k < q; ++k) sum += t[i * q + k] * w[k * q + j];
        c[i / m][(i % m) * m + j] = sum;
      }
    theta.assign(values.begin(), values.begin() + m);
    // P = R C_R + P C_P (the step), X = X C_X + P; their products alike.
    if (blocks > 1) {
      combine(r, c[1], next_p, 0.0);
      combine(ar, c[1], next_ap, 0.0);
      if (blocks == 3) {
        combine(p, c[2], next_p, 1.0);
        combine(ap, c[2], next_ap, 1.0);
      }
      std::swap(p, next_p);
      std::swap(ap, next_ap);
      have_p = true;
    }
    combine(x, c[0], next_x, 0.0);
    combine(ax, c[0], next_ax, 0.0);
    if (blocks > 1) {
      combine(p, diagonal(std::vector<double>(m, 1.0)), next_x, 1.0);
      combine(ap, diagonal(std::vector<double>(m, 1.0)), next_ax, 1.0);
    }
    std::swap(x, next_x);
    std::swap(ax, next_ax);
    if (blocks > 1 && ++steps % refresh == 0) {
      a.apply(x, ax);
      ++result.iterations;
    }
    // R = A X - X Θ; converged when every column's norm is under tolerance * scale.
    Kokkos::deep_copy(r.data, ax.data);
    std::vector<double> minus_theta(m);
    for (int j = 0; j < m; ++j) minus_theta[j] = -theta[j];
    combine(x, diagonal(minus_theta), r, 1.0);
    const auto rr = column_real_dots(r, r);
    bool done = true;
    for (int j = 0; j < m; ++j) done &= std::sqrt(rr[j]) <= tolerance * scale;
    if (done || result.iterations >= max_iterations) break;
    unit_columns(r, nullptr);
    a.apply(r, ar);
    ++result.iterations;
    if (have_p) unit_columns(p, &ap);
  }
  // The final values and residuals from a fresh product, not the carried one.
  a.apply(x, ax);
  const auto xx = column_real_dots(x, x), xax = column_real_dots(x, ax);
  result.values.resize(m);
  for (int j = 0; j < m; ++j) result.values[j] = xax[j] / xx[j];
  Kokkos::deep_copy(r.data, ax.data);
  std::vector<double> minus_theta(m);
  for (int j = 0; j < m; ++j) minus_theta[j] = -result.values[j];
  combine(x, diagonal(minus_theta), r, 1.0);
  const auto rr = column_real_dots(r, r);
  result.residuals.resize(m);
  result.converged = true;
  for (int j = 0; j < m; ++j) {
    result.residuals[j] = std::sqrt(rr[j] / xx[j]) / scale;
    result.converged &= result.residuals[j] <= tolerance;
  }
  std::vector<int> order(m);
  for (int j = 0; j < m; ++j) order[j] = j;
  std::sort(order.begin(), order.end(), [&](int i, int j) { return result.values[i] < result.values[j]; });
  std::vector<double> v(m), res(m);
  for (int j = 0; j < m; ++j) {
    v[j] = result.values[order[j]];
    res[j] = result.residuals[order[j]];
  }
  result.values = v;
  result.residuals = res;
  if (caller.data.data() != x.data.data()) Kokkos::deep_copy(caller.data, x.data);
  return result;
}

}  // namespace examples
