#pragma once
// The SpMV correctness suite, instantiated once per declared entry type (one
// generated .cpp each, unit_tests/test_spmv_entry.cpp.in, so the builds run in
// parallel). Every variant of the variant space -- outer layout x matrix inner
// layout x vector layout x schedule kind -- is one ctest case, named like
//   spmv.complex_double.Variants/Spmv.MatchesDoubleReference/<outer>_aos_soa_dynamic_warp
// and each case runs every test matrix, three (alpha, beta) pairs and every
// lanes_per_row on GPUs (1 and 32 on host backends, lanes_to_test; 1 only for kinds that
// do not use lanes) against the double-precision host reference.
//
// An entry type compiled into the library is checked through its registry
// (variant_registry): the variant's compiled function at every compiled launch-bounds pair,
// so the suite runs the objects users link and compiles no kernel of its own (one kernel per
// variant instantiated here made these suites a fifth of the GPU build's compile time).
// Another entry type (a user's, test_user_entry.cpp) has no compiled variants: its kernels
// are instantiated here, at one launch-bounds pair, as its user's code instantiates them.

#include <gtest/gtest.h>

#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/variant_set.hpp>
#include <cstring>
#include <limits>
#include <ostream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "test_matrices.hpp"

namespace compound_sparse_test {

namespace cs = compound_sparse;

template <class Entry, class Outer, class Inner, class XInner, class YInner, cs::ScheduleKind Kind>
struct Variant {
  using entry_type = Entry;
  using outer = Outer;
  using inner = Inner;
  using x_inner = XInner;
  using y_inner = YInner;
  static constexpr cs::ScheduleKind kind = Kind;
  static std::string name() {
    // x and y share one vector layout in the variant names, as in the method.
    return Outer::name() + "_" + Inner::name() + "_" + XInner::name() + "_" + cs::to_string(Kind);
  }
};

// The variant space's product (variant_space.hpp) as a TypeList of Variant:
// outer x matrix inner x vector inner x schedule kind, x and y sharing the vector layout.
template <class... Lists>
struct concat;
template <class... A>
struct concat<cs::TypeList<A...>> {
  using type = cs::TypeList<A...>;
};
template <class... A, class... B, class... Rest>
struct concat<cs::TypeList<A...>, cs::TypeList<B...>, Rest...> {
  using type = typename concat<cs::TypeList<A..., B...>, Rest...>::type;
};

template <class Entry, class Outer, class Inner, class Vec, class Kinds>
struct kinds_for;
/// The variant, or nothing where the kind does not run on the outer layout.
template <class Entry, class Outer, class Inner, class Vec, cs::ScheduleKind K>
using variant_if_supported =
    std::conditional_t<cs::schedule_supports_outer_v<K, Outer>, cs::TypeList<Variant<Entry, Outer, Inner, Vec, Vec, K>>,
                       cs::TypeList<>>;
template <class Entry, class Outer, class Inner, class Vec, cs::ScheduleKind... K>
struct kinds_for<Entry, Outer, Inner, Vec, cs::ValueList<K...>> {
  using type = typename concat<cs::TypeList<>, variant_if_supported<Entry, Outer, Inner, Vec, K>...>::type;
};
template <class Entry, class Outer, class Inner, class Vectors>
struct vectors_for;
template <class Entry, class Outer, class Inner, class... Vec>
struct vectors_for<Entry, Outer, Inner, cs::TypeList<Vec...>> {
  using type = typename concat<typename kinds_for<Entry, Outer, Inner, Vec, cs::ScheduleKinds>::type...>::type;
};
template <class Entry, class Outer, class Inners>
struct inners_for;
template <class Entry, class Outer, class... Inner>
struct inners_for<Entry, Outer, cs::TypeList<Inner...>> {
  using type = typename concat<typename vectors_for<Entry, Outer, Inner, cs::InnerLayouts>::type...>::type;
};
template <class Entry, class Outers>
struct outers_for;
template <class Entry, class... Outer>
struct outers_for<Entry, cs::TypeList<Outer...>> {
  using type = typename concat<typename inners_for<Entry, Outer, cs::InnerLayouts>::type...>::type;
};
template <class Entry>
using AllVariants = typename outers_for<Entry, cs::OuterLayouts>::type;

/// L1 norm of the components: bounds every component of a product with it.
template <class T>
double l1(const T& v) {
  using traits = cs::component_traits<T>;
  double s = 0;
  for (int c = 0; c < traits::size; ++c) s += std::abs(static_cast<double>(traits::get(v, c)));
  return s;
}

template <class Value>
Value nan_value() {
  using traits = cs::component_traits<Value>;
  Value v;
  for (int c = 0; c < traits::size; ++c)
    traits::get(v, c) = std::numeric_limits<typename traits::scalar_type>::quiet_NaN();
  return v;
}

/// Checks y against the double reference with a forward error bound:
/// |y_i - ref_i| <= 8 eps (len_i + components + 4) (|alpha| sum_k |a_k||x_k| + |beta||y0_i|),
/// per component. An indexing or scheduling error moves a component by O(1)
/// times the bound's magnitude and fails it; rounding never does.
template <class Entry>
void expect_matches_reference(const std::string& context, const cs::coefficient_type_t<Entry>& alpha,
                              const cs::HostCsr<Entry>& a, const std::vector<cs::vector_type_t<Entry>>& x,
                              const cs::coefficient_type_t<Entry>& beta,
                              const std::vector<cs::vector_type_t<Entry>>& y0,
                              const std::vector<cs::vector_type_t<Entry>>& y) {
  using vector_type = cs::vector_type_t<Entry>;
  using vtraits = cs::component_traits<vector_type>;
  using scalar = typename vtraits::scalar_type;
  const bool beta_zero = l1(beta) == 0;
  const auto ref = cs::reference_spmv<double>(alpha, a, x, beta, y0);
  ASSERT_EQ(y.size(), ref.size()) << context;
  const double eps = std::numeric_limits<scalar>::epsilon();
  int reported = 0;
  for (int r = 0; r < a.num_rows; ++r) {
    double magnitude = 0;
    for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
      magnitude += l1(a.values[k]) * l1(x[a.col_indices[k]]);
    magnitude = l1(alpha) * magnitude + (beta_zero ? 0.0 : l1(beta) * l1(y0[r]));
    const double tol = 8 * eps * (a.row_length(r) + cs::component_traits<Entry>::size + 4) * magnitude + 1e-300;
    for (int c = 0; c < vtraits::size; ++c) {
      const double got = static_cast<double>(vtraits::get(y[r], c));
      const double want = cs::component_traits<std::decay_t<decltype(ref[r])>>::get(ref[r], c);
      const bool ok = std::isfinite(got) && std::abs(got - want) <= tol;
      if (!ok && reported++ < 5)
        ADD_FAILURE() << context << ": y[" << r << "] component " << c << " = " << got << ", reference " << want
                      << ", tolerance " << tol << " (row length " << a.row_length(r) << ")";
    }
  }
}

/// alpha/beta pairs: general, beta = 0 (y poisoned with NaN), alpha = -2 with beta = 1.
template <class Coefficient>
std::vector<std::pair<Coefficient, Coefficient>> coefficient_pairs() {
  using traits = cs::component_traits<Coefficient>;
  const auto make = [](double first, double rest) {
    Coefficient v;
    for (int c = 0; c < traits::size; ++c)
      traits::get(v, c) = static_cast<typename traits::scalar_type>(c == 0 ? first : rest);
    return v;
  };
  return {{make(1.5, -0.5), make(0.75, 0.25)}, {make(1.0, 0.0), make(0.0, 0.0)}, {make(-2.0, 0.0), make(1.0, 0.0)}};
}

/// A launch-bounds pair at run time: the registry's keys hold them as numbers, so a suite
/// loops over the compiled pairs without instantiating its host code once per pair (with
/// four pairs, host code instantiated per pair made a suite's nvcc compile longer than its
/// own kernels had: 150 s instead of 107 s on the H100 machine).
struct SuiteBounds {
  int threads;
  int teams_per_sm;
  std::string name() const { return "t" + std::to_string(threads) + ".b" + std::to_string(teams_per_sm); }
};
/// The pairs of a launch-bounds list (CompiledLaunchBounds, SpmmLaunchBounds).
template <class... Bounds>
std::vector<SuiteBounds> suite_bounds(cs::TypeList<Bounds...>) {
  return {SuiteBounds{static_cast<int>(Bounds::threads), static_cast<int>(Bounds::min_teams)}...};
}

/// The registry's key of variant V (Variant or SpmmVariant) with vector (or multivector)
/// layout `vector`, launch bounds `bounds` and `lanes` lanes per row.
template <class V>
cs::VariantKey variant_key(const std::string& vector, const SuiteBounds& bounds, int lanes) {
  cs::VariantKey key;
  key.outer = V::outer::name();
  key.inner = V::inner::name();
  key.vector = vector;
  key.kind = V::kind;
  key.threads = bounds.threads;
  key.teams_per_sm = bounds.teams_per_sm;
  key.lanes_per_row = lanes;
  return key;
}

/// y = alpha A x + beta y with a variant as the library compiled it: the registry's function
/// for `key` (compiled entry types only), with the registry's own conversions. Nothing in it
/// depends on the variant's type, so a suite instantiates its checks once per entry type
/// rather than once per variant (per-variant host code was most of a suite's compile time).
template <class Entry>
struct RegistrySpmv {
  cs::VariantKey key;  ///< lanes_per_row is set per product
  using entry_type = Entry;
  using memory_space = Kokkos::DefaultExecutionSpace::memory_space;
  using vector_type = cs::vector_type_t<Entry>;
  using any_vector = cs::AnyVector<vector_type, memory_space>;

  std::string variant_name() const {
    return key.outer + "_" + key.inner + "_" + key.vector + "_" + cs::to_string(key.kind);
  }
  std::string name() const { return SuiteBounds{key.threads, key.teams_per_sm}.name(); }
  bool uses_lanes() const { return cs::uses_lanes(key.kind); }
  cs::AnyMatrix<Entry, memory_space> matrix(const cs::HostCsr<Entry>& host) const {
    auto a = cs::variant_registry<Entry>().convert_matrix(key.outer, key.inner, host);
    EXPECT_EQ(a.memory_bytes(), cs::variant_registry<Entry>().memory_bytes(key.outer, host));
    return a;
  }
  any_vector vector(const std::vector<vector_type>& v) const {
    return cs::variant_registry<Entry>().convert_vector(key.vector, v);
  }
  static std::vector<vector_type> to_host(const any_vector& v) { return v.to_host(); }
  void operator()(int lanes, const cs::coefficient_type_t<Entry>& alpha, const cs::AnyMatrix<Entry, memory_space>& a,
                  const any_vector& x, const cs::coefficient_type_t<Entry>& beta, const any_vector& y) const {
    cs::VariantKey with_lanes = key;
    with_lanes.lanes_per_row = lanes;
    cs::variant_registry<Entry>().spmv(with_lanes, alpha, a, x, beta, y);
  }
};

/// y = alpha A x + beta y with variant V's typed kernel and schedule type ScheduleType
/// (entry types the library does not compile, and a test's own launch bounds).
template <class V, class ScheduleType>
struct TypedSpmv {
  static_assert(ScheduleType::kind == V::kind, "the schedule runs the variant's kind");
  using entry_type = typename V::entry_type;
  using vector_type = cs::vector_type_t<entry_type>;

  static std::string variant_name() { return V::name(); }
  std::string name() const {
    return "typed " +
           SuiteBounds{static_cast<int>(ScheduleType::threads), static_cast<int>(ScheduleType::min_teams_per_sm)}
               .name();
  }
  static bool uses_lanes() { return cs::uses_lanes(V::kind); }
  static auto matrix(const cs::HostCsr<entry_type>& host) {
    auto a = cs::to_device<typename V::outer, typename V::inner>(host);
    EXPECT_EQ(cs::memory_bytes(a), cs::layout_memory_bytes<typename V::outer>(host));
    return a;
  }
  static auto vector(const std::vector<vector_type>& v) { return cs::to_device<typename V::x_inner>(v); }
  template <class Vector>
  static std::vector<vector_type> to_host(const Vector& v) {
    return cs::to_host(v);
  }
  template <class Matrix, class XVector, class YVector>
  void operator()(int lanes, const cs::coefficient_type_t<entry_type>& alpha, const Matrix& a, const XVector& x,
                  const cs::coefficient_type_t<entry_type>& beta, const YVector& y) const {
    ScheduleType schedule;
    schedule.lanes_per_row = lanes;
    cs::spmv(schedule, alpha, a, x, beta, y);
  }
};

/// The launch bounds of the suites' typed kernels.
template <class V>
using TypedSchedule = cs::Schedule<V::kind, 128, 4>;

/// Lanes per row: on host backends a row's lanes are one thread's loop (spmv.hpp), so two
/// values show that any is taken; on GPUs each changes the kernel's groups.
inline std::vector<int> lanes_to_test(bool spmm) {
  if (!cs::impl::is_gpu_space<Kokkos::DefaultExecutionSpace>()) return {1, 32};
  return spmm ? std::vector<int>{1, 2, 4, 32} : std::vector<int>{1, 2, 4, 8, 16, 32};
}

/// Checks one variant on every test matrix with `product` (RegistrySpmv or TypedSpmv).
template <class Product>
void run_variant(const Product& product, unsigned seed) {
  using Entry = typename Product::entry_type;
  using vector_type = cs::vector_type_t<Entry>;
  using coefficient = cs::coefficient_type_t<Entry>;
  std::mt19937 rng(seed);
  for (const auto& [name, host] : test_matrices<Entry>(seed)) {
    const auto a = product.matrix(host);
    const auto x_host = random_vector<vector_type>(host.num_cols, rng);
    const auto x = product.vector(x_host);
    for (const auto& [alpha, beta] : coefficient_pairs<coefficient>()) {
      for (int lanes : lanes_to_test(/*spmm=*/false)) {
        if (!product.uses_lanes() && lanes != 1) continue;  // such kinds refuse them (test_registry)
        auto y0 = random_vector<vector_type>(host.num_rows, rng);
        if (l1(beta) == 0)
          for (auto& v : y0) v = nan_value<vector_type>();
        const auto y = product.vector(y0);
        product(lanes, alpha, a, x, beta, y);
        const auto y_host = product.to_host(y);
        const std::string context = product.variant_name() + " " + product.name() + " on " + name +
                                    " lanes=" + std::to_string(lanes) + " beta_zero=" + std::to_string(l1(beta) == 0);
        expect_matches_reference<Entry>(context, alpha, host, x_host, beta, y0, y_host);
        if (l1(beta) == 0) {
          // Determinism: a second product must reproduce the first bit for bit.
          product(lanes, alpha, a, x, beta, y);
          const auto again = product.to_host(y);
          EXPECT_EQ(0, std::memcmp(again.data(), y_host.data(), y_host.size() * sizeof(vector_type))) << context;
        }
      }
    }
  }
}

/// One variant as a test parameter: its name (<outer>_<inner>_<vector>_<kind>) and
/// the function that checks it. Value-parameterized rather than typed, so that
/// ctest's discovery names each case after the variant, not an index.
struct VariantCase {
  std::string name;
  void (*run)();
};
inline void PrintTo(const VariantCase& c, std::ostream* os) {
  *os << c.name;
}
/// The case's name in gtest (INSTANTIATE_TEST_SUITE_P's name generator).
struct VariantCaseName {
  std::string operator()(const ::testing::TestParamInfo<VariantCase>& param) const { return param.param.name; }
};

/// Whether the build's variant set (variant_set.hpp) compiles every variant: the host build and
/// COMPOUND_SPARSE_VARIANT_SET=full do; the default CUDA set compiles part of them.
template <class Entry>
bool set_compiles_every_variant() {
  return cs::impl::compiled_variant_set<Entry>::every ||
         cs::impl::variant_set_every_bounds::size == cs::CompiledLaunchBounds::size;
}

/// Runs `check(key)` for each of `keys` the registry compiles. A build of the whole space must
/// compile them all; a default CUDA build compiles only the variants selection takes, and when it
/// compiles none of `keys` the case is skipped, naming them, rather than checking nothing.
template <class Entry, class Check>
void for_each_compiled(const std::vector<cs::VariantKey>& keys, bool (*compiled)(const cs::VariantKey&),
                       const Check& check) {
  std::string missing;
  int checked = 0;
  for (const auto& key : keys) {
    if (compiled(key)) {
      check(key);
      ++checked;
    } else {
      missing += (missing.empty() ? "" : ", ") + key.name();
    }
  }
  if (missing.empty()) return;
  ASSERT_FALSE(set_compiles_every_variant<Entry>()) << "the registry lacks " << missing;
  if (checked == 0)
    GTEST_SKIP() << missing << ": not in this build's variant set (COMPOUND_SPARSE_VARIANT_SET=full compiles them)";
}

template <class V>
void run_case() {
  static_assert(std::is_same<typename V::x_inner, typename V::y_inner>::value, "x and y share the vector layout");
  using Entry = typename V::entry_type;
  if constexpr (cs::is_compiled_entry<Entry>::value) {
    std::vector<cs::VariantKey> keys;
    for (const auto& bounds : suite_bounds(cs::CompiledLaunchBounds{}))
      keys.push_back(variant_key<V>(V::x_inner::name(), bounds, 1));
    for_each_compiled<Entry>(
        keys, [](const cs::VariantKey& key) { return cs::variant_registry<Entry>().contains(key); },
        [](const cs::VariantKey& key) { run_variant(RegistrySpmv<Entry>{key}, 2024u); });
  } else {
    run_variant(TypedSpmv<V, TypedSchedule<V>>{}, 2024u);
  }
}
template <class... V>
std::vector<VariantCase> variant_cases(cs::TypeList<V...>) {
  return {VariantCase{V::name(), &run_case<V>}...};
}

}  // namespace compound_sparse_test

/// Defines the suite Spmv over every variant of the variant space for the entry type
/// given as the remaining argument(s) (variadic so that Block<double, 3> may contain a
/// comma); cases are named PREFIX/Spmv.MatchesDoubleReference/<variant>.
#define COMPOUND_SPARSE_SPMV_SUITE(PREFIX, ...)                                                                       \
  class Spmv : public ::testing::TestWithParam<::compound_sparse_test::VariantCase> {};                               \
  TEST_P(Spmv, MatchesDoubleReference) {                                                                              \
    GetParam().run();                                                                                                 \
  }                                                                                                                   \
  INSTANTIATE_TEST_SUITE_P(                                                                                           \
      PREFIX, Spmv,                                                                                                   \
      ::testing::ValuesIn(::compound_sparse_test::variant_cases(::compound_sparse_test::AllVariants<__VA_ARGS__>{})), \
      ::compound_sparse_test::VariantCaseName{})
