// transposed(A, op) (transpose.hpp): the pattern and entries of Aᵀ and Aᴴ, the adjoint
// identity <y, A x> = <Aᴴ y, x> in double for every kind of entry, op applied twice giving A
// back, a hermitian matrix equal to its Aᴴ, and a device product with the
// transposed copy against the host reference.
#include <gtest/gtest.h>

#include <compound_sparse.hpp>
#include <compound_sparse/products/transpose.hpp>
#include <map>
#include <utility>

#include "test_matrices.hpp"

namespace {

namespace cs = compound_sparse;
using compound_sparse_test::random_csr;
using compound_sparse_test::random_vector;

/// The entry at (row, column) of each stored position (the test matrices have no
/// repeated positions).
template <class Entry>
std::map<std::pair<int, int>, Entry> positions(const cs::HostCsr<Entry>& a) {
  std::map<std::pair<int, int>, Entry> m;
  for (int r = 0; r < a.num_rows; ++r)
    for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k) m[{r, a.col_indices[k]}] = a.values[k];
  return m;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// <u, v> = sum_i conj(u_i) v_i in double: complex, quaternion (the Hamilton product, u
/// conjugated on the left) or real (block vectors), as a value of the vector type.
template <class V>
V inner(const std::vector<V>& u, const std::vector<V>& v);
Kokkos::complex<double> inner(const std::vector<Kokkos::complex<double>>& u,
                              const std::vector<Kokkos::complex<double>>& v) {
  Kokkos::complex<double> s(0, 0);
  for (std::size_t i = 0; i < u.size(); ++i) s += Kokkos::conj(u[i]) * v[i];
  return s;
}
cs::Quaternion<double> inner(const std::vector<cs::Quaternion<double>>& u,
                             const std::vector<cs::Quaternion<double>>& v) {
  cs::Quaternion<double> s{0, 0, 0, 0};
  for (std::size_t i = 0; i < u.size(); ++i) s = s + u[i].conjugate() * v[i];
  return s;
}
template <int E>
cs::BlockVector<double, E> inner(const std::vector<cs::BlockVector<double, E>>& u,
                                 const std::vector<cs::BlockVector<double, E>>& v) {
  cs::BlockVector<double, E> s{};
  for (std::size_t i = 0; i < u.size(); ++i)
    for (int c = 0; c < E; ++c) s.v[0] += u[i].v[c] * v[i].v[c];
  return s;
}

template <class Entry>
class Transpose : public ::testing::Test {};
using Entries = ::testing::Types<Kokkos::complex<double>, Kokkos::complex<float>, cs::Quaternion<double>,
                                 cs::Quaternion<float>, cs::Block<double, 3>, cs::Block<float, 2>>;
TYPED_TEST_SUITE(Transpose, Entries);

TYPED_TEST(Transpose, EntriesMoveToTheMirroredPositionTransformed) {
  using Entry = TypeParam;
  std::mt19937 rng(5);
  const auto a = random_csr<Entry>(37, 23, 0, 9, 4, rng);  // empty rows, one long row, non-square
  for (const cs::Op op : {cs::Op::T, cs::Op::H}) {
    const auto t = cs::transposed(a, op);
    ASSERT_NO_THROW(cs::validate(t));
    EXPECT_EQ(t.num_rows, a.num_cols);
    EXPECT_EQ(t.num_cols, a.num_rows);
    EXPECT_EQ(t.num_entries(), a.num_entries());
    const auto at = positions(t);
    for (const auto& [where, value] : positions(a)) {
      const auto it = at.find({where.second, where.first});
      ASSERT_NE(it, at.end()) << cs::to_string(op) << ": (" << where.first << ", " << where.second << ") lost";
      const Entry want = op == cs::Op::T ? cs::transposed_entry(value) : cs::conjugate_transposed_entry(value);
      EXPECT_TRUE(same_bits(it->second, want)) << cs::to_string(op);
    }
    for (int r = 0; r < t.num_rows; ++r)  // each row of op(A) in increasing column order
      EXPECT_TRUE(
          std::is_sorted(t.col_indices.begin() + t.row_offsets[r], t.col_indices.begin() + t.row_offsets[r + 1]));
    // op applied twice gives A back, bit for bit (A's rows are sorted after one round).
    const auto back = positions(cs::transposed(t, op));
    const auto original = positions(a);
    ASSERT_EQ(back.size(), original.size());
    for (const auto& [where, value] : original) EXPECT_TRUE(same_bits(back.at(where), value));
  }
  EXPECT_EQ(cs::transposed(a, cs::Op::N).col_indices, a.col_indices);
}

TYPED_TEST(Transpose, ConjugateTransposeIsTheAdjoint) {
  using Entry = TypeParam;
  using wide_entry = typename cs::entry_traits<Entry>::template rebind<double>;
  using wide_vector = cs::vector_type_t<wide_entry>;
  std::mt19937 rng(6);
  const auto a = random_csr<Entry>(41, 29, 0, 7, -1, rng);
  const auto x = random_vector<cs::vector_type_t<Entry>>(a.num_cols, rng);
  const auto y = random_vector<cs::vector_type_t<Entry>>(a.num_rows, rng);
  const auto one = cs::real_value<cs::coefficient_type_t<Entry>>(1),
             zero = cs::real_value<cs::coefficient_type_t<Entry>>(0);
  const auto ax = cs::reference_spmv<double>(one, a, x, zero, std::vector<cs::vector_type_t<Entry>>(a.num_rows));
  const auto ah = cs::transposed(a, cs::Op::H);
  const auto ahy = cs::reference_spmv<double>(one, ah, y, zero, std::vector<cs::vector_type_t<Entry>>(a.num_cols));
  std::vector<wide_vector> yw, xw;
  for (const auto& v : y) yw.push_back(cs::convert_components<wide_vector>(v));
  for (const auto& v : x) xw.push_back(cs::convert_components<wide_vector>(v));
  const auto left = inner(yw, ax), right = inner(ahy, xw);
  using traits = cs::component_traits<wide_vector>;
  for (int c = 0; c < traits::size; ++c)
    EXPECT_NEAR(traits::get(left, c), traits::get(right, c), 1e-12 * (1 + std::abs(traits::get(left, c))))
        << "component " << c;
}

TYPED_TEST(Transpose, HermitianMatrixIsItsOwnConjugateTranspose) {
  using Entry = TypeParam;
  std::mt19937 rng(7);
  const auto a = random_csr<Entry>(30, 30, 0, 6, -1, rng);
  // B = A + Aᴴ, assembled entry by entry from both halves, is hermitian bit for bit.
  std::vector<cs::CooEntry<Entry>> coo;
  for (const auto& [where, value] : positions(a)) {
    coo.push_back({where.first, where.second, value});
    coo.push_back({where.second, where.first, cs::conjugate_transposed_entry(value)});
  }
  const auto b = cs::csr_from_coo(30, 30, coo);
  // Equal values; bits may differ on the diagonal, where im - im gives +0 and its
  // conjugate -0.
  const auto bh = positions(cs::transposed(b, cs::Op::H));
  using traits = cs::component_traits<Entry>;
  for (const auto& [where, value] : positions(b))
    for (int c = 0; c < traits::size; ++c) EXPECT_EQ(traits::get(bh.at(where), c), traits::get(value, c));
}

TYPED_TEST(Transpose, DeviceProductWithTheTransposedCopyMatchesTheReference) {
  using Entry = TypeParam;
  using scalar = typename cs::component_traits<Entry>::scalar_type;
  std::mt19937 rng(8);
  const auto a = random_csr<Entry>(53, 35, 0, 8, 2, rng);
  const auto y_host = random_vector<cs::vector_type_t<Entry>>(a.num_rows, rng);
  const auto one = cs::real_value<cs::coefficient_type_t<Entry>>(1),
             zero = cs::real_value<cs::coefficient_type_t<Entry>>(0);
  for (const cs::Op op : {cs::Op::T, cs::Op::H}) {
    const auto t = cs::transposed(a, op);
    const auto d = cs::to_device<cs::SlicedEll<32>, cs::Aos>(t);
    const auto y = cs::to_device<cs::Aos>(y_host);
    const auto x = cs::to_device<cs::Aos>(std::vector<cs::vector_type_t<Entry>>(a.num_cols));
    cs::spmv(cs::Schedule<cs::ScheduleKind::DynamicWarp, 128, 4>{}, one, d, y, zero, x);
    const auto want = cs::reference_spmv<double>(one, t, y_host, zero, cs::to_host(x));
    EXPECT_LE(cs::relative_error(cs::to_host(x), want), sizeof(scalar) == 4 ? 1e-5 : 1e-13) << cs::to_string(op);
  }
}

}  // namespace
