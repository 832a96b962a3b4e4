#pragma once
// One NCCL communicator per MPI communicator, shared by every DistributedSpmv on it.
//
// ncclCommInitRank costs 0.5-1.5 s per call (it discovers the topology and connects the
// GPUs), far more than building a distributed operator's blocks once they live on the
// device. An application that builds several operators on one MPI communicator (a
// preconditioner's levels, a new matrix every time step) pays it once this way. The
// communicator is cached on the MPI communicator as an attribute (MPI's own mechanism for
// per-communicator state), as a weak reference: it is destroyed with the last operator
// that uses it, while CUDA is still alive, and the next operator sets up a new one. An
// MPI_Comm_dup of a communicator gets a communicator of its own.
//
// Without NCCL (COMPOUND_SPARSE_WITH_NCCL undefined) only nccl_communicators_created() is
// here, and it returns 0.

#include <mpi.h>
#ifdef COMPOUND_SPARSE_WITH_NCCL
#include <nccl.h>
#endif

#include <memory>

#include "../error.hpp"
#include "mpi_error.hpp"

namespace compound_sparse {

namespace impl {
/// The count behind nccl_communicators_created(): one per process.
inline int& nccl_communicator_count() {
  static int count = 0;
  return count;
}
}  // namespace impl

/// How many NCCL communicators this process has set up (ncclCommInitRank calls): operators
/// on one MPI communicator share one, so building a second adds none. 0 without NCCL.
inline int nccl_communicators_created() {
  return impl::nccl_communicator_count();
}

#ifdef COMPOUND_SPARSE_WITH_NCCL
namespace impl {

inline void check_nccl(ncclResult_t result, const char* call) {
  COMPOUND_SPARSE_REQUIRE(result == ncclSuccess, call << " failed: " << ncclGetErrorString(result));
}

inline void check_cuda(cudaError_t result, const char* call) {
  COMPOUND_SPARSE_REQUIRE(result == cudaSuccess, call << " failed: " << cudaGetErrorString(result));
}

/// An NCCL communicator over the ranks of an MPI communicator, destroyed with the object.
class NcclCommunicator {
 public:
  /// Collective over `comm`: rank 0 makes the id, MPI_Bcast hands it to the others.
  explicit NcclCommunicator(MPI_Comm comm) {
    int rank = 0, size = 1;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    ncclUniqueId id;
    if (rank == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    check_mpi(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm), "MPI_Bcast");
    check_nccl(ncclCommInitRank(&comm_, size, id, rank), "ncclCommInitRank");
    ++nccl_communicator_count();
  }
  ~NcclCommunicator() {
    if (comm_ != nullptr) ncclCommDestroy(comm_);
  }
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  ncclComm_t get() const { return comm_; }

 private:
  ncclComm_t comm_ = nullptr;
};

/// The attribute key under which an MPI communicator keeps its NCCL communicator (a
/// std::weak_ptr on the heap, freed when MPI frees the communicator's attributes).
inline int nccl_attribute_key() {
  static const int key = [] {
    int k = MPI_KEYVAL_INVALID;
    MPI_Comm_delete_attr_function* free_reference = [](MPI_Comm, int, void* value, void*) -> int {
      delete static_cast<std::weak_ptr<NcclCommunicator>*>(value);
      return MPI_SUCCESS;
    };
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_reference, &k, nullptr), "MPI_Comm_create_keyval");
    return k;
  }();
  return key;
}

/// The NCCL communicator of `comm`: the one its operators already share, or a new one.
/// Collective: every rank agrees (one MPI_Allreduce) whether all still hold it, since a
/// rank that set up a new one alone would wait forever in ncclCommInitRank.
inline std::shared_ptr<NcclCommunicator> shared_nccl_communicator(MPI_Comm comm) {
  const int key = nccl_attribute_key();
  void* value = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, key, &value, &found), "MPI_Comm_get_attr");
  auto* reference = found ? static_cast<std::weak_ptr<NcclCommunicator>*>(value) : nullptr;
  std::shared_ptr<NcclCommunicator> held = reference != nullptr ? reference->lock() : nullptr;
  const int mine = held != nullptr;
  int all = 0;
  check_mpi(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (all == 1) return held;
  held.reset();
  auto made = std::make_shared<NcclCommunicator>(comm);
  if (reference == nullptr) {
    reference = new std::weak_ptr<NcclCommunicator>(made);
    const int code = MPI_Comm_set_attr(comm, key, reference);
    if (code != MPI_SUCCESS) delete reference;
    check_mpi(code, "MPI_Comm_set_attr");
  } else {
    *reference = made;
  }
  return made;
}

}  // namespace impl
#endif

}  // namespace compound_sparse
