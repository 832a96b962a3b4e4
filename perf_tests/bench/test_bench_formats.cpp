// The host side of the vendor baselines: every format the bench hands cuSPARSE
// (real BSR blocks, the scalar CSR of the real expansion, 2x2 complex BSR blocks of
// quaternions, Sliced ELL), multiplied on the host in that format's own terms and
// compared with the compound reference on the unit tests' matrices (empty rows,
// one huge row, 1x1, non-square, row counts that are not multiples of a slice).
#include <gtest/gtest.h>

#include <chrono>
#include <complex>
#include <compound_sparse/entries/block.hpp>
#include <compound_sparse/products/reference.hpp>
#include <compound_sparse/tuning/measure.hpp>
#include <thread>

#include "baseline.hpp"
#include "complex_expansion.hpp"
#include "real_expansion.hpp"
#include "sliced_ell.hpp"
#include "test_matrices.hpp"

namespace {

namespace cs = compound_sparse;
namespace bench = compound_sparse_bench;
using namespace compound_sparse_test;

template <class Entry>
std::vector<cs::vector_type_t<Entry>> reference(const cs::HostCsr<Entry>& a,
                                                const std::vector<cs::vector_type_t<Entry>>& x) {
  using coefficient = cs::coefficient_type_t<Entry>;
  const auto wide = cs::reference_spmv<double>(cs::real_value<coefficient>(1), a, x, coefficient{},
                                               std::vector<cs::vector_type_t<Entry>>(a.num_rows));
  std::vector<cs::vector_type_t<Entry>> y(wide.size());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = cs::convert_components<cs::vector_type_t<Entry>>(wide[i]);
  return y;
}

/// A compound vector's scalars, one after the other (the bench's flat device copies).
template <class Value>
std::vector<double> flat(const std::vector<Value>& v) {
  constexpr int n = cs::component_traits<Value>::size;
  std::vector<double> f;
  for (const auto& e : v)
    for (int c = 0; c < n; ++c) f.push_back(cs::component_traits<Value>::get(e, c));
  return f;
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

template <class Entry>
void expect_real_forms_match(const cs::HostCsr<Entry>& a, const std::string& name) {
  using vector = cs::vector_type_t<Entry>;
  constexpr int e = bench::real_block<Entry>::block_size;
  std::mt19937 rng(3);
  const auto x = random_vector<vector>(a.num_cols, rng);
  const auto want = flat(reference(a, x));
  const auto xs = flat(x);
  // BSR: block k is row-major e x e at bsr_values[k * e * e].
  const auto blocks = bench::bsr_values(a);
  std::vector<double> y(want.size(), 0.0);
  for (int r = 0; r < a.num_rows; ++r)
    for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
      for (int i = 0; i < e; ++i)
        for (int j = 0; j < e; ++j)
          y[e * r + i] += blocks[(static_cast<std::size_t>(k) * e + i) * e + j] * xs[e * a.col_indices[k] + j];
  EXPECT_LT(max_difference(y, want), 1e-12) << name << ": BSR " << e << "x" << e;
  // The scalar CSR of the real expansion.
  const auto s = bench::expand_to_scalar_csr(a);
  ASSERT_EQ(s.num_rows, e * a.num_rows);
  ASSERT_EQ(s.num_cols, e * a.num_cols);
  std::vector<double> z(want.size(), 0.0);
  for (int r = 0; r < s.num_rows; ++r)
    for (int k = s.row_offsets[r]; k < s.row_offsets[r + 1]; ++k) z[r] += s.values[k] * xs[s.col_indices[k]];
  EXPECT_LT(max_difference(z, want), 1e-12) << name << ": expanded CSR";
}

TEST(BenchFormats, RealBlocksOfQuaternionsAndBlocks) {
  for (const auto& m : test_matrices<cs::Quaternion<double>>(11)) expect_real_forms_match(m.matrix, m.name);
  for (const auto& m : test_matrices<cs::Block<double, 3>>(12)) expect_real_forms_match(m.matrix, m.name);
}

TEST(BenchFormats, QuaternionsAsComplexTwoByTwoBlocks) {
  for (const auto& m : test_matrices<cs::Quaternion<double>>(13)) {
    const auto& a = m.matrix;
    std::mt19937 rng(5);
    const auto x = random_vector<cs::Quaternion<double>>(a.num_cols, rng);
    // What cuSPARSE computes: 2x2 complex blocks on x in pair form, y in pair form.
    const auto values = bench::complex_bsr_values(a);
    ASSERT_EQ(values.size(), a.num_entries() * 8);
    const auto xp = flat(bench::complex_pair_form(x));
    std::vector<std::complex<double>> y(2 * static_cast<std::size_t>(a.num_rows));
    for (int r = 0; r < a.num_rows; ++r)
      for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2; ++j) {
            const std::size_t v = (static_cast<std::size_t>(k) * 4 + 2 * i + j) * 2;
            const std::size_t c = 2 * (2 * static_cast<std::size_t>(a.col_indices[k]) + j);
            y[2 * r + i] += std::complex<double>(values[v], values[v + 1]) * std::complex<double>(xp[c], xp[c + 1]);
          }
    std::vector<double> got;
    for (const auto& c : y) got.insert(got.end(), {c.real(), c.imag()});
    EXPECT_LT(max_difference(got, flat(bench::complex_pair_form(reference(a, x)))), 1e-12) << m.name;
  }
}

TEST(BenchFormats, SlicedEllOfComplexMatrices) {
  using complex = Kokkos::complex<double>;
  for (const auto& m : test_matrices<complex>(14))
    for (int slice : {16, 32}) {
      const auto& a = m.matrix;
      const auto s = bench::to_sliced_ell(a, slice, std::int64_t{1} << 40);
      const int slices = (a.num_rows + slice - 1) / slice;
      ASSERT_EQ(static_cast<int>(s.slice_offsets.size()), slices + 1) << m.name;
      ASSERT_EQ(s.col_indices.size(), static_cast<std::size_t>(s.slice_offsets.back()));
      ASSERT_EQ(static_cast<std::int64_t>(s.col_indices.size()), bench::sliced_ell_slots(a, slice));
      std::mt19937 rng(6);
      const auto x = random_vector<complex>(a.num_cols, rng);
      std::vector<complex> y(a.num_rows);
      std::size_t stored = 0;
      for (int sl = 0; sl < slices; ++sl) {
        const int width = (s.slice_offsets[sl + 1] - s.slice_offsets[sl]) / slice;
        ASSERT_EQ(width * slice, s.slice_offsets[sl + 1] - s.slice_offsets[sl]) << m.name;
        for (int i = 0; i < slice; ++i)
          for (int j = 0; j < width; ++j) {
            const int slot = s.slice_offsets[sl] + j * slice + i;
            const int col = s.col_indices[slot];
            if (col < 0) {
              EXPECT_EQ(s.values[slot], complex(0, 0));
              continue;
            }
            ASSERT_LT(sl * slice + i, a.num_rows) << m.name << ": a padding row holds an entry";
            y[sl * slice + i] += s.values[slot] * x[col];
            ++stored;
          }
      }
      EXPECT_EQ(stored, a.num_entries()) << m.name;
      EXPECT_LT(max_difference(flat(y), flat(reference(a, x))), 1e-12) << m.name << ", slice " << slice;
    }
}

TEST(BenchFormats, SlicedEllRefusesPaddingBeyondItsLimit) {
  // Only the first of 64 rows holds entries (300): its slice of 32 pads 31 empty rows to 300.
  const auto a = one_long_row<Kokkos::complex<double>>(64, 300, Kokkos::complex<double>(1, 0));
  const std::int64_t slots = bench::sliced_ell_slots(a, 32);
  EXPECT_NO_THROW(bench::to_sliced_ell(a, 32, slots));
  try {
    bench::to_sliced_ell(a, 32, slots - 1);
    FAIL() << "a Sliced ELL over its slot limit was built";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(slots) + " slots"), std::string::npos) << e.what();
  }
}

/// check_and_time on a "baseline" that writes y = (1, 2) and takes `launch_ms` per launch.
bench::BaselineResult time_sleeping_baseline(int launch_ms, const cs::TimingOptions& timing) {
  using Value = Kokkos::complex<double>;
  std::vector<Kokkos::View<double*>> ys{bench::flat_device_copy<double>(std::vector<Value>(3))};
  const std::vector<Value> reference(3, Value(1, 2));
  bench::BaselineResult result;
  bench::check_and_time<Value, double>(
      result, reference, ys,
      [&](int copy) {
        Kokkos::deep_copy(ys[copy], bench::flat_device_copy<double>(reference));
        std::this_thread::sleep_for(std::chrono::milliseconds(launch_ms));
      },
      timing, 1e-12);
  return result;
}

TEST(BenchFormats, SlowBaselineIsTimedByOneBatchWithinTheBudget) {
  cs::TimingOptions timing;
  timing.mode = cs::TimingMode::Wall;
  timing.warmup = 1;
  timing.batch = 4;
  timing.samples = 200;  // 200 x 4 x 5 ms = 4 s of full timing, over the 2 s budget
  const auto start = std::chrono::steady_clock::now();
  const auto slow = time_sleeping_baseline(5, timing);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(slow.ok) << slow.error;
  EXPECT_LT(took, 1.0) << "the slow baseline was timed in full";
  EXPECT_GE(slow.seconds, 0.005);
  EXPECT_NE(slow.note.find("one batch of 4 launches"), std::string::npos) << slow.note;

  timing.samples = 3;  // 3 x 4 x 5 ms: within the budget, timed in full, no note
  const auto fast = time_sleeping_baseline(5, timing);
  ASSERT_TRUE(fast.ok) << fast.error;
  EXPECT_TRUE(fast.note.empty()) << fast.note;
  EXPECT_GE(fast.seconds, 0.005);
}

}  // namespace
