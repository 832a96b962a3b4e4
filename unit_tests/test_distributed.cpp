// The distributed product (distributed/distributed_spmv.hpp), run by ctest under mpiexec with
// 1, 2 and 3 ranks (unit_tests/CMakeLists.txt): every rank builds the same global matrix and
// vectors, multiplies its rows, and the gathered result is checked against the double host
// reference of the whole product; a second product must give the same bits (determinism).
// Shapes: empty rows, a row reading every column, 1 x 1, sizes not multiples of the ranks,
// more ranks than rows (an empty part); entry types complex double, quaternion float, 3x3
// blocks double, mixed precision complex; a reverse Cuthill-McKee reordered matrix. Every
// case is built again from the rows on the device (DeviceCsr) and must give the same bits.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <compound_sparse.hpp>
#include <compound_sparse/distributed/distributed_spmv.hpp>
#include <compound_sparse/layouts/device_csr_from_coo.hpp>
#include <compound_sparse/tuning/measure.hpp>  // relative_error
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include "device_arrays.hpp"    // on_device, device_copy
#include "error_helpers.hpp"    // contains
#include "spmv_test_suite.hpp"  // expect_matches_reference
#include "test_matrices.hpp"
#include "tuning_test_helpers.hpp"

namespace cs = compound_sparse;
using namespace compound_sparse_test;

namespace {

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int ranks() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

/// Selection without quick tuning or the cache (the ranks would time and write at once).
cs::TunedSpmvOptions quiet() {
  cs::TunedSpmvOptions o;
  o.quick_tune = cs::QuickTune::Never;
  o.use_cache = false;
  return o;
}

/// An operator built from rows on the device must be the host-built one: the same split,
/// exchange and variants, and a product of the same bits.
template <class Entry>
void expect_same_operator(const std::string& what, const cs::DistributedSpmv<Entry>& host,
                          const cs::DistributedSpmv<Entry>& device, const cs::RowPartition& p,
                          const std::vector<cs::vector_type_t<Entry>>& x) {
  using V = cs::vector_type_t<Entry>;
  EXPECT_EQ(device.halo_size(), host.halo_size()) << what;
  EXPECT_EQ(device.boundary_rows(), host.boundary_rows()) << what;
  EXPECT_EQ(device.send_size(), host.send_size()) << what;
  EXPECT_EQ(device.neighbours(), host.neighbours()) << what;
  EXPECT_EQ(device.diagonal().variant().name(), host.diagonal().variant().name()) << what;
  ASSERT_EQ(device.off_diagonal() != nullptr, host.off_diagonal() != nullptr) << what;
  if (host.off_diagonal()) {
    EXPECT_EQ(device.off_diagonal()->variant().name(), host.off_diagonal()->variant().name()) << what;
  }
  const std::vector<V> own_x(x.begin() + p.begin(rank()), x.begin() + p.end(rank()));
  std::vector<std::vector<V>> results;
  for (const auto* op : {&host, &device}) {
    const auto y = op->make_vector(std::vector<V>(op->local_rows()));
    op->apply(cs::real_value<cs::coefficient_type_t<Entry>>(1), op->make_vector(own_x),
              cs::real_value<cs::coefficient_type_t<Entry>>(0), y);
    results.push_back(cs::allgathered(MPI_COMM_WORLD, p, cs::to_host(y)));
  }
  EXPECT_EQ(std::memcmp(results[0].data(), results[1].data(), results[0].size() * sizeof(V)), 0)
      << what << ": the product differs, bit for bit, from that of the operator built from host rows";
}

/// y = alpha A x + beta y distributed over `p`, against the reference, twice for determinism;
/// then the same rows given on the device must build the same operator.
template <class Entry>
void check_distributed(const std::string& what, const cs::HostCsr<Entry>& a, const cs::RowPartition& p, unsigned seed) {
  using V = cs::vector_type_t<Entry>;
  std::mt19937 rng(seed);
  const auto x = random_vector<V>(a.num_cols, rng);
  const auto y0 = random_vector<V>(a.num_rows, rng);
  const auto [alpha, beta] = coefficient_pairs<cs::coefficient_type_t<Entry>>()[0];
  const cs::DistributedSpmv<Entry> op(MPI_COMM_WORLD, p, cs::local_rows(a, p, rank()), quiet());
  const auto own = [&](const std::vector<V>& v) {
    return std::vector<V>(v.begin() + p.begin(rank()), v.begin() + p.end(rank()));
  };
  const auto xd = op.make_vector(own(x));
  std::vector<std::vector<V>> results;
  for (int run = 0; run < 2; ++run) {
    const auto yd = op.make_vector(own(y0));
    op.apply(alpha, xd, beta, yd);
    results.push_back(cs::allgathered(MPI_COMM_WORLD, p, cs::to_host(yd)));
  }
  expect_matches_reference<Entry>(what + " on " + std::to_string(ranks()) + " rank(s)", alpha, a, x, beta, y0,
                                  results[0]);
  EXPECT_EQ(std::memcmp(results[0].data(), results[1].data(), results[0].size() * sizeof(V)), 0)
      << what << ": two products differ";
  // The halo is what the partition says: distinct remote columns of this rank's rows.
  EXPECT_EQ(op.halo_size(), std::size_t(cs::halo_sizes(a, p)[rank()])) << what;
  // The off-diagonal block holds the boundary rows only: those that read a remote column.
  std::size_t boundary = 0;
  for (int r = p.begin(rank()); r < p.end(rank()); ++r)
    boundary += std::any_of(a.col_indices.begin() + a.row_offsets[r], a.col_indices.begin() + a.row_offsets[r + 1],
                            [&](int c) { return c < p.begin(rank()) || c >= p.end(rank()); });
  EXPECT_EQ(op.boundary_rows(), boundary) << what;
  EXPECT_EQ(op.off_diagonal() != nullptr, boundary > 0) << what;
  const cs::DistributedSpmv<Entry> built_there(MPI_COMM_WORLD, p, on_device(cs::local_rows(a, p, rank())), quiet());
  expect_same_operator(what + " (rows on the device)", op, built_there, p, x);
}

template <class Entry>
void check_shapes(unsigned seed) {
  std::mt19937 rng(seed);
  const int n = ranks();
  const auto random = random_csr<Entry>(257, 257, 0, 12, 100, rng);
  check_distributed("random 257 x 257 with empty rows and a full row", random, cs::balanced_row_partition(random, n),
                    seed);
  const auto band = banded<Entry>(101, 7);
  check_distributed("banded 101", band, cs::balanced_row_partition(band, n), seed + 1);
  const auto one = random_csr<Entry>(1, 1, 1, 1, -1, rng);
  check_distributed("1 x 1", one, cs::balanced_row_partition(one, n), seed + 2);
  // Parts of very different sizes, one empty when there are 3 ranks.
  const auto skewed = random_csr<Entry>(61, 61, 1, 9, -1, rng);
  cs::RowPartition p;
  p.starts.assign(n, 50);  // {0, 50, 50, .., 61}: with 3 ranks the middle one owns nothing
  p.starts[0] = 0;
  p.starts.push_back(61);
  check_distributed("61 rows split unevenly", skewed, p, seed + 3);
}

}  // namespace

TEST(Distributed, ComplexDouble) {
  check_shapes<Kokkos::complex<double>>(1);
}
TEST(Distributed, QuaternionFloat) {
  check_shapes<cs::Quaternion<float>>(2);
}
TEST(Distributed, Block3Double) {
  check_shapes<cs::Block<double, 3>>(3);
}
TEST(Distributed, MixedPrecisionComplex) {
  check_shapes<cs::Mixed<Kokkos::complex<float>>>(4);
}

TEST(Distributed, ReorderedByReverseCuthillMckee) {
  using C = Kokkos::complex<double>;
  // A band with shuffled numbering: the reordering shrinks the halos, the product agrees.
  const auto band = banded<C>(300, 5);
  std::vector<int> shuffle(300);
  std::iota(shuffle.begin(), shuffle.end(), 0);
  std::mt19937 rng(5);
  std::shuffle(shuffle.begin(), shuffle.end(), rng);
  const auto shuffled = cs::permuted(band, shuffle);
  const auto reordered = cs::permuted(shuffled, cs::reverse_cuthill_mckee(shuffled));
  check_distributed("shuffled band", shuffled, cs::balanced_row_partition(shuffled, ranks()), 6);
  check_distributed("shuffled band after RCM", reordered, cs::balanced_row_partition(reordered, ranks()), 7);
}

TEST(Distributed, RowsInAnyOrderWithDuplicatesAreSortedAndSummed) {
  // The split takes sorted rows straight and sorts the others first: each row of this band
  // is reversed and its diagonal entry split into two halves.
  using C = Kokkos::complex<double>;
  const auto band = banded<C>(150, 6);
  cs::HostCsr<C> messy;
  messy.num_rows = band.num_rows;
  messy.num_cols = band.num_cols;
  messy.row_offsets.assign(1, 0);
  for (int r = 0; r < band.num_rows; ++r) {
    for (int k = band.row_offsets[r + 1] - 1; k >= band.row_offsets[r]; --k) {
      const bool split = band.col_indices[k] == r;
      for (int half = 0; half < (split ? 2 : 1); ++half) {
        messy.col_indices.push_back(band.col_indices[k]);
        messy.values.push_back(split ? band.values[k] * 0.5 : band.values[k]);
      }
    }
    messy.row_offsets.push_back(static_cast<int>(messy.col_indices.size()));
  }
  check_distributed("band with reversed rows and a split diagonal", messy, cs::balanced_row_partition(messy, ranks()),
                    8);
}

// An application that assembles on the device hands each rank its own contributions as
// COO (rows local, columns global, repeats, any order): device_csr_from_coo and the device
// split must give the operator of the host's csr_from_coo of the whole list.
TEST(Distributed, DeviceCooContributionsBuildTheOperatorOfTheHostMatrix) {
  using Q = cs::Quaternion<double>;
  std::mt19937 rng(31);
  const int n = 173;
  const auto base = random_csr<Q>(n, n, 0, 9, 40, rng);  // empty rows and a long one
  std::vector<cs::CooEntry<Q>> list;
  for (int r = 0; r < n; ++r)
    for (int k = base.row_offsets[r]; k < base.row_offsets[r + 1]; ++k) {
      list.push_back({r, base.col_indices[k], base.values[k]});
      if (k % 3 == 0) list.push_back({r, base.col_indices[k], 0.25 * base.values[k]});  // a repeat
    }
  std::shuffle(list.begin(), list.end(), rng);
  const auto whole = cs::csr_from_coo(n, n, list);
  const auto p = cs::balanced_row_partition(whole, ranks());
  std::vector<int> rows, cols;
  std::vector<Q> values;
  for (const auto& e : list)  // this rank's contributions, in the list's order
    if (e.row >= p.begin(rank()) && e.row < p.end(rank())) {
      rows.push_back(e.row - p.begin(rank()));
      cols.push_back(e.col);
      values.push_back(e.value);
    }
  const auto own =
      cs::device_csr_from_coo(p.size(rank()), n, device_copy(rows), device_copy(cols), device_copy(values));
  const cs::DistributedSpmv<Q> host(MPI_COMM_WORLD, p, cs::local_rows(whole, p, rank()), quiet());
  const cs::DistributedSpmv<Q> device(MPI_COMM_WORLD, p, own, quiet());
  expect_same_operator("a shuffled COO list with repeats", host, device, p, random_vector<Q>(n, rng));
  // A contribution outside the matrix is named.
  cols.push_back(n);
  rows.push_back(0);
  values.push_back(Q());
  try {
    cs::device_csr_from_coo(p.size(rank()), n, device_copy(rows), device_copy(cols), device_copy(values));
    ADD_FAILURE() << "a column outside the matrix was taken";
  } catch (const cs::InvalidInput& e) {
    EXPECT_TRUE(contains(e.what(), "device_csr_from_coo: contribution " + std::to_string(rows.size() - 1) + " at (0, " +
                                       std::to_string(n) + ") is outside the"))
        << e.what();
  }
}

// Values re-assembled with the same pattern: refresh must give the bits of an operator built
// from the new values, from either constructor; rows that had to be sorted and summed, and a
// count that is not the rows', are refused.
template <class Entry>
void check_refresh(const std::string& what, const cs::HostCsr<Entry>& a, unsigned seed) {
  using V = cs::vector_type_t<Entry>;
  std::mt19937 rng(seed);
  const auto p = cs::balanced_row_partition(a, ranks());
  cs::HostCsr<Entry> changed = a;
  for (auto& v : changed.values) v = random_vector<Entry>(1, rng)[0];
  const auto rows = cs::local_rows(a, p, rank()), new_rows = cs::local_rows(changed, p, rank());
  const cs::DistributedSpmv<Entry> built_new(MPI_COMM_WORLD, p, new_rows, quiet());
  const cs::DistributedSpmv<Entry> host(MPI_COMM_WORLD, p, rows, quiet());
  const cs::DistributedSpmv<Entry> device(MPI_COMM_WORLD, p, on_device(rows), quiet());
  host.refresh(new_rows.values);
  device.refresh(device_copy(new_rows.values));
  const auto x = random_vector<V>(a.num_cols, rng);
  expect_same_operator(what + ", refreshed from the host-built operator", built_new, host, p, x);
  expect_same_operator(what + ", refreshed from the device-built operator", built_new, device, p, x);
  EXPECT_THROW(host.refresh(std::vector<Entry>(new_rows.values.size() + 1)), cs::InvalidInput) << what;
}

TEST(Distributed, RefreshGivesTheOperatorOfTheNewValues) {
  std::mt19937 rng(41);
  check_refresh("banded complex", banded<Kokkos::complex<double>>(120, 5), 42);
  // random_csr's rows may repeat or disorder columns: sorted and summed first (permuted by
  // the identity), as refresh needs.
  std::vector<int> identity(150);
  std::iota(identity.begin(), identity.end(), 0);
  check_refresh("random quaternion with empty rows and a full row",
                cs::permuted(random_csr<cs::Quaternion<float>>(150, 150, 0, 8, 150, rng), identity), 43);
  // Rows with a repeated column were summed at construction: a value has no one place.
  using C = Kokkos::complex<double>;
  auto repeated = banded<C>(40, 3);
  const auto p = cs::balanced_row_partition(repeated, ranks());
  auto rows = cs::local_rows(repeated, p, rank());
  if (rows.num_rows > 0) {  // the first row's first column twice
    rows.col_indices.insert(rows.col_indices.begin(), rows.col_indices.front());
    rows.values.insert(rows.values.begin(), C(1, 0));
    for (std::size_t r = 1; r < rows.row_offsets.size(); ++r) ++rows.row_offsets[r];
  }
  const cs::DistributedSpmv<C> host(MPI_COMM_WORLD, p, rows, quiet());
  const cs::DistributedSpmv<C> device(MPI_COMM_WORLD, p, on_device(rows), quiet());
  if (rows.num_rows > 0) {
    for (const auto* op : {&host, &device}) {
      try {
        op->refresh(rows.values);
        ADD_FAILURE() << "refresh of summed rows was taken";
      } catch (const cs::InvalidInput& e) {
        EXPECT_TRUE(contains(e.what(), "columns out of order or repeated")) << e.what();
      }
    }
  }
}

TEST(Distributed, PhaseTimesArePositiveAndTheHiddenFractionWithinBounds) {
  using C = Kokkos::complex<double>;
  const auto band = banded<C>(2000, 9);
  const auto p = cs::balanced_row_partition(band, ranks());
  const cs::DistributedSpmv<C> op(MPI_COMM_WORLD, p, cs::local_rows(band, p, rank()), quiet());
  const auto x = op.make_vector(std::vector<C>(op.local_rows(), C(1, 0)));
  const auto y = op.make_vector(std::vector<C>(op.local_rows()));
  const auto t = op.time_phases(C(1, 0), x, C(0, 0), y, 5);
  EXPECT_GT(t.local_seconds, 0);
  EXPECT_GT(t.product_seconds, 0);
  EXPECT_GE(t.hidden_fraction, 0);
  EXPECT_LE(t.hidden_fraction, 1);
  if (ranks() == 1) {  // nothing to exchange
    EXPECT_EQ(op.halo_size(), 0u);
    EXPECT_EQ(op.off_diagonal(), nullptr);
    EXPECT_EQ(t.hidden_fraction, 0);
  } else {
    EXPECT_GT(t.exchange_seconds, 0);
  }
  // After the timing, y is still the product (time_phases ends with full products).
  const auto all = cs::allgathered(MPI_COMM_WORLD, p, cs::to_host(y));
  const auto want =
      cs::reference_spmv<double>(C(1, 0), band, std::vector<C>(2000, C(1, 0)), C(0, 0), std::vector<C>(2000));
  EXPECT_LE(cs::relative_error(all, want), 1e-14);
  EXPECT_THROW(op.time_phases(C(1, 0), x, C(0, 0), y, 0), cs::InvalidInput);
}

TEST(Distributed, HostStagedMpiWhereAskedForAndNcclOnlyWhereBuilt) {
  using C = Kokkos::complex<double>;
  const auto band = banded<C>(90, 5);
  const auto p = cs::balanced_row_partition(band, ranks());
  const cs::DistributedSpmv<C> mpi(MPI_COMM_WORLD, p, cs::local_rows(band, p, rank()), quiet(), cs::HaloExchange::Mpi);
  EXPECT_EQ(mpi.exchange(), "mpi (host-staged)");
  const cs::DistributedSpmv<C> automatic(MPI_COMM_WORLD, p, cs::local_rows(band, p, rank()), quiet());
  if (!cs::nccl_available()) {
    EXPECT_EQ(automatic.exchange(), "mpi (host-staged)");
  } else if (automatic.exchange() != "nccl") {
    // Ranks sharing a GPU (several ranks on a one-GPU machine): Auto says why it took MPI,
    // and asking for NCCL there is refused before NCCL fails on it.
    EXPECT_EQ(automatic.exchange().rfind("mpi (host-staged) (NCCL not used: ranks ", 0), 0u) << automatic.exchange();
    EXPECT_THROW(
        cs::DistributedSpmv<C>(MPI_COMM_WORLD, p, cs::local_rows(band, p, rank()), quiet(), cs::HaloExchange::Nccl),
        cs::InvalidInput);
  }
  std::mt19937 rng(9);
  const auto x = random_vector<C>(90, rng);
  const std::vector<C> own_x(x.begin() + p.begin(rank()), x.begin() + p.end(rank()));
  std::vector<std::vector<C>> results;
  for (const auto* op : {&mpi, &automatic}) {
    const auto y = op->make_vector(std::vector<C>(op->local_rows()));
    op->apply(C(1, 0), op->make_vector(own_x), C(0, 0), y);
    results.push_back(cs::allgathered(MPI_COMM_WORLD, p, cs::to_host(y)));
  }
  EXPECT_EQ(std::memcmp(results[0].data(), results[1].data(), results[0].size() * sizeof(C)), 0)
      << "the exchange must not change the bits";
  if (!cs::nccl_available()) {
    EXPECT_THROW(
        cs::DistributedSpmv<C>(MPI_COMM_WORLD, p, cs::local_rows(band, p, rank()), quiet(), cs::HaloExchange::Nccl),
        cs::NotCompiled);
  }
}

// Operators on one MPI communicator share its NCCL communicator (nccl_communicator.hpp):
// the second sets up none, and both give the bits of an operator on a communicator of its
// own. Without NCCL no communicator is ever set up, and the results must still agree.
TEST(Distributed, OperatorsOnOneCommunicatorShareItsNcclCommunicator) {
  using C = Kokkos::complex<double>;
  const auto band = banded<C>(97, 6);
  const auto p = cs::balanced_row_partition(band, ranks());
  const auto rows = cs::local_rows(band, p, rank());
  MPI_Comm own_comm = MPI_COMM_NULL;  // a duplicate gets a communicator of its own
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &own_comm), MPI_SUCCESS);
  std::vector<std::vector<C>> results;
  std::mt19937 rng(23);
  const auto x = random_vector<C>(97, rng);
  {
    const int before = cs::nccl_communicators_created();
    const cs::DistributedSpmv<C> first(MPI_COMM_WORLD, p, rows, quiet());
    const int after_first = cs::nccl_communicators_created();
    const cs::DistributedSpmv<C> second(MPI_COMM_WORLD, p, rows, quiet());
    EXPECT_EQ(cs::nccl_communicators_created(), after_first) << "the second operator set up a communicator";
    // The earlier tests' operators are gone, and their communicator with them: one new.
    EXPECT_EQ(after_first - before, first.exchange() == "nccl" ? 1 : 0);
    EXPECT_EQ(first.exchange(), second.exchange());
    const cs::DistributedSpmv<C> apart(own_comm, p, rows, quiet());
    if (apart.exchange() == "nccl") {
      EXPECT_EQ(cs::nccl_communicators_created(), after_first + 1);
    }
    const std::vector<C> own_x(x.begin() + p.begin(rank()), x.begin() + p.end(rank()));
    // Interleaved: the operators' exchanges alternate on the shared communicator.
    std::vector<cs::DistributedSpmv<C>::vector_type> ys;
    for (const auto* op : {&first, &second, &apart}) ys.push_back(op->make_vector(std::vector<C>(op->local_rows())));
    const auto xd = first.make_vector(own_x);
    for (int round = 0; round < 3; ++round) {
      first.apply(C(1, 0), xd, C(0, 0), ys[0]);
      second.apply(C(1, 0), xd, C(0, 0), ys[1]);
      apart.apply(C(1, 0), xd, C(0, 0), ys[2]);
    }
    for (const auto& y : ys) results.push_back(cs::allgathered(MPI_COMM_WORLD, p, cs::to_host(y)));
  }
  MPI_Comm_free(&own_comm);
  for (std::size_t i = 1; i < results.size(); ++i)
    EXPECT_EQ(std::memcmp(results[0].data(), results[i].data(), results[0].size() * sizeof(C)), 0)
        << "operator " << i << " differs from the first";
  expect_matches_reference<C>("operators on one communicator", C(1, 0), band, x, C(0, 0), std::vector<C>(97),
                              results[0]);
}

TEST(Distributed, RefusesMismatchedPartitionsAndVectors) {
  using C = Kokkos::complex<double>;
  const auto band = banded<C>(40, 3);
  const auto p = cs::balanced_row_partition(band, ranks() + 1);  // one part too many
  EXPECT_THROW(cs::DistributedSpmv<C>(MPI_COMM_WORLD, p, cs::local_rows(band, p, rank()), quiet()), cs::InvalidInput);
  const auto right = cs::balanced_row_partition(band, ranks());
  auto wrong_rows = cs::local_rows(band, right, rank());
  wrong_rows.num_cols = 39;  // not square
  for (auto& c : wrong_rows.col_indices) c = std::min(c, 38);
  EXPECT_THROW(cs::DistributedSpmv<C>(MPI_COMM_WORLD, right, wrong_rows, quiet()), cs::InvalidInput);
  const cs::DistributedSpmv<C> op(MPI_COMM_WORLD, right, cs::local_rows(band, right, rank()), quiet());
  EXPECT_THROW(op.make_vector(std::vector<C>(op.local_rows() + 1)), cs::InvalidInput);
}

// A check that fails on one rank only must stop every rank, not leave the others waiting in
// the next collective (they used to hang: ctest runs this suite with 2 and 3 ranks under a
// short timeout). The last rank is the one given bad arguments.
namespace {
using C = Kokkos::complex<double>;

bool last_rank() {
  return rank() == ranks() - 1;
}

/// The kind and message of what `f` throws on this rank, "none" if nothing.
template <class F>
std::string thrown(F&& f) {
  try {
    f();
  } catch (const cs::Error& e) {
    return std::string(e.kind()) + ": " + e.what();
  } catch (const std::exception& e) {
    return std::string("not a compound_sparse::Error: ") + e.what();
  }
  return "none";
}

/// On the last rank its own reason; on the others, that the last rank refused the call.
void expect_stopped_by_last_rank(const std::string& error, const std::string& reason) {
  EXPECT_TRUE(contains(error, "invalid input: ")) << error;
  if (last_rank())
    EXPECT_TRUE(contains(error, reason)) << error;
  else
    EXPECT_TRUE(contains(error, "rank " + std::to_string(ranks() - 1) + " refused the call, so every rank stops: ") &&
                contains(error, reason))
        << error;
}
}  // namespace

TEST(DistributedAgreement, VectorsOfTheWrongLengthOnOneRankStopEveryRank) {
  const auto band = banded<C>(60, 5);
  const auto p = cs::balanced_row_partition(band, ranks());
  const cs::DistributedSpmv<C> op(MPI_COMM_WORLD, p, cs::local_rows(band, p, rank()), quiet());
  const auto x = cs::to_device<cs::Aos>(std::vector<C>(op.local_rows() + (last_rank() ? 1 : 0), C(1, 0)));
  const auto y = op.make_vector(std::vector<C>(op.local_rows()));
  expect_stopped_by_last_rank(thrown([&] { op.apply(C(1, 0), x, C(0, 0), y); }), "DistributedSpmv::apply: x has");
  // Nothing was exchanged: the next product with good vectors runs on every rank.
  const auto good = op.make_vector(std::vector<C>(op.local_rows(), C(1, 0)));
  op.apply(C(1, 0), good, C(0, 0), y);
  const auto all = cs::allgathered(MPI_COMM_WORLD, p, cs::to_host(y));
  const auto want = cs::reference_spmv<double>(C(1, 0), band, std::vector<C>(60, C(1, 0)), C(0, 0), std::vector<C>(60));
  EXPECT_LE(cs::relative_error(all, want), 1e-14);
}

TEST(DistributedAgreement, AnOutputThatIsTheInputOnOneRankStopsEveryRank) {
  const auto band = banded<C>(60, 5);
  const auto p = cs::balanced_row_partition(band, ranks());
  const cs::DistributedSpmv<C> op(MPI_COMM_WORLD, p, cs::local_rows(band, p, rank()), quiet());
  const auto x = op.make_vector(std::vector<C>(op.local_rows(), C(1, 0)));
  const auto y = last_rank() ? x : op.make_vector(std::vector<C>(op.local_rows()));
  expect_stopped_by_last_rank(thrown([&] { op.apply(C(1, 0), x, C(0, 0), y); }),
                              "DistributedSpmv::apply: the output shares memory with the input");
  expect_stopped_by_last_rank(thrown([&] { op.time_phases(C(1, 0), x, C(0, 0), y, 2); }),
                              "DistributedSpmv::time_phases: the output shares memory");
}

TEST(DistributedAgreement, APartitionOfTheWrongSizeOnOneRankStopsEveryRank) {
  const auto band = banded<C>(40, 3);
  const auto p = cs::balanced_row_partition(band, last_rank() ? ranks() + 1 : ranks());
  expect_stopped_by_last_rank(
      thrown([&] { cs::DistributedSpmv<C>(MPI_COMM_WORLD, p, cs::local_rows(band, p, rank()), quiet()); }),
      "DistributedSpmv: a partition into " + std::to_string(ranks() + 1) + " parts for " + std::to_string(ranks()) +
          " ranks");
  expect_stopped_by_last_rank(thrown([&] { cs::allgathered(MPI_COMM_WORLD, p, std::vector<C>(p.size(rank()))); }),
                              "allgathered: a partition into");
}

TEST(DistributedAgreement, RowsOfTheWrongCountOrAMalformedMatrixOnOneRankStopEveryRank) {
  const auto band = banded<C>(40, 3);
  const auto p = cs::balanced_row_partition(band, ranks());
  auto rows = cs::local_rows(band, p, rank());
  if (last_rank()) rows.col_indices.back() = 40;  // outside the matrix
  expect_stopped_by_last_rank(thrown([&] { cs::DistributedSpmv<C>(MPI_COMM_WORLD, p, rows, quiet()); }),
                              "DistributedSpmv: column index 40");
  rows = cs::local_rows(band, p, rank());
  if (last_rank()) {  // its last row left out
    rows.num_rows -= 1;
    rows.row_offsets.pop_back();
    rows.col_indices.resize(rows.row_offsets.back());
    rows.values.resize(rows.row_offsets.back());
  }
  expect_stopped_by_last_rank(thrown([&] { cs::DistributedSpmv<C>(MPI_COMM_WORLD, p, rows, quiet()); }),
                              "DistributedSpmv: rank " + std::to_string(ranks() - 1) + " owns rows [" +
                                  std::to_string(p.begin(ranks() - 1)) + ", 40), " +
                                  std::to_string(p.size(ranks() - 1)) + " rows, but was given " +
                                  std::to_string(p.size(ranks() - 1) - 1));
  // The same rows on the device, one too few on the last rank.
  expect_stopped_by_last_rank(thrown([&] { cs::DistributedSpmv<C>(MPI_COMM_WORLD, p, on_device(rows), quiet()); }),
                              "DistributedSpmv: rank " + std::to_string(ranks() - 1) + " owns rows [");
  // A vector part of the wrong length for allgathered.
  expect_stopped_by_last_rank(
      thrown([&] { cs::allgathered(MPI_COMM_WORLD, p, std::vector<C>(p.size(rank()) + (last_rank() ? 2 : 0))); }),
      "allgathered: rank " + std::to_string(ranks() - 1) + " gave");
}

TEST(DistributedAgreement, ABlockThatCannotBeTunedOnOneRankStopsEveryRank) {
  const auto band = banded<C>(40, 3);
  const auto p = cs::balanced_row_partition(band, ranks());
  auto options = quiet();
  if (last_rank()) options.neighbours = 0;
  expect_stopped_by_last_rank(
      thrown([&] { cs::DistributedSpmv<C>(MPI_COMM_WORLD, p, cs::local_rows(band, p, rank()), options); }),
      "TunedSpmvOptions::neighbours must be at least 1");
}

TEST(DistributedAgreement, PartitionsOrArgumentsThatDifferBetweenRanksStopEveryRank) {
  // One rank cannot disagree with another (ctest runs this suite on 2 and 3 ranks).
  if (ranks() < 2) GTEST_SKIP() << "needs two ranks or more";
  // A diagonal matrix reads no remote column, so differing partitions used to go unnoticed
  // and leave rows owned by no rank.
  cs::HostCsr<C> diagonal;
  diagonal.num_rows = diagonal.num_cols = 40;
  for (int r = 0; r < 40; ++r) {
    diagonal.col_indices.push_back(r);
    diagonal.values.push_back(C(r + 1, 0));
    diagonal.row_offsets.push_back(r + 1);
  }
  cs::RowPartition p;
  for (int q = 1; q < ranks(); ++q) p.starts.push_back(q * 40 / ranks() + (last_rank() ? 3 : 0));
  p.starts.push_back(40);
  const std::string error =
      thrown([&] { cs::DistributedSpmv<C>(MPI_COMM_WORLD, p, cs::local_rows(diagonal, p, rank()), quiet()); });
  EXPECT_TRUE(contains(error, "invalid input: ") &&
              contains(error, "DistributedSpmv: the ranks were given different partitions or halo exchanges"))
      << error;
  EXPECT_TRUE(contains(thrown([&] { cs::allgathered(MPI_COMM_WORLD, p, std::vector<C>(p.size(rank()))); }),
                       "allgathered: the ranks were given different partitions"));
  // The same partition with another halo exchange on one rank.
  const auto same = cs::balanced_row_partition(diagonal, ranks());
  EXPECT_TRUE(contains(thrown([&] {
                         cs::DistributedSpmv<C>(MPI_COMM_WORLD, same, cs::local_rows(diagonal, same, rank()), quiet(),
                                                last_rank() ? cs::HaloExchange::Mpi : cs::HaloExchange::Auto);
                       }),
                       "the ranks were given different partitions or halo exchanges"));
  // time_phases times the same number of collectives on every rank.
  const cs::DistributedSpmv<C> op(MPI_COMM_WORLD, same, cs::local_rows(diagonal, same, rank()), quiet());
  const auto x = op.make_vector(std::vector<C>(op.local_rows(), C(1, 0)));
  const auto y = op.make_vector(std::vector<C>(op.local_rows()));
  EXPECT_TRUE(contains(thrown([&] { op.time_phases(C(1, 0), x, C(0, 0), y, last_rank() ? 3 : 4); }),
                       "DistributedSpmv::time_phases: the ranks were given different numbers of repetitions"));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int result = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    // Rank 0 reports; the others' failures still count through the reduction below.
    if (rank() != 0) {
      auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
    }
    const int mine = RUN_ALL_TESTS();
    MPI_Allreduce(&mine, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank() == 0 && result != 0 && mine == 0) std::printf("a test failed on another rank\n");
  }
  MPI_Finalize();
  return result;
}
