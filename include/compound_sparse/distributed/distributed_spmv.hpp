#pragma once
// DistributedSpmv: y = αAx + βy for a square matrix whose rows are partitioned among the
// ranks of an MPI communicator (partition.hpp), one device per rank. Each rank holds its
// rows, split into
//   - the diagonal block: the columns it owns, renumbered from 0 (a slice of x it has);
//   - the off-diagonal block: the remote columns, renumbered into a compact halo in
//     increasing global order, so the values from each neighbour arrive as one slice, and
//     only the rows that read a remote column (the boundary rows, compressed): a product
//     of all the rank's rows would read and write y on every row for the few per cent
//     that have remote columns, which on two H100s cost 15-22% of each product;
// each in the layout and schedule TunedSpmv selects for it. A product
//   1. packs the x values its neighbours need into a send buffer (a device kernel),
//   2. starts the exchange, compound entries as their raw scalar components: with NCCL
//      (built with COMPOUND_SPARSE_WITH_NCCL on CUDA), ncclSend / ncclRecv between the
//      devices on a stream of the exchange's own; otherwise MPI_Isend / MPI_Irecv,
//      host-staged (the buffers copied to and from host memory, so any MPI works);
//   3. runs the diagonal product meanwhile (queued on the device, it overlaps the wait),
//   4. waits, copies the halo in, multiplies the off-diagonal block into a vector of the
//      boundary rows and adds it to y at those rows (a device kernel).
// The sum of a row is its diagonal part plus its off-diagonal part: deterministic for a
// given partition (same bits on every run), equal to the single-device product to
// rounding (its order of summation differs).
//
//   const auto partition = cs::balanced_row_partition(A, size);       // every rank, the same
//   cs::DistributedSpmv<C> op(MPI_COMM_WORLD, partition, cs::local_rows(A, partition, rank));
//   auto x = op.make_vector(x_own), y = op.make_vector(y_own);         // this rank's rows
//   op.apply(alpha, x, beta, y);
//
// A rank whose rows are already on its device (assembled there) passes them as a DeviceCsr
// instead: make_device_csr of its CSR Views, or device_csr_from_coo of its triples, columns
// global. The split and both blocks are then built by device kernels, bit for bit the same.
//
// Collective: the constructor (it agrees on who sends what with MPI_Alltoall(v)) and
// apply must be called by every rank of the communicator, in the same order. Errors in
// the arguments throw compound_sparse::InvalidInput on the rank that sees them; an MPI
// error throws compound_sparse::Error with MPI's message.

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../error.hpp"
#include "../impl/overlap.hpp"
#include "../impl/segmented_sum.hpp"  // impl::device_list
#include "../layouts/compound_vector.hpp"
#include "../layouts/device_csr.hpp"
#include "../layouts/host_csr.hpp"
#include "../tuning/tuned_spmv.hpp"
#include "device_split.hpp"
#include "mpi_error.hpp"
#include "nccl_communicator.hpp"
#include "partition.hpp"

namespace compound_sparse {

namespace impl {

/// FNV-1a over `values`, then `extra`: a digest of arguments every rank must pass alike.
inline std::uint64_t digest_of(const std::vector<int>& values, std::uint64_t extra = 0) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](std::uint64_t v) {
    for (int byte = 0; byte < 8; ++byte, v >>= 8) h = (h ^ (v & 0xff)) * 1099511628211ull;
  };
  mix(values.size());
  for (const int v : values) mix(static_cast<std::uint32_t>(v));
  mix(extra);
  return h;
}

/// Runs `checks` (this rank's validation of its arguments), then agrees with every rank of
/// `comm` in one MPI_Allreduce whether any rank's checks threw and whether every rank
/// passed the same `shared` digest (digest_of). Where a rank failed, its reason is
/// broadcast and every rank throws: that rank its own exception, the others InvalidInput
/// naming it. Where the digests differ, every rank throws InvalidInput saying the ranks
/// were given different `shared_what`. Collective: a check that fails on one rank
/// would otherwise leave the others waiting forever in the next collective.
template <class Checks>
void agree_across_ranks(MPI_Comm comm, const char* operation, std::uint64_t shared, const char* shared_what,
                        Checks&& checks) {
  std::exception_ptr failure;
  std::string reason;
  try {
    checks();
  } catch (const Error& e) {
    failure = std::current_exception();
    reason = e.reason();
  } catch (const std::exception& e) {
    failure = std::current_exception();
    reason = e.what();
  }
  int rank = 0, size = 1;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  // The first failing rank (size if none) and the digest's minimum and maximum (as the
  // minimum of its complement), all by MPI_MIN.
  const std::uint64_t mine[3] = {static_cast<std::uint64_t>(failure ? rank : size), shared, ~shared};
  std::uint64_t agreed[3] = {0, 0, 0};
  check_mpi(MPI_Allreduce(mine, agreed, 3, MPI_UINT64_T, MPI_MIN, comm), "MPI_Allreduce");
  if (agreed[0] < static_cast<std::uint64_t>(size)) {
    const int failed = static_cast<int>(agreed[0]);
    int length = static_cast<int>(reason.size());
    check_mpi(MPI_Bcast(&length, 1, MPI_INT, failed, comm), "MPI_Bcast");
    std::string text(static_cast<std::size_t>(length), ' ');
    if (rank == failed) text = reason;
    check_mpi(MPI_Bcast(text.data(), length, MPI_CHAR, failed, comm), "MPI_Bcast");
    if (failure) std::rethrow_exception(failure);
    COMPOUND_SPARSE_REQUIRE(false,
                            operation << ": rank " << failed << " refused the call, so every rank stops: " << text);
  }
  COMPOUND_SPARSE_REQUIRE(agreed[1] == ~agreed[2], operation << ": the ranks were given different " << shared_what);
}

/// The MPI type of a scalar component.
template <class Scalar>
MPI_Datatype mpi_scalar_type() {
  static_assert(std::is_same<Scalar, float>::value || std::is_same<Scalar, double>::value,
                "DistributedSpmv: vector components must be float or double");
  return std::is_same<Scalar, float>::value ? MPI_FLOAT : MPI_DOUBLE;
}

#ifdef COMPOUND_SPARSE_WITH_NCCL
/// The first two ranks of `comm` whose current CUDA devices are the same GPU (by PCI bus
/// id), or {-1, -1} when every rank has a GPU of its own. NCCL refuses a communicator
/// with two ranks on one GPU ("Duplicate GPU detected"), which is what several ranks on
/// a one-GPU machine give. Collective.
inline std::pair<int, int> ranks_sharing_a_gpu(MPI_Comm comm) {
  constexpr int id_size = 32;  // "dddd:bb:dd.f" and room to spare
  char id[id_size] = {};
  int device = 0;
  COMPOUND_SPARSE_REQUIRE(
      cudaGetDevice(&device) == cudaSuccess && cudaDeviceGetPCIBusId(id, id_size, device) == cudaSuccess,
      "DistributedSpmv: the PCI bus id of this rank's GPU could not be read");
  int size = 1;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  std::vector<char> all(static_cast<std::size_t>(size) * id_size);
  check_mpi(MPI_Allgather(id, id_size, MPI_CHAR, all.data(), id_size, MPI_CHAR, comm), "MPI_Allgather");
  for (int a = 0; a < size; ++a)
    for (int b = a + 1; b < size; ++b)
      if (std::equal(all.begin() + a * id_size, all.begin() + (a + 1) * id_size, all.begin() + b * id_size))
        return {a, b};
  return {-1, -1};
}
#endif

/// to(i, :) = from(rows(i), :) for every i, queued on exec. A free function because
/// nvcc refuses a device lambda inside a private member function.
template <class ExecutionSpace, class From, class Rows, class To>
void gather_rows(const ExecutionSpace& exec, const From& from, const Rows& rows, const To& to) {
  const int components = static_cast<int>(to.extent(1));
  Kokkos::parallel_for(
      "compound_sparse::distributed_pack", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, rows.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i) {
        for (int c = 0; c < components; ++c) to(i, c) = from(rows(i), c);
      });
}

/// to(rows(i), :) += from(i, :) for every i, queued on exec (rows distinct, so no two
/// threads add to one value: deterministic).
template <class ExecutionSpace, class From, class Rows, class To>
void add_to_rows(const ExecutionSpace& exec, const From& from, const Rows& rows, const To& to) {
  const int components = static_cast<int>(to.extent(1));
  Kokkos::parallel_for(
      "compound_sparse::distributed_add_boundary", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, rows.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i) {
        for (int c = 0; c < components; ++c) to(rows(i), c) += from(i, c);
      });
}

}  // namespace impl

/// How DistributedSpmv exchanges the halo: Auto is Nccl where the library was built with
/// NCCL (COMPOUND_SPARSE_WITH_NCCL, CUDA only) and every rank has a GPU of its own, else
/// Mpi (host-staged MPI_Isend/Irecv). Nccl with two ranks on one GPU throws.
enum class HaloExchange { Auto, Mpi, Nccl };

/// Whether this build can exchange through NCCL.
constexpr bool nccl_available() {
#ifdef COMPOUND_SPARSE_WITH_NCCL
  return true;
#else
  return false;
#endif
}

/// Rows [partition.begin(part), partition.end(part)) of a, with their global column indices:
/// the rows a rank passes to DistributedSpmv.
template <class Entry>
HostCsr<Entry> local_rows(const HostCsr<Entry>& a, const RowPartition& partition, int part) {
  validate(a, "local_rows");
  validate(partition, "local_rows");
  COMPOUND_SPARSE_REQUIRE(partition.rows() == a.num_rows,
                          "local_rows: a partition of " << partition.rows() << " rows for a matrix of " << a.num_rows);
  COMPOUND_SPARSE_REQUIRE(part >= 0 && part < partition.parts(),
                          "local_rows: part " << part << " of a partition into " << partition.parts() << " parts");
  HostCsr<Entry> rows;
  const int first = partition.begin(part), last = partition.end(part);
  rows.num_rows = last - first;
  rows.num_cols = a.num_cols;
  rows.row_offsets.assign(1, 0);
  for (int r = first; r < last; ++r) {
    for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k) {
      rows.col_indices.push_back(a.col_indices[k]);
      rows.values.push_back(a.values[k]);
    }
    rows.row_offsets.push_back(static_cast<int>(rows.col_indices.size()));
  }
  return rows;
}

/// The whole vector on every rank from each rank's part (its rows of `partition`), by
/// MPI_Allgatherv of the raw values: checking a distributed result, gathering a solution.
/// Collective; the parts must be trivially copyable values. A part of the wrong length or
/// a partition that differs between ranks makes every rank throw (agree_across_ranks).
template <class Value>
std::vector<Value> allgathered(MPI_Comm comm, const RowPartition& partition, const std::vector<Value>& own) {
  int size = 1, rank = 0;
  impl::check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  impl::check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  impl::agree_across_ranks(comm, "allgathered", impl::digest_of(partition.starts), "partitions", [&] {
    validate(partition, "allgathered");
    COMPOUND_SPARSE_REQUIRE(partition.parts() == size,
                            "allgathered: a partition into " << partition.parts() << " parts for " << size << " ranks");
    COMPOUND_SPARSE_REQUIRE(own.size() == static_cast<std::size_t>(partition.size(rank)),
                            "allgathered: rank " << rank << " gave " << own.size() << " values for its "
                                                 << partition.size(rank) << " rows");
  });
  std::vector<int> counts(size), offsets(size);
  for (int q = 0; q < size; ++q) {
    counts[q] = partition.size(q) * int(sizeof(Value));
    offsets[q] = partition.begin(q) * int(sizeof(Value));
  }
  std::vector<Value> all(partition.rows());
  impl::check_mpi(MPI_Allgatherv(own.data(), int(own.size() * sizeof(Value)), MPI_BYTE, all.data(), counts.data(),
                                 offsets.data(), MPI_BYTE, comm),
                  "MPI_Allgatherv");
  return all;
}

template <class Entry>
class DistributedSpmv {
 public:
  using value_type = vector_type_t<Entry>;
  using coefficient_type = coefficient_type_t<Entry>;
  using memory_space = typename Kokkos::DefaultExecutionSpace::memory_space;
  using execution_space = typename Kokkos::DefaultExecutionSpace;
  /// This rank's part of x or y (its rows), values whole (aos).
  using vector_type = CompoundVector<value_type, Aos, memory_space>;
  using scalar_type = typename vector_type::scalar_type;
  static constexpr int components = vector_type::components;

  /// `own_rows`: this rank's rows (local_rows), columns global. `options` select each
  /// block's variant (TunedSpmv); their vector layout is fixed to aos.
  DistributedSpmv(MPI_Comm comm, const RowPartition& partition, const HostCsr<Entry>& own_rows,
                  TunedSpmvOptions options = {}, HaloExchange exchange = HaloExchange::Auto)
      : comm_(comm), partition_(partition) {
    construct(own_rows, std::move(options), exchange);
  }

  /// The same for rows already on this rank's device: make_device_csr of its CSR Views, or
  /// device_csr_from_coo of its triples (rows local, columns global). The blocks and the
  /// halo's columns are found by device kernels (device_split.hpp) and each block is built
  /// there (TunedSpmv of a DeviceCsr): the rows never come to the host, and no rank sees
  /// another's. Only the halo's columns do, to plan the exchange. Blocks, exchange and
  /// products are bit for bit those of the same rows as a HostCsr.
  DistributedSpmv(MPI_Comm comm, const RowPartition& partition, const DeviceCsr<Entry, memory_space>& own_rows,
                  TunedSpmvOptions options = {}, HaloExchange exchange = HaloExchange::Auto)
      : comm_(comm), partition_(partition) {
    construct(own_rows, std::move(options), exchange);
  }

  ~DistributedSpmv() {
#ifdef COMPOUND_SPARSE_WITH_NCCL
    if (exchange_exec_) exchange_exec_->fence();
    exchange_exec_.reset();
    if (x_ready_ != nullptr) cudaEventDestroy(x_ready_);
    if (halo_ready_ != nullptr) cudaEventDestroy(halo_ready_);
    nccl_.reset();  // the last operator on the communicator destroys it
    if (exchange_stream_ != nullptr) cudaStreamDestroy(exchange_stream_);
#endif
  }
  DistributedSpmv(const DistributedSpmv&) = delete;
  DistributedSpmv& operator=(const DistributedSpmv&) = delete;

  /// "nccl" or "mpi (host-staged)": how this operator exchanges the halo (and, where Auto
  /// could not take NCCL because ranks share a GPU, which ones).
  std::string exchange() const {
    return use_nccl_ ? "nccl" : "mpi (host-staged)" + exchange_note_;
  }

  int rank() const {
    return rank_;
  }
  int ranks() const {
    return size_;
  }
  int local_rows() const {
    return partition_.size(rank_);
  }
  int first_row() const {
    return first_;
  }
  const RowPartition& partition() const {
    return partition_;
  }
  /// The remote x values a product receives, and the local ones it sends.
  std::size_t halo_size() const {
    return halo_columns_.size();
  }
  /// This rank's rows that read a remote column: the off-diagonal block's rows.
  std::size_t boundary_rows() const {
    return boundary_rows_.extent(0);
  }
  std::size_t send_size() const {
    return send_rows_.extent(0);
  }
  /// The ranks this one receives from (sends go to the ranks that receive from it).
  std::vector<int> neighbours() const {
    std::vector<int> from;
    for (int p = 0; p < size_; ++p)
      if (receive_counts_[p] > 0) from.push_back(p);
    return from;
  }
  const TunedSpmv<Entry>& diagonal() const {
    return *diagonal_;
  }
  /// Null on a rank whose rows read no remote column. Its rows are the boundary rows only
  /// (boundary_rows()), its columns the halo.
  const TunedSpmv<Entry>* off_diagonal() const {
    return off_diagonal_.get();
  }

  /// New values for this rank's rows with their pattern unchanged (re-assembled by a time
  /// or Newton step): `values` in the order of the rows given to the constructor, on the
  /// device. One kernel moves them into the two blocks, and each block refreshes its layout
  /// in place (TunedSpmv::refresh): variants, halo and exchange stay, and the products are
  /// bit for bit those of an operator built from the new values. Not collective. InvalidInput
  /// when the count is not the rows' number of non-zeros, or when the rows' columns did not
  /// increase strictly (the constructor sorted and summed them, so a value has no one place);
  /// nothing changes then.
  void refresh(const Kokkos::View<const Entry*, memory_space>& values) const {
    COMPOUND_SPARSE_REQUIRE(refreshable_,
                            "DistributedSpmv::refresh: rank "
                                << rank_
                                << "'s rows had columns out of order or repeated, which the "
                                   "constructor sorted and summed; build it from rows whose columns "
                                   "increase strictly (CooAssembly or device_csr_from_coo give such rows)");
    COMPOUND_SPARSE_REQUIRE(values.extent(0) == value_targets_.extent(0),
                            "DistributedSpmv::refresh: " << values.extent(0) << " values for rank " << rank_ << "'s "
                                                         << value_targets_.extent(0) << " non-zeros");
    if (diagonal_values_.extent(0) != block_entries_[0])
      diagonal_values_ = entry_view("compound_sparse::diagonal_refresh", block_entries_[0]);
    if (off_diagonal_values_.extent(0) != block_entries_[1])
      off_diagonal_values_ = entry_view("compound_sparse::off_diagonal_refresh", block_entries_[1]);
    impl::scatter_to_blocks(value_targets_, values, diagonal_values_, off_diagonal_values_);
    diagonal_->refresh(diagonal_values_);
    if (off_diagonal_) off_diagonal_->refresh(off_diagonal_values_);
  }
  /// refresh from host memory: the values are copied to the device first.
  void refresh(const std::vector<Entry>& values) const {
    refresh(impl::device_list<memory_space>(values, "compound_sparse::refresh"));
  }

  /// A device vector of this rank's rows.
  vector_type make_vector(const std::vector<value_type>& own) const {
    COMPOUND_SPARSE_REQUIRE(
        static_cast<int>(own.size()) == local_rows(),
        "DistributedSpmv::make_vector: " << own.size() << " values for " << local_rows() << " rows on rank " << rank_);
    return to_device<Aos, memory_space>(own);
  }

  /// y = alpha A x + beta y on this rank's rows (collective). Not for concurrent calls on
  /// one object: the exchange buffers are the object's. Vectors of the wrong length, or a
  /// y that shares memory with x, on any rank make every rank throw (one MPI_Allreduce a
  /// product agrees on it before the exchange starts).
  void apply(const coefficient_type& alpha, const vector_type& x, const coefficient_type& beta,
             const vector_type& y) const {
    impl::agree_across_ranks(comm_, "DistributedSpmv::apply", 0, "", [&] { check_vectors(x, y, "apply"); });
    auto requests = start_exchange(x);
    diagonal_->apply(alpha, x, beta, y);  // queued while the messages travel
    finish_exchange(requests);
    add_off_diagonal(alpha, y);
  }

  /// How long each phase of a product takes alone, and how much of the exchange the
  /// product hides: each the median over `repetitions` of the slowest rank's time (fenced,
  /// after a barrier, wall clock). hidden_fraction = (exchange + local + remote - product) /
  /// exchange, within [0, 1]: 1 when the product takes no longer than its products alone,
  /// 0 when it takes the sum of all; 0 without an exchange. Collective.
  struct PhaseTimes {
    double exchange_seconds = 0;  ///< pack, send and receive, halo copied to the device
    double local_seconds = 0;     ///< the diagonal block's product
    double remote_seconds = 0;    ///< the off-diagonal block's product, added to y's boundary rows
    double product_seconds = 0;   ///< apply
    double hidden_fraction = 0;
  };
  PhaseTimes time_phases(const coefficient_type& alpha, const vector_type& x, const coefficient_type& beta,
                         const vector_type& y, int repetitions = 20) const {
    // Every rank runs the same number of timed collectives, or the others would wait.
    impl::agree_across_ranks(
        comm_, "DistributedSpmv::time_phases", static_cast<std::uint64_t>(repetitions), "numbers of repetitions", [&] {
          check_vectors(x, y, "time_phases");
          COMPOUND_SPARSE_REQUIRE(repetitions >= 1, "DistributedSpmv::time_phases: " << repetitions << " repetitions");
        });
    const auto slowest_median = [&](auto&& phase) {
      std::vector<double> times;
      for (int i = 0; i < repetitions; ++i) {
        impl::check_mpi(MPI_Barrier(comm_), "MPI_Barrier");
        Kokkos::fence();
        const auto start = std::chrono::steady_clock::now();
        phase();
        Kokkos::fence();
        const double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        double slowest = 0;
        impl::check_mpi(MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
        times.push_back(slowest);
      }
      std::sort(times.begin(), times.end());
      return times[times.size() / 2];
    };
    PhaseTimes t;
    t.exchange_seconds = slowest_median([&] {
      auto requests = start_exchange(x);
      finish_exchange(requests);
    });
    t.local_seconds = slowest_median([&] { diagonal_->apply(alpha, x, beta, y); });
    t.remote_seconds = slowest_median([&] { add_off_diagonal(alpha, y); });
    t.product_seconds = slowest_median([&] { apply(alpha, x, beta, y); });
    double exchange = 0;  // a rank without any exchange still waits in the others' MPI_Allreduce
    const double mine = static_cast<double>(halo_size() + send_size());
    impl::check_mpi(MPI_Allreduce(&mine, &exchange, 1, MPI_DOUBLE, MPI_SUM, comm_), "MPI_Allreduce");
    if (exchange > 0 && t.exchange_seconds > 0)
      t.hidden_fraction = std::clamp(
          (t.exchange_seconds + t.local_seconds + t.remote_seconds - t.product_seconds) / t.exchange_seconds, 0.0, 1.0);
    return t;
  }

 private:
  static constexpr int tag = 17017;

  using device_csr_type = DeviceCsr<Entry, memory_space>;

  /// Both constructors: own_rows is a HostCsr or a DeviceCsr, split where it lives.
  template <class OwnRows>
  void construct(const OwnRows& own_rows, TunedSpmvOptions options, HaloExchange exchange) {
    constexpr bool on_device = std::is_same<OwnRows, device_csr_type>::value;
    const MPI_Comm comm = comm_;
    const RowPartition& partition = partition_;
    impl::check_mpi(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
    impl::check_mpi(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
    // Each step that can fail on one rank is agreed among all of them before the next
    // collective, so that every rank throws instead of some waiting forever.
    impl::agree_across_ranks(
        comm, "DistributedSpmv", impl::digest_of(partition.starts, static_cast<std::uint64_t>(exchange)),
        "partitions or halo exchanges (every rank passes the same RowPartition and HaloExchange)", [&] {
          COMPOUND_SPARSE_REQUIRE_KIND(NotCompiled, exchange != HaloExchange::Nccl || nccl_available(),
                                       "DistributedSpmv: HaloExchange::Nccl asked for, but this build has no NCCL "
                                       "(configure with CUDA and NCCL present: COMPOUND_SPARSE_WITH_NCCL)");
          validate(partition, "DistributedSpmv");
          if constexpr (on_device)
            impl::validate_csr_views(own_rows.num_cols, own_rows.row_map, own_rows.entries, own_rows.values);
          else
            validate(own_rows, "DistributedSpmv");
          COMPOUND_SPARSE_REQUIRE(partition.parts() == size_, "DistributedSpmv: a partition into "
                                                                  << partition.parts() << " parts for " << size_
                                                                  << " ranks");
          const int first = partition.begin(rank_), n = partition.size(rank_);
          COMPOUND_SPARSE_REQUIRE(own_rows.num_rows == n, "DistributedSpmv: rank " << rank_ << " owns rows [" << first
                                                                                   << ", " << first + n << "), " << n
                                                                                   << " rows, but was given "
                                                                                   << own_rows.num_rows);
          COMPOUND_SPARSE_REQUIRE(own_rows.num_cols == partition.rows(),
                                  "DistributedSpmv: the matrix must be square: " << partition.rows() << " rows, "
                                                                                 << own_rows.num_cols << " columns");
          first_ = first;
          if constexpr (on_device)
            split_on_device(own_rows);
          else
            split(own_rows);
        });
    use_nccl_ = exchange != HaloExchange::Mpi && nccl_available();
#ifdef COMPOUND_SPARSE_WITH_NCCL
    if (use_nccl_) {
      // NCCL needs a GPU per rank: Auto falls back to MPI where ranks share one, Nccl says why not.
      const auto [a, b] = impl::ranks_sharing_a_gpu(comm);
      if (a >= 0) {
        COMPOUND_SPARSE_REQUIRE(exchange == HaloExchange::Auto,
                                "DistributedSpmv: HaloExchange::Nccl needs one GPU per rank, but ranks "
                                    << a << " and " << b << " share one (run at most one rank per GPU, or "
                                    << "HaloExchange::Mpi)");
        use_nccl_ = false;
        exchange_note_ = " (NCCL not used: ranks " + std::to_string(a) + " and " + std::to_string(b) + " share a GPU)";
      }
    }
#endif
    const std::vector<int> requested = plan_exchange();
    options.vector_layout = Aos::name();
    options.transposes.clear();
    impl::agree_across_ranks(comm, "DistributedSpmv", 0, "", [&] {
      set_send_rows(requested);
      if constexpr (on_device) {
        diagonal_ = std::make_unique<TunedSpmv<Entry>>(diagonal_device_, options);
        if (!halo_columns_.empty()) off_diagonal_ = std::make_unique<TunedSpmv<Entry>>(off_diagonal_device_, options);
        diagonal_device_ = device_csr_type();  // the blocks' layouts hold them now
        off_diagonal_device_ = device_csr_type();
      } else {
        diagonal_ = std::make_unique<TunedSpmv<Entry>>(diagonal_rows_, options);
        if (!halo_columns_.empty()) off_diagonal_ = std::make_unique<TunedSpmv<Entry>>(off_diagonal_rows_, options);
        diagonal_rows_ = HostCsr<Entry>();  // the devices hold them now
        off_diagonal_rows_ = HostCsr<Entry>();
      }
      halo_ = vector_type{typename vector_type::view_type("compound_sparse::halo", halo_columns_.size())};
      boundary_ = vector_type{typename vector_type::view_type("compound_sparse::boundary", boundary_rows_.extent(0))};
      send_ = vector_type{typename vector_type::view_type("compound_sparse::send", send_rows_.extent(0))};
      halo_host_ = Kokkos::create_mirror_view(halo_.data);
      send_host_ = Kokkos::create_mirror_view(send_.data);
    });
    if (use_nccl_) start_nccl();
    // One exchange now, of zeros: NCCL connects a communicator's GPUs on first use, which
    // would otherwise land in the first product (collective, as the constructor is).
    const vector_type zeros{typename vector_type::view_type("compound_sparse::warm_up", local_rows())};
    auto requests = start_exchange(zeros);
    finish_exchange(requests);
    Kokkos::fence();  // the exchange read `zeros` on a stream of its own
  }

  void check_vectors(const vector_type& x, const vector_type& y, const char* what) const {
    COMPOUND_SPARSE_REQUIRE(x.size() == local_rows() && y.size() == local_rows(),
                            "DistributedSpmv::" << what << ": x has " << x.size() << " and y " << y.size()
                                                << " values, rank " << rank_ << " owns " << local_rows() << " rows");
    const std::string operation = std::string("DistributedSpmv::") + what;
    impl::require_disjoint_output(impl::footprint_of(x.data), impl::footprint_of(y.data), operation.c_str());
  }

  static bool rows_increase_strictly(const HostCsr<Entry>& a) {
    for (int r = 0; r < a.num_rows; ++r)
      for (int k = a.row_offsets[r] + 1; k < a.row_offsets[r + 1]; ++k)
        if (a.col_indices[k - 1] >= a.col_indices[k]) return false;
    return true;
  }

  /// Packs the values the neighbours need, stages them on the host and posts the
  /// messages; the requests go to finish_exchange.
  std::vector<MPI_Request> start_exchange(const vector_type& x) const {
#ifdef COMPOUND_SPARSE_WITH_NCCL
    if (use_nccl_) {
      start_nccl_exchange(x);
      return {};
    }
#endif
    execution_space exec;
    pack(exec, x);
    if (send_size() > 0) Kokkos::deep_copy(exec, send_host_, send_.data);
    exec.fence();  // the send buffer is on the host before MPI reads it
    std::vector<MPI_Request> requests;
    requests.reserve(2 * static_cast<std::size_t>(size_));
    const MPI_Datatype type = impl::mpi_scalar_type<scalar_type>();
    for (int p = 0; p < size_; ++p)
      if (receive_counts_[p] > 0) {
        requests.emplace_back();
        impl::check_mpi(MPI_Irecv(halo_host_.data() + std::size_t(receive_offsets_[p]) * components,
                                  receive_counts_[p] * components, type, p, tag, comm_, &requests.back()),
                        "MPI_Irecv");
      }
    for (int p = 0; p < size_; ++p)
      if (send_counts_[p] > 0) {
        requests.emplace_back();
        impl::check_mpi(MPI_Isend(send_host_.data() + std::size_t(send_offsets_[p]) * components,
                                  send_counts_[p] * components, type, p, tag, comm_, &requests.back()),
                        "MPI_Isend");
      }
    return requests;
  }

  /// y(boundary rows) += alpha A_o halo: the off-diagonal product into the boundary rows'
  /// vector, then added to y at those rows. Queued on the default execution space.
  void add_off_diagonal(const coefficient_type& alpha, const vector_type& y) const {
    if (!off_diagonal_) return;
    off_diagonal_->apply(alpha, halo_, real_value<coefficient_type>(0), boundary_);
    impl::add_to_rows(execution_space(), boundary_.data, boundary_rows_, y.data);
  }

  /// Waits for the messages and copies the halo to the device.
  void finish_exchange(std::vector<MPI_Request>& requests) const {
#ifdef COMPOUND_SPARSE_WITH_NCCL
    if (use_nccl_) {
      // The default stream waits for the halo on the device, the host does not: a
      // product queues all its work without a host synchronisation.
      impl::check_cuda(cudaEventRecord(halo_ready_, exchange_stream_), "cudaEventRecord");
      impl::check_cuda(cudaStreamWaitEvent(execution_space().cuda_stream(), halo_ready_, 0), "cudaStreamWaitEvent");
      return;
    }
#endif
    impl::check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
                    "MPI_Waitall");
    if (off_diagonal_) Kokkos::deep_copy(halo_.data, halo_host_);
  }

  /// The diagonal and off-diagonal blocks of own_rows, and the halo's global columns. Rows
  /// whose columns increase strictly (what the zoo and most assemblies give) split straight
  /// into the two CSR blocks in one pass; otherwise the rows are first sorted and their
  /// duplicates summed (impl::rows_sorted_and_summed), which gives the same blocks. Straight, the split takes
  /// about a tenth of the time the COO path took (host, the tune-scale grids: 0.43 -> 0.04 s
  /// for helmholtz-box-k40's 4.8M entries), and the xl grids' ranks spent 8-36 s building.
  void split(const HostCsr<Entry>& given) {
    const bool sorted = rows_increase_strictly(given);
    HostCsr<Entry> sorted_copy;
    const auto same = [](int i) { return i; };
    if (!sorted) sorted_copy = impl::rows_sorted_and_summed(given, given.num_rows, given.num_cols, same, same);
    const HostCsr<Entry>& own = sorted ? given : sorted_copy;
    const int n = own.num_rows, last = first_ + n;
    const auto local = [&](int c) { return c >= first_ && c < last; };
    for (const int c : own.col_indices)
      if (!local(c)) halo_columns_.push_back(c);
    std::sort(halo_columns_.begin(), halo_columns_.end());
    halo_columns_.erase(std::unique(halo_columns_.begin(), halo_columns_.end()), halo_columns_.end());
    HostCsr<Entry>& diagonal = diagonal_rows_;
    HostCsr<Entry>& off_diagonal = off_diagonal_rows_;
    diagonal.num_rows = diagonal.num_cols = n;
    diagonal.row_offsets.assign(1, 0);
    diagonal.row_offsets.reserve(static_cast<std::size_t>(n) + 1);
    diagonal.col_indices.reserve(own.col_indices.size());
    diagonal.values.reserve(own.values.size());
    off_diagonal.num_cols = static_cast<int>(halo_columns_.size());
    off_diagonal.row_offsets.assign(1, 0);
    std::vector<int> boundary;  // the rows with a remote column, increasing
    std::vector<int> targets;   // where each given non-zero goes (refresh), for rows taken as given
    if (sorted) targets.reserve(own.col_indices.size());
    for (int r = 0; r < n; ++r) {
      for (int k = own.row_offsets[r]; k < own.row_offsets[r + 1]; ++k) {
        const int c = own.col_indices[k];
        if (sorted)
          targets.push_back(local(c) ? static_cast<int>(diagonal.col_indices.size())
                                     : -static_cast<int>(off_diagonal.col_indices.size()) - 1);
        if (local(c)) {
          diagonal.col_indices.push_back(c - first_);
          diagonal.values.push_back(own.values[k]);
        } else {
          // The halo is sorted, so a row's increasing columns keep their order in it.
          const auto at = std::lower_bound(halo_columns_.begin(), halo_columns_.end(), c) - halo_columns_.begin();
          off_diagonal.col_indices.push_back(static_cast<int>(at));
          off_diagonal.values.push_back(own.values[k]);
        }
      }
      diagonal.row_offsets.push_back(static_cast<int>(diagonal.col_indices.size()));
      if (static_cast<std::size_t>(off_diagonal.row_offsets.back()) != off_diagonal.col_indices.size()) {
        boundary.push_back(r);
        off_diagonal.row_offsets.push_back(static_cast<int>(off_diagonal.col_indices.size()));
      }
    }
    off_diagonal.num_rows = static_cast<int>(boundary.size());
    boundary_rows_ = impl::device_list<memory_space>(boundary, "compound_sparse::boundary_rows");
    refreshable_ = sorted;
    value_targets_ = impl::device_list<memory_space>(targets, "compound_sparse::value_targets");
    block_entries_ = {diagonal.col_indices.size(), off_diagonal.col_indices.size()};
  }

  /// split() of rows on the device, by device kernels (device_split.hpp): the same blocks.
  void split_on_device(const device_csr_type& given) {
    auto blocks = impl::split_rows_on_device(given, first_);
    halo_columns_ = std::move(blocks.halo_columns);
    diagonal_device_ = blocks.diagonal;
    off_diagonal_device_ = blocks.off_diagonal;
    boundary_rows_ = blocks.boundary_rows;
    refreshable_ = blocks.value_targets.extent(0) == given.num_entries();
    value_targets_ = blocks.value_targets;
    block_entries_ = {blocks.diagonal.num_entries(), blocks.off_diagonal.num_entries()};
  }

  static Kokkos::View<Entry*, memory_space> entry_view(const char* label, std::size_t size) {
    return Kokkos::View<Entry*, memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)),
                                              size);
  }

  /// Who sends what: the halo's columns grouped by owner (contiguous: the halo is sorted
  /// and the partition's blocks are contiguous), their counts exchanged with MPI_Alltoall
  /// and the columns themselves with MPI_Alltoallv, so each rank learns which of its rows
  /// each neighbour needs, in the order that neighbour's halo stores them (returned, global
  /// columns, for set_send_rows).
  std::vector<int> plan_exchange() {
    receive_counts_.assign(size_, 0);
    for (const int c : halo_columns_) ++receive_counts_[partition_.owner(c)];
    receive_offsets_.assign(size_, 0);
    for (int p = 1; p < size_; ++p) receive_offsets_[p] = receive_offsets_[p - 1] + receive_counts_[p - 1];
    send_counts_.assign(size_, 0);
    impl::check_mpi(MPI_Alltoall(receive_counts_.data(), 1, MPI_INT, send_counts_.data(), 1, MPI_INT, comm_),
                    "MPI_Alltoall");
    send_offsets_.assign(size_, 0);
    for (int p = 1; p < size_; ++p) send_offsets_[p] = send_offsets_[p - 1] + send_counts_[p - 1];
    const int total_send = size_ > 0 ? send_offsets_.back() + send_counts_.back() : 0;
    std::vector<int> requested(static_cast<std::size_t>(total_send));
    impl::check_mpi(MPI_Alltoallv(halo_columns_.data(), receive_counts_.data(), receive_offsets_.data(), MPI_INT,
                                  requested.data(), send_counts_.data(), send_offsets_.data(), MPI_INT, comm_),
                    "MPI_Alltoallv");
    return requested;
  }

  /// The local rows of the columns the neighbours asked for (plan_exchange), on the device.
  void set_send_rows(std::vector<int> requested) {
    for (int& column : requested) {  // to the local row that holds it
      COMPOUND_SPARSE_REQUIRE(column >= first_ && column < first_ + local_rows(),
                              "DistributedSpmv: rank " << rank_ << " was asked for column " << column
                                                       << ", which it does not own (the ranks' partitions differ?)");
      column -= first_;
    }
    send_rows_ = impl::device_list<memory_space>(requested, "compound_sparse::send_rows");
  }

  /// The communicator's NCCL communicator (nccl_communicator.hpp: shared with the other
  /// operators on it) and the exchange's stream.
  void start_nccl() {
#ifdef COMPOUND_SPARSE_WITH_NCCL
    nccl_ = impl::shared_nccl_communicator(comm_);
    impl::check_cuda(cudaStreamCreateWithFlags(&exchange_stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    impl::check_cuda(cudaEventCreateWithFlags(&x_ready_, cudaEventDisableTiming), "cudaEventCreate");
    impl::check_cuda(cudaEventCreateWithFlags(&halo_ready_, cudaEventDisableTiming), "cudaEventCreate");
    exchange_exec_.emplace(exchange_stream_);
#endif
  }

#ifdef COMPOUND_SPARSE_WITH_NCCL
  /// Packs on the exchange's stream, then one NCCL group of a receive and a send per
  /// neighbour on that stream, device to device: the diagonal product queued next on the
  /// default stream runs meanwhile. The exchange's stream first waits (an event, not the
  /// host) for the default stream's work so far: x's last writer, and the previous
  /// product's read of the halo this exchange overwrites.
  void start_nccl_exchange(const vector_type& x) const {
    impl::check_cuda(cudaEventRecord(x_ready_, execution_space().cuda_stream()), "cudaEventRecord");
    impl::check_cuda(cudaStreamWaitEvent(exchange_stream_, x_ready_, 0), "cudaStreamWaitEvent");
    pack(*exchange_exec_, x);
    const ncclDataType_t type = std::is_same<scalar_type, float>::value ? ncclFloat : ncclDouble;
    impl::check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (int p = 0; p < size_; ++p) {
      if (receive_counts_[p] > 0)
        impl::check_nccl(
            ncclRecv(halo_.data.data() + std::size_t(receive_offsets_[p]) * components,
                     std::size_t(receive_counts_[p]) * components, type, p, nccl_->get(), exchange_stream_),
            "ncclRecv");
      if (send_counts_[p] > 0)
        impl::check_nccl(ncclSend(send_.data.data() + std::size_t(send_offsets_[p]) * components,
                                  std::size_t(send_counts_[p]) * components, type, p, nccl_->get(), exchange_stream_),
                         "ncclSend");
    }
    impl::check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  }
#endif

  /// send = x[send_rows], value by value.
  template <class ExecutionSpace>
  void pack(const ExecutionSpace& exec, const vector_type& x) const {
    if (send_size() > 0) impl::gather_rows(exec, x.data, send_rows_, send_.data);
  }

  MPI_Comm comm_;
  bool use_nccl_ = false;      ///< the halo goes through NCCL (else host-staged MPI)
  std::string exchange_note_;  ///< why Auto did not take NCCL, if it did not
#ifdef COMPOUND_SPARSE_WITH_NCCL
  std::shared_ptr<impl::NcclCommunicator> nccl_;  ///< comm_'s, shared
  cudaStream_t exchange_stream_ = nullptr;
  std::optional<Kokkos::Cuda> exchange_exec_;  ///< on exchange_stream_
  cudaEvent_t x_ready_ = nullptr;              ///< the default stream's work before an exchange
  cudaEvent_t halo_ready_ = nullptr;           ///< the exchange's end, for the default stream
#endif
  RowPartition partition_;
  int rank_ = 0, size_ = 1, first_ = 0;
  std::vector<int> halo_columns_;                                                   ///< global columns, increasing
  std::vector<int> receive_counts_, receive_offsets_, send_counts_, send_offsets_;  ///< per rank, in values
  Kokkos::View<const int*, memory_space> send_rows_;       ///< local rows to send, by neighbour
  Kokkos::View<const int*, memory_space> boundary_rows_;   ///< local rows of the off-diagonal block
  HostCsr<Entry> diagonal_rows_, off_diagonal_rows_;       ///< the blocks until built, from a HostCsr
  device_csr_type diagonal_device_, off_diagonal_device_;  ///< the same from a DeviceCsr
  std::unique_ptr<TunedSpmv<Entry>> diagonal_, off_diagonal_;
  vector_type halo_, send_;
  vector_type boundary_;                                  ///< the off-diagonal product, one value per boundary row
  bool refreshable_ = false;                              ///< the rows were taken as given (refresh)
  std::array<std::size_t, 2> block_entries_{};            ///< the diagonal and off-diagonal blocks' non-zeros
  Kokkos::View<const int*, memory_space> value_targets_;  ///< per given non-zero (device_split.hpp)
  mutable Kokkos::View<Entry*, memory_space> diagonal_values_, off_diagonal_values_;  ///< refresh's buffers
  typename vector_type::view_type::HostMirror halo_host_, send_host_;
};

}  // namespace compound_sparse
