#pragma once
// MPI's error codes as compound_sparse exceptions, for the distributed product's headers.

#include <mpi.h>

#include <string>

#include "../error.hpp"

namespace compound_sparse {
namespace impl {

/// Throws compound_sparse::Error with MPI's message when `code` is not MPI_SUCCESS.
inline void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  COMPOUND_SPARSE_REQUIRE(false, call << " failed: " << std::string(text, static_cast<std::size_t>(length)));
}

}  // namespace impl
}  // namespace compound_sparse
