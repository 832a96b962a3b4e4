#pragma once
// The examples' size arguments, and what happens when a size is too large.
//
// Every example builds its matrix on the host from one size argument. An absurd
// size used to end in an uncaught std::length_error (indices past 2^31 - 1) or
// std::bad_alloc (abort, rc 134). Here the size is parsed whole, the rows and the
// least memory the matrix needs in CSR are computed before anything is allocated,
// and a request beyond 32-bit indices or beyond this machine's memory stops with
// both numbers; an allocation that still fails is reported the same way.

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <compound_sparse/error.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

namespace examples {

/// argv[index] as a whole integer in [least, most], `fallback` when absent; -1 (after
/// printing why) when it is not one.
inline long long size_argument(int argc, char** argv, int index, long long fallback, long long least, long long most) {
  if (argc <= index) return fallback;
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(argv[index], &end, 10);
  if (errno != 0 || end == argv[index] || *end != '\0' || value < least || value > most) {
    std::fprintf(stderr, "%s: '%s' is not a whole number in [%lld, %lld]\n", argv[0], argv[index], least, most);
    return -1;
  }
  return value;
}

/// What a size asks for: rows, stored entries per row (about), and bytes per entry
/// (the entry and its 4-byte column index).
struct ProblemSize {
  std::string what;  ///< e.g. "n = 40: a 160 x 40 x 40 beam"
  double rows = 0;
  double entries_per_row = 0;
  double entry_bytes = 0;

  /// The least host memory of the matrix in CSR; assembly takes more for a while.
  double csr_bytes() const { return rows * entries_per_row * entry_bytes + (rows + 1) * 4; }
};

inline double physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * page : 0;
}

/// Runs body() (the example's work, returning its exit code) when `size` fits
/// 32-bit indices and this machine's memory; otherwise, or when an allocation
/// fails on the way, prints the size asked for and the memory it needs and
/// returns 3. A compound_sparse::Error is printed and returns 1.
template <class Body>
int run_sized(const char* program, const ProblemSize& size, Body&& body) {
  const double gib = 1024.0 * 1024.0 * 1024.0;
  const auto refuse = [&](const std::string& why) {
    std::fprintf(stderr, "%s: %s asks for %.3g rows, at least %.3g GiB for the matrix in CSR: %s\n", program,
                 size.what.c_str(), size.rows, size.csr_bytes() / gib, why.c_str());
    return 3;
  };
  if (size.rows > INT_MAX || size.rows * size.entries_per_row > INT_MAX)
    return refuse("more rows or entries than 32-bit indices address (2^31 - 1)");
  const double memory = physical_memory_bytes();
  if (memory > 0 && size.csr_bytes() > memory) {
    char text[96];
    std::snprintf(text, sizeof text, "more than this machine's %.3g GiB of memory", memory / gib);
    return refuse(text);
  }
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return refuse("out of memory (std::bad_alloc)");
  } catch (const std::length_error& e) {
    return refuse(std::string("too large (std::length_error: ") + e.what() + ")");
  } catch (const compound_sparse::Error& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 1;
  }
}

}  // namespace examples
