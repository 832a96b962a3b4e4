#pragma once
// Errors raised by CompoundSparse. Every failure that a caller can provoke with
// bad input (sizes, indices, files, memory budgets) throws compound_sparse::Error
// carrying the source location that detected it and a reason a person can act on.

#include <sstream>
#include <stdexcept>
#include <string>

namespace compound_sparse {

class Error : public std::runtime_error {
 public:
  Error(const std::string& reason, const char* file, int line)
      : std::runtime_error(format(reason, file, line)), reason_(reason) {}

  /// The reason without the source location.
  const std::string& reason() const noexcept { return reason_; }

 private:
  static std::string format(const std::string& reason, const char* file, int line) {
    std::ostringstream out;
    out << "compound_sparse: " << reason << " [" << file << ":" << line << "]";
    return out.str();
  }
  std::string reason_;
};

}  // namespace compound_sparse

/// Throws compound_sparse::Error with the current file and line unless `condition` holds.
/// `message` is a stream expression, e.g. "row " << r << " out of range".
#define COMPOUND_SPARSE_REQUIRE(condition, message)                                       \
  do {                                                                                    \
    if (!(condition)) {                                                                   \
      std::ostringstream compound_sparse_message_;                                        \
      compound_sparse_message_ << message;                                                \
      throw ::compound_sparse::Error(compound_sparse_message_.str(), __FILE__, __LINE__); \
    }                                                                                     \
  } while (false)
