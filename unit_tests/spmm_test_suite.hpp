#pragma once
// The SpMM correctness suite (spmm.hpp), instantiated once per declared entry type
// next to the SpMV suite (unit_tests/test_spmv_entry.cpp.in). Cases, named like
//   spmv.complex_double.Variants/Spmm.MatchesReferenceAndSpmv/<outer>_<inner>_<kind>:
// every outer layout with the Static schedule (and sell32 with Soa entries), and every
// schedule kind on csr.aos (the kinds share the kernel's row loop; what differs is how
// rows are handed out). Each case runs every test matrix, k = 1, 3 and 16 vectors (8 and 35
// too on GPUs), both multivector layouts for X and Y (and, with k = 3, one of each), three
// (alpha, beta) pairs with k = 3 (the general pair otherwise) and lanes_per_row 1, 2, 4 and
// 32 on GPUs (1 and 32 on host backends; 1 only for kinds without lanes), and checks
//   - each vector of Y against the double-precision host reference, and
//   - Y bit for bit against one SpMV per vector with the same schedule (spmm.hpp
//     promises the SpMV's bits), and on csr.aos with Static and DynamicWarp also the row
//     kernel with 2 and 4 vectors a thread (impl::row_spmm's VectorsPerThread).
// As in the SpMV suite, an entry type of the registry is checked through its compiled
// variants (every pair of SpmmLaunchBounds; the SpMV per vector with the same key's SpMV),
// another one through the typed kernels. The registry's SpMM takes X and Y in the key's
// one layout; X and Y in different layouts (a typed spmm's freedom) are checked typed, on
// the csr.aos cases that also check the tiles, and on every case of an uncompiled type.

#include <gtest/gtest.h>

#include <compound_sparse.hpp>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "spmv_test_suite.hpp"

namespace compound_sparse_test {

template <class Entry, class Outer, class Inner, cs::ScheduleKind Kind>
struct SpmmVariant {
  using entry_type = Entry;
  using outer = Outer;
  using inner = Inner;
  static constexpr cs::ScheduleKind kind = Kind;
  static std::string name() { return Outer::name() + "_" + Inner::name() + "_" + cs::to_string(Kind); }
};

/// The SpMV variant of SpMM variant V on the vectors of an Soa multivector (vector_of: Aos).
template <class V>
using SpmvOf = Variant<typename V::entry_type, typename V::outer, typename V::inner, cs::Aos, cs::Aos, V::kind>;

/// Lanes per row: on host backends a row's lanes are one thread's loop (spmv.hpp), so
/// two values show that any is taken; on GPUs each changes the kernel's groups.
inline const std::vector<int> lanes_to_test =
    cs::impl::is_gpu_space<Kokkos::DefaultExecutionSpace>() ? std::vector<int>{1, 2, 4, 32} : std::vector<int>{1, 32};

/// Where the suite also runs the row kernel with 2 and 4 vectors a thread
/// (impl::row_spmm's VectorsPerThread): csr.aos with Static and DynamicWarp.
template <class V>
constexpr bool tiles_tested() {
  return std::is_same<typename V::outer, cs::Csr>::value && std::is_same<typename V::inner, cs::Aos>::value &&
         (V::kind == cs::ScheduleKind::Static || V::kind == cs::ScheduleKind::DynamicWarp);
}

/// The SpMM of variant V as the library compiled it, at `bounds` (compiled entry types; X and
/// Y in the key's one multivector layout), and the SpMV per vector it is compared with: the
/// same key's SpMV on the Aos vectors of an Soa multivector.
template <class V>
struct RegistrySpmm {
  SuiteBounds bounds;
  std::string name() const { return bounds.name(); }
  template <class Matrix, class XMulti, class YMulti>
  void spmm(int lanes, const cs::coefficient_type_t<typename V::entry_type>& alpha, const Matrix& a, const XMulti& x,
            const cs::coefficient_type_t<typename V::entry_type>& beta, const YMulti& y) const {
    static_assert(std::is_same<XMulti, YMulti>::value, "the registry's SpMM takes X and Y in one layout");
    using Entry = typename V::entry_type;
    using any_multivector = cs::AnyMultiVector<cs::vector_type_t<Entry>, typename Matrix::memory_space>;
    cs::variant_registry<Entry>().spmm(variant_key<V>(XMulti::layout::name(), bounds, lanes), alpha,
                                       cs::AnyMatrix<Entry, typename Matrix::memory_space>(a), any_multivector(x), beta,
                                       any_multivector(y));
  }
  RegistrySpmv<SpmvOf<V>> spmv() const { return {bounds}; }
};

/// The typed spmm of variant V at TypedSchedule (any X and Y layouts), and the typed SpMV
/// with the same schedule.
template <class V>
struct TypedSpmm {
  std::string name() const { return spmv().name(); }
  template <class Matrix, class XMulti, class YMulti>
  void spmm(int lanes, const cs::coefficient_type_t<typename V::entry_type>& alpha, const Matrix& a, const XMulti& x,
            const cs::coefficient_type_t<typename V::entry_type>& beta, const YMulti& y) const {
    TypedSchedule<V> schedule;
    schedule.lanes_per_row = lanes;
    cs::spmm(schedule, alpha, a, x, beta, y);
  }
  TypedSpmv<SpmvOf<V>, TypedSchedule<V>> spmv() const { return {}; }
};

/// Checks variant V with `product` (RegistrySpmm or TypedSpmm), X in XLayout and Y in YLayout.
template <class XLayout, class YLayout, class V, class Product>
void run_spmm_layouts(const Product& product, const std::string& matrix_name,
                      const cs::HostCsr<typename V::entry_type>& host, std::mt19937& rng) {
  using Entry = typename V::entry_type;
  using vector_type = cs::vector_type_t<Entry>;
  using coefficient = cs::coefficient_type_t<Entry>;
  const auto a = cs::to_device<typename V::outer, typename V::inner>(host);
  // On CUDA also k = 8, where Aos multivectors take the shared loads' fixed groups
  // (SpmmFunctor::compute_row_fixed_group), and k = 35: more tiles than a warp holds at one
  // vector a thread (two passes, the last partial; the shared loads have members past k there).
  std::vector<int> ks = {1, 3, 16};
  if (cs::impl::is_gpu_space<Kokkos::DefaultExecutionSpace>()) ks.insert(ks.end(), {8, 35});
  for (int k : ks) {
    if (!std::is_same<XLayout, YLayout>::value && k != 3) continue;  // mixed layouts: one k
    std::vector<std::vector<vector_type>> x_host(k);
    for (auto& v : x_host) v = random_vector<vector_type>(host.num_cols, rng);
    const auto x = cs::to_device<XLayout>(x_host);
    const auto x_soa = cs::to_device<cs::Soa>(x_host);
    auto pairs = coefficient_pairs<coefficient>();
    if (k != 3) pairs.resize(1);  // beta = 0 and beta = 1 with k = 3 only
    for (const auto& pair : pairs) {
      // Named copies, not structured bindings: the tiles lambda below captures them
      // (capturing a structured binding is C++20; nvcc warns).
      const coefficient alpha = pair.first, beta = pair.second;
      for (int lanes : lanes_to_test) {
        if (!cs::uses_lanes(V::kind) && lanes != 1) continue;
        std::vector<std::vector<vector_type>> y0(k);
        for (auto& v : y0) {
          v = random_vector<vector_type>(host.num_rows, rng);
          if (l1(beta) == 0)
            for (auto& value : v) value = nan_value<vector_type>();
        }
        const auto y = cs::to_device<YLayout>(y0);
        product.spmm(lanes, alpha, a, x, beta, y);
        const auto y_host = cs::to_host(y);
        const std::string context = V::name() + " " + product.name() + " X " + XLayout::name() + " Y " +
                                    YLayout::name() + " on " + matrix_name + " k=" + std::to_string(k) +
                                    " lanes=" + std::to_string(lanes) + " beta_zero=" + std::to_string(l1(beta) == 0);
        ASSERT_EQ(y_host.size(), static_cast<std::size_t>(k)) << context;
        const auto y_spmv = cs::to_device<cs::Soa>(y0);
        for (int j = 0; j < k; ++j) {
          expect_matches_reference<Entry>(context + " vector " + std::to_string(j), alpha, host, x_host[j], beta, y0[j],
                                          y_host[j]);
          product.spmv()(lanes, alpha, a, cs::vector_of(x_soa, j), beta, cs::vector_of(y_spmv, j));
        }
        const auto by_vector = cs::to_host(y_spmv);
        for (int j = 0; j < k; ++j)
          EXPECT_EQ(0, std::memcmp(by_vector[j].data(), y_host[j].data(), y_host[j].size() * sizeof(vector_type)))
              << context << ": vector " << j << " differs from an SpMV of it";
        if constexpr (tiles_tested<V>()) {
          // Threads that accumulate 1, 2 and 4 vectors each (the tile's last may be partial).
          using Schedule = TypedSchedule<V>;
          Schedule schedule;
          schedule.lanes_per_row = lanes;
          const auto tiles = [&](auto per_thread) {
            const auto yt = cs::to_device<YLayout>(y0);
            const auto result = cs::impl::RowResult<Entry, cs::Aos>::make(alpha, beta);
            using Exec = Kokkos::DefaultExecutionSpace;
            cs::impl::row_spmm<Exec, V::kind, Schedule::threads, Schedule::min_teams_per_sm, Entry, typename V::outer,
                               typename V::inner, XLayout, YLayout, typename Exec::memory_space,
                               decltype(per_thread)::value>(Exec(), schedule, result, a, x, yt);
            const auto got = cs::to_host(yt);
            for (int j = 0; j < k; ++j)
              EXPECT_EQ(0, std::memcmp(by_vector[j].data(), got[j].data(), got[j].size() * sizeof(vector_type)))
                  << context << ": vector " << j << " with " << decltype(per_thread)::value
                  << " vectors a thread differs from an SpMV of it";
          };
          tiles(std::integral_constant<int, 1>{});
          tiles(std::integral_constant<int, 2>{});
          tiles(std::integral_constant<int, 4>{});
        }
      }
    }
  }
}

template <class V>
void run_spmm_case() {
  using Entry = typename V::entry_type;
  constexpr bool compiled = cs::is_compiled_entry<Entry>::value;
  if constexpr (compiled) {
    for (const auto& bounds : suite_bounds(cs::SpmmLaunchBounds{})) {
      const RegistrySpmm<V> product{bounds};
      std::mt19937 rng(77u);
      for (const auto& [name, host] : test_matrices<Entry>(2025u)) {
        run_spmm_layouts<cs::Soa, cs::Soa, V>(product, name, host, rng);
        // The kinds that split rows through Soa copies of Aos multivectors (spmm.hpp).
        run_spmm_layouts<cs::Aos, cs::Aos, V>(product, name, host, rng);
      }
    }
  }
  // Typed: every layout pair of an uncompiled entry type; X and Y in different layouts,
  // which the registry's SpMM does not take, on the tiles' cases of a compiled one.
  if constexpr (!compiled || tiles_tested<V>()) {
    const TypedSpmm<V> product;
    std::mt19937 rng(78u);
    for (const auto& [name, host] : test_matrices<Entry>(2025u)) {
      if constexpr (!compiled) {
        run_spmm_layouts<cs::Soa, cs::Soa, V>(product, name, host, rng);
        run_spmm_layouts<cs::Aos, cs::Aos, V>(product, name, host, rng);
      }
      run_spmm_layouts<cs::Aos, cs::Soa, V>(product, name, host, rng);
    }
  }
}

template <class Entry, class Outer, class Inner, cs::ScheduleKind Kind>
VariantCase spmm_case() {
  return {SpmmVariant<Entry, Outer, Inner, Kind>::name(), &run_spmm_case<SpmmVariant<Entry, Outer, Inner, Kind>>};
}
template <class Entry, cs::ScheduleKind... Kind>
std::vector<VariantCase> kind_spmm_cases(cs::ValueList<Kind...>) {
  return {spmm_case<Entry, cs::Csr, cs::Aos, Kind>()...};
}
/// Every outer layout with Static on Aos entries, sell32 on Soa entries, and every kind
/// but Static on csr.aos. The matrix's inner layout enters the kernel only where the
/// SpMV's does (load_streaming, tested with every variant by the SpMV suite), so one
/// Soa layout stands for the rest and keeps the suite's build and run short on CI.
template <class Entry, class... Outer>
std::vector<VariantCase> spmm_cases(cs::TypeList<Outer...>) {
  std::vector<VariantCase> cases = {spmm_case<Entry, Outer, cs::Aos, cs::ScheduleKind::Static>()...};
  cases.push_back(spmm_case<Entry, cs::SlicedEll<32>, cs::Soa, cs::ScheduleKind::Static>());
  for (const auto& c : kind_spmm_cases<Entry>(cs::ScheduleKinds{}))
    if (c.name != SpmmVariant<Entry, cs::Csr, cs::Aos, cs::ScheduleKind::Static>::name()) cases.push_back(c);
  return cases;
}

}  // namespace compound_sparse_test

/// Defines the suite Spmm for the entry type given as the remaining argument(s);
/// cases are named PREFIX/Spmm.MatchesReferenceAndSpmv/<outer>_<inner>_<kind>.
#define COMPOUND_SPARSE_SPMM_SUITE(PREFIX, ...)                                                                \
  class Spmm : public ::testing::TestWithParam<::compound_sparse_test::VariantCase> {};                        \
  TEST_P(Spmm, MatchesReferenceAndSpmv) {                                                                      \
    GetParam().run();                                                                                          \
  }                                                                                                            \
  INSTANTIATE_TEST_SUITE_P(                                                                                    \
      PREFIX, Spmm,                                                                                            \
      ::testing::ValuesIn(::compound_sparse_test::spmm_cases<__VA_ARGS__>(::compound_sparse::OuterLayouts{})), \
      ::compound_sparse_test::VariantCaseName{})
