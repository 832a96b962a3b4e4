#pragma once
// Errors raised by CompoundSparse. Every failure that a caller can provoke with
// bad input (sizes, indices, files, memory budgets) throws a compound_sparse::Error
// carrying the source location that detected it and a reason a person can act on.
//
// The kind of failure is the class: catch compound_sparse::Error for all of them,
// or one kind for what you can handle (a missing file, a layout over budget).
// kind() names the kind in words, for tools and logs.

#include <sstream>
#include <stdexcept>
#include <string>

namespace compound_sparse {

/// The base of every error the library throws; what() is
/// "compound_sparse: <reason> [<file>:<line>]".
class Error : public std::runtime_error {
 public:
  Error(const std::string& reason, const char* file, int line)
      : std::runtime_error(format(reason, file, line)), reason_(reason) {}

  /// The reason without the source location.
  const std::string& reason() const noexcept { return reason_; }

  /// A short name of the kind: "invalid input", "I/O", "budget exceeded",
  /// "not compiled" or "device" ("error" for a plain Error).
  virtual const char* kind() const noexcept { return "error"; }

 private:
  static std::string format(const std::string& reason, const char* file, int line) {
    std::ostringstream out;
    out << "compound_sparse: " << reason << " [" << file << ":" << line << "]";
    return out.str();
  }
  std::string reason_;
};

/// The caller passed bad arguments (sizes, indices, values, options) or malformed
/// in-memory data: the call is wrong, retrying it unchanged fails again.
class InvalidInput : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "invalid input"; }
};

/// A file cannot be opened, read or written, or its contents are malformed; the
/// reason names the file (and the line where known), so the file is what to fix.
class IoError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "I/O"; }
};

/// A layout, padding or allocation would exceed the caller's MemoryBudget or what
/// 32-bit offsets can address: the input is valid, so another layout or a larger
/// budget may work.
class BudgetExceeded : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "budget exceeded"; }
};

/// The variant, layout, entry type or backend asked for is not compiled into this
/// build: another build (COMPOUND_SPARSE_VARIANT_ENTRIES, the CUDA backend) has it.
class NotCompiled : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "not compiled"; }
};

/// The CUDA / device runtime reported a failure: the call was valid, the device
/// (or its driver) was not.
class DeviceError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "device"; }
};

}  // namespace compound_sparse

/// Throws compound_sparse::Kind (one of the classes above) with the current file and
/// line unless `condition` holds. `message` is a stream expression, e.g.
/// "row " << r << " out of range".
#define COMPOUND_SPARSE_REQUIRE_KIND(Kind, condition, message)                           \
  do {                                                                                   \
    if (!(condition)) {                                                                  \
      std::ostringstream compound_sparse_message_;                                       \
      compound_sparse_message_ << message;                                               \
      throw ::compound_sparse::Kind(compound_sparse_message_.str(), __FILE__, __LINE__); \
    }                                                                                    \
  } while (false)

/// COMPOUND_SPARSE_REQUIRE_KIND for the common case: throws compound_sparse::InvalidInput.
#define COMPOUND_SPARSE_REQUIRE(condition, message) COMPOUND_SPARSE_REQUIRE_KIND(InvalidInput, condition, message)
