// The examples' LOBPCG (examples/common/eigen.hpp): the 3 x 3 Rayleigh-Ritz
// eigenproblem against known spectra, and the smallest eigenpair of a quaternion
// matrix whose spectrum is known (the 1D Laplacian times the identity quaternion:
// 2 - 2 cos(k pi / (n + 1)), each fourfold as a real operator), from a start
// vector that is not an eigenvector, and a budget too small to converge.
#include <gtest/gtest.h>

#include <cmath>
#include <compound_sparse.hpp>
#include <vector>

#include "../examples/common/eigen.hpp"

namespace cs = compound_sparse;
using Q = cs::Quaternion<double>;

namespace {

struct LaplacianOperator {
  using vector = cs::CompoundVector<Q, cs::Aos>;
  cs::SparseMatrix<Q, cs::Csr, cs::Aos> matrix;
  void apply(const vector& x, const vector& y) const { cs::spmv(cs::StaticSchedule{}, 1.0, matrix, x, 0.0, y); }
};

LaplacianOperator laplacian(int n) {
  cs::HostCsr<Q> a;
  a.num_rows = a.num_cols = n;
  for (int r = 0; r < n; ++r) {
    for (int c = r - 1; c <= r + 1; ++c)
      if (c >= 0 && c < n) {
        a.col_indices.push_back(c);
        a.values.push_back(Q{c == r ? 2.0 : -1.0, 0, 0, 0});
      }
    a.row_offsets.push_back(static_cast<int>(a.col_indices.size()));
  }
  return {cs::to_device<cs::Csr, cs::Aos>(a)};
}

LaplacianOperator::vector start_vector(int n) {
  std::vector<Q> start(n);
  for (int i = 0; i < n; ++i) start[i] = Q{1.0 + 0.3 * std::sin(0.7 * i), 0.2 * std::cos(1.3 * i), 0.1, -0.05 * i};
  return examples::make_vector<LaplacianOperator::vector>(start);
}

}  // namespace

TEST(ExampleEigen, SmallestEigenpairOfThreeByThree) {
  // diag(3, 1, 2) rotated: eigenvalues 1, 2, 3; the smallest's vector is e1 rotated.
  const double c = std::cos(0.4), s = std::sin(0.4);
  std::array<std::array<double, 3>, 3> h{
      {{3 * c * c + s * s, (1 - 3) * c * s, 0}, {(1 - 3) * c * s, 3 * s * s + c * c, 0}, {0, 0, 2}}};
  double value = 0;
  std::array<double, 3> v{};
  examples::smallest_eigenpair(h, 3, value, v);
  EXPECT_NEAR(value, 1.0, 1e-14);
  EXPECT_NEAR(std::fabs(v[0] * s + v[1] * c), 1.0, 1e-12);  // (s, c, 0) up to sign
  EXPECT_NEAR(v[2], 0.0, 1e-12);
  // Only the first two rows and columns: the 2 x 2 block's smaller eigenvalue.
  h[0][0] = 5;
  h[0][1] = h[1][0] = 0;
  h[1][1] = 4;
  examples::smallest_eigenpair(h, 2, value, v);
  EXPECT_DOUBLE_EQ(value, 4.0);
  EXPECT_EQ(v[2], 0.0);
}

TEST(ExampleEigen, LobpcgFindsTheSmallestEigenvalueOfALaplacian) {
  const double pi = std::acos(-1.0);
  for (int n : {1, 7, 200}) {
    const auto op = laplacian(n);
    const auto x = start_vector(n);
    const auto result = examples::lobpcg_smallest(op, x, 4.0, 1e-10, 20000);
    EXPECT_TRUE(result.converged) << "n = " << n << ": residual " << result.residual;
    EXPECT_NEAR(result.value, 2 - 2 * std::cos(pi / (n + 1)), 1e-12) << "n = " << n;
    EXPECT_NEAR(examples::norm2(x), 1.0, 1e-12) << "n = " << n;
    // The returned residual is recomputed from x: check it once more.
    auto ax = examples::zeros_like(x);
    op.apply(x, ax);
    examples::axpby(-result.value, x, 1.0, ax);
    EXPECT_NEAR(examples::norm2(ax) / 4.0, result.residual, 1e-14) << "n = " << n;
    EXPECT_LE(result.residual, 1e-10) << "n = " << n;
  }
  // A budget of 3 products cannot converge from this start, and says so.
  const auto op = laplacian(200);
  const auto x = start_vector(200);
  const auto result = examples::lobpcg_smallest(op, x, 4.0, 1e-10, 3);
  EXPECT_FALSE(result.converged);
  EXPECT_GT(result.residual, 1e-10);
}
