// Interop with plain Kokkos Views (interop.hpp): matrices from CSR views in any
// layout, matrices handed back as views, vectors sharing an application's memory.

#include <gtest/gtest.h>

#include <compound_sparse.hpp>
#include <compound_sparse/interop/kokkos_views.hpp>
#include <random>
#include <tuple>

#include "device_arrays.hpp"
#include "test_matrices.hpp"

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;
using Q = cs::Quaternion<double>;
using memory_space = Kokkos::DefaultExecutionSpace::memory_space;

namespace {

template <class Entry>
std::vector<double> components_of(const std::vector<Entry>& values) {
  std::vector<double> flat;
  for (const Entry& v : values)
    for (int c = 0; c < cs::component_traits<Entry>::size; ++c) flat.push_back(cs::component_traits<Entry>::get(v, c));
  return flat;
}

template <class Entry>
void expect_same_csr(const cs::HostCsr<Entry>& expected, const cs::HostCsr<Entry>& actual) {
  EXPECT_EQ(std::tie(expected.num_rows, expected.num_cols, expected.row_offsets, expected.col_indices),
            std::tie(actual.num_rows, actual.num_cols, actual.row_offsets, actual.col_indices));
  EXPECT_EQ(components_of(expected.values), components_of(actual.values));
}

template <class Outer, class Inner, class Entry>
void expect_views_build(const cs::HostCsr<Entry>& host) {
  const auto d = compound_sparse_test::device_csr<std::size_t>(host);
  const auto a = cs::matrix_from_csr_views<Outer, Inner>(host.num_cols, d.row_map, d.entries, d.values);
  expect_same_csr(host, cs::to_host_csr(a));
  EXPECT_EQ(cs::memory_bytes(a), cs::layout_memory_bytes<Outer>(host));
}

/// matrix_from_csr_views against to_device of the same matrix: every array the same bits.
template <class Outer, class Inner, class Entry>
void expect_device_build_as_to_device(const std::string& what, const cs::HostCsr<Entry>& host) {
  const auto d = compound_sparse_test::device_csr<std::size_t>(host);
  const auto built = cs::matrix_from_csr_views<Outer, Inner>(host.num_cols, d.row_map, d.entries, d.values);
  const auto converted = cs::to_device<Outer, Inner>(host);
  const std::string layout = what + " in " + Outer::name() + "." + Inner::name();
  EXPECT_EQ(
      std::tie(built.num_rows, built.num_cols, built.num_entries, built.num_slots, built.ell_width, built.ell_stride),
      std::tie(converted.num_rows, converted.num_cols, converted.num_entries, converted.num_slots, converted.ell_width,
               converted.ell_stride))
      << layout;
  EXPECT_TRUE(compound_sparse_test::same_arrays(built, converted)) << layout;
  EXPECT_EQ(cs::memory_bytes(built), cs::memory_bytes(converted)) << layout;
}

template <class Entry>
void expect_every_layout_built_as_to_device(unsigned seed) {
  for (const auto& named : compound_sparse_test::test_matrices<Entry>(seed)) {
    cs::for_each_type(cs::OuterLayouts{}, [&](auto outer) {
      cs::for_each_type(cs::InnerLayouts{}, [&](auto inner) {
        using Outer = typename decltype(outer)::type;
        using Inner = typename decltype(inner)::type;
        // A layout that cannot hold the matrix refuses it in both builds, with one message.
        const std::string refusal = cs::layout_refusal<Outer>(named.matrix);
        if (!refusal.empty()) {
          const auto d = compound_sparse_test::device_csr<int>(named.matrix);
          try {
            cs::matrix_from_csr_views<Outer, Inner>(named.matrix.num_cols, d.row_map, d.entries, d.values);
            ADD_FAILURE() << named.name << " in " << Outer::name() << ": expected BudgetExceeded";
          } catch (const cs::BudgetExceeded& e) {
            EXPECT_EQ(e.reason(), refusal);
          }
          return;
        }
        expect_device_build_as_to_device<Outer, Inner>(named.name, named.matrix);
      });
    });
  }
}

}  // namespace

// Every outer x inner layout built on the device from CSR views: the same arrays, bit for
// bit, as to_device from the host, on the standard test matrices (empty rows, a huge row,
// 1 x 1, non-square, sizes no multiple of the slice or warp size).
TEST(device_build, EveryLayoutMatchesToDeviceBitForBitComplexDouble) {
  expect_every_layout_built_as_to_device<C>(31);
}
TEST(device_build, EveryLayoutMatchesToDeviceBitForBitQuaternionFloat) {
  expect_every_layout_built_as_to_device<cs::Quaternion<float>>(32);
}
TEST(device_build, EveryLayoutMatchesToDeviceBitForBitBlock3Double) {
  expect_every_layout_built_as_to_device<cs::Block<double, 3>>(33);
}

// 16-bit column offsets: a slice spanning more than 65535 columns is refused with
// to_device's message, and one that spans exactly 65535 is built.
TEST(device_build, SlicesBeyond16BitColumnOffsetsAreRefusedAsToDeviceRefusesThem) {
  using Outer = cs::SlicedEll<32, 16>;
  for (const int span : {65535, 65536}) {
    cs::HostCsr<C> a;
    a.num_rows = 40;
    a.num_cols = span + 1;
    a.row_offsets = {0};
    for (int r = 0; r < a.num_rows; ++r) {
      a.col_indices.push_back(r == 3 ? span : r);  // row 3 reaches the far column
      a.values.push_back(C(r, 1));
      a.row_offsets.push_back(static_cast<int>(a.col_indices.size()));
    }
    const auto d = compound_sparse_test::device_csr<int>(a);
    const std::string refusal = cs::layout_refusal<Outer>(a);
    if (refusal.empty()) {
      expect_device_build_as_to_device<Outer, cs::Soa>("span " + std::to_string(span), a);
      continue;
    }
    EXPECT_EQ(span, 65536);
    EXPECT_NE(refusal.find("16-bit column offsets"), std::string::npos) << refusal;
    try {
      cs::matrix_from_csr_views<Outer, cs::Aos>(a.num_cols, d.row_map, d.entries, d.values);
      ADD_FAILURE() << "expected BudgetExceeded";
    } catch (const cs::BudgetExceeded& e) {
      EXPECT_EQ(e.reason(), refusal);
    }
  }
}

// Over the budget: refused before anything is built, with to_device's message.
TEST(device_build, OverTheBudgetIsRefusedWithToDevicesMessage) {
  std::mt19937 rng(9);
  const auto a = compound_sparse_test::random_csr<C>(100, 300, 0, 3, 37, rng);  // one long row: padding
  const auto d = compound_sparse_test::device_csr<int>(a);
  const cs::MemoryBudget budget{cs::layout_memory_bytes<cs::Ell>(a) - 1};
  std::string from_host, from_views;
  try {
    cs::to_device<cs::Ell, cs::Aos>(a, budget);
  } catch (const cs::BudgetExceeded& e) {
    from_host = e.reason();
  }
  try {
    cs::matrix_from_csr_views<cs::Ell, cs::Aos>(a.num_cols, d.row_map, d.entries, d.values, budget);
  } catch (const cs::BudgetExceeded& e) {
    from_views = e.reason();
  }
  EXPECT_NE(from_host.find("more than the memory budget"), std::string::npos) << from_host;
  EXPECT_EQ(from_views, from_host);
}

TEST(InteropViews, EveryLayoutFromCsrViewsWithSizeTOffsets) {
  std::mt19937 rng(7);
  const auto complex_matrix = compound_sparse_test::random_csr<C>(45, 38, 0, 9, 3, rng);
  expect_views_build<cs::Csr, cs::Aos>(complex_matrix);
  expect_views_build<cs::Csr, cs::Soa>(complex_matrix);
  expect_views_build<cs::Ell, cs::Soa>(complex_matrix);
  expect_views_build<cs::SlicedEll<32>, cs::Aos>(complex_matrix);
  const auto quaternion_matrix = compound_sparse_test::random_csr<Q>(33, 33, 1, 6, -1, rng);
  expect_views_build<cs::Csr, cs::Soa>(quaternion_matrix);
  expect_views_build<cs::SlicedEll<16>, cs::Soa>(quaternion_matrix);
}

TEST(InteropViews, EmptyMatrixFromViews) {
  cs::HostCsr<C> empty;
  empty.num_cols = 4;
  expect_views_build<cs::Csr, cs::Aos>(empty);
}

TEST(InteropViews, InconsistentViewsThrowNamingTheRow) {
  std::mt19937 rng(3);
  auto host = compound_sparse_test::random_csr<C>(10, 10, 2, 4, -1, rng);
  host.col_indices[host.row_offsets[6]] = 10;  // row 6 points past the last column
  const auto d = compound_sparse_test::device_csr<int>(host);
  try {
    cs::matrix_from_csr_views<cs::Csr, cs::Aos>(10, d.row_map, d.entries, d.values);
    FAIL() << "expected compound_sparse::Error";
  } catch (const cs::Error& e) {
    EXPECT_NE(std::string(e.what()).find("row 6"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cs::host_csr_from_views(10, d.row_map, d.entries, d.values), cs::Error);
  EXPECT_THROW((cs::matrix_from_csr_views<cs::Csr, cs::Aos>(10, d.row_map, d.entries, d.values, cs::MemoryBudget{16})),
               cs::Error);
}

TEST(InteropViews, CsrViewsShareIndicesAndCopyValues) {
  std::mt19937 rng(11);
  const auto host = compound_sparse_test::random_csr<Q>(20, 25, 0, 5, -1, rng);
  const auto a = cs::to_device<cs::Csr, cs::Soa>(host);
  const auto v = cs::csr_views(a);
  EXPECT_EQ(v.row_map.data(), a.offsets.data());
  EXPECT_EQ(v.entries.data(), a.col_indices.data());
  EXPECT_EQ(v.num_rows, 20);
  EXPECT_EQ(v.num_cols, 25);
  expect_same_csr(host, cs::host_csr_from_views(v.num_cols, v.row_map, v.entries, v.values));
}

TEST(InteropViews, SpmvWritesIntoTheApplicationsViews) {
  std::mt19937 rng(5);
  const auto host = compound_sparse_test::random_csr<C>(50, 40, 0, 7, 9, rng);
  const auto x_host = compound_sparse_test::random_vector<C>(40, rng);
  Kokkos::View<C*, memory_space> x_app("x", 40);
  Kokkos::View<C*, memory_space> y_app("y", 50);
  auto x_mirror = Kokkos::create_mirror_view(x_app);
  for (int i = 0; i < 40; ++i) x_mirror(i) = x_host[i];
  Kokkos::deep_copy(x_app, x_mirror);

  const auto x = cs::wrap_values(x_app);
  const auto y = cs::wrap_values(y_app);
  EXPECT_EQ(static_cast<void*>(y.data.data()), static_cast<void*>(y_app.data()));
  EXPECT_EQ(cs::values_view(y).data(), y_app.data());
  cs::spmv(cs::StaticSchedule{}, C(1, 0), cs::to_device<cs::SlicedEll<32>, cs::Soa>(host), x, C(0, 0), y);

  const auto expected = cs::reference_spmv<double>(C(1, 0), host, x_host, C(0, 0), std::vector<C>(50));
  const auto y_mirror = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y_app);
  for (int i = 0; i < 50; ++i) EXPECT_LT(Kokkos::abs(y_mirror(i) - expected[i]), 1e-12) << "row " << i;
}

TEST(InteropViews, WrapScalarsOfPointwiseBlockVectors) {
  using V = cs::BlockVector<double, 3>;
  Kokkos::View<double*, memory_space> u("u", 3 * 8);
  Kokkos::deep_copy(u, 2.0);
  const auto v = cs::wrap_scalars<V>(u);
  EXPECT_EQ(v.size(), 8);
  EXPECT_EQ(v.data.data(), u.data());
  Kokkos::View<double*, memory_space> ragged("ragged", 7);
  EXPECT_THROW(cs::wrap_scalars<V>(ragged), cs::Error);
}

TEST(InteropViews, WrapComponentsKeepsTheSoaViewAlive) {
  cs::CompoundVector<Q, cs::Soa, memory_space> v;
  {
    Kokkos::View<double**, Kokkos::LayoutLeft, memory_space> components("components", 6, 4);
    Kokkos::deep_copy(components, 1.5);
    v = cs::wrap_components<Q, cs::Soa>(components);
    EXPECT_EQ(v.data.data(), components.data());
  }
  for (const Q& q : cs::to_host(v)) EXPECT_EQ(q, (Q{1.5, 1.5, 1.5, 1.5}));
  Kokkos::View<double**, Kokkos::LayoutLeft, memory_space> three("three", 6, 3);
  EXPECT_THROW((cs::wrap_components<Q, cs::Soa>(three)), cs::Error);
}

TEST(InteropViews, CopyValuesBetweenViewsAndSoaVectors) {
  std::mt19937 rng(9);
  const auto values = compound_sparse_test::random_vector<Q>(13, rng);
  const auto soa = cs::to_device<cs::Soa>(values);
  Kokkos::View<Q*, memory_space> app("app", 13);
  cs::copy_values(soa, app);
  const auto back = cs::to_device<cs::Soa>(std::vector<Q>(13));
  cs::copy_values(app, back);
  const auto result = cs::to_host(back);
  for (int i = 0; i < 13; ++i) EXPECT_EQ(result[i], values[i]);
  Kokkos::View<Q*, memory_space> short_view("short", 12);
  EXPECT_THROW(cs::copy_values(soa, short_view), cs::Error);
}
