// A user-defined entry type: dual numbers a + b*eps (eps^2 = 0), defined the way
// entry_traits.hpp documents, then run through the full SpMV variant suite.
#include <gtest/gtest.h>

#include "spmm_test_suite.hpp"
#include "spmv_test_suite.hpp"

namespace user {
template <class T>
struct Dual {
  T a;  ///< real part
  T b;  ///< eps part
};
}  // namespace user

namespace compound_sparse {
template <class T>
struct component_traits<user::Dual<T>> {
  using scalar_type = T;
  static constexpr int size = 2;
  KOKKOS_INLINE_FUNCTION static T& get(user::Dual<T>& d, int c) { return c == 0 ? d.a : d.b; }
  KOKKOS_INLINE_FUNCTION static T get(const user::Dual<T>& d, int c) { return c == 0 ? d.a : d.b; }
};

template <class T>
struct entry_traits<user::Dual<T>> {
  using vector_type = user::Dual<T>;
  using coefficient_type = T;
  template <class S>
  using rebind = user::Dual<S>;
  KOKKOS_INLINE_FUNCTION static vector_type zero() { return {T(0), T(0)}; }
  // (a1 + b1 eps)(a2 + b2 eps) = a1 a2 + (a1 b2 + b1 a2) eps
  KOKKOS_INLINE_FUNCTION static void multiply_add(vector_type& acc, const user::Dual<T>& m, const vector_type& x) {
    acc.a += m.a * x.a;
    acc.b += m.a * x.b + m.b * x.a;
  }
  KOKKOS_INLINE_FUNCTION static vector_type scale(T s, const vector_type& v) { return {s * v.a, s * v.b}; }
  KOKKOS_INLINE_FUNCTION static vector_type add(const vector_type& u, const vector_type& v) {
    return {u.a + v.a, u.b + v.b};
  }
};
}  // namespace compound_sparse

TEST(UserEntry, DualNumberArithmetic) {
  using traits = compound_sparse::entry_traits<user::Dual<double>>;
  user::Dual<double> acc{1, 1};
  traits::multiply_add(acc, {2, 3}, {4, 5});  // (2+3e)(4+5e) = 8 + 22e
  EXPECT_DOUBLE_EQ(acc.a, 9);
  EXPECT_DOUBLE_EQ(acc.b, 23);
}

// Forward-mode derivative: with A = A0 + eps*A1 and x = x0 + eps*x1, the eps part
// of A x is A0 x1 + A1 x0, the directional derivative of the product.
TEST(UserEntry, SpmvComputesDerivative) {
  namespace cs = compound_sparse;
  using D = user::Dual<double>;
  cs::HostCsr<D> a = cs::csr_from_coo<D>(2, 2, {{0, 0, {2, 1}}, {0, 1, {3, 0}}, {1, 1, {1, -1}}});
  const auto m = cs::to_device<cs::SlicedEll<16>, cs::Soa>(a);
  const auto x = cs::to_device<cs::Aos>(std::vector<D>{{1, 0}, {1, 1}});
  const auto y = cs::to_device<cs::Aos>(std::vector<D>{{0, 0}, {0, 0}});
  cs::spmv(cs::DynamicWarpSchedule{}, 1.0, m, x, 0.0, y);
  const auto r = cs::to_host(y);
  EXPECT_DOUBLE_EQ(r[0].a, 5);  // 2*1 + 3*1
  EXPECT_DOUBLE_EQ(r[0].b, 4);  // (2*0 + 1*1) + (3*1 + 0*1)
  EXPECT_DOUBLE_EQ(r[1].a, 1);
  EXPECT_DOUBLE_EQ(r[1].b, 0);  // 1*1 + (-1)*1
}

COMPOUND_SPARSE_SPMV_SUITE(Variants, user::Dual<double>);
COMPOUND_SPARSE_SPMM_SUITE(Variants, user::Dual<double>);
