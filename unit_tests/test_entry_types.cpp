// Arithmetic of the built-in entry types, checked against values worked out by
// hand, so that the double reference (which reuses entry_traits) is trustworthy.
#include <gtest/gtest.h>

#include <compound_sparse.hpp>

namespace cs = compound_sparse;

TEST(EntryTypes, ComplexMultiplyAdd) {
  using traits = cs::entry_traits<Kokkos::complex<double>>;
  Kokkos::complex<double> acc(1.0, 1.0);
  traits::multiply_add(acc, Kokkos::complex<double>(2.0, 3.0), Kokkos::complex<double>(4.0, -5.0));
  // (2+3i)(4-5i) = 8 - 10i + 12i + 15 = 23 + 2i
  EXPECT_DOUBLE_EQ(acc.real(), 24.0);
  EXPECT_DOUBLE_EQ(acc.imag(), 3.0);
  const auto scaled = traits::scale(Kokkos::complex<double>(0.0, 1.0), acc);  // i * (24 + 3i) = -3 + 24i
  EXPECT_DOUBLE_EQ(scaled.real(), -3.0);
  EXPECT_DOUBLE_EQ(scaled.imag(), 24.0);
}

TEST(EntryTypes, QuaternionHamiltonTable) {
  using Q = cs::Quaternion<double>;
  const Q one{1, 0, 0, 0}, i{0, 1, 0, 0}, j{0, 0, 1, 0}, k{0, 0, 0, 1};
  const Q minus_one{-1, 0, 0, 0};
  EXPECT_EQ(i * i, minus_one);
  EXPECT_EQ(j * j, minus_one);
  EXPECT_EQ(k * k, minus_one);
  EXPECT_EQ(i * j * k, minus_one);
  EXPECT_EQ(i * j, k);
  EXPECT_EQ(j * i, (Q{0, 0, 0, -1}));  // non-commutative
  EXPECT_EQ(j * k, i);
  EXPECT_EQ(k * i, j);
  EXPECT_EQ(one * k, k);
}

TEST(EntryTypes, QuaternionMultiplyAddIsLeftMultiplication) {
  using Q = cs::Quaternion<double>;
  using traits = cs::entry_traits<Q>;
  const Q a{1, 2, 3, 4}, x{-2, 0.5, 1, -1};
  Q acc = traits::zero();
  traits::multiply_add(acc, a, x);
  EXPECT_EQ(acc, a * x);
  // (1+2i+3j+4k)(-2+0.5i+j-k): w = -2 - 1 - 3 + 4 = -2
  EXPECT_DOUBLE_EQ(acc.w, -2.0);
  EXPECT_EQ(traits::scale(2.0, x), (Q{-4, 1, 2, -2}));
}

TEST(EntryTypes, BlockActsOnVectorRowMajor) {
  using B = cs::Block<double, 3>;
  using traits = cs::entry_traits<B>;
  B b;
  for (int n = 0; n < 9; ++n) b.v[n] = n + 1;  // [[1,2,3],[4,5,6],[7,8,9]]
  cs::BlockVector<double, 3> x{{1, -1, 2}};
  auto acc = traits::zero();
  traits::multiply_add(acc, b, x);
  EXPECT_DOUBLE_EQ(acc[0], 1 - 2 + 6);
  EXPECT_DOUBLE_EQ(acc[1], 4 - 5 + 12);
  EXPECT_DOUBLE_EQ(acc[2], 7 - 8 + 18);
  EXPECT_DOUBLE_EQ(b(1, 2), 6.0);
}

TEST(EntryTypes, ComponentsArePacked) {
  static_assert(cs::is_packed_compound<Kokkos::complex<float>>(), "");
  static_assert(cs::is_packed_compound<cs::Quaternion<double>>(), "");
  static_assert(cs::is_packed_compound<cs::Block<float, 3>>(), "");
  static_assert(cs::is_packed_compound<cs::BlockVector<double, 4>>(), "");
  cs::Quaternion<float> q{1, 2, 3, 4};
  for (int c = 0; c < 4; ++c) EXPECT_EQ(cs::component_traits<cs::Quaternion<float>>::get(q, c), c + 1.0f);
  Kokkos::complex<double> z(5, 6);
  cs::component_traits<Kokkos::complex<double>>::get(z, 1) = 7;
  EXPECT_EQ(z.imag(), 7.0);
}
