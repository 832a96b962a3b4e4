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

/// Where the suite also runs the row kernel with 2 and 4 vectors a thread
/// (impl::row_spmm's VectorsPerThread): csr.aos with Static and DynamicWarp.
template <class V>
constexpr bool tiles_tested() {
  return std::is_same<typename V::outer, cs::Csr>::value && std::is_same<typename V::inner, cs::Aos>::value &&
         (V::kind == cs::ScheduleKind::Static || V::kind == cs::ScheduleKind::DynamicWarp);
}

/// The SpMM of a variant as the library compiled it, the registry's for `key` (compiled entry
/// types; X and Y in the key's one multivector layout), and the SpMV per vector it is compared
/// with: the same key's SpMV on Aos vectors. Like RegistrySpmv, one type per entry type, so the
/// checks compile once per entry type.
template <class Entry>
struct RegistrySpmm {
  cs::VariantKey key;  ///< vector is set by the multivector layout, lanes_per_row per product
  using entry_type = Entry;
  using memory_space = Kokkos::DefaultExecutionSpace::memory_space;
  using vector_type = cs::vector_type_t<Entry>;
  using coefficient = cs::coefficient_type_t<Entry>;
  using any_multivector = cs::AnyMultiVector<vector_type, memory_space>;

  std::string variant_name() const { return key.outer + "_" + key.inner + "_" + cs::to_string(key.kind); }
  std::string name() const { return SuiteBounds{key.threads, key.teams_per_sm}.name(); }
  bool uses_lanes() const { return cs::uses_lanes(key.kind); }
  auto matrix(const cs::HostCsr<Entry>& host) const {
    return cs::variant_registry<Entry>().convert_matrix(key.outer, key.inner, host);
  }
  template <class Layout>
  any_multivector multivector(const std::vector<std::vector<vector_type>>& vectors) const {
    return cs::variant_registry<Entry>().convert_multivector(Layout::name(), vectors);
  }
  static std::vector<std::vector<vector_type>> to_host(const any_multivector& y) { return y.to_host(); }
  template <class Matrix>
  void spmm(int lanes, const coefficient& alpha, const Matrix& a, const any_multivector& x, const coefficient& beta,
            const any_multivector& y) const {
    cs::VariantKey with = key;
    with.vector = x.layout();
    with.lanes_per_row = lanes;
    COMPOUND_SPARSE_REQUIRE(y.layout() == x.layout(), "the registry's SpMM takes X and Y in one layout");
    cs::variant_registry<Entry>().spmm(with, alpha, a, x, beta, y);
  }
  /// y_j = alpha A x_j + beta y0_j, one SpMV per vector.
  template <class Matrix>
  std::vector<std::vector<vector_type>> spmv_each(int lanes, const coefficient& alpha, const Matrix& a,
                                                  const std::vector<std::vector<vector_type>>& x,
                                                  const coefficient& beta,
                                                  const std::vector<std::vector<vector_type>>& y0) const {
    const auto& registry = cs::variant_registry<Entry>();
    cs::VariantKey with = key;
    with.vector = cs::Aos::name();
    with.lanes_per_row = lanes;
    std::vector<std::vector<vector_type>> y(y0.size());
    for (std::size_t j = 0; j < y0.size(); ++j) {
      const auto yj = registry.convert_vector(with.vector, y0[j]);
      registry.spmv(with, alpha, a, registry.convert_vector(with.vector, x[j]), beta, yj);
      y[j] = yj.to_host();
    }
    return y;
  }
  template <class YLayout, class... Args>
  void check_tiles(const Args&...) const {}  // the row kernel's tiles are checked typed (TypedSpmm)
};

/// The typed spmm of variant V at TypedSchedule (any X and Y layouts), and the typed SpMV
/// with the same schedule.
template <class V>
struct TypedSpmm {
  using entry_type = typename V::entry_type;
  using vector_type = cs::vector_type_t<entry_type>;
  using coefficient = cs::coefficient_type_t<entry_type>;

  static std::string variant_name() { return V::name(); }
  std::string name() const { return spmv().name(); }
  static bool uses_lanes() { return cs::uses_lanes(V::kind); }
  static auto matrix(const cs::HostCsr<entry_type>& host) {
    return cs::to_device<typename V::outer, typename V::inner>(host);
  }
  template <class Layout>
  static auto multivector(const std::vector<std::vector<vector_type>>& vectors) {
    return cs::to_device<Layout>(vectors);
  }
  template <class Multi>
  static std::vector<std::vector<vector_type>> to_host(const Multi& y) {
    return cs::to_host(y);
  }
  template <class Matrix, class XMulti, class YMulti>
  void spmm(int lanes, const coefficient& alpha, const Matrix& a, const XMulti& x, const coefficient& beta,
            const YMulti& y) const {
    TypedSchedule<V> schedule;
    schedule.lanes_per_row = lanes;
    cs::spmm(schedule, alpha, a, x, beta, y);
  }
  TypedSpmv<SpmvOf<V>, TypedSchedule<V>> spmv() const { return {}; }
  /// y_j = alpha A x_j + beta y0_j, one SpMV per vector, on the Aos vectors of Soa multivectors.
  template <class Matrix>
  std::vector<std::vector<vector_type>> spmv_each(int lanes, const coefficient& alpha, const Matrix& a,
                                                  const std::vector<std::vector<vector_type>>& x,
                                                  const coefficient& beta,
                                                  const std::vector<std::vector<vector_type>>& y0) const {
    const auto x_soa = cs::to_device<cs::Soa>(x);
    const auto y = cs::to_device<cs::Soa>(y0);
    for (std::size_t j = 0; j < y0.size(); ++j)
      spmv()(lanes, alpha, a, cs::vector_of(x_soa, static_cast<int>(j)), beta, cs::vector_of(y, static_cast<int>(j)));
    return cs::to_host(y);
  }
  /// On csr.aos with Static and DynamicWarp (tiles_tested): the row kernel with threads that
  /// accumulate 1, 2 and 4 vectors each (the tile's last may be partial) must give the bits of
  /// the SpMV per vector.
  template <class YLayout, class Matrix, class XMulti>
  void check_tiles([[maybe_unused]] int lanes, [[maybe_unused]] const coefficient& alpha,
                   [[maybe_unused]] const Matrix& a, [[maybe_unused]] const XMulti& x,
                   [[maybe_unused]] const coefficient& beta,
                   [[maybe_unused]] const std::vector<std::vector<vector_type>>& y0,
                   [[maybe_unused]] const std::vector<std::vector<vector_type>>& by_vector,
                   [[maybe_unused]] const std::string& context) const {
    if constexpr (tiles_tested<V>()) {
      using Schedule = TypedSchedule<V>;
      Schedule schedule;
      schedule.lanes_per_row = lanes;
      const auto tiles = [&](auto per_thread) {
        const auto yt = cs::to_device<YLayout>(y0);
        const auto result = cs::impl::RowResult<entry_type, cs::Aos>::make(alpha, beta);
        using Exec = Kokkos::DefaultExecutionSpace;
        cs::impl::row_spmm<Exec, V::kind, Schedule::threads, Schedule::min_teams_per_sm, entry_type, typename V::outer,
                           typename V::inner, typename XMulti::layout, YLayout, typename Exec::memory_space,
                           decltype(per_thread)::value>(Exec(), schedule, result, a, x, yt);
        const auto got = cs::to_host(yt);
        for (std::size_t j = 0; j < got.size(); ++j)
          EXPECT_EQ(0, std::memcmp(by_vector[j].data(), got[j].data(), got[j].size() * sizeof(vector_type)))
              << context << ": vector " << j << " with " << decltype(per_thread)::value
              << " vectors a thread differs from an SpMV of it";
      };
      tiles(std::integral_constant<int, 1>{});
      tiles(std::integral_constant<int, 2>{});
      tiles(std::integral_constant<int, 4>{});
    }
  }
};

/// Checks one SpMM variant with `product` (RegistrySpmm or TypedSpmm), X in XLayout and Y in
/// YLayout.
template <class XLayout, class YLayout, class Product>
void run_spmm_layouts(const Product& product, const std::string& matrix_name,
                      const cs::HostCsr<typename Product::entry_type>& host, std::mt19937& rng) {
  using Entry = typename Product::entry_type;
  using vector_type = cs::vector_type_t<Entry>;
  using coefficient = cs::coefficient_type_t<Entry>;
  const auto a = product.matrix(host);
  // On CUDA also k = 8, where Aos multivectors take the shared loads' fixed groups
  // (SpmmFunctor::compute_row_fixed_group), and k = 35: more tiles than a warp holds at one
  // vector a thread (two passes, the last partial; the shared loads have members past k there).
  std::vector<int> ks = {1, 3, 16};
  if (cs::impl::is_gpu_space<Kokkos::DefaultExecutionSpace>()) ks.insert(ks.end(), {8, 35});
  for (int k : ks) {
    if (!std::is_same<XLayout, YLayout>::value && k != 3) continue;  // mixed layouts: one k
    std::vector<std::vector<vector_type>> x_host(k);
    for (auto& v : x_host) v = random_vector<vector_type>(host.num_cols, rng);
    const auto x = product.template multivector<XLayout>(x_host);
    auto pairs = coefficient_pairs<coefficient>();
    if (k != 3) pairs.resize(1);  // beta = 0 and beta = 1 with k = 3 only
    for (const auto& [alpha, beta] : pairs) {
      for (int lanes : lanes_to_test(/*spmm=*/true)) {
        if (!product.uses_lanes() && lanes != 1) continue;
        std::vector<std::vector<vector_type>> y0(k);
        for (auto& v : y0) {
          v = random_vector<vector_type>(host.num_rows, rng);
          if (l1(beta) == 0)
            for (auto& value : v) value = nan_value<vector_type>();
        }
        const auto y = product.template multivector<YLayout>(y0);
        product.spmm(lanes, alpha, a, x, beta, y);
        const auto y_host = product.to_host(y);
        const std::string context = product.variant_name() + " " + product.name() + " X " + XLayout::name() + " Y " +
                                    YLayout::name() + " on " + matrix_name + " k=" + std::to_string(k) +
                                    " lanes=" + std::to_string(lanes) + " beta_zero=" + std::to_string(l1(beta) == 0);
        ASSERT_EQ(y_host.size(), static_cast<std::size_t>(k)) << context;
        for (int j = 0; j < k; ++j)
          expect_matches_reference<Entry>(context + " vector " + std::to_string(j), alpha, host, x_host[j], beta, y0[j],
                                          y_host[j]);
        const auto by_vector = product.spmv_each(lanes, alpha, a, x_host, beta, y0);
        for (int j = 0; j < k; ++j)
          EXPECT_EQ(0, std::memcmp(by_vector[j].data(), y_host[j].data(), y_host[j].size() * sizeof(vector_type)))
              << context << ": vector " << j << " differs from an SpMV of it";
        product.template check_tiles<YLayout>(lanes, alpha, a, x, beta, y0, by_vector, context);
      }
    }
  }
}

template <class V>
void run_spmm_case() {
  using Entry = typename V::entry_type;
  constexpr bool compiled = cs::is_compiled_entry<Entry>::value;
  if constexpr (compiled) {
    // Each multivector layout's SpMM is checked against the same variant's SpMV on Aos vectors
    // (RegistrySpmm::spmv_each), so both must be compiled.
    std::vector<cs::VariantKey> keys;
    for (const auto& bounds : suite_bounds(cs::SpmmLaunchBounds{}))
      for (const auto& layout : {cs::Soa::name(), cs::Aos::name()}) keys.push_back(variant_key<V>(layout, bounds, 1));
    const auto compiled_with_spmv = [](const cs::VariantKey& key) {
      cs::VariantKey spmv = key;
      spmv.vector = cs::Aos::name();
      return cs::variant_registry<Entry>().supports_spmm(key) && cs::variant_registry<Entry>().contains(spmv);
    };
    for_each_compiled<Entry>(keys, compiled_with_spmv, [](const cs::VariantKey& key) {
      const RegistrySpmm<Entry> product{key};
      std::mt19937 rng(77u);
      for (const auto& [name, host] : test_matrices<Entry>(2025u)) {
        if (key.vector == cs::Soa::name())
          run_spmm_layouts<cs::Soa, cs::Soa>(product, name, host, rng);
        else  // the kinds that split rows through Soa copies of Aos multivectors (spmm.hpp)
          run_spmm_layouts<cs::Aos, cs::Aos>(product, name, host, rng);
      }
    });
  }
  // Typed: every layout pair of an uncompiled entry type; X and Y in different layouts,
  // which the registry's SpMM does not take, on the tiles' cases of a compiled one.
  if constexpr (!compiled || tiles_tested<V>()) {
    const TypedSpmm<V> product;
    std::mt19937 rng(78u);
    for (const auto& [name, host] : test_matrices<Entry>(2025u)) {
      if constexpr (!compiled) {
        run_spmm_layouts<cs::Soa, cs::Soa>(product, name, host, rng);
        run_spmm_layouts<cs::Aos, cs::Aos>(product, name, host, rng);
      }
      run_spmm_layouts<cs::Aos, cs::Soa>(product, name, host, rng);
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
