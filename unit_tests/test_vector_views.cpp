// Vectors and multivectors that share memory (impl/overlap.hpp): a product whose output
// overlaps its input is refused with InvalidInput (it used to return a wrong result with no
// sign of it), while Views of one array that share no element still multiply correctly;
// vectors_of refuses ranges whose end does not fit an int.
#include <gtest/gtest.h>

#include <climits>
#include <compound_sparse.hpp>
#include <compound_sparse/impl/overlap.hpp>
#include <compound_sparse/tuning/measure.hpp>  // relative_error
#include <string>
#include <vector>

#include "error_helpers.hpp"
#include "test_matrices.hpp"

namespace {

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;
using compound_sparse_test::random_csr;
using compound_sparse_test::random_vector;
using Memory = Kokkos::DefaultExecutionSpace::memory_space;

using compound_sparse_test::contains;

template <class F>
std::string invalid_input_of(F&& f) {
  return compound_sparse_test::error_of_kind<cs::InvalidInput>(f);
}

cs::impl::MemoryFootprint footprint(std::uintptr_t address, std::size_t rows, std::size_t cols, std::size_t stride0,
                                    std::size_t stride1, std::size_t scalar = 8) {
  cs::impl::MemoryFootprint f;
  f.address = address;
  f.scalar_bytes = scalar;
  f.extents[0] = rows;
  f.extents[1] = cols;
  f.strides[0] = stride0;
  f.strides[1] = stride1;
  return f;
}

TEST(Footprint, DenseRangesOverlapExactlyWhereTheyShareBytes) {
  const auto a = footprint(1000, 10, 2, 2, 1);  // 20 doubles: bytes [1000, 1160)
  EXPECT_TRUE(cs::impl::overlaps(a, a));
  EXPECT_TRUE(cs::impl::overlaps(a, footprint(1152, 1, 1, 1, 1)));   // its last double
  EXPECT_FALSE(cs::impl::overlaps(a, footprint(1160, 4, 2, 2, 1)));  // right after it
  EXPECT_FALSE(cs::impl::overlaps(footprint(1160, 4, 2, 2, 1), a));
  EXPECT_FALSE(cs::impl::overlaps(a, footprint(1000, 0, 2, 2, 1)));  // an empty View shares nothing
  EXPECT_TRUE(cs::impl::overlaps(a, footprint(1004, 1, 1, 1, 1)));   // half a double in
}

TEST(Footprint, RowRangesOfOneLayoutLeftArrayShareNoElement) {
  // A LayoutLeft [100][4] array of doubles: rows 0-49 and rows 50-99 interleave in memory
  // (each component's column holds both) but share no element.
  const std::uintptr_t base = 4096;
  const auto top = footprint(base, 50, 4, 1, 100), bottom = footprint(base + 50 * 8, 50, 4, 1, 100);
  EXPECT_FALSE(cs::impl::overlaps(top, bottom));
  EXPECT_FALSE(cs::impl::overlaps(bottom, top));
  EXPECT_TRUE(cs::impl::overlaps(top, footprint(base + 49 * 8, 2, 4, 1, 100)));                 // rows 49-50
  EXPECT_TRUE(cs::impl::overlaps(bottom, footprint(base + (3 * 100 + 50) * 8, 1, 1, 1, 100)));  // row 50, comp. 3
  EXPECT_FALSE(cs::impl::overlaps(bottom, footprint(base + 3 * 800, 50, 1, 1, 100)));  // rows 0-49, component 3
}

/// A 40 x 40 complex matrix on the device, its host copy, and a vector of its columns.
struct Product {
  std::mt19937 rng{57};
  cs::HostCsr<C> host = random_csr<C>(40, 40, 1, 6, -1, rng);
  cs::SparseMatrix<C, cs::Csr, cs::Aos, Memory> a = cs::to_device<cs::Csr, cs::Aos>(host);
  std::vector<C> x = random_vector<C>(40, rng);
};

TEST(Aliasing, SpmvRefusesAnOutputThatIsItsInput) {
  Product p;
  const auto x = cs::to_device<cs::Aos>(p.x);
  const auto before = cs::to_host(x);
  const std::string e = invalid_input_of([&] { cs::spmv(cs::StaticSchedule{}, C(1, 0), p.a, x, C(0, 0), x); });
  EXPECT_TRUE(contains(e, "spmv: the output shares memory with the input")) << e;
  EXPECT_EQ(cs::to_host(x), before) << "a refused product must not touch its vectors";
  // The merge-path and segmented-sum schedules and the transposed layout refuse it too.
  auto merge = cs::to_device<cs::Csr, cs::Aos>(p.host);
  EXPECT_TRUE(contains(invalid_input_of([&] {
                         cs::spmv(cs::Schedule<cs::ScheduleKind::MergePath, 128, 4>{}, C(1, 0), merge, x, C(0, 0), x);
                       }),
                       "shares memory"));
  const auto soa = cs::to_device<cs::Soa>(p.x);
  const auto ell = cs::to_device<cs::Ell, cs::Soa>(p.host);
  EXPECT_TRUE(contains(invalid_input_of([&] { cs::spmv(cs::StaticSchedule{}, C(1, 0), ell, soa, C(1, 0), soa); }),
                       "shares memory"));
}

TEST(Aliasing, SpmvOnRowRangesOfOneSoaArrayMultipliesCorrectly) {
  // x and y as the two halves of one LayoutLeft [80][2] array: they interleave in memory
  // but share no element, so the product is allowed and exact.
  Product p;
  using vector_type = cs::CompoundVector<C, cs::Soa, Memory>;
  Kokkos::View<double* [2], Kokkos::LayoutLeft, Memory> both("both", 80);
  vector_type x, y;
  x.data = Kokkos::subview(both, std::make_pair(0, 40), Kokkos::ALL);
  y.data = Kokkos::subview(both, std::make_pair(40, 80), Kokkos::ALL);
  // Filled whole through a host mirror: Kokkos copies a strided half of a device View only
  // within one memory space, and CUDA's deep_copy refuses a strided host-device copy.
  const auto x_contiguous = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, cs::to_device<cs::Soa>(p.x).data);
  const auto both_host = Kokkos::create_mirror_view(both);
  for (int i = 0; i < 80; ++i)
    for (int c = 0; c < 2; ++c) both_host(i, c) = i < 40 ? x_contiguous(i, c) : 0.0;
  Kokkos::deep_copy(both, both_host);
  cs::spmv(cs::StaticSchedule{}, C(1, 0), cs::to_device<cs::Csr, cs::Soa>(p.host), x, C(0, 0), y);
  const auto want = cs::reference_spmv<double>(C(1, 0), p.host, p.x, C(0, 0), std::vector<C>(40));
  EXPECT_LE(cs::relative_error(cs::to_host(y), want), 1e-14);
  EXPECT_EQ(cs::to_host(x), p.x) << "x is read, never written";
}

TEST(Aliasing, SpmmRefusesOverlappingMultivectors) {
  Product p;
  std::vector<std::vector<C>> columns;
  for (int j = 0; j < 4; ++j) columns.push_back(random_vector<C>(40, p.rng));
  const auto m = cs::to_device<cs::Soa>(columns);
  const cs::Schedule<cs::ScheduleKind::DynamicWarp, 128, 4> schedule;
  EXPECT_TRUE(contains(invalid_input_of([&] { cs::spmm(schedule, C(1, 0), p.a, m, C(0, 0), m); }),
                       "spmm: the output shares memory with the input"));
  // Vectors 0-1 and 1-2 share vector 1.
  const auto x = cs::vectors_of(m, 0, 2), y = cs::vectors_of(m, 1, 2);
  EXPECT_TRUE(contains(invalid_input_of([&] { cs::spmm(schedule, C(1, 0), p.a, x, C(0, 0), y); }), "shares memory"));
  const auto aos = cs::to_device<cs::Aos>(columns);
  EXPECT_TRUE(
      contains(invalid_input_of([&] { cs::spmm(schedule, C(1, 0), p.a, aos, C(1, 0), aos); }), "shares memory"));
  EXPECT_EQ(cs::to_host(m), columns) << "refused products must not touch the multivector";
  // Vectors 0-1 into vectors 2-3 of the same multivector: disjoint, so allowed and exact.
  cs::spmm(schedule, C(1, 0), p.a, x, C(0, 0), cs::vectors_of(m, 2, 2));
  const auto result = cs::to_host(m);
  for (int j = 0; j < 2; ++j) {
    const auto want = cs::reference_spmv<double>(C(1, 0), p.host, columns[j], C(0, 0), std::vector<C>(40));
    EXPECT_LE(cs::relative_error(result[2 + j], want), 1e-14) << "vector " << j;
  }
}

TEST(VectorsOf, RangesWhoseEndOverflowsAreRefused) {
  const auto m = cs::to_device<cs::Soa>(std::vector<std::vector<C>>(3, std::vector<C>(5)));
  EXPECT_TRUE(contains(invalid_input_of([&] { cs::vectors_of(m, INT_MAX, 1); }), "vectors_of"));
  EXPECT_TRUE(contains(invalid_input_of([&] { cs::vectors_of(m, 2, INT_MAX); }), "vectors_of"));
  EXPECT_TRUE(contains(invalid_input_of([&] { cs::vectors_of(m, 1, 3); }), "vectors_of"));
  EXPECT_TRUE(contains(invalid_input_of([&] { cs::vectors_of(m, -1, 2); }), "vectors_of"));
  EXPECT_EQ(cs::vectors_of(m, 1, 2).count(), 2);
  EXPECT_EQ(cs::vectors_of(m, 2, 1).count(), 1);
}

}  // namespace
