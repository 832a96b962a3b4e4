#pragma once
// The smallest eigenpair of an operator that is symmetric in the real inner
// product real_dot (quaternion-hermitian matrices, real symmetric ones), by
// LOBPCG with a block of one vector (Knyazev 2001), unpreconditioned like the
// Krylov solvers: one product with the operator per iteration.
//
// Each iteration minimises the Rayleigh quotient over span{x, r, p}: the
// current vector, its residual r = A x - θ x and the previous step p. The basis
// is orthonormalised first (Gram-Schmidt, twice), so the 3 x 3 Rayleigh-Ritz
// problem is a standard symmetric one; a direction that is (numerically) in the
// span of the others is dropped. A x, A r and A p are carried along by linearity,
// and A x is recomputed from x every `refresh` iterations so the carried product
// does not drift from the true one.
//
// Inverse iteration with an inner CG on A + σI, which the Dirac example used
// before, converges at the rate (γ1 + σ) / (γ2 + σ): with σ fixed against the
// diagonal it stalled once the torus was fine enough that γ1, γ2 << σ (n = 48 on
// the host: 200 steps, 13,061 CG iterations, residual 1.8e-7 relative to γ1;
// n = 300 on an H100: 31,906 iterations, residual 0.92).

#include <array>
#include <cmath>

#include "vector_ops.hpp"

namespace examples {

struct EigenResult {
  double value = 0;     ///< the Rayleigh quotient θ of the returned vector
  double residual = 0;  ///< ||A x - θ x|| / scale, recomputed from x at the end (||x|| = 1)
  int iterations = 0;   ///< products with the operator (the refreshes included)
  bool converged = false;
};

/// The smallest eigenvalue of a symmetric 3 x 3 matrix h (its first `size` rows
/// and columns) and its unit eigenvector, by cyclic Jacobi rotations.
inline void smallest_eigenpair(std::array<std::array<double, 3>, 3> h, int size, double& value,
                               std::array<double, 3>& vector) {
  std::array<std::array<double, 3>, 3> v{};
  for (int i = 0; i < 3; ++i) v[i][i] = 1;
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = 0;
    for (int p = 0; p < size; ++p)
      for (int q = p + 1; q < size; ++q) off += h[p][q] * h[p][q];
    if (off < 1e-300) break;
    for (int p = 0; p < size; ++p)
      for (int q = p + 1; q < size; ++q) {
        if (h[p][q] == 0) continue;
        const double theta = (h[q][q] - h[p][p]) / (2 * h[p][q]);
        const double t = (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < size; ++k) {  // h = J^T h J, columns then rows
          const double hkp = h[k][p], hkq = h[k][q];
          h[k][p] = c * hkp - s * hkq;
          h[k][q] = s * hkp + c * hkq;
        }
        for (int k = 0; k < size; ++k) {
          const double hpk = h[p][k], hqk = h[q][k];
          h[p][k] = c * hpk - s * hqk;
          h[q][k] = s * hpk + c * hqk;
        }
        for (int k = 0; k < size; ++k) {
          const double vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq;
          v[k][q] = s * vkp + c * vkq;
        }
      }
  }
  int smallest = 0;
  for (int i = 1; i < size; ++i)
    if (h[i][i] < h[smallest][smallest]) smallest = i;
  value = h[smallest][smallest];
  for (int k = 0; k < 3; ++k) vector[k] = k < size ? v[k][smallest] : 0;
}

/// The smallest eigenpair of `a` from the start vector x (overwritten with the
/// eigenvector, ||x|| = 1). Converged when ||A x - θ x|| <= tolerance * scale,
/// `scale` an estimate of ||A|| (a bound such as the largest absolute row sum).
template <class Operator, class Vector>
EigenResult lobpcg_smallest(const Operator& a, const Vector& x, double scale, double tolerance, int max_iterations,
                            int refresh = 50) {
  Vector ax = zeros_like(x, "Ax"), r = zeros_like(x, "r"), ar = zeros_like(x, "Ar");
  Vector p = zeros_like(x, "p"), ap = zeros_like(x, "Ap");
  EigenResult result;
  axpby(1.0 / norm2(x), x, 0.0, x);
  a.apply(x, ax);
  ++result.iterations;
  bool have_p = false;
  int steps = 0;
  // Removes from (v, av) its components along the unit vector (u, au).
  const auto remove = [](const Vector& u, const Vector& au, const Vector& v, const Vector& av) {
    const double c = real_dot(u, v);
    axpby(-c, u, 1.0, v);
    axpby(-c, au, 1.0, av);
  };
  // Normalises (v, av); false where v has (numerically) nothing left of its length `before`.
  const auto normalise = [](const Vector& v, const Vector& av, double before) {
    const double n = norm2(v);
    if (!(n > 1e-10 * before)) return false;
    axpby(1.0 / n, v, 0.0, v);
    axpby(1.0 / n, av, 0.0, av);
    return true;
  };
  while (true) {
    result.value = real_dot(x, ax);
    copy(ax, r);
    axpby(-result.value, x, 1.0, r);  // r = A x - θ x, orthogonal to x up to rounding
    result.residual = norm2(r) / scale;
    if (result.residual <= tolerance) {
      result.converged = true;
      break;
    }
    if (result.iterations >= max_iterations) break;
    // The basis: x, then r and p orthonormalised against it (twice: one pass
    // loses orthogonality as r shrinks).
    const double r_length = norm2(r);
    a.apply(r, ar);
    ++result.iterations;
    for (int pass = 0; pass < 2; ++pass) remove(x, ax, r, ar);
    int size = normalise(r, ar, r_length) ? 2 : 1;
    if (have_p) {
      const double p_length = norm2(p);
      for (int pass = 0; pass < 2; ++pass) {
        remove(x, ax, p, ap);
        if (size == 2) remove(r, ar, p, ap);
      }
      if (normalise(p, ap, p_length)) {
        if (size == 1) {  // p takes r's place
          copy(p, r);
          copy(ap, ar);
        }
        ++size;
      }
    }
    if (size == 1) break;  // nothing left to search: x is as good as this arithmetic allows
    const Vector* basis[3] = {&x, &r, &p};
    const Vector* products[3] = {&ax, &ar, &ap};
    std::array<std::array<double, 3>, 3> h{};
    for (int i = 0; i < size; ++i)
      for (int j = i; j < size; ++j) h[i][j] = h[j][i] = real_dot(*basis[i], *products[j]);
    double theta = 0;
    std::array<double, 3> c{};
    smallest_eigenpair(h, size, theta, c);
    // p = c1 r + c2 p (the step), x = c0 x + p; their products alike.
    axpby(c[1], r, size == 3 ? c[2] : 0.0, p);
    axpby(c[1], ar, size == 3 ? c[2] : 0.0, ap);
    axpby(1.0, p, c[0], x);
    axpby(1.0, ap, c[0], ax);
    have_p = true;
    const double length = norm2(x);
    axpby(1.0 / length, x, 0.0, x);
    axpby(1.0 / length, ax, 0.0, ax);
    if (++steps % refresh == 0) {
      a.apply(x, ax);
      ++result.iterations;
    }
  }
  // The final residual from a fresh product, not the carried one.
  a.apply(x, ax);
  result.value = real_dot(x, ax);
  copy(ax, r);
  axpby(-result.value, x, 1.0, r);
  result.residual = norm2(r) / scale;
  result.converged = result.residual <= tolerance;
  return result;
}

}  // namespace examples
