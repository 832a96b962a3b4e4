// The row kernel's batches (impl/row_batch.hpp): how many slots a lane loads at
// once for given launch bounds, and that every batch computes the same bits as
// one slot at a time, on the matrices every variant is tested on. On a GPU the
// batch follows the launch bounds; here each is instantiated explicitly.
#include <gtest/gtest.h>

#include <compound_sparse.hpp>
#include <cstring>
#include <vector>

#include "spmv_test_suite.hpp"
#include "test_matrices.hpp"

namespace cs = compound_sparse;
using namespace compound_sparse_test;

namespace {

constexpr bool power_of_two_up_to_8(int b) {
  return b == 1 || b == 2 || b == 4 || b == 8;
}

template <class Entry>
void expect_batches_shrink_with_resident_threads() {
  using cs::impl::row_batch;
  const int by_threads[] = {row_batch<Entry, 256, 1>(), row_batch<Entry, 256, 2>(), row_batch<Entry, 256, 4>(),
                            row_batch<Entry, 256, 8>()};
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(power_of_two_up_to_8(by_threads[i])) << by_threads[i];
    if (i > 0) {
      EXPECT_LE(by_threads[i], by_threads[i - 1]) << "more resident threads, fewer registers each";
    }
  }
}

}  // namespace

TEST(RowBatch, BatchesFollowTheRegistersTheLaunchBoundsLeave) {
  using cs::impl::row_batch;
  // 2048 resident threads leave 32 registers: one slot at a time for every type.
  EXPECT_EQ((row_batch<Kokkos::complex<float>, 256, 8>()), 1);
  EXPECT_EQ((row_batch<Kokkos::complex<double>, 512, 4>()), 1);
  // 64 registers: four complex<float> slots (20 bytes each in 152 spare bytes), or four complex<double> (36 in 144).
  EXPECT_EQ((row_batch<Kokkos::complex<float>, 256, 4>()), 4);
  EXPECT_EQ((row_batch<Kokkos::complex<double>, 256, 4>()), 4);
  // A 3x3 double block and its 3-vector take 100 bytes a slot: two at 128 registers, eight at 255.
  EXPECT_EQ((row_batch<cs::Block<double, 3>, 256, 2>()), 2);
  EXPECT_EQ((row_batch<cs::Block<double, 3>, 256, 1>()), 8);
  expect_batches_shrink_with_resident_threads<Kokkos::complex<float>>();
  expect_batches_shrink_with_resident_threads<cs::Quaternion<double>>();
  expect_batches_shrink_with_resident_threads<cs::Block<float, 3>>();
  // Host backends keep one slot at a time.
  EXPECT_EQ((cs::impl::row_spmv_batch<Kokkos::DefaultHostExecutionSpace, Kokkos::complex<double>, 256, 1>()), 1);
}

namespace {

template <int Batch, class Outer, class Entry>
std::vector<cs::vector_type_t<Entry>> product(const cs::SparseMatrix<Entry, Outer, cs::Aos>& a,
                                              const cs::CompoundVector<cs::vector_type_t<Entry>, cs::Aos>& x,
                                              const cs::coefficient_type_t<Entry>& alpha,
                                              const cs::coefficient_type_t<Entry>& beta,
                                              const std::vector<cs::vector_type_t<Entry>>& y0) {
  using Exec = Kokkos::DefaultExecutionSpace;
  const auto y = cs::to_device<cs::Aos>(y0);
  const auto result = cs::impl::RowResult<Entry, cs::Aos>::make(alpha, beta);
  if (a.num_rows > 0)
    cs::impl::row_spmv<Exec, cs::ScheduleKind::Static, 128, 4, Entry, Outer, cs::Aos, cs::Aos, cs::Aos,
                       Exec::memory_space, Batch>(Exec(), cs::StaticSchedule{}, result, a, x, y);
  return cs::to_host(y);
}

template <class Entry, class Outer>
void expect_every_batch_matches_one_slot_at_a_time(unsigned seed) {
  using vector_type = cs::vector_type_t<Entry>;
  using coefficient = cs::coefficient_type_t<Entry>;
  std::mt19937 rng(seed);
  for (const auto& [name, host] : test_matrices<Entry>(seed)) {
    const auto a = cs::to_device<Outer, cs::Aos>(host);
    const auto x_host = random_vector<vector_type>(host.num_cols, rng);
    const auto x = cs::to_device<cs::Aos>(x_host);
    for (const auto& [alpha, beta] : coefficient_pairs<coefficient>()) {
      auto y0 = random_vector<vector_type>(host.num_rows, rng);
      if (l1(beta) == 0)
        for (auto& v : y0) v = nan_value<vector_type>();
      const std::string context = Outer::name() + " on " + name + " beta_zero=" + std::to_string(l1(beta) == 0);
      const auto one = product<1>(a, x, alpha, beta, y0);
      expect_matches_reference<Entry>(context + " batch 1", alpha, host, x_host, beta, y0, one);
      const std::vector<std::vector<vector_type>> batched = {
          product<2>(a, x, alpha, beta, y0), product<3>(a, x, alpha, beta, y0), product<4>(a, x, alpha, beta, y0),
          product<8>(a, x, alpha, beta, y0)};
      for (std::size_t b = 0; b < batched.size(); ++b) {
        ASSERT_EQ(batched[b].size(), one.size()) << context;
        EXPECT_EQ(0, std::memcmp(batched[b].data(), one.data(), one.size() * sizeof(vector_type)))
            << context << ": batch " << (b == 3 ? 8 : b + 2) << " differs from one slot at a time";
      }
    }
  }
}

}  // namespace

TEST(RowBatch, EveryBatchGivesTheBitsOfOneSlotAtATimeComplex) {
  using E = Kokkos::complex<double>;
  expect_every_batch_matches_one_slot_at_a_time<E, cs::Csr>(21);
  expect_every_batch_matches_one_slot_at_a_time<E, cs::Ell>(22);
  expect_every_batch_matches_one_slot_at_a_time<E, cs::SlicedEll<32>>(23);
}

TEST(RowBatch, EveryBatchGivesTheBitsOfOneSlotAtATimeQuaternion) {
  using E = cs::Quaternion<float>;
  expect_every_batch_matches_one_slot_at_a_time<E, cs::Csr>(24);
  expect_every_batch_matches_one_slot_at_a_time<E, cs::SlicedEll<16>>(25);
}

TEST(RowBatch, EveryBatchGivesTheBitsOfOneSlotAtATimeBlocks) {
  using E = cs::Block<double, 3>;
  expect_every_batch_matches_one_slot_at_a_time<E, cs::Csr>(26);
  expect_every_batch_matches_one_slot_at_a_time<E, cs::Ell>(27);
}

#if defined(COMPOUND_SPARSE_PREFERS_L1)
// Kokkos 3.4 launches team kernels preferring shared memory, which leaves Hopper 28 KB
// of L1 (impl/team_launch.hpp). The row kernel prefers L1 instead, set on the kernel
// that Kokkos launches, found from Kokkos' own launch types: CUDA must accept that
// kernel (a wrong function is refused), and a kernel with team scratch keeps
// Kokkos' preference.
TEST(TeamLaunch, RowKernelsPreferL1) {
  using C = Kokkos::complex<double>;
  std::mt19937 rng(4);
  const auto host = random_csr<C>(3000, 2000, 0, 30, -1, rng);
  const auto x_host = random_vector<C>(host.num_cols, rng);
  auto y0 = random_vector<C>(host.num_rows, rng);
  const auto a = cs::to_device<cs::Csr, cs::Aos>(host);
  const auto x = cs::to_device<cs::Aos>(x_host);
  const auto y = cs::to_device<cs::Aos>(y0);
  const C alpha(1, 0), beta(0.5, 0);
  cs::Schedule<cs::ScheduleKind::Static, 256, 4> schedule;
  schedule.lanes_per_row = 4;
  for (int call = 0; call < 2; ++call) {  // the second runs with the preference set after the first
    cs::spmv(schedule, alpha, a, x, beta, y);
    expect_matches_reference<C>("call " + std::to_string(call), alpha, host, x_host, beta, y0, cs::to_host(y));
    y0 = cs::to_host(y);
  }
  using functor = cs::impl::SpmvFunctor<cs::ScheduleKind::Static, C, cs::Csr, cs::Aos, cs::Aos, cs::Aos,
                                        Kokkos::CudaSpace, cs::impl::row_spmv_batch<Kokkos::Cuda, C, 256, 4>()>;
  using policy = Kokkos::TeamPolicy<Kokkos::Cuda, Kokkos::LaunchBounds<256, 4>>;
  EXPECT_TRUE(cs::impl::prefer_l1_for_team_kernel<functor>(policy(Kokkos::Cuda(), 1, 64, 4)));
  EXPECT_FALSE(cs::impl::prefer_l1_for_team_kernel<functor>(
      policy(Kokkos::Cuda(), 1, 64, 4).set_scratch_size(0, Kokkos::PerTeam(1024))));
  cudaFuncAttributes attributes{};
  EXPECT_EQ(
      cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(cs::impl::kokkos_kernel_of<functor, policy>())),
      cudaSuccess);
  EXPECT_EQ(attributes.maxThreadsPerBlock, 256);  // the launch bounds' kernel, not another instantiation
}
#endif
