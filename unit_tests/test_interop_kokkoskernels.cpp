// Interop with Kokkos Kernels (interop_kokkoskernels.hpp): our matrices from
// KokkosSparse::CrsMatrix and BlockCrsMatrix and back, checked against
// KokkosSparse::spmv run on the very same vector memory.

#include <gtest/gtest.h>

// Kokkos Kernels 3.4's headers need Kokkos_Core.hpp included before them.
#include <Kokkos_Core.hpp>
//
#include <KokkosSparse_spmv.hpp>
#include <compound_sparse.hpp>
#include <compound_sparse/interop/kokkos_kernels.hpp>
#include <random>

#include "test_matrices.hpp"

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;
using device_type = Kokkos::DefaultExecutionSpace::device_type;
using memory_space = device_type::memory_space;

// Named namespace, and kernels outside TEST bodies: CUDA's extended lambdas may
// not sit in private member functions (TestBody) or unnamed namespaces.
namespace kk_interop_test {

/// A KokkosSparse::CrsMatrix with its default (size_t) offsets, built from host CSR.
template <class Scalar>
KokkosSparse::CrsMatrix<Scalar, int, device_type> kokkos_crs(const cs::HostCsr<Scalar>& a) {
  std::vector<int> row_map(a.row_offsets), cols(a.col_indices);
  std::vector<Scalar> values(a.values);
  return KokkosSparse::CrsMatrix<Scalar, int, device_type>("k", a.num_rows, a.num_cols, static_cast<int>(values.size()),
                                                           values.data(), row_map.data(), cols.data());
}

/// The matrix KokkosSparse::spmv is given in CsrMatrixBackToKokkosSparse: `k` itself, except
/// where Kokkos Kernels was built with cuSPARSE but without the pre-instantiation (ETI) of
/// complex<double> with int offsets (scripts/build_kokkos_cuda.sh --kernels-eti none).
/// There Kokkos Kernels 3.4 declares its cuSPARSE SpMV for int offsets but defines it only
/// in that ETI, so the product would not link: it gets a copy with size_t offsets (the
/// native kernel) sharing k's column indices and values.
template <class Matrix>
auto spmv_ready(const Matrix& k) {
#if defined(KOKKOSKERNELS_ENABLE_TPL_CUSPARSE) &&                                             \
    !(defined(KOKKOSKERNELS_INST_COMPLEX_DOUBLE) && defined(KOKKOSKERNELS_INST_OFFSET_INT) && \
      defined(KOKKOSKERNELS_INST_LAYOUTLEFT))
  using scalar = typename Matrix::non_const_value_type;
  using wide = KokkosSparse::CrsMatrix<scalar, int, device_type>;
  typename wide::row_map_type::non_const_type row_map("row_map", k.graph.row_map.extent(0));
  const auto narrow = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k.graph.row_map);
  auto mirror = Kokkos::create_mirror_view(row_map);
  for (std::size_t i = 0; i < narrow.extent(0); ++i) mirror(i) = static_cast<std::size_t>(narrow(i));
  Kokkos::deep_copy(row_map, mirror);
  return wide("k_size_t_offsets", k.numRows(), k.numCols(), k.nnz(), k.values, row_map, k.graph.entries);
#else
  return k;
#endif
}

/// The point matrix of a block matrix: entry (3 r + i, 3 c + j) = block (r, c)(i, j).
cs::HostCsr<double> point_matrix(const cs::HostCsr<cs::Block<double, 3>>& b) {
  cs::HostCsr<double> p;
  p.num_rows = 3 * b.num_rows;
  p.num_cols = 3 * b.num_cols;
  for (int r = 0; r < b.num_rows; ++r)
    for (int i = 0; i < 3; ++i) {
      for (int k = b.row_offsets[r]; k < b.row_offsets[r + 1]; ++k)
        for (int j = 0; j < 3; ++j) {
          p.col_indices.push_back(3 * b.col_indices[k] + j);
          p.values.push_back(b.values[k](i, j));
        }
      p.row_offsets.push_back(static_cast<int>(p.col_indices.size()));
    }
  return p;
}

/// A BlockCrsMatrix filled the Kokkos Kernels way (replaceValues with row-major
/// blocks, in a kernel), independent of our conversions.
cs::KokkosBlockCrsMatrix<double, memory_space> kokkos_block_crs(const cs::HostCsr<cs::Block<double, 3>>& b) {
  std::vector<double> scalars;
  for (const auto& block : b.values) scalars.insert(scalars.end(), block.v, block.v + 9);
  const auto to_view = [](const auto& host, const char* label) {
    using T = typename std::decay_t<decltype(host)>::value_type;
    Kokkos::View<T*, memory_space> v(std::string(label), host.size());
    Kokkos::deep_copy(v, Kokkos::View<const T*, Kokkos::HostSpace>(host.data(), host.size()));
    return v;
  };
  const auto row_map = to_view(b.row_offsets, "row_map");
  const auto cols = to_view(b.col_indices, "cols");
  const auto blocks = to_view(scalars, "blocks");
  const cs::KokkosBlockCrsMatrix<double, memory_space> k(
      "k", b.num_rows, b.num_cols, static_cast<int>(scalars.size()),
      Kokkos::View<double*, Kokkos::LayoutRight, memory_space>("values", scalars.size()), row_map, cols, 3);
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, b.num_rows), KOKKOS_LAMBDA(int r) {
        const int first = row_map(r);
        k.replaceValues(r, &cols(first), row_map(r + 1) - first, &blocks(9 * first));
      });
  Kokkos::fence();
  return k;
}

template <class Entry>
void expect_same_blocks(const cs::HostCsr<Entry>& expected, const cs::HostCsr<Entry>& actual) {
  EXPECT_EQ(actual.row_offsets, expected.row_offsets);
  EXPECT_EQ(actual.col_indices, expected.col_indices);
  ASSERT_EQ(actual.values.size(), expected.values.size());
  for (std::size_t b = 0; b < expected.values.size(); ++b)
    for (int c = 0; c < 9; ++c) EXPECT_EQ(actual.values[b].v[c], expected.values[b].v[c]) << "block " << b;
}

/// Block components of `k` that differ from `values` (a Csr matrix's values
/// array), reading k through the strided block() view of its block rows.
template <class Matrix, class Values>
int count_block_mismatches(const Matrix& k, const Values& values) {
  int mismatches = 0;
  Kokkos::parallel_reduce(
      Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, k.numRows()),
      KOKKOS_LAMBDA(int r, int& bad) {
        const auto row = k.block_row_Const(r);
        const int first = k.graph.row_map(r);
        for (int b = 0; b < row.length; ++b)
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) bad += row.block(b)(i, j) != values(first + b, 3 * i + j);
      },
      mismatches);
  return mismatches;
}

}  // namespace kk_interop_test
using namespace kk_interop_test;

TEST(InteropKokkosKernels, CrsMatrixToEveryLayoutMatchesKokkosSparseSpmv) {
  std::mt19937 rng(21);
  const auto host = compound_sparse_test::random_csr<C>(70, 64, 0, 8, 5, rng);
  const auto k = kokkos_crs(host);
  const auto x = cs::to_device<cs::Aos>(compound_sparse_test::random_vector<C>(64, rng));
  const auto y_ours = cs::to_device<cs::Aos>(std::vector<C>(70));
  const auto y_kk = cs::to_device<cs::Aos>(std::vector<C>(70));
  // KokkosSparse::spmv works directly on our vectors' memory.
  KokkosSparse::spmv("N", C(1, 0), k, cs::values_view(x), C(0, 0), cs::values_view(y_kk));
  const auto expected = cs::to_host(y_kk);

  const auto check = [&](const auto& a) {
    cs::spmv(cs::DynamicWarpSchedule{}, C(1, 0), a, x, C(0, 0), y_ours);
    const auto ours = cs::to_host(y_ours);
    for (int i = 0; i < 70; ++i) EXPECT_LT(Kokkos::abs(ours[i] - expected[i]), 1e-12) << "row " << i;
  };
  check(cs::from_kokkos_crs<cs::Csr, cs::Aos>(k));
  check(cs::from_kokkos_crs<cs::Csr, cs::Soa>(k));
  check(cs::from_kokkos_crs<cs::Ell, cs::Aos>(k));
  check(cs::from_kokkos_crs<cs::SlicedEll<32>, cs::Soa>(k));
}

TEST(InteropKokkosKernels, CsrMatrixBackToKokkosSparse) {
  std::mt19937 rng(22);
  const auto host = compound_sparse_test::random_csr<C>(40, 40, 1, 6, -1, rng);
  const auto a = cs::to_device<cs::Csr, cs::Soa>(host);
  const auto k = cs::to_kokkos_crs(a);
  EXPECT_EQ(k.numRows(), 40);
  EXPECT_EQ(k.numCols(), 40);
  EXPECT_EQ(k.nnz(), static_cast<int>(host.num_entries()));
  EXPECT_EQ(k.graph.row_map.data(), a.offsets.data());  // shared, not copied

  const auto x_host = compound_sparse_test::random_vector<C>(40, rng);
  const auto x = cs::to_device<cs::Aos>(x_host);
  const auto y = cs::to_device<cs::Aos>(std::vector<C>(40));
  KokkosSparse::spmv("N", C(1, 0), kk_interop_test::spmv_ready(k), cs::values_view(x), C(0, 0), cs::values_view(y));
  const auto result = cs::to_host(y);
  const auto expected = cs::reference_spmv<double>(C(1, 0), host, x_host, C(0, 0), std::vector<C>(40));
  for (int i = 0; i < 40; ++i) EXPECT_LT(Kokkos::abs(result[i] - expected[i]), 1e-12) << "row " << i;
}

TEST(InteropKokkosKernels, BlockCrsMatrixToOurLayoutsAndBack) {
  std::mt19937 rng(23);
  const auto blocks = compound_sparse_test::random_csr<cs::Block<double, 3>>(17, 17, 1, 5, 2, rng);
  const auto k = kokkos_block_crs(blocks);
  expect_same_blocks(blocks, cs::to_host_csr(cs::from_kokkos_block_crs<3, cs::SlicedEll<16>, cs::Soa>(k)));
  expect_same_blocks(blocks, cs::to_host_csr(cs::from_kokkos_block_crs<3, cs::Csr, cs::Aos>(k)));
  EXPECT_THROW((cs::from_kokkos_block_crs<2, cs::Csr, cs::Aos>(k)), cs::Error);

  // And back: every block of the BlockCrsMatrix we hand out, read through its
  // strided block() view, is ours.
  const auto a = cs::to_device<cs::Csr, cs::Aos>(blocks);
  const auto k2 = cs::to_kokkos_block_crs(a);
  EXPECT_EQ(k2.blockDim(), 3);
  EXPECT_EQ(k2.numRows(), 17);
  EXPECT_EQ(k2.graph.entries.data(), a.col_indices.data());  // shared, not copied
  EXPECT_EQ(count_block_mismatches(k2, a.values), 0);
}

TEST(InteropKokkosKernels, BlockMatrixSpmvMatchesPointSpmvOnSharedVectors) {
  std::mt19937 rng(24);
  const auto blocks = compound_sparse_test::random_csr<cs::Block<double, 3>>(30, 30, 1, 7, -1, rng);
  const auto point = kokkos_crs(point_matrix(blocks));
  const auto a = cs::from_kokkos_block_crs<3, cs::Csr, cs::Aos>(kokkos_block_crs(blocks));
  // Point-wise FEM vectors (x0 y0 z0 x1 ...) wrapped as 3-vectors without a copy.
  Kokkos::View<double*, memory_space> u("u", 90), f_kk("f_kk", 90), f_ours("f_ours", 90);
  auto u_mirror = Kokkos::create_mirror_view(u);
  for (int i = 0; i < 90; ++i) u_mirror(i) = std::sin(0.3 * i);
  Kokkos::deep_copy(u, u_mirror);
  KokkosSparse::spmv("N", 1.0, point, u, 0.0, f_kk);
  cs::spmv(cs::StaticSchedule{}, 1.0, a, cs::wrap_scalars<cs::BlockVector<double, 3>>(u), 0.0,
           cs::wrap_scalars<cs::BlockVector<double, 3>>(f_ours));
  const auto kk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f_kk);
  const auto ours = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f_ours);
  for (int i = 0; i < 90; ++i) EXPECT_NEAR(ours(i), kk(i), 1e-12) << "component " << i;
}

// TunedSpmv of a Kokkos Kernels matrix without leaving the device: size_t offsets copied
// to int there, blocks gathered there; the same choice and the same products, bit for bit,
// as TunedSpmv of the HostCsr.
TEST(device_build, TunedSpmvOfKokkosKernelsMatricesIsThatOfTheirHostCsr) {
  std::mt19937 rng(29);
  cs::TunedSpmvOptions options;
  options.use_cache = false;
  options.quick_tune = cs::QuickTune::Never;
  const auto expect_same = [&](const auto& from_host, const auto& from_device, const auto& host) {
    using V = typename std::decay_t<decltype(from_host)>::value_type;
    EXPECT_EQ(from_device.explanation(), from_host.explanation());
    const auto x = compound_sparse_test::random_vector<V>(host.num_cols, rng);
    const auto yh = from_host.make_vector(std::vector<V>(host.num_rows));
    const auto yd = from_device.make_vector(std::vector<V>(host.num_rows));
    from_host.apply(cs::real_value<typename std::decay_t<decltype(from_host)>::coefficient_type>(1),
                    from_host.make_vector(x), {}, yh);
    from_device.apply(cs::real_value<typename std::decay_t<decltype(from_host)>::coefficient_type>(1),
                      from_device.make_vector(x), {}, yd);
    const auto got = yd.to_host(), want = yh.to_host();
    EXPECT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(V)));
  };
  const auto points = compound_sparse_test::random_csr<C>(130, 90, 0, 11, 7, rng);
  expect_same(cs::TunedSpmv<C>(points, options),
              cs::TunedSpmv<C>(cs::make_device_csr(kk_interop_test::kokkos_crs(points)), options), points);
  const auto blocks = compound_sparse_test::random_csr<cs::Block<double, 3>>(41, 41, 1, 6, 3, rng);
  expect_same(cs::TunedSpmv<cs::Block<double, 3>>(blocks, options),
              cs::TunedSpmv<cs::Block<double, 3>>(cs::make_device_csr<3>(kokkos_block_crs(blocks)), options), blocks);
}
