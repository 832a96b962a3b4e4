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

/// y = A x through `product(x, y)`, untimed: the operator of a solve whose whole time is what
/// counts, so that its launches queue (compare.hpp's TimedSpmv fences around each product).
template <class Product>
struct ProductOperator {
  Product product;
  template <class Vector>
  void apply(const Vector& x, const Vector& y) const {
    product(x, y);
  }
};
template <class Product>
ProductOperator<Product> product_operator(Product product) {
  return {product};
}

/// ||b - A x|| / ||b|| computed afresh (not the recurrence's estimate).
template <class Operator, class Vector>
double relative_residual(const Operator& a, const Vector& b, const Vector& x) {
  Vector r = zeros_like(b, "r");
  a.apply(x, r);
  axpby(1.0, b, -1.0, r);
  const double b_norm = norm2(b);
  return b_norm > 0 ? norm2(r) / b_norm : norm2(r);
}

namespace cg_kernels {

// CG's scalars stay on the device: slots 0 and 1 hold r·r of the current and the next
// iteration (by the parity of the iteration), slot 2 p·Ap, slot 3 the iterations done. An
// iteration runs while r·r > target²; once it stops, every kernel leaves the vectors and
// scalars as they are, so the host may queue several iterations before it looks.
template <class MemorySpace>
using Scalars = Kokkos::View<double[4], MemorySpace>;

template <class Data, class MemorySpace>
struct IterationKernel {
  Data x, r, p, ap;
  Scalars<MemorySpace> s;
  int now = 0;                ///< the slot of this iteration's r·r; 1 - now is the next one's
  double target_squared = 0;  ///< (tolerance ||b||)²
  KOKKOS_INLINE_FUNCTION bool running() const { return s(now) > target_squared; }
};

/// s(2) = p·Ap.
template <class Data, class MemorySpace, int Components>
struct DotPAp : IterationKernel<Data, MemorySpace> {
  using value_type = double;
  KOKKOS_INLINE_FUNCTION void operator()(int i, double& sum) const {
    if (!this->running()) return;
    for (int c = 0; c < Components; ++c)
      sum += static_cast<double>(this->p(i, c)) * static_cast<double>(this->ap(i, c));
  }
};

/// x += alpha p, r -= alpha Ap with alpha = r·r / p·Ap, and the next r·r (kept as it is when
/// the iteration does not run).
template <class Data, class MemorySpace, int Components>
struct UpdateXR : IterationKernel<Data, MemorySpace> {
  using value_type = double;
  KOKKOS_INLINE_FUNCTION void operator()(int i, double& sum) const {
    if (!this->running()) return;
    const double alpha = this->s(this->now) / this->s(2);
    for (int c = 0; c < Components; ++c) {
      this->x(i, c) = alpha * this->p(i, c) + this->x(i, c);
      this->r(i, c) = -alpha * this->ap(i, c) + this->r(i, c);
      sum += static_cast<double>(this->r(i, c)) * static_cast<double>(this->r(i, c));
    }
  }
  KOKKOS_INLINE_FUNCTION void final(double& sum) const {
    if (!this->running()) sum = this->s(this->now);
  }
};

/// p = r + beta p with beta = next r·r / r·r, and the iteration counted.
template <class Data, class MemorySpace, int Components>
struct UpdateP : IterationKernel<Data, MemorySpace> {
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    if (!this->running()) return;
    const double beta = this->s(1 - this->now) / this->s(this->now);
    for (int c = 0; c < Components; ++c) this->p(i, c) = this->r(i, c) + beta * this->p(i, c);
    if (i == 0) this->s(3) += 1;
  }
};

}  // namespace cg_kernels

/// Conjugate gradients for an operator that is symmetric positive definite in
/// the real inner product real_dot: real SPD matrices (3x3-block elasticity) and
/// quaternion-hermitian positive definite ones. Starts from the given x.
///
/// Its scalars stay on the device (cg_kernels): an iteration is the product and three
/// kernels, and the host reads r·r only every `check_interval` iterations (every one where
/// memory is the host's), so that it can queue launches ahead of a GPU instead of waiting for
/// each dot product. The iterations after convergence that it queued do nothing but their
/// products, and the iteration count and x are those of checking every iteration.
template <class Operator, class Vector>
SolveResult cg(const Operator& a, const Vector& b, const Vector& x, double tolerance, int max_iterations) {
  using memory_space = typename Vector::memory_space;
  using execution_space = typename memory_space::execution_space;
  using data = decltype(x.data);
  constexpr int components = cs::component_traits<typename Vector::value_type>::size;
  constexpr int check_interval = Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible ? 1 : 8;
  Vector r = zeros_like(b, "r"), p = zeros_like(b, "p"), ap = zeros_like(b, "ap");
  a.apply(x, r);
  axpby(1.0, b, -1.0, r);  // r = b - A x
  copy(r, p);
  const double target = tolerance * norm2(b);
  const double target_squared = target * target;
  const cg_kernels::Scalars<memory_space> s("examples::cg_scalars");
  const auto slot = [&](int i) { return Kokkos::subview(s, i); };
  Kokkos::deep_copy(slot(0), real_dot(r, r));
  const Kokkos::RangePolicy<execution_space> rows(0, static_cast<int>(x.size()));
  for (int k = 0;; ++k) {
    if (k % check_interval == 0 || k == max_iterations) {
      double rr = 0;
      Kokkos::deep_copy(rr, slot(k % 2));
      if (!(rr > target_squared) || k == max_iterations) break;
    }
    a.apply(p, ap);
    const cg_kernels::IterationKernel<data, memory_space> state{x.data, r.data, p.data,        ap.data,
                                                                s,      k % 2,  target_squared};
    Kokkos::parallel_reduce("examples::cg_p_ap", rows, cg_kernels::DotPAp<data, memory_space, components>{state},
                            slot(2));
    Kokkos::parallel_reduce("examples::cg_update_x_r", rows,
                            cg_kernels::UpdateXR<data, memory_space, components>{state}, slot(1 - k % 2));
    Kokkos::parallel_for("examples::cg_update_p", rows, cg_kernels::UpdateP<data, memory_space, components>{state});
  }
  SolveResult result;
  double iterations = 0;
  Kokkos::deep_copy(iterations, slot(3));
  result.iterations = static_cast<int>(iterations);
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
