// Constant operators (operators/): every kernel shape against a double host reference, for real,
// complex, quaternion and 3x3-block entries; beta zero (C not read) and not; panel widths that
// are no multiple of any team's; an empty row, an all-zero operator; bad operators and panels
// refused with the reason; the generated flux-reconstruction operators exact on polynomials.
// Cases are named constant_operator.* in ctest.

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>  // getpid

#include <algorithm>
#include <cmath>
#include <compound_sparse/entries/block.hpp>
#include <compound_sparse/entries/quaternion.hpp>
#include <compound_sparse/operators/generated_kernel_source.hpp>
#if defined(KOKKOS_ENABLE_CUDA)
#include <compound_sparse/operators/generated_operator_kernel.hpp>
#endif
#include <compound_sparse/operators/operator_choice.hpp>
#include <compound_sparse/operators/operator_kernels.hpp>
#include <compound_sparse/operators/operator_records.hpp>
#include <compound_sparse/warnings.hpp>
#include <compound_sparse/zoo/fr_operators.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "error_helpers.hpp"

namespace {

namespace cs = compound_sparse;
namespace zoo = compound_sparse::zoo;

/// Expects `f` to throw a Kind whose message contains `part`.
template <class Kind, class F>
void expect_error(F&& f, const std::string& part) {
  const std::string what = compound_sparse_test::error_of_kind<Kind>(f);
  EXPECT_TRUE(compound_sparse_test::contains(what, part)) << what;
}

/// Entry over double, for the reference.
template <class T, class = void>
struct wide {
  using type = typename cs::entry_traits<T>::template rebind<double>;
};
template <class T>
struct wide<T, std::enable_if_t<std::is_floating_point<T>::value>> {
  using type = double;
};
template <class Entry>
using wide_vector_t = typename cs::operator_entry_traits<typename wide<Entry>::type>::vector_type;

template <class To, class From>
To widen(const From& from) {
  To to{};
  using from_traits = cs::component_traits<From>;
  for (int c = 0; c < from_traits::size; ++c)
    cs::component_traits<To>::get(to, c) = static_cast<double>(from_traits::get(from, c));
  return to;
}

template <class T>
T random_value(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  T v{};
  for (int c = 0; c < cs::component_traits<T>::size; ++c)
    cs::component_traits<T>::get(v, c) = static_cast<typename cs::component_traits<T>::scalar_type>(u(rng));
  return v;
}

/// A rows x cols operator of random entries, each non-zero with probability `density`; row
/// `empty_row` (if >= 0) all zero.
template <class Entry>
cs::ConstantOperator<Entry> random_operator(int rows, int cols, double density, int empty_row, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Entry> values(static_cast<std::size_t>(rows) * cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      if (i != empty_row && u(rng) < density) values[static_cast<std::size_t>(i) * cols + j] = random_value<Entry>(rng);
  return cs::ConstantOperator<Entry>(rows, cols, std::move(values));
}

/// alpha A B + beta C0 in double, value (i, j) at [i * n + j].
template <class Entry, class Vector, class Coefficient>
std::vector<wide_vector_t<Entry>> reference(const cs::ConstantOperator<Entry>& op, const Coefficient& alpha,
                                            const std::vector<Vector>& b, const Coefficient& beta,
                                            const std::vector<Vector>& c0, std::int64_t n) {
  using wide_entry = typename wide<Entry>::type;
  using traits = cs::operator_entry_traits<wide_entry>;
  using wide_vector = typename traits::vector_type;
  using wide_coefficient = typename traits::coefficient_type;
  const auto a = widen<wide_coefficient>(alpha), bt = widen<wide_coefficient>(beta);
  std::vector<wide_vector> out(static_cast<std::size_t>(op.rows() * n));
  for (int i = 0; i < op.rows(); ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      wide_vector sum{};
      for (int k = 0; k < op.cols(); ++k) {
        const auto term = traits::act(widen<wide_entry>(op(i, k)), widen<wide_vector>(b[k * n + j]));
        for (int q = 0; q < cs::component_traits<wide_vector>::size; ++q)
          cs::component_traits<wide_vector>::get(sum, q) += cs::component_traits<wide_vector>::get(term, q);
      }
      wide_vector y = traits::scale(a, sum);
      if (!cs::is_zero(beta)) {
        const auto scaled = traits::scale(bt, widen<wide_vector>(c0[i * n + j]));
        for (int q = 0; q < cs::component_traits<wide_vector>::size; ++q)
          cs::component_traits<wide_vector>::get(y, q) += cs::component_traits<wide_vector>::get(scaled, q);
      }
      out[i * n + j] = y;
    }
  return out;
}

template <class Entry>
double tolerance() {
  return sizeof(typename cs::component_traits<Entry>::scalar_type) == 4 ? 2e-5 : 1e-13;
}

/// Applies `op` with every shape to n vectors and compares with the reference, relative to the
/// largest reference value (and to the sum of the terms' sizes, through the operator's width).
template <class Entry>
void check_every_shape(const cs::ConstantOperator<Entry>& op, std::int64_t n, const std::string& what) {
  using op_type = cs::ConstantOperator<Entry>;
  using vector_type = typename op_type::vector_type;
  using coefficient = typename op_type::coefficient_type;
  std::mt19937 rng(7);
  std::vector<vector_type> b(static_cast<std::size_t>(op.cols() * n)), c0(static_cast<std::size_t>(op.rows() * n));
  for (auto& v : b) v = random_value<vector_type>(rng);
  for (auto& v : c0) v = random_value<vector_type>(rng);
  const auto alpha = random_value<coefficient>(rng);
  const auto b_panel = cs::operator_panel_from_host<Entry>("b", op.cols(), n, b);
  for (const coefficient beta : {coefficient{}, random_value<coefficient>(rng)}) {
    const bool beta_zero = cs::is_zero(beta);
    auto start = c0;
    if (beta_zero)  // C is not read: NaN there must not reach the result
      for (auto& v : start)
        for (int q = 0; q < cs::component_traits<vector_type>::size; ++q)
          cs::component_traits<vector_type>::get(v, q) = std::numeric_limits<double>::quiet_NaN();
    const auto expected = reference(op, alpha, b, beta, c0, n);
    using wide_components = cs::component_traits<typename std::decay_t<decltype(expected)>::value_type>;
    double scale = 1;
    for (const auto& v : expected)
      for (int q = 0; q < cs::component_traits<vector_type>::size; ++q)
        scale = std::max(scale, std::abs(wide_components::get(v, q)));
    for (const auto shape : cs::operator_shapes) {
      const std::string context =
          what + " " + cs::to_string(shape) + " n=" + std::to_string(n) + (beta_zero ? " beta=0" : " beta!=0");
      ASSERT_EQ(cs::OperatorKernel<Entry>::refusal(op, shape), "") << context;
      const cs::OperatorKernel<Entry> kernel(op, alpha, shape);
      EXPECT_EQ(kernel.shape(), shape);
      const auto c_panel = cs::operator_panel_from_host<Entry>("c", op.rows(), n, start);
      kernel.apply(b_panel, beta, c_panel);
      const auto got = cs::operator_panel_to_host<Entry>(c_panel);
      ASSERT_EQ(got.size(), expected.size());
      double worst = 0;
      for (std::size_t k = 0; k < got.size(); ++k)
        for (int q = 0; q < cs::component_traits<vector_type>::size; ++q) {
          const double g = cs::component_traits<vector_type>::get(got[k], q);
          const double e = wide_components::get(expected[k], q);
          worst = std::max(worst, std::isfinite(g) ? std::abs(g - e) : std::numeric_limits<double>::infinity());
        }
      EXPECT_LE(worst, tolerance<Entry>() * scale * (1 + op.cols())) << context;
    }
  }
}

template <class Entry>
class ConstantOperatorShapes : public ::testing::Test {};
using Entries = ::testing::Types<double, float, Kokkos::complex<double>, Kokkos::complex<float>, cs::Quaternion<double>,
                                 cs::Block<double, 3>, cs::Block<float, 3>>;
TYPED_TEST_SUITE(ConstantOperatorShapes, Entries);

TYPED_TEST(ConstantOperatorShapes, MatchTheDoubleReference) {
  using Entry = TypeParam;
  // Sparse, half-full and dense; a row with no entry; widths of 1, a prime, and past one team.
  check_every_shape(random_operator<Entry>(7, 5, 0.15, 3, 1u), 1, "7x5 d=0.15");
  check_every_shape(random_operator<Entry>(13, 9, 0.5, 0, 2u), 37, "13x9 d=0.5");
  check_every_shape(random_operator<Entry>(6, 11, 1.0, -1, 3u), 301, "6x11 dense");
  check_every_shape(random_operator<Entry>(1, 1, 1.0, -1, 4u), 257, "1x1");
}

TYPED_TEST(ConstantOperatorShapes, AllZeroOperatorScalesC) {
  using Entry = TypeParam;
  check_every_shape(cs::ConstantOperator<Entry>(4, 3, std::vector<Entry>(12)), 33, "all zero");
}

TYPED_TEST(ConstantOperatorShapes, GeneratedOperators) {
  using Entry = TypeParam;
  for (const auto shape : {zoo::ElementShape::Quadrilateral, zoo::ElementShape::Triangle})
    for (const auto& m : zoo::fr_operators(shape, 2))
      check_every_shape(cs::constant_operator_from_real<Entry>(m.rows, m.cols, m.values), 45, m.name);
  const auto r = zoo::random_sparse_operator(12, 10, 0.1, 99u);
  check_every_shape(cs::constant_operator_from_real<Entry>(r.rows, r.cols, r.values), 70, r.name);
}

// ---- generated kernels: the source NVRTC compiles on CUDA, compiled here as C++ ----------------

/// What the generated source needs from CUDA, for a host compiler: the launch's indices as
/// globals the test sets before calling the kernel once per thread.
constexpr const char* host_prelude = R"(
#define __global__
#define __launch_bounds__(x)
#define __restrict__ __restrict
struct compound_sparse_dim3 { unsigned x, y; };
extern "C" { compound_sparse_dim3 blockIdx, blockDim, threadIdx; }
)";

/// A shared object built by the host compiler from `sources`, closed when it goes.
struct HostBuiltKernels {
  void* handle = nullptr;
  explicit HostBuiltKernels(const std::string& sources) {
    namespace fs = std::filesystem;
    const auto dir = fs::path(::testing::TempDir()) / ("compound_sparse_generated_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const auto source = dir / "kernels.cpp", library = dir / "kernels.so";
    std::ofstream(source) << host_prelude << sources;
    const std::string command = std::string(COMPOUND_SPARSE_HOST_CXX) + " -std=c++17 -O1 -shared -fPIC -x c++ " +
                                source.string() + " -o " + library.string() + " 2>" + (dir / "errors.txt").string();
    const int status = std::system(command.c_str());
    std::ifstream errors(dir / "errors.txt");
    const std::string messages((std::istreambuf_iterator<char>(errors)), std::istreambuf_iterator<char>());
    EXPECT_EQ(status, 0) << command << "\n" << messages;
    if (status == 0) handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    EXPECT_NE(handle, nullptr) << (handle ? "" : dlerror());
    fs::remove_all(dir);
  }
  ~HostBuiltKernels() {
    if (handle) dlclose(handle);
  }
  template <class T>
  T* symbol(const std::string& name) const {
    return handle ? reinterpret_cast<T*>(dlsym(handle, name.c_str())) : nullptr;
  }
};

struct Dim3 {
  unsigned x, y;
};

/// Runs the generated kernel `k` of `built` on the host panels as CUDA would run its grid.
template <class Scalar>
void run_generated(const HostBuiltKernels& built, const cs::GeneratedKernelSource& k, std::int64_t n, const Scalar* b,
                   Scalar* c) {
  using kernel_type = void(long long, const Scalar*, long long, Scalar*, long long);
  auto* kernel = built.symbol<kernel_type>(k.name);
  auto* block_idx = built.symbol<Dim3>("blockIdx");
  auto* block_dim = built.symbol<Dim3>("blockDim");
  auto* thread_idx = built.symbol<Dim3>("threadIdx");
  ASSERT_TRUE(kernel && block_idx && block_dim && thread_idx) << k.name;
  block_dim->x = static_cast<unsigned>(k.block_size);
  const std::int64_t blocks = (n + k.block_size - 1) / k.block_size;
  for (int y = 0; y < k.row_splits; ++y)
    for (std::int64_t x = 0; x < blocks; ++x)
      for (int t = 0; t < k.block_size; ++t) {
        block_idx->x = static_cast<unsigned>(x);
        block_idx->y = static_cast<unsigned>(y);
        thread_idx->x = static_cast<unsigned>(t);
        kernel(n, b, n, c, n);
      }
}

/// Random B and C0 of n vectors for `op`, and what C starts as: C0, or NaN everywhere when
/// beta is zero, as C is not read then and NaN there must not reach the result.
template <class Entry>
struct RandomPanels {
  using vector_type = typename cs::ConstantOperator<Entry>::vector_type;
  std::vector<vector_type> b, c0, start;
  RandomPanels(const cs::ConstantOperator<Entry>& op, std::int64_t n, bool beta_zero, std::mt19937& rng)
      : b(static_cast<std::size_t>(op.cols() * n)), c0(static_cast<std::size_t>(op.rows() * n)) {
    for (auto& v : b) v = random_value<vector_type>(rng);
    for (auto& v : c0) v = random_value<vector_type>(rng);
    start = c0;
    if (beta_zero)
      for (auto& v : start)
        for (int q = 0; q < cs::component_traits<vector_type>::size; ++q)
          cs::component_traits<vector_type>::get(v, q) =
              std::numeric_limits<typename cs::component_traits<vector_type>::scalar_type>::quiet_NaN();
  }
};

/// `got` within the entry type's tolerance of the double reference `expected`, relative to the
/// largest reference value and the operator's width.
template <class Entry, class Vector, class WideVector>
void expect_near_reference(const cs::ConstantOperator<Entry>& op, const std::vector<Vector>& got,
                           const std::vector<WideVector>& expected, const std::string& context) {
  using wide_components = cs::component_traits<WideVector>;
  ASSERT_EQ(got.size(), expected.size()) << context;
  double scale = 1, worst = 0;
  for (const auto& v : expected)
    for (int q = 0; q < wide_components::size; ++q) scale = std::max(scale, std::abs(wide_components::get(v, q)));
  for (std::size_t k = 0; k < got.size(); ++k)
    for (int q = 0; q < wide_components::size; ++q) {
      const double g = cs::component_traits<Vector>::get(got[k], q);
      worst = std::max(worst, std::isfinite(g) ? std::abs(g - wide_components::get(expected[k], q))
                                               : std::numeric_limits<double>::infinity());
    }
  EXPECT_LE(worst, tolerance<Entry>() * scale * (1 + op.cols())) << context;
}

/// Every operator of `ops`, both generated shapes, beta zero and not: the host-compiled
/// kernels against the double reference.
template <class Entry>
void check_generated(const std::vector<cs::ConstantOperator<Entry>>& ops) {
  using op_type = cs::ConstantOperator<Entry>;
  using coefficient = typename op_type::coefficient_type;
  std::mt19937 rng(21);
  const std::int64_t n = 77;  // three blocks of 32, the last partial
  struct Case {
    const op_type* op;
    coefficient alpha, beta;
    cs::GeneratedKernelSource kernel;
  };
  std::vector<Case> cases;
  std::string sources;
  for (const auto& op : ops)
    for (const auto shape : {cs::OperatorShape::ColumnStream, cs::OperatorShape::RowSplit})
      for (const bool beta_zero : {true, false}) {
        cs::GeneratedKernelOptions options;
        options.shape = shape;
        options.block_size = 32;
        options.row_splits = 3;
        const auto alpha = random_value<coefficient>(rng);
        const auto beta = beta_zero ? coefficient{} : random_value<coefficient>(rng);
        const auto k = cs::generate_kernel_source(op, alpha, beta, "kernel_" + std::to_string(cases.size()), options);
        sources += k.source;
        cases.push_back({&op, alpha, beta, k});
      }
  const HostBuiltKernels built(sources);
  for (const auto& cs_case : cases) {
    const auto& op = *cs_case.op;
    const RandomPanels<Entry> panels(op, n, cs::is_zero(cs_case.beta), rng);
    const auto b_panel = cs::operator_panel_from_host<Entry, Kokkos::HostSpace>("b", op.cols(), n, panels.b);
    const auto c_panel = cs::operator_panel_from_host<Entry, Kokkos::HostSpace>("c", op.rows(), n, panels.start);
    run_generated(built, cs_case.kernel, n, b_panel.data(), c_panel.data());
    expect_near_reference(op, cs::operator_panel_to_host<Entry>(c_panel),
                          reference(op, cs_case.alpha, panels.b, cs_case.beta, panels.c0, n),
                          cs_case.kernel.name + "\n" + cs_case.kernel.source);
  }
}

TYPED_TEST(ConstantOperatorShapes, GeneratedKernelsMatchTheDoubleReference) {
  using Entry = TypeParam;
  const auto hex = zoo::fr_operators(zoo::ElementShape::Hexahedron, 1)[1];  // 24 x 8, tensor: sparse
  std::vector<cs::ConstantOperator<Entry>> ops = {
      random_operator<Entry>(9, 7, 0.4, 4, 31u),  // row 4 empty
      cs::constant_operator_from_real<Entry>(hex.rows, hex.cols, hex.values),
      cs::ConstantOperator<Entry>(3, 2, std::vector<Entry>(6)),  // all zero
      random_operator<Entry>(2, 5, 1.0, -1, 32u)};               // fewer rows than splits
  check_generated(ops);
}

#if defined(KOKKOS_ENABLE_CUDA)
// ---- generated kernels compiled by NVRTC and run on the device (CUDA builds) ------------------

/// Every operator of `ops`, both generated shapes, beta zero (C holding NaN) and not, on widths
/// that are no multiple of a block (of 64 threads): the NVRTC-compiled kernels against the
/// double reference.
template <class Entry>
void check_nvrtc_kernels(const std::vector<cs::ConstantOperator<Entry>>& ops) {
  using op_type = cs::ConstantOperator<Entry>;
  using coefficient = typename op_type::coefficient_type;
  std::mt19937 rng(41);
  for (const auto& op : ops)
    for (const auto shape : {cs::OperatorShape::ColumnStream, cs::OperatorShape::RowSplit})
      for (const bool beta_zero : {true, false}) {
        cs::GeneratedKernelOptions options;
        options.shape = shape;
        options.block_size = 64;
        const auto alpha = random_value<coefficient>(rng);
        const auto beta = beta_zero ? coefficient{} : random_value<coefficient>(rng);
        const cs::GeneratedOperatorKernel<Entry> kernel(op, alpha, beta, options);
        EXPECT_EQ(kernel.shape(), op.rows() > 1 ? shape : cs::OperatorShape::ColumnStream);
        for (const std::int64_t n : {std::int64_t(1), std::int64_t(77), std::int64_t(1000)}) {
          const RandomPanels<Entry> panels(op, n, beta_zero, rng);
          const auto b_panel = cs::operator_panel_from_host<Entry>("b", op.cols(), n, panels.b);
          const auto c_panel = cs::operator_panel_from_host<Entry>("c", op.rows(), n, panels.start);
          kernel.apply(b_panel, c_panel);
          Kokkos::fence();
          expect_near_reference(
              op, cs::operator_panel_to_host<Entry>(c_panel), reference(op, alpha, panels.b, beta, panels.c0, n),
              std::to_string(op.rows()) + "x" + std::to_string(op.cols()) + " " + cs::to_string(shape) +
                  " n=" + std::to_string(n) + (beta_zero ? " beta=0" : " beta!=0"));
        }
      }
}

TYPED_TEST(ConstantOperatorShapes, NvrtcKernelsMatchTheDoubleReference) {
  using Entry = TypeParam;
  const auto hex = zoo::fr_operators(zoo::ElementShape::Hexahedron, 2)[1];   // 81 x 27, tensor: sparse
  const auto tet = zoo::fr_operators(zoo::ElementShape::Tetrahedron, 2)[0];  // dense
  check_nvrtc_kernels<Entry>({random_operator<Entry>(9, 7, 0.4, 4, 51u),     // row 4 empty
                              cs::constant_operator_from_real<Entry>(hex.rows, hex.cols, hex.values),
                              cs::constant_operator_from_real<Entry>(tet.rows, tet.cols, tet.values),
                              cs::ConstantOperator<Entry>(3, 2, std::vector<Entry>(6)),  // all zero
                              random_operator<Entry>(2, 5, 1.0, -1, 52u)});              // fewer rows than splits
}

TEST(ConstantOperator, NvrtcCompilesEachKernelOncePerProcess) {
  const auto op = random_operator<double>(12, 8, 0.3, -1, 61u);
  const std::size_t before = cs::impl::generated_kernels_compiled();
  const cs::GeneratedOperatorKernel<double> first(op, 2.0, 0.0);
  EXPECT_GT(first.compile_seconds(), 0.0);
  EXPECT_EQ(cs::impl::generated_kernels_compiled(), before + 1);
  const cs::GeneratedOperatorKernel<double> again(op, 2.0, 0.0);  // the same source: from the cache
  EXPECT_EQ(again.compile_seconds(), 0.0);
  EXPECT_EQ(cs::impl::generated_kernels_compiled(), before + 1);
  const cs::GeneratedOperatorKernel<double> other_alpha(op, 3.0, 0.0);  // alpha is in the code
  EXPECT_GT(other_alpha.compile_seconds(), 0.0);
  EXPECT_EQ(cs::impl::generated_kernels_compiled(), before + 2);
}

TEST(ConstantOperator, NvrtcKernelRefusesBadPanels) {
  const auto op = random_operator<double>(5, 4, 0.5, -1, 71u);
  const cs::GeneratedOperatorKernel<double> kernel(op, 1.0, 0.0);
  const auto b = cs::make_operator_panel<double>("b", 4, 10);
  const auto c = cs::make_operator_panel<double>("c", 5, 10);
  expect_error<cs::InvalidInput>([&] { kernel.apply(c, c); }, "B has 5 rows");
  expect_error<cs::InvalidInput>([&] { kernel.apply(b, b); }, "C has 4 rows");
  expect_error<cs::InvalidInput>([&] { kernel.apply(b, cs::make_operator_panel<double>("c", 5, 11)); },
                                 "B holds 10 vectors and C 11");
  const auto shared = cs::make_operator_panel<double>("shared", 9, 10);
  const cs::OperatorPanel<double> b_part = Kokkos::subview(shared, std::make_pair(0, 4), Kokkos::ALL());
  const cs::OperatorPanel<double> c_part = Kokkos::subview(shared, std::make_pair(3, 8), Kokkos::ALL());
  expect_error<cs::InvalidInput>([&] { kernel.apply(b_part, c_part); }, "overlaps the input B");
  cs::GeneratedKernelOptions options;
  options.row_splits = 70000;
  expect_error<cs::InvalidInput>([&] { cs::GeneratedOperatorKernel<double>(op, 1.0, 0.0, options); },
                                 "65535 blocks in y");
}
#endif

TEST(ConstantOperator, GeneratedSourceHoldsOnlyTheNonZeros) {
  // Column 2 of A is zero: B's rows 2 (real) and 4-5 (complex) are never read, and there is one
  // multiply-add a non-zero of the expansion.
  const std::vector<double> a = {1, -2, 0, 0.5, 0, 3, 0, 0};
  const auto real = cs::constant_operator_from_real<double>(2, 4, a);
  const auto k = cs::generate_kernel_source(real, 2.0, 0.0, "k");
  EXPECT_EQ(k.terms, 4);
  std::size_t reads = 0;
  for (std::size_t at = k.source.find("* b[j + "); at != std::string::npos; at = k.source.find("* b[j + ", at + 1))
    ++reads;
  EXPECT_EQ(reads, 4u) << k.source;
  EXPECT_EQ(k.source.find("b[j + 2 * ldb]"), std::string::npos) << k.source;
  EXPECT_NE(k.source.find("(2.0) * b[j + 0 * ldb]"), std::string::npos) << k.source;  // alpha folded in
  EXPECT_EQ(k.source.find("c[j + 0 * ldc];"), std::string::npos) << k.source;         // beta = 0: C not read
  const auto z = cs::constant_operator_from_real<Kokkos::complex<double>>(2, 4, a);
  const auto kz = cs::generate_kernel_source(z, Kokkos::complex<double>(1, 0), Kokkos::complex<double>(0, 1), "kz");
  EXPECT_EQ(kz.terms, 8);
  EXPECT_EQ(kz.source.find("b[j + 4 * ldb]"), std::string::npos) << kz.source;
  EXPECT_EQ(kz.source.find("b[j + 5 * ldb]"), std::string::npos) << kz.source;
  EXPECT_NE(kz.source.find("const double o1 = c[j + 1 * ldc];"), std::string::npos) << kz.source;
  const auto f = cs::generate_kernel_source(cs::constant_operator_from_real<float>(1, 1, {1.0}), 0.1f, 0.0f, "kf");
  EXPECT_NE(f.source.find("(0.100000001f)"), std::string::npos) << f.source;  // float literals read back exactly
  expect_error<cs::InvalidInput>(
      [&] {
        cs::GeneratedKernelOptions o;
        o.shape = cs::OperatorShape::BlockStream;
        cs::generate_kernel_source(real, 1.0, 0.0, "kb", o);
      },
      "shape block_stream is not generated");
}

TEST(ConstantOperator, ExpansionDropsZeroComponents) {
  // A real-valued complex operator acts on real and imaginary parts alike: two reals an entry,
  // not four; a real-valued quaternion four, not sixteen; a real 3x3 block three, not nine.
  const std::vector<double> a = {1.5, 0, -2, 0, 0, 0, 0.25, 1};  // 2 x 4, an empty row of A's first half
  EXPECT_EQ(cs::constant_operator_from_real<double>(2, 4, a).expand(1.0).nonzeros(), 4);
  EXPECT_EQ(cs::constant_operator_from_real<Kokkos::complex<double>>(2, 4, a).expand(1.0).nonzeros(), 8);
  EXPECT_EQ(cs::constant_operator_from_real<cs::Quaternion<double>>(2, 4, a).expand(1.0).nonzeros(), 16);
  EXPECT_EQ((cs::constant_operator_from_real<cs::Block<double, 3>>(2, 4, a).expand(1.0).nonzeros()), 12);
  // alpha is folded in: a complex alpha couples the parts.
  const auto c = cs::constant_operator_from_real<Kokkos::complex<double>>(2, 4, a);
  const auto e = c.expand(Kokkos::complex<double>(0.5, 2.0));
  EXPECT_EQ(e.nonzeros(), 16);
  EXPECT_EQ(e.rows, 4);
  EXPECT_EQ(e.cols, 8);
  EXPECT_EQ(c.entry_nonzeros(), 4);
  EXPECT_DOUBLE_EQ(c.density(), 0.5);
  EXPECT_EQ(c.expand(0.0).nonzeros(), 0);
}

TEST(ConstantOperator, HashFollowsTheValues) {
  const std::vector<double> a = {1, 2, 3, 4, 5, 6};
  const auto h = cs::constant_operator_from_real<double>(2, 3, a).hash();
  EXPECT_EQ(h, cs::constant_operator_from_real<double>(2, 3, a).hash());
  EXPECT_NE(h, cs::constant_operator_from_real<double>(3, 2, a).hash());
  EXPECT_NE(h, cs::constant_operator_from_real<float>(2, 3, a).hash());
  auto b = a;
  b[4] = std::nextafter(b[4], 10.0);
  EXPECT_NE(h, cs::constant_operator_from_real<double>(2, 3, b).hash());
}

TEST(ConstantOperator, MalformedOperatorsAreRefused) {
  std::vector<double> a(6, 1.0);
  a[5] = std::numeric_limits<double>::quiet_NaN();
  expect_error<cs::InvalidInput>([&] { cs::ConstantOperator<double>(2, 3, a); }, "entry (1, 2) component 0 is nan");
  std::vector<Kokkos::complex<double>> z(4);
  z[2] = Kokkos::complex<double>(0, std::numeric_limits<double>::infinity());
  expect_error<cs::InvalidInput>([&] { cs::ConstantOperator<Kokkos::complex<double>>(2, 2, z); },
                                 "entry (1, 0) component 1 is inf");
  expect_error<cs::InvalidInput>([&] { cs::ConstantOperator<double>(2, 3, std::vector<double>(5)); },
                                 "5 values given for a 2 x 3 operator, which has 6");
  expect_error<cs::InvalidInput>([&] { cs::ConstantOperator<double>(0, 3, {}); }, "0 x 3 is no operator size");
  expect_error<cs::InvalidInput>([&] { cs::parse_operator_shape("diagonal"); },
                                 "unknown operator kernel shape 'diagonal'");
}

TEST(ConstantOperator, BadPanelsAreRefused) {
  const auto op = cs::constant_operator_from_real<double>(2, 3, {1, 0, 2, 0, 3, 0});
  const cs::OperatorKernel<double> kernel(op, 1.0, cs::OperatorShape::ColumnStream);
  const auto b = cs::make_operator_panel<double>("b", 3, 10);
  const auto c = cs::make_operator_panel<double>("c", 2, 10);
  expect_error<cs::InvalidInput>([&] { kernel.apply(c, 0.0, c); }, "B has 2 rows");
  expect_error<cs::InvalidInput>([&] { kernel.apply(b, 0.0, b); }, "C has 3 rows");
  expect_error<cs::InvalidInput>([&] { kernel.apply(b, 0.0, cs::make_operator_panel<double>("c", 2, 9)); },
                                 "B holds 10 vectors and C 9");
  // C overlapping B: a 3-row panel whose first two rows are C, read as B.
  const auto both = cs::make_operator_panel<double>("both", 3, 10);
  const auto c_in_b = Kokkos::subview(both, Kokkos::make_pair(1, 3), Kokkos::ALL());
  const cs::OperatorPanel<double> c_view(both.data() + 10, 2, 10);
  expect_error<cs::InvalidInput>([&] { kernel.apply(both, 0.0, c_view); }, "C overlaps the input B");
  EXPECT_EQ(c_in_b.extent(0), 2u);
  // A panel size that cannot be.
  expect_error<cs::InvalidInput>([&] { cs::make_operator_panel<double>("p", -1, 4); },
                                 "-1 rows of 4 vectors is no panel size");
}

TEST(ConstantOperator, BlockStreamRefusesOperatorsTooWideForScratch) {
  const auto wide = cs::ConstantOperator<Kokkos::complex<double>>(2, 4000, std::vector<Kokkos::complex<double>>(8000));
  const auto why = cs::OperatorKernel<Kokkos::complex<double>>::refusal(wide, cs::OperatorShape::BlockStream);
  EXPECT_NE(why.find("block_stream stages"), std::string::npos) << why;
  EXPECT_EQ(cs::OperatorKernel<Kokkos::complex<double>>::refusal(wide, cs::OperatorShape::ColumnStream), "");
  expect_error<cs::InvalidInput>(
      [&] { cs::OperatorKernel<Kokkos::complex<double>>(wide, 1.0, cs::OperatorShape::BlockStream); },
      "block_stream stages");
}

// ---- the generated operators ----------------------------------------------------------------

/// f(x) = a polynomial of total degree `order` and its gradient.
double poly(const double* x, int dim, int order, int d = -1) {
  const double c[3] = {0.7, -1.3, 0.4};
  double s = 0.2, ds = 0;
  for (int q = 0; q < dim; ++q) {
    s += c[q] * x[q];
    if (q == d) ds = c[q];
  }
  // f = s^order + x_0: degree `order`
  if (d < 0) return std::pow(s, order) + x[0];
  return order * std::pow(s, order - 1) * ds + (d == 0 ? 1 : 0);
}

TEST(ConstantOperator, FrOperatorsAreExactOnPolynomials) {
  for (const auto shape : {zoo::ElementShape::Quadrilateral, zoo::ElementShape::Hexahedron, zoo::ElementShape::Triangle,
                           zoo::ElementShape::Tetrahedron})
    for (int order = 1; order <= 6; ++order) {
      const int dim = zoo::dimension(shape);
      const auto ops = zoo::fr_operators(shape, order);
      ASSERT_EQ(ops.size(), 2u);
      const auto points = zoo::fr_solution_points(shape, order);
      const auto flux = zoo::fr_flux_points(shape, order);
      const int np = static_cast<int>(points.size()) / dim;
      std::vector<double> u(np);
      for (int p = 0; p < np; ++p) u[p] = poly(&points[p * dim], dim, order);
      const auto& interpolate = ops[0];
      const auto& gradient = ops[1];
      EXPECT_EQ(interpolate.cols, np);
      EXPECT_EQ(interpolate.rows * dim, static_cast<int>(flux.size())) << interpolate.name;
      EXPECT_EQ(gradient.rows, dim * np);
      double worst = 0;
      for (int r = 0; r < interpolate.rows; ++r) {
        double v = 0;
        for (int p = 0; p < np; ++p) v += interpolate.values[static_cast<std::size_t>(r) * np + p] * u[p];
        worst = std::max(worst, std::abs(v - poly(&flux[r * dim], dim, order)));
      }
      for (int d = 0; d < dim; ++d)
        for (int p = 0; p < np; ++p) {
          double v = 0;
          for (int q = 0; q < np; ++q) v += gradient.values[static_cast<std::size_t>(d * np + p) * np + q] * u[q];
          worst = std::max(worst, std::abs(v - poly(&points[p * dim], dim, order, d)));
        }
      EXPECT_LE(worst, 1e-8) << interpolate.name;
      // Tensor-product elements read one line of points a row; a simplex's flux points read
      // every solution point.
      const bool tensor = shape == zoo::ElementShape::Quadrilateral || shape == zoo::ElementShape::Hexahedron;
      const double line = 1.0 / (tensor ? (dim == 2 ? order + 1 : (order + 1) * (order + 1)) : 1);
      EXPECT_NEAR(interpolate.density(), line, 1e-12) << interpolate.name;
      if (tensor) {  // one line too, less the exact zeros l_j'(x_j) = 0 at a centre point
        const double gradient_line = 1.0 / std::pow(order + 1, dim - 1);
        EXPECT_LE(gradient.density(), gradient_line + 1e-12) << gradient.name;
        EXPECT_GE(gradient.density(), 0.7 * gradient_line) << gradient.name;
      }
    }
  // PyFR's largest: a hexahedron of order 6.
  const auto hex6 = zoo::fr_operators(zoo::ElementShape::Hexahedron, 6);
  EXPECT_EQ(hex6[0].rows, 294);
  EXPECT_EQ(hex6[1].rows, 1029);
  EXPECT_EQ(hex6[1].cols, 343);
  expect_error<cs::InvalidInput>([] { zoo::fr_operators(zoo::ElementShape::Triangle, 7); }, "order 7 is outside 1-6");
}

TEST(ConstantOperator, RandomSparseOperatorsHaveTheirDensity) {
  const auto r = zoo::random_sparse_operator(96, 64, 0.1, 5u);
  EXPECT_NEAR(r.density(), 0.1, 0.02);
  EXPECT_EQ(r.values, zoo::random_sparse_operator(96, 64, 0.1, 5u).values);
  EXPECT_NE(r.values, zoo::random_sparse_operator(96, 64, 0.1, 6u).values);
}

/// A fresh directory for one test's operator records.
std::string records_dir(const std::string& name) {
  const auto dir =
      std::filesystem::path(::testing::TempDir()) / ("compound_sparse_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

TEST(ConstantOperator, ChoiceTimesEveryShapeOnceAProcess) {
  const auto r = zoo::random_sparse_operator(24, 16, 0.2, 11u);
  const auto op = cs::constant_operator_from_real<Kokkos::complex<double>>(r.rows, r.cols, r.values);
  cs::OperatorChoiceOptions<> quick;
  quick.timing = {1, 2, 3, cs::TimingMode::Wall};
  quick.use_records = false;
  const auto first = cs::choose_operator_shape(op, 300, quick);
  EXPECT_FALSE(first.cached);
  EXPECT_FALSE(first.from_records);
  ASSERT_EQ(first.times.size(), cs::operator_shapes.size());
  bool chosen_was_timed = false;
  for (const auto& t : first.times) {
    EXPECT_EQ(t.refused, "") << cs::to_string(t.shape);
    EXPECT_GT(t.seconds, 0) << cs::to_string(t.shape);
    chosen_was_timed |= t.shape == first.shape;
  }
  EXPECT_TRUE(chosen_was_timed);
  for (const auto& t : first.times)
    EXPECT_LE(std::find_if(first.times.begin(), first.times.end(),
                           [&](const cs::OperatorShapeTime& x) { return x.shape == first.shape; })
                  ->seconds,
              t.seconds);
  const auto again = cs::choose_operator_shape(op, 300, quick);
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.shape, first.shape);
  EXPECT_FALSE(cs::choose_operator_shape(op, 301, quick).cached);  // another width is timed anew
  // A shape that cannot run the operator is reported, not timed.
  const cs::ConstantOperator<Kokkos::complex<double>> wide(1, 4000, std::vector<Kokkos::complex<double>>(4000));
  const auto w = cs::choose_operator_shape(wide, 3, quick);
  EXPECT_NE(w.shape, cs::OperatorShape::BlockStream);
  EXPECT_NE(w.times[2].refused, "");
  EXPECT_EQ(w.times[2].seconds, 0);
  expect_error<cs::InvalidInput>([&] { cs::choose_operator_shape(op, 0, quick); }, "0 vectors");
}

TEST(ConstantOperator, ChoiceIsKeptInTheOperatorRecords) {
  namespace fs = std::filesystem;
  const auto r = zoo::random_sparse_operator(10, 12, 0.3, 12u);
  const auto op = cs::constant_operator_from_real<float>(r.rows, r.cols, r.values);
  cs::OperatorChoiceOptions<> options;
  options.timing = {1, 2, 3, cs::TimingMode::Wall};
  options.records_dir = records_dir("operator_records");
  const std::string file = cs::operator_records_path(options.records_dir, cs::default_device_info());
  const auto first = cs::choose_operator_shape(op, 200, options);
  EXPECT_FALSE(first.from_records);
  ASSERT_TRUE(fs::exists(file)) << file;
  // A later process (this one's memory cleared) reads the record and times nothing.
  cs::impl::operator_choices().clear();
  const auto later = cs::choose_operator_shape(op, 200, options);
  EXPECT_TRUE(later.from_records);
  EXPECT_EQ(later.shape, first.shape);
  for (std::size_t k = 0; k < first.times.size(); ++k) EXPECT_EQ(later.times[k].seconds, first.times[k].seconds);
  cs::OperatorRecord stored;
  std::vector<std::string> warnings;
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(op.hash()));
  ASSERT_TRUE(cs::find_operator_record(file, hash, 200, Kokkos::DefaultExecutionSpace::name(),
                                       cs::default_device_info().name, stored, warnings));
  EXPECT_EQ(stored.entry_type, "real");
  EXPECT_EQ(stored.precision, "float");
  EXPECT_EQ(stored.rows, 10);
  EXPECT_EQ(stored.cols, 12);
  EXPECT_DOUBLE_EQ(stored.density, op.density());
  EXPECT_EQ(stored.seconds.size(), 3u);
  EXPECT_TRUE(warnings.empty());
  // Another width is another record; both stay.
  cs::choose_operator_shape(op, 201, options);
  EXPECT_TRUE(cs::find_operator_record(file, hash, 200, Kokkos::DefaultExecutionSpace::name(),
                                       cs::default_device_info().name, stored, warnings));
  // A file that does not read is no reason to fail: timed again, the file moved aside.
  std::ofstream(file) << "not json";
  cs::impl::operator_choices().clear();
  std::vector<std::string> seen;
  const auto previous = cs::set_warning_sink([&](const std::string& w) { seen.push_back(w); });
  const auto after = cs::choose_operator_shape(op, 200, options);
  cs::set_warning_sink(previous);
  EXPECT_FALSE(after.from_records);
  EXPECT_TRUE(fs::exists(file + ".unreadable.1"));
  ASSERT_EQ(seen.size(), 2u);  // not used when read, moved aside when written
  EXPECT_NE(seen[0].find("operator choices not used"), std::string::npos) << seen[0];
  EXPECT_NE(seen[1].find("moved to"), std::string::npos) << seen[1];
  fs::remove_all(options.records_dir);
}

}  // namespace
