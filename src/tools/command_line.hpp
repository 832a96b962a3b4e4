#pragma once
// Command-line parsing shared by the project's tools (compound-zoo, compound-tune,
// compound-bench, compound-dist-bench; target compound_sparse_tool_support). Every option is
// "--name value"; a tool maps option names to setters and reports the one problem that
// parse_options returns, with its usage.
#include <algorithm>
#include <cmath>
#include <compound_sparse/tuning/timing.hpp>
#include <compound_sparse/variants/variant_key.hpp>  // impl::joined
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace compound_tools {

using OptionSetters = std::map<std::string, std::function<void(const std::string& value)>>;

/// Applies argv[1..] as "--name value" pairs, in order. Returns "" when all were
/// applied, else the problem: an unknown option, a missing value, or a value that its
/// setter rejected (any exception: the helpers below, std::stoi, ...).
inline std::string parse_options(int argc, char** argv, const OptionSetters& setters) {
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    const auto setter = setters.find(name);
    if (setter == setters.end()) return "unknown option '" + name + "'";
    if (i + 1 >= argc) return name + " needs a value";
    const std::string value = argv[++i];
    try {
      setter->second(value);
    } catch (const std::exception& e) {
      return "bad value '" + value + "' for " + name + " (" + e.what() + ")";
    }
  }
  return "";
}

/// Whether argv asks for help (-h or --help anywhere).
inline bool wants_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "-h" || std::string(argv[i]) == "--help") return true;
  return false;
}

/// "a,b,c" -> {"a", "b", "c"}. Every list option goes through here, and an empty item
/// ("a,,b", "a,", ",") or an empty list throws: it is a typo or a variable that expanded to
/// nothing, and dropping it would run something other than what was asked for.
inline std::vector<std::string> split_list(const std::string& text) {
  if (text.empty()) throw std::invalid_argument("a non-empty comma-separated list");
  std::vector<std::string> parts;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = text.find(',', begin);
    parts.push_back(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (parts.back().empty())
      throw std::invalid_argument("a comma-separated list without empty items (item " + std::to_string(parts.size()) +
                                  " is empty)");
    if (end == std::string::npos) return parts;
    begin = end + 1;
  }
}

/// The whole of `text` as an int >= `least` (std::stoi alone accepts "5x").
inline int integer_at_least(const std::string& text, int least) {
  std::size_t used = 0;
  const int n = std::stoi(text, &used);
  if (used != text.size() || n < least) throw std::invalid_argument("an integer >= " + std::to_string(least));
  return n;
}

/// The whole of `text` as a non-negative integer that fits std::size_t (a byte
/// count). std::stoull alone accepts "-5" (and wraps it to 2^64 - 5) and "5x".
inline std::size_t non_negative_integer(const std::string& text) {
  const char* problem = "a non-negative integer";
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) throw std::invalid_argument(problem);
  try {
    return static_cast<std::size_t>(std::stoull(text));
  } catch (const std::out_of_range&) {
    throw std::invalid_argument(std::string(problem) + " below 2^64");
  }
}

/// The whole of `text` as a finite number >= `least` (std::stod alone accepts
/// "nan", "inf" and "1.5x").
inline double finite_number_at_least(const std::string& text, double least) {
  std::size_t used = 0;
  double x = 0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(x) || x < least) {
    std::ostringstream problem;
    problem << "a finite number >= " << least;
    throw std::invalid_argument(problem.str());
  }
  return x;
}

/// A bound given as a factor (compound-tune's --drop-slower-than, --max-padding): 0
/// turns it off, otherwise the whole of `text` as a finite number >= `least`.
inline double factor_or_zero(const std::string& text, double least) {
  double x = -1;
  try {
    x = finite_number_at_least(text, 0);
  } catch (const std::invalid_argument&) {
  }
  if (x == 0 || x >= least) return x;
  std::ostringstream problem;
  problem << "a finite number >= " << least << ", or 0 for no bound";
  throw std::invalid_argument(problem.str());
}

/// "a|b|c".
inline std::string joined(const std::vector<std::string>& names, const char* separator = "|") {
  return compound_sparse::impl::joined(names, separator);
}
/// Numbers (numbers of vectors, --k) the same way: "1,8" with separator ",".
inline std::string joined(const std::vector<int>& numbers, const char* separator) {
  std::vector<std::string> names;
  for (const int n : numbers) names.push_back(std::to_string(n));
  return joined(names, separator);
}

/// The problem with a list option whose names must be matrices of a zoo index (--matrices):
/// "OPTION names no matrix of WHERE: x, y (its matrices: a, b, c)" for the names of `asked`
/// that `known` (the index's, in its order) lacks, or "" when it has them all.
template <class Names>
std::string unknown_names(const std::string& option, const Names& asked, const std::vector<std::string>& known,
                          const std::string& where) {
  std::vector<std::string> unknown;
  for (const std::string& name : asked)
    if (std::find(known.begin(), known.end(), name) == known.end()) unknown.push_back(name);
  if (unknown.empty()) return "";
  return option + " names no matrix of " + where + ": " + joined(unknown, ", ") +
         " (its matrices: " + joined(known, ", ") + ")";
}

/// `value` when it is one of `allowed`, else throws naming them.
inline std::string one_of(const std::string& value, const std::vector<std::string>& allowed) {
  for (const auto& a : allowed)
    if (value == a) return value;
  throw std::invalid_argument("one of " + joined(allowed));
}
inline std::string one_of(const std::string& value, std::initializer_list<const char*> allowed) {
  return one_of(value, std::vector<std::string>(allowed.begin(), allowed.end()));
}

/// --precision: a comma list of float, double and mixed (mixed precision,
/// compound_sparse/entries/mixed_precision.hpp), or both (float and double) or all; the
/// precisions in the order double, float, mixed.
inline std::vector<std::string> precision_list(const std::string& value) {
  std::vector<std::string> asked;
  for (const auto& p : split_list(value)) {
    const std::string one = one_of(p, {"float", "double", "mixed", "both", "all"});
    if (one == "both" || one == "all") {
      asked.insert(asked.end(), {"double", "float"});
      if (one == "all") asked.push_back("mixed");
    } else {
      asked.push_back(one);
    }
  }
  std::vector<std::string> ordered;
  for (const char* p : {"double", "float", "mixed"})
    if (std::find(asked.begin(), asked.end(), p) != asked.end()) ordered.push_back(p);
  return ordered;
}

/// --k 1,2,4,8,16: numbers of vectors (SpMM), each one of the tuning database's vector
/// buckets (compound_sparse/tuning/vector_bucket.hpp), sorted, without repeats.
inline std::vector<int> vector_count_list(const std::string& value) {
  std::vector<int> ks;
  for (const auto& item : split_list(value)) {
    const std::string bucket = one_of(item, {"1", "2", "4", "8", "16"});
    ks.push_back(std::stoi(bucket));
  }
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  return ks;
}

/// --timing auto|wall|queued (compound_sparse/tuning/timing.hpp). auto, the tools' default, is
/// preferred_timing_mode: queued (GPU time) on CUDA, wall elsewhere.
inline compound_sparse::TimingMode timing_mode(const std::string& value) {
  const std::string mode = one_of(value, {"auto", "wall", "queued"});
  if (mode == "auto") return compound_sparse::preferred_timing_mode();
  return mode == "queued" ? compound_sparse::TimingMode::Queued : compound_sparse::TimingMode::Wall;
}

}  // namespace compound_tools
