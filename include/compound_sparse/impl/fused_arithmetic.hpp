#pragma once
// Multiplies and multiply-adds whose rounding the compiler cannot change, for the
// built-in entry types' arithmetic (entry_traits.hpp, quaternion.hpp, block.hpp).
//
// Why: with contraction on (nvcc's default --fmad=true), `a * b - c * d` may become
// fma(a, b, -(c * d)) or fma(-c, d, a * b), two different roundings, and which one
// ptxas picks can follow the kernel around it (its register limit, from the launch
// bounds). The SpMM then no longer gives the bits of one SpMV per vector, which
// spmm.hpp promises; it was seen on sell32.soa at 256:8 with complex entries. Written
// with explicit fma and a multiply that is never fused (__fmul_rn / __dmul_rn), every kernel rounds
// alike. On the host the plain expression stays (std::fma where the target has a
// fused instruction, FP_FAST_FMA): host compilers do not contract across kernels
// unless told to, and a libm call per product would cost the host backend.

#include <Kokkos_Core.hpp>
#include <cmath>

namespace compound_sparse {
namespace impl {

/// a * b + c, rounded once on devices.
KOKKOS_INLINE_FUNCTION float fused_multiply_add(float a, float b, float c) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return fmaf(a, b, c);
#elif defined(FP_FAST_FMAF)
  return std::fma(a, b, c);
#else
  return a * b + c;
#endif
}
KOKKOS_INLINE_FUNCTION double fused_multiply_add(double a, double b, double c) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return fma(a, b, c);
#elif defined(FP_FAST_FMA)
  return std::fma(a, b, c);
#else
  return a * b + c;
#endif
}
/// Other scalar types (a user's rebind): the plain expression.
template <class T>
KOKKOS_INLINE_FUNCTION T fused_multiply_add(const T& a, const T& b, const T& c) {
  return a * b + c;
}

/// a * b, never fused with an add that consumes it.
KOKKOS_INLINE_FUNCTION float unfused_multiply(float a, float b) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
KOKKOS_INLINE_FUNCTION double unfused_multiply(double a, double b) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
template <class T>
KOKKOS_INLINE_FUNCTION T unfused_multiply(const T& a, const T& b) {
  return a * b;
}

}  // namespace impl
}  // namespace compound_sparse
