#pragma once
// Krylov solvers for the examples, written against any operator with
//   void apply(const Vector& x, const Vector& y) const;   // y = A x
// and the vector kernels of vector_ops.hpp. Unpreconditioned on purpose: the
// point of the examples is the SpMV, which then dominates every iteration.

#include <cmath>

#include "vector_ops.hpp"

namespace examples {

struct SolveResult {
  int iterations = 0;
  double relative_residual = 0;  ///< ||b - A x|| / ||b||, recomputed from x at the end
  bool converged = false;
};

/// ||b - A x|| / ||b|| computed afresh (not the recurrence's estimate).
template <class Operator, class Vector>
double relative_residual(const Operator& a, const Vector& b, const Vector& x) {
  Vector r = zeros_like(b, "r");
  a.apply(x, r);
  axpby(1.0, b, -1.0, r);
  const double b_norm = norm2(b);
  return b_norm > 0 ? norm2(r) / b_norm : norm2(r);
}

/// Conjugate gradients for an operator that is symmetric positive definite in
/// the real inner product real_dot: real SPD matrices (3x3-block elasticity) and
/// quaternion-hermitian positive definite ones. Starts from the given x.
template <class Operator, class Vector>
SolveResult cg(const Operator& a, const Vector& b, const Vector& x, double tolerance, int max_iterations) {
  Vector r = zeros_like(b, "r"), p = zeros_like(b, "p"), ap = zeros_like(b, "ap");
  a.apply(x, r);
  axpby(1.0, b, -1.0, r);  // r = b - A x
  copy(r, p);
  const double target = tolerance * norm2(b);
  double rr = real_dot(r, r);
  SolveResult result;
  while (std::sqrt(rr) > target && result.iterations < max_iterations) {
    a.apply(p, ap);
    const double alpha = rr / real_dot(p, ap);
    axpby(alpha, p, 1.0, x);
    axpby(-alpha, ap, 1.0, r);
    const double rr_next = real_dot(r, r);
    axpby(1.0, r, rr_next / rr, p);
    rr = rr_next;
    ++result.iterations;
  }
  result.relative_residual = relative_residual(a, b, x);
  result.converged = result.relative_residual <= 10 * tolerance;
  return result;
}

/// Conjugate orthogonal conjugate gradients (van der Vorst and Melissen 1990)
/// for complex symmetric matrices (A = A^T, not hermitian), like the Helmholtz
/// matrix with an impedance boundary: CG with the unconjugated form x^T y, one
/// SpMV per iteration, residual measured in the hermitian norm.
template <class Operator, class Vector>
SolveResult cocg(const Operator& a, const Vector& b, const Vector& x, double tolerance, int max_iterations) {
  using complex = typename Vector::value_type;
  Vector r = zeros_like(b, "r"), p = zeros_like(b, "p"), ap = zeros_like(b, "ap");
  a.apply(x, r);
  axpby(1.0, b, -1.0, r);
  copy(r, p);
  const double target = tolerance * norm2(b);
  complex rho = bilinear_dot(r, r);
  SolveResult result;
  while (norm2(r) > target && result.iterations < max_iterations) {
    a.apply(p, ap);
    const complex alpha = rho / bilinear_dot(p, ap);
    axpby(alpha, p, complex(1, 0), x);
    axpby(-alpha, ap, complex(1, 0), r);
    const complex rho_next = bilinear_dot(r, r);
    axpby(complex(1, 0), r, rho_next / rho, p);
    rho = rho_next;
    ++result.iterations;
  }
  result.relative_residual = relative_residual(a, b, x);
  result.converged = result.relative_residual <= 10 * tolerance;
  return result;
}

/// cg and cocg as function objects, to hand them to linear_solve (compare.hpp).
struct Cg {
  template <class Operator, class Vector>
  SolveResult operator()(const Operator& a, const Vector& b, const Vector& x, double tolerance, int max) const {
    return cg(a, b, x, tolerance, max);
  }
};
struct Cocg {
  template <class Operator, class Vector>
  SolveResult operator()(const Operator& a, const Vector& b, const Vector& x, double tolerance, int max) const {
    return cocg(a, b, x, tolerance, max);
  }
};

}  // namespace examples
