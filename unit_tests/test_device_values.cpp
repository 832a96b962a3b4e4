// Values that change on the device while the pattern stays: refresh_values and
// TunedSpmv::refresh (refresh.hpp), and COO assembly straight into a layout
// (coo_assembly.hpp). Every result is compared bit for bit with the host path it replaces:
// a conversion of the same matrix (to_device), or csr_from_coo followed by the conversion.
#include <gtest/gtest.h>

#include <algorithm>
#include <compound_sparse.hpp>
#include <compound_sparse/layouts/coo_assembly.hpp>
#include <compound_sparse/layouts/refresh.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "device_arrays.hpp"
#include "error_helpers.hpp"
#include "test_matrices.hpp"

namespace cs = compound_sparse;
using compound_sparse_test::contains;
using compound_sparse_test::device_copy;
using compound_sparse_test::random_vector;
using compound_sparse_test::same_arrays;
using C = Kokkos::complex<double>;

namespace {

/// The message of the InvalidInput f throws, or what came instead (error_helpers.hpp).
template <class F>
std::string invalid_input_of(F&& f) {
  return compound_sparse_test::error_of_kind<cs::InvalidInput>(std::forward<F>(f));
}

/// `a` with new random values, its pattern kept.
template <class Entry>
cs::HostCsr<Entry> with_new_values(cs::HostCsr<Entry> a, std::mt19937& rng) {
  a.values = random_vector<Entry>(a.values.size(), rng);
  return a;
}

/// Every outer x inner layout that can hold `host`, as f(Outer tag, Inner tag).
template <class Entry, class F>
void for_each_layout_holding(const cs::HostCsr<Entry>& host, F&& f) {
  cs::for_each_type(cs::OuterLayouts{}, [&](auto outer) {
    using Outer = typename decltype(outer)::type;
    if (!cs::layout_refusal<Outer>(host).empty()) return;
    cs::for_each_type(cs::InnerLayouts{}, [&](auto inner) { f(outer, inner); });
  });
}

// refresh_values: the converted matrix with new values is the conversion of the new matrix,
// every array bit for bit, on every layout; twice: the first refresh of a padded layout
// computes its source offsets, the second (from host memory) reuses them. A matrix built on
// the device is the same arrays as to_device's (device_build.*), so this covers it too.
template <class Entry>
void expect_refresh_as_rebuild(unsigned seed) {
  std::mt19937 rng(seed);
  for (const auto& named : compound_sparse_test::test_matrices<Entry>(seed)) {
    for_each_layout_holding(named.matrix, [&](auto outer, auto inner) {
      using Outer = typename decltype(outer)::type;
      using Inner = typename decltype(inner)::type;
      const std::string what = named.name + " in " + Outer::name() + "." + Inner::name();
      const auto a = cs::to_device<Outer, Inner>(named.matrix);
      const auto first = with_new_values(named.matrix, rng);
      cs::refresh_values(a, device_copy(first.values));
      EXPECT_TRUE(same_arrays(a, cs::to_device<Outer, Inner>(first))) << what << ", first refresh";
      const auto second = with_new_values(named.matrix, rng);
      cs::refresh_values(a, second.values);
      EXPECT_TRUE(same_arrays(a, cs::to_device<Outer, Inner>(second))) << what << ", second refresh";
    });
  }
}

/// A COO list with the pattern of `a`: every non-zero split into one to three
/// contributions, the list shuffled.
template <class Entry>
std::vector<cs::CooEntry<Entry>> shuffled_contributions(const cs::HostCsr<Entry>& a, std::mt19937& rng,
                                                        int fewest_copies = 1) {
  std::vector<cs::CooEntry<Entry>> list;
  for (int r = 0; r < a.num_rows; ++r)
    for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k) {
      const int copies = fewest_copies + static_cast<int>(rng() % 3);
      for (int c = 0; c < copies; ++c)
        list.push_back({r, a.col_indices[k], compound_sparse_test::random_value<Entry>(rng)});
    }
  std::shuffle(list.begin(), list.end(), rng);
  return list;
}

template <class Entry>
struct DeviceCoo {
  Kokkos::View<int*, compound_sparse_test::device_memory_space> rows, cols;
  Kokkos::View<Entry*, compound_sparse_test::device_memory_space> values;
};
template <class Entry>
DeviceCoo<Entry> device_coo(const std::vector<cs::CooEntry<Entry>>& list) {
  std::vector<int> rows, cols;
  std::vector<Entry> values;
  for (const auto& e : list) {
    rows.push_back(e.row);
    cols.push_back(e.col);
    values.push_back(e.value);
  }
  return {device_copy(rows), device_copy(cols), device_copy(values)};
}

// assemble: the assembled matrix is csr_from_coo of the same list, converted, bit for bit,
// on every layout; and again with new values (re-assembly on the same pattern).
template <class Entry>
void expect_assembly_as_csr_from_coo(unsigned seed) {
  std::mt19937 rng(seed);
  int index = 0;
  for (const auto& named : compound_sparse_test::test_matrices<Entry>(seed)) {
    // Every other matrix with 4-6 contributions a non-zero, which a padded layout sums before
    // its tiled write, the others with 1-3, which it sums inside it.
    auto list = shuffled_contributions(named.matrix, rng, index++ % 2 == 0 ? 1 : 4);
    const auto coo = device_coo(list);
    const auto pattern = cs::csr_from_coo(named.matrix.num_rows, named.matrix.num_cols, list);
    cs::for_each_type(cs::OuterLayouts{}, [&](auto outer) {
      using Outer = typename decltype(outer)::type;
      const std::string refusal = cs::layout_refusal<Outer>(pattern);
      cs::for_each_type(cs::InnerLayouts{}, [&](auto inner) {
        using Inner = typename decltype(inner)::type;
        const std::string what = named.name + " in " + Outer::name() + "." + Inner::name();
        if (!refusal.empty()) {  // refused with the conversion's message
          try {
            cs::CooAssembly<Entry, Outer, Inner> refused(pattern.num_rows, pattern.num_cols, coo.rows, coo.cols);
            ADD_FAILURE() << what << ": expected BudgetExceeded";
          } catch (const cs::BudgetExceeded& e) {
            EXPECT_EQ(e.reason(), refusal) << what;
          }
          return;
        }
        const cs::CooAssembly<Entry, Outer, Inner> assembly(pattern.num_rows, pattern.num_cols, coo.rows, coo.cols);
        EXPECT_EQ(assembly.num_contributions(), list.size()) << what;
        for (int step = 0; step < 2; ++step) {
          auto values = list;
          if (step == 1)
            for (auto& e : values) e.value = compound_sparse_test::random_value<Entry>(rng);
          assembly.assemble(device_coo(values).values);
          const auto expected =
              cs::to_device<Outer, Inner>(cs::csr_from_coo(named.matrix.num_rows, named.matrix.num_cols, values));
          EXPECT_TRUE(same_arrays(assembly.matrix(), expected)) << what << " step " << step;
        }
      });
    });
  }
}

}  // namespace

TEST(refresh, EveryLayoutMatchesARebuildBitForBitComplexDouble) {
  expect_refresh_as_rebuild<C>(41);
}
TEST(refresh, EveryLayoutMatchesARebuildBitForBitQuaternionFloat) {
  expect_refresh_as_rebuild<cs::Quaternion<float>>(42);
}
TEST(refresh, EveryLayoutMatchesARebuildBitForBitBlock3Double) {
  expect_refresh_as_rebuild<cs::Block<double, 3>>(43);
}

// Values in a strided View (a column of a table of values per step) take the per-entry
// kernel instead of the plain copy a contiguous View gets; the result is the same.
TEST(refresh, StridedValuesMatchARebuildBitForBit) {
  std::mt19937 rng(45);
  for (const auto& named : compound_sparse_test::test_matrices<C>(45)) {
    for_each_layout_holding(named.matrix, [&](auto outer, auto inner) {
      using Outer = typename decltype(outer)::type;
      using Inner = typename decltype(inner)::type;
      const auto a = cs::to_device<Outer, Inner>(named.matrix);
      const auto fresh = with_new_values(named.matrix, rng);
      Kokkos::View<C**, Kokkos::LayoutRight, compound_sparse_test::device_memory_space> steps("steps",
                                                                                              fresh.values.size(), 3);
      const auto host_steps = Kokkos::create_mirror_view(steps);
      for (std::size_t k = 0; k < fresh.values.size(); ++k) host_steps(k, 1) = fresh.values[k];
      Kokkos::deep_copy(steps, host_steps);
      const auto column = Kokkos::subview(steps, Kokkos::ALL(), 1);
      if (fresh.values.size() > 1) {
        ASSERT_FALSE(column.span_is_contiguous());
      }
      cs::refresh_values(a, column);
      EXPECT_TRUE(same_arrays(a, cs::to_device<Outer, Inner>(fresh)))
          << named.name << " in " << Outer::name() << "." << Inner::name();
    });
  }
}

// A values View of the wrong length is refused before anything is written.
TEST(refresh, WrongNumberOfValuesIsRefusedAndNothingChanges) {
  std::mt19937 rng(44);
  const auto host = compound_sparse_test::random_csr<C>(50, 40, 0, 6, 7, rng);
  const auto a = cs::to_device<cs::SlicedEll<32>, cs::Soa>(host);
  const auto values = random_vector<C>(host.values.size() + 1, rng);
  const std::string why = invalid_input_of([&] { cs::refresh_values(a, device_copy(values)); });
  EXPECT_TRUE(contains(why, std::to_string(values.size()) + " values for a matrix of " +
                                std::to_string(host.values.size()) + " non-zeros"))
      << why;
  EXPECT_TRUE(same_arrays(a, cs::to_device<cs::SlicedEll<32>, cs::Soa>(host)));  // as converted
}

TEST(assemble, EveryLayoutMatchesCsrFromCooBitForBitComplexDouble) {
  expect_assembly_as_csr_from_coo<C>(51);
}
TEST(assemble, EveryLayoutMatchesCsrFromCooBitForBitQuaternionFloat) {
  expect_assembly_as_csr_from_coo<cs::Quaternion<float>>(52);
}
TEST(assemble, EveryLayoutMatchesCsrFromCooBitForBitBlock3Double) {
  expect_assembly_as_csr_from_coo<cs::Block<double, 3>>(53);
}

// An empty list gives a matrix of empty rows; a list of one contribution a 1 x 1 matrix.
TEST(assemble, EmptyAndSingleContributionLists) {
  const std::vector<cs::CooEntry<C>> none;
  const auto empty = device_coo(none);
  const cs::CooAssembly<C, cs::SlicedEll<32>, cs::Aos> nothing(5, 4, empty.rows, empty.cols);
  nothing.assemble(empty.values);
  EXPECT_TRUE(same_arrays(nothing.matrix(), cs::to_device<cs::SlicedEll<32>, cs::Aos>(cs::csr_from_coo(5, 4, none))));
  const std::vector<cs::CooEntry<C>> one = {{0, 0, C(2, -1)}};
  const auto single = device_coo(one);
  const cs::CooAssembly<C, cs::Csr, cs::Soa> one_by_one(1, 1, single.rows, single.cols);
  one_by_one.assemble(single.values);
  EXPECT_TRUE(same_arrays(one_by_one.matrix(), cs::to_device<cs::Csr, cs::Soa>(cs::csr_from_coo(1, 1, one))));
}

// Bad input: a clear InvalidInput naming the first bad contribution, its index and
// position, and nothing half-written.
TEST(assemble, BadInputIsRefusedNamingTheFirstBadContribution) {
  std::vector<cs::CooEntry<C>> list;
  for (int i = 0; i < 20; ++i) list.push_back({i % 10, (3 * i) % 10, C(i, 1)});
  auto bad_row = list;
  bad_row[7].row = 12;
  bad_row[15].row = -1;
  const auto row_outside = device_coo(bad_row);
  EXPECT_TRUE(contains(
      invalid_input_of([&] { cs::CooAssembly<C, cs::Csr, cs::Aos>(10, 10, row_outside.rows, row_outside.cols); }),
      "contribution 7 at (12, 1) is outside the 10 x 10 matrix"));
  auto bad_col = list;
  bad_col[4].col = -3;
  const auto column_outside = device_coo(bad_col);
  EXPECT_TRUE(contains(
      invalid_input_of([&] { cs::CooAssembly<C, cs::Ell, cs::Soa>(10, 10, column_outside.rows, column_outside.cols); }),
      "contribution 4 at (4, -3) is outside"));
  const auto coo = device_coo(list);
  EXPECT_TRUE(contains(invalid_input_of([&] { cs::CooAssembly<C, cs::Csr, cs::Aos>(-1, 10, coo.rows, coo.cols); }),
                       "matrix size -1 x 10 is negative"));
  const auto fewer_cols = Kokkos::subview(coo.cols, std::make_pair(0, 19));
  EXPECT_TRUE(contains(invalid_input_of([&] { cs::CooAssembly<C, cs::Csr, cs::Aos>(10, 10, coo.rows, fewer_cols); }),
                       "20 rows but 19 columns"));
  // Values of the wrong length: refused, the matrix keeps the last assembly's values.
  const cs::CooAssembly<C, cs::SlicedEll<16>, cs::Aos> assembly(10, 10, coo.rows, coo.cols);
  assembly.assemble(coo.values);
  const auto short_values = Kokkos::subview(coo.values, std::make_pair(0, 19));
  EXPECT_TRUE(contains(invalid_input_of([&] { assembly.assemble(short_values); }), "19 values for 20 contributions"));
  EXPECT_TRUE(
      same_arrays(assembly.matrix(), cs::to_device<cs::SlicedEll<16>, cs::Aos>(cs::csr_from_coo(10, 10, list))));
}
