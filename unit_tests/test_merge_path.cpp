// The merge-path schedule's pieces: the diagonal search against a walk of the
// merged list, many workers on rows that span them, and its refusals.
#include <gtest/gtest.h>

#include <compound_sparse.hpp>
#include <vector>

#include "spmv_test_suite.hpp"
#include "test_matrices.hpp"

namespace cs = compound_sparse;
using namespace compound_sparse_test;
using C = Kokkos::complex<double>;

namespace {

/// The merged list's coordinate after `diagonal` items, by walking it.
cs::impl::MergeCoordinate walk(const std::vector<int>& offsets, int diagonal) {
  const int n = static_cast<int>(offsets.size()) - 1;
  cs::impl::MergeCoordinate at{0, 0};
  for (int d = 0; d < diagonal; ++d) {
    if (at.row < n && at.entry == offsets[at.row + 1])
      ++at.row;  // the row end comes once its non-zeros are consumed
    else
      ++at.entry;
  }
  return at;
}

}  // namespace

TEST(MergePath, DiagonalSearchMatchesTheMergedList) {
  for (const auto& [name, a] : test_matrices<C>(11)) {
    const Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> offsets(a.row_offsets.data(),
                                                                                       a.row_offsets.size());
    const int nnz = static_cast<int>(a.num_entries());
    for (int d = 0; d <= a.num_rows + nnz; ++d) {
      const auto want = walk(a.row_offsets, d);
      const auto got = cs::impl::merge_path_start(offsets, a.num_rows, nnz, d);
      ASSERT_EQ(got.row, want.row) << name << " diagonal " << d;
      ASSERT_EQ(got.entry, want.entry) << name << " diagonal " << d;
    }
  }
}

TEST(MergePath, WorkersAreBoundedByWorkAndDevice) {
  EXPECT_EQ(cs::impl::merge_path_max_workers(0, 0, 4), 1);
  EXPECT_EQ(cs::impl::merge_path_max_workers(100, 700, 4), 100);           // 8 items each
  EXPECT_EQ(cs::impl::merge_path_max_workers(1 << 20, 1 << 24, 2), 4096);  // 2048 per multiprocessor
  std::mt19937 rng(3);
  const auto a = cs::to_device<cs::Csr, cs::Aos>(random_csr<C>(300, 300, 0, 9, 4, rng));
  EXPECT_EQ(a.merge_path_carries.rows.extent(0),
            static_cast<std::size_t>(cs::impl::merge_path_max_workers(
                a.num_rows, a.num_entries, cs::multiprocessor_count<Kokkos::DefaultExecutionSpace>())));
  EXPECT_EQ(a.merge_path_carries.values.extent(0), a.merge_path_carries.rows.extent(0));
  // Other layouts carry nothing.
  const auto e = cs::to_device<cs::Ell, cs::Aos>(random_csr<C>(30, 30, 0, 9, -1, rng));
  EXPECT_EQ(e.merge_path_carries.rows.extent(0), 0u);
}

// More workers: 16 teams per multiprocessor (2048 threads, the most a GPU keeps
// resident; on one host thread, 16 workers) split the long rows of these matrices
// over many workers, whole ones inside a row.
TEST(MergePath, ManyWorkersMatchTheReference) {
  using Many = Variant<C, cs::Csr, cs::Soa, cs::Aos, cs::Aos, cs::ScheduleKind::MergePath>;
  run_variant<Many>(cs::Schedule<cs::ScheduleKind::MergePath, 128, 16>{}, 77u);
  using ManySoa = Variant<C, cs::Csr, cs::Aos, cs::Soa, cs::Soa, cs::ScheduleKind::MergePath>;
  run_variant<ManySoa>(cs::Schedule<cs::ScheduleKind::MergePath, 64, 32>{}, 78u);
}

TEST(MergePath, RefusesLanes) {
  std::mt19937 rng(1);
  const auto host = random_csr<C>(40, 40, 1, 5, -1, rng);
  const auto a = cs::to_device<cs::Csr, cs::Aos>(host);
  const auto x = cs::to_device<cs::Aos>(std::vector<C>(40, C(1, 0)));
  const auto y = cs::to_device<cs::Aos>(std::vector<C>(40));
  cs::Schedule<cs::ScheduleKind::MergePath, 128, 4> schedule;
  schedule.lanes_per_row = 2;
  try {
    cs::spmv(schedule, C(1, 0), a, x, C(0, 0), y);
    ADD_FAILURE() << "lanes_per_row 2 accepted";
  } catch (const cs::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("merge_path does not use lanes"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cs::parse_variant_key("csr.aos.aos.merge_path.t128.b4.l2"), cs::Error);
  EXPECT_THROW(cs::parse_variant_key("ell.aos.aos.merge_path.t128.b4.l1"), cs::Error);
  EXPECT_NO_THROW(cs::parse_variant_key("csr.aos.aos.merge_path.t128.b4.l1"));
}
