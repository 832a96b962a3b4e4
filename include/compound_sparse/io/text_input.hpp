#pragma once
// Line-oriented text input shared by the parsers: it counts lines so that every
// parse error can name "<file>:<line>: <reason>", and it parses numbers without
// locale surprises or exceptions from the standard library.

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <istream>
#include <string>
#include <system_error>

#include "../error.hpp"

namespace compound_sparse {
namespace io {

class LineReader {
 public:
  LineReader(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

  /// Reads the next line (without the newline or a trailing '\r'); false at end of input.
  /// A UTF-8 byte-order mark (EF BB BF) at the start of the first line is skipped:
  /// editors on Windows add it to plain ASCII files, and it carries no content.
  bool next(std::string& line) {
    if (!std::getline(in_, line)) return false;
    ++line_;
    if (line_ == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }
  const std::string& source() const { return source_; }
  long line() const { return line_; }

 private:
  std::istream& in_;
  std::string source_;
  long line_ = 0;
};

/// `text` from an input file, quoted for an error message: in single quotes, bytes
/// outside printable ASCII (and the backslash) escaped as \xHH, and cut after
/// `max_chars` characters with "..." so that binary garbage neither reaches the
/// terminal raw nor floods it. Every parser message that quotes input uses it.
inline std::string quote(const std::string& text, std::size_t max_chars = 40) {
  static const char hex[] = "0123456789abcdef";
  std::string out = "'";
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i == max_chars) {
      out += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f && byte != '\\') {
      out += static_cast<char>(byte);
    } else {
      out += "\\x";
      out += hex[byte >> 4];
      out += hex[byte & 15];
    }
  }
  return out + "'";
}

/// Opens `path` for reading; throws IoError if it cannot be opened or is a directory
/// (which std::ifstream opens on Linux and then reads as an empty file).
inline std::ifstream open_input(const std::string& path) {
  std::error_code ec;
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, !std::filesystem::is_directory(path, ec),
                               "cannot read '" << path << "': it is a directory, not a file");
  std::ifstream file(path, std::ios::binary);  // binary: the reader itself drops a '\r' before '\n'
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, file, "cannot open '" << path << "' for reading");
  return file;
}

/// Throws compound_sparse::IoError with "<source>:<line>: <message>" unless `condition` holds.
#define COMPOUND_SPARSE_PARSE_REQUIRE(reader, condition, message) \
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, condition, (reader).source() << ":" << (reader).line() << ": " << message)

/// Reads the next whitespace-separated token of `s` starting at `pos` (advanced past
/// it); returns false when there is none.
inline bool next_token(const std::string& s, std::size_t& pos, std::string& token) {
  while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\v' || s[pos] == '\f')) ++pos;
  if (pos >= s.size()) return false;
  const std::size_t start = pos;
  while (pos < s.size() && !(s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\v' || s[pos] == '\f')) ++pos;
  token.assign(s, start, pos - start);
  return true;
}

/// Parses a whole token as a decimal integer; false if it is not one or overflows.
inline bool parse_integer(const std::string& token, long long& value) {
  if (token.empty()) return false;
  const char* begin = token.c_str();
  char* end = nullptr;
  errno = 0;
  value = std::strtoll(begin, &end, 10);
  return errno == 0 && end == begin + token.size();
}

/// Parses a whole token as a floating-point number (C locale semantics of strtod).
inline bool parse_real(const std::string& token, double& value) {
  if (token.empty()) return false;
  const char* begin = token.c_str();
  char* end = nullptr;
  errno = 0;
  value = std::strtod(begin, &end);
  // ERANGE on underflow still gives the correctly rounded (denormal or zero) value;
  // on overflow strtod gives infinity, which no file means by a finite literal.
  return end == begin + token.size() && (errno == 0 || (errno == ERANGE && std::abs(value) < HUGE_VAL));
}

/// A header's declared size must be plausible for the entries the file holds: the
/// CSR result needs 4 bytes per row (its offsets) and every vector that multiplies
/// it one entry per row and column, so "16777216 16777216 1" would make 77 bytes of
/// input cost gigabytes downstream. Rows and columns are accepted up to
/// kMaxRowsWithoutEntries plus kMaxRowsPerEntry per stored entry: an n x n matrix
/// with at least one stored entry per 64 rows (every non-singular matrix has one per
/// row, a symmetric file one per row of its triangle) always passes, and the cost of
/// reading a file stays proportional to its length. The readers check the declared
/// entry count against the entries actually present before they allocate per row.
constexpr long long kMaxRowsWithoutEntries = 1LL << 16;
constexpr long long kMaxRowsPerEntry = 64;

inline void require_plausible_size(const LineReader& in, long long rows, long long cols, long long entries) {
  const long long limit = kMaxRowsWithoutEntries + kMaxRowsPerEntry * entries;
  COMPOUND_SPARSE_PARSE_REQUIRE(in, rows <= limit && cols <= limit,
                                "size " << rows << " x " << cols << " is implausible for " << entries
                                        << " entries: its row offsets alone would take " << (rows + 1) * 4
                                        << " bytes, and a vector of one double per row or column "
                                        << std::max(rows, cols) * 8
                                        << "; at most 2^16 + 64 per stored entry rows and columns are accepted");
}

}  // namespace io
}  // namespace compound_sparse
