#pragma once
// What a call throws, for tests of the library's errors (error.hpp): the message of the
// expected kind, or a description of what came instead, so that a failed expectation
// prints it.
#include <compound_sparse/error.hpp>
#include <exception>
#include <string>

namespace compound_sparse_test {

/// what() of the error `f` throws when it is a Kind; otherwise says what came instead.
template <class Kind, class F>
std::string error_of_kind(F&& f) {
  try {
    f();
  } catch (const Kind& e) {
    return e.what();
  } catch (const compound_sparse::Error& e) {
    return std::string("wrong kind '") + e.kind() + "': " + e.what();
  } catch (const std::exception& e) {
    return std::string("not a compound_sparse::Error: ") + e.what();
  }
  return "no exception";
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace compound_sparse_test
