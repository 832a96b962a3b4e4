#pragma once
// Matrix Market reader and writer for HostCsr with any entry type that has an
// mm_field (compound_format.hpp): the standard real, integer, pattern and complex
// fields and the CompoundSparse quaternion and block<E> fields, coordinate format,
// all four symmetries. Values are written with 17 significant digits, so a
// write/read round trip reproduces every double exactly.
//
// Malformed input, or a file that cannot be opened, read or written, throws
// compound_sparse::IoError; malformed input with "<file>:<line>: <reason>".

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "../layouts/host_csr.hpp"
#include "compound_format.hpp"
#include "text_input.hpp"

namespace compound_sparse {
namespace io {

/// The banner and size line of a Matrix Market file.
struct MatrixMarketHeader {
  std::string field;  ///< real, integer, pattern, complex, quaternion, block<E>
  Symmetry symmetry = Symmetry::general;
  int rows = 0;
  int cols = 0;
  long long entries = 0;  ///< stored entries (one triangle for non-general files)
};

namespace detail {

inline std::string lower(std::string s) {
  for (auto& ch : s)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return s;
}

/// Reads the banner, skips comments, reads the size line.
inline MatrixMarketHeader read_mm_header(LineReader& in) {
  std::string line, token;
  COMPOUND_SPARSE_PARSE_REQUIRE(in, in.next(line), "empty file, expected a %%MatrixMarket banner");
  std::size_t pos = 0;
  std::string words[5];
  int n = 0;
  while (n < 5 && next_token(line, pos, words[n])) ++n;
  COMPOUND_SPARSE_PARSE_REQUIRE(
      in, n == 5 && words[0] == "%%MatrixMarket",
      "expected '%%MatrixMarket matrix coordinate <field> <symmetry>', got " << quote(line, 80));
  COMPOUND_SPARSE_PARSE_REQUIRE(in, lower(words[1]) == "matrix", "object " << quote(words[1]) << " is not 'matrix'");
  COMPOUND_SPARSE_PARSE_REQUIRE(in, lower(words[2]) == "coordinate",
                                "format " << quote(words[2]) << " is not supported (only 'coordinate')");
  MatrixMarketHeader h;
  h.field = lower(words[3]);
  COMPOUND_SPARSE_PARSE_REQUIRE(in, mm_field_components(h.field) >= 0, "unknown field " << quote(words[3]));
  const std::string sym = lower(words[4]);
  if (sym == "general")
    h.symmetry = Symmetry::general;
  else if (sym == "symmetric")
    h.symmetry = Symmetry::symmetric;
  else if (sym == "skew-symmetric")
    h.symmetry = Symmetry::skew_symmetric;
  else if (sym == "hermitian")
    h.symmetry = Symmetry::hermitian;
  else
    COMPOUND_SPARSE_PARSE_REQUIRE(in, false, "unknown symmetry " << quote(words[4]));
  COMPOUND_SPARSE_PARSE_REQUIRE(in, pos >= line.size() || !next_token(line, pos, token),
                                "unexpected text after the symmetry: " << quote(token));
  COMPOUND_SPARSE_PARSE_REQUIRE(in,
                                h.symmetry != Symmetry::hermitian || h.field == "complex" || h.field == "quaternion",
                                "hermitian needs complex or quaternion entries, not " << h.field);
  COMPOUND_SPARSE_PARSE_REQUIRE(in, h.symmetry != Symmetry::skew_symmetric || h.field != "pattern",
                                "a pattern matrix cannot be skew-symmetric");
  // Comments and blank lines until the size line.
  for (;;) {
    COMPOUND_SPARSE_PARSE_REQUIRE(in, in.next(line), "end of file before the size line 'rows cols entries'");
    pos = 0;
    if (!next_token(line, pos, token) || token[0] == '%') continue;
    break;
  }
  long long v[3];
  pos = 0;
  for (int i = 0; i < 3; ++i) {
    COMPOUND_SPARSE_PARSE_REQUIRE(in, next_token(line, pos, token),
                                  "size line needs 3 integers (rows cols entries), got " << i);
    COMPOUND_SPARSE_PARSE_REQUIRE(in, parse_integer(token, v[i]) && v[i] >= 0,
                                  quote(token) << " is not a non-negative integer");
  }
  COMPOUND_SPARSE_PARSE_REQUIRE(in, !next_token(line, pos, token), "size line has more than 3 fields");
  COMPOUND_SPARSE_PARSE_REQUIRE(in, v[0] <= 2147483647 && v[1] <= 2147483647,
                                "size " << v[0] << " x " << v[1] << " does not fit 32-bit indices");
  COMPOUND_SPARSE_PARSE_REQUIRE(in, h.symmetry == Symmetry::general || v[0] == v[1],
                                to_string(h.symmetry) << " matrix must be square, got " << v[0] << " x " << v[1]);
  COMPOUND_SPARSE_PARSE_REQUIRE(in, static_cast<long double>(v[2]) <= static_cast<long double>(v[0]) * v[1],
                                v[2] << " entries do not fit a " << v[0] << " x " << v[1] << " matrix");
  require_plausible_size(in, v[0], v[1], v[2]);
  h.rows = static_cast<int>(v[0]);
  h.cols = static_cast<int>(v[1]);
  h.entries = v[2];
  return h;
}

}  // namespace detail

/// Reads only the banner and size line (to choose the entry type before reading).
inline MatrixMarketHeader read_matrix_market_header(const std::string& path) {
  std::ifstream file = open_input(path);
  LineReader in(file, path);
  return detail::read_mm_header(in);
}

/// Reads a coordinate Matrix Market matrix from `stream`; `source` names it in errors.
/// Symmetric, skew-symmetric and hermitian files are expanded to the full matrix;
/// duplicate entries are summed (as csr_from_coo does); columns end up sorted.
template <class Entry>
HostCsr<Entry> read_matrix_market(std::istream& stream, const std::string& source) {
  using traits = component_traits<Entry>;
  using field = mm_field<Entry>;
  LineReader in(stream, source);
  const MatrixMarketHeader h = detail::read_mm_header(in);
  COMPOUND_SPARSE_PARSE_REQUIRE(in, field::readable_from(h.field),
                                "field '" << h.field << "' cannot be read as " << field::name() << " entries");
  const int k = mm_field_components(h.field);
  std::vector<CooEntry<Entry>> coo;
  // Trust the declared count only so far: a corrupt header must not allocate gigabytes.
  coo.reserve(static_cast<std::size_t>(std::min<long long>(h.entries, 1 << 20)) *
              (h.symmetry == Symmetry::general ? 1 : 2));
  std::vector<long> lines;  // the line of each entry of coo, to say where a duplicate sum overflows
  lines.reserve(coo.capacity());
  std::string line, token;
  long long read = 0;
  while (in.next(line)) {
    std::size_t pos = 0;
    if (!next_token(line, pos, token) || token[0] == '%') continue;  // blank line or comment
    COMPOUND_SPARSE_PARSE_REQUIRE(in, read < h.entries, "more entries than the " << h.entries << " declared");
    long long index[2];
    for (int i = 0; i < 2; ++i) {
      if (i == 1)
        COMPOUND_SPARSE_PARSE_REQUIRE(in, next_token(line, pos, token), "expected " << 2 + k << " fields, got 1");
      const long long limit = i == 0 ? h.rows : h.cols;
      COMPOUND_SPARSE_PARSE_REQUIRE(in, parse_integer(token, index[i]) && index[i] >= 1 && index[i] <= limit,
                                    (i == 0 ? "row" : "column")
                                        << " index " << quote(token) << " is not in [1, " << limit << "]");
    }
    double c[256];
    for (int i = 0; i < k; ++i) {
      COMPOUND_SPARSE_PARSE_REQUIRE(in, next_token(line, pos, token), "expected " << 2 + k << " fields, got " << 2 + i);
      COMPOUND_SPARSE_PARSE_REQUIRE(in, parse_real(token, c[i]), quote(token) << " is not a number");
      // NaN and infinity would poison every product with the matrix: no file means them.
      COMPOUND_SPARSE_PARSE_REQUIRE(in, std::isfinite(c[i]),
                                    quote(token) << " is not a finite number (NaN and infinity are rejected)");
    }
    COMPOUND_SPARSE_PARSE_REQUIRE(in, !next_token(line, pos, token),
                                  "expected " << 2 + k << " fields, got more (" << quote(token) << ")");
    Entry value;
    for (int i = 0; i < traits::size; ++i) traits::get(value, i) = 0;
    if (k == 0)
      traits::get(value, 0) = 1;  // pattern: a stored entry is a one
    else
      for (int i = 0; i < k; ++i) traits::get(value, i) = c[i];
    // A finite double can still overflow a float component.
    COMPOUND_SPARSE_PARSE_REQUIRE(in, finite_entry(value), "a value overflows the entry type's components");
    const int r = static_cast<int>(index[0] - 1), col = static_cast<int>(index[1] - 1);
    if (h.symmetry != Symmetry::general) {
      COMPOUND_SPARSE_PARSE_REQUIRE(
          in, r >= col,
          "entry (" << r + 1 << ", " << col + 1 << ") is above the diagonal of a " << to_string(h.symmetry) << " file");
      COMPOUND_SPARSE_PARSE_REQUIRE(in, h.symmetry != Symmetry::skew_symmetric || r != col,
                                    "skew-symmetric file stores a diagonal entry");
      // The diagonal is its own mirror: hermitian means a real diagonal.
      COMPOUND_SPARSE_PARSE_REQUIRE(
          in, r != col || valid_diagonal(value, h.symmetry),
          "diagonal entry (" << r + 1 << ", " << col + 1 << ") of a hermitian matrix is not real (its "
                             << (h.field == "quaternion" ? "vector part" : "imaginary part") << " is not zero)");
      if (r != col) {
        coo.push_back({col, r, mirror(value, h.symmetry)});
        lines.push_back(in.line());
      }
    }
    coo.push_back({r, col, value});
    lines.push_back(in.line());
    ++read;
  }
  COMPOUND_SPARSE_PARSE_REQUIRE(in, read == h.entries,
                                "end of file after " << read << " of the " << h.entries << " declared entries");
  return csr_from_file_entries(source, h.rows, h.cols, std::move(coo), lines);
}

/// Reads the Matrix Market file at `path` (see the stream overload).
template <class Entry>
HostCsr<Entry> read_matrix_market(const std::string& path) {
  std::ifstream file = open_input(path);
  return read_matrix_market<Entry>(file, path);
}

/// Throws unless `a` has symmetry `s` exactly: every stored A(i,j) has a stored
/// A(j,i) equal to mirror(A(i,j), s), bit for bit. The writer calls it so that a
/// file never claims a symmetry its matrix lacks.
template <class Entry>
void require_symmetry(const HostCsr<Entry>& a, Symmetry s) {
  if (s == Symmetry::general) return;
  validate(a, "require_symmetry");
  COMPOUND_SPARSE_REQUIRE(a.num_rows == a.num_cols,
                          to_string(s) << " matrix must be square, got " << a.num_rows << " x " << a.num_cols);
  // (column, row, position) sorted: the transpose's entries, found by binary search.
  std::vector<std::array<long long, 3>> t;
  t.reserve(a.num_entries());
  for (int r = 0; r < a.num_rows; ++r)
    for (int p = a.row_offsets[r]; p < a.row_offsets[r + 1]; ++p) t.push_back({a.col_indices[p], r, p});
  std::sort(t.begin(), t.end());
  for (int r = 0; r < a.num_rows; ++r)
    for (int p = a.row_offsets[r]; p < a.row_offsets[r + 1]; ++p) {
      const int c = a.col_indices[p];
      // Look for entries of column r in row c, i.e. transposed position (c, r) stored at key (r, c).
      auto it = std::lower_bound(t.begin(), t.end(), std::array<long long, 3>{r, c, -1});
      const bool found = it != t.end() && (*it)[0] == r && (*it)[1] == c;
      COMPOUND_SPARSE_REQUIRE(found, "matrix is not " << to_string(s) << ": (" << r << ", " << c << ") is stored but ("
                                                      << c << ", " << r << ") is not");
      if (r == c && s == Symmetry::skew_symmetric) {
        // Skew-symmetric files store no diagonal, so diagonal entries must be zero.
        COMPOUND_SPARSE_REQUIRE(same_entry(a.values[p], mirror(a.values[p], Symmetry::skew_symmetric)) &&
                                    same_entry(a.values[p], mirror(a.values[p], Symmetry::symmetric)),
                                "matrix is not skew-symmetric: diagonal entry (" << r << ", " << r << ") is not zero");
      }
      const Entry expected = mirror(a.values[p], s);
      COMPOUND_SPARSE_REQUIRE(same_entry(a.values[(*it)[2]], expected),
                              "matrix is not " << to_string(s) << ": entries (" << r << ", " << c << ") and (" << c
                                               << ", " << r << ") do not match");
    }
}

/// Writes `a` in coordinate Matrix Market format with field mm_field<Entry>::name().
/// For a non-general `symmetry` the matrix must have it exactly (require_symmetry)
/// and only the lower triangle is written. `comment` lines are prefixed with '%'.
template <class Entry>
void write_matrix_market(std::ostream& out, const HostCsr<Entry>& a, Symmetry symmetry = Symmetry::general,
                         const std::string& comment = "") {
  using traits = component_traits<Entry>;
  validate(a);
  COMPOUND_SPARSE_REQUIRE(symmetry != Symmetry::hermitian || mm_field<Entry>::has_conjugate(),
                          "hermitian needs complex or quaternion entries, not " << mm_field<Entry>::name());
  require_symmetry(a, symmetry);
  long long stored = 0;
  for (int r = 0; r < a.num_rows; ++r)
    for (int p = a.row_offsets[r]; p < a.row_offsets[r + 1]; ++p) {
      const int c = a.col_indices[p];
      stored += symmetry == Symmetry::general || r > c || (r == c && symmetry != Symmetry::skew_symmetric);
      // The readers refuse NaN and infinity, so a file holding one would not read back.
      for (int i = 0; i < traits::size; ++i) {
        const double v = static_cast<double>(traits::get(a.values[p], i));
        COMPOUND_SPARSE_REQUIRE(std::isfinite(v), "entry (" << r + 1 << ", " << c + 1 << ") component " << i << " is "
                                                            << v << ": Matrix Market files hold finite values only");
      }
    }
  out << "%%MatrixMarket matrix coordinate " << mm_field<Entry>::name() << " " << to_string(symmetry) << "\n";
  std::istringstream lines(comment);
  std::string line;
  while (std::getline(lines, line)) out << "%" << (line.empty() ? "" : " ") << line << "\n";
  out << a.num_rows << " " << a.num_cols << " " << stored << "\n";
  char buffer[32];
  for (int r = 0; r < a.num_rows; ++r)
    for (int p = a.row_offsets[r]; p < a.row_offsets[r + 1]; ++p) {
      const int c = a.col_indices[p];
      if (symmetry != Symmetry::general && (r < c || (r == c && symmetry == Symmetry::skew_symmetric))) continue;
      out << r + 1 << " " << c + 1;
      for (int i = 0; i < traits::size; ++i) {
        std::snprintf(buffer, sizeof buffer, " %.17g", static_cast<double>(traits::get(a.values[p], i)));
        out << buffer;
      }
      out << "\n";
    }
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, out, "writing the Matrix Market stream failed");
}

/// Writes `a` to the file at `path` (see the stream overload).
template <class Entry>
void write_matrix_market(const std::string& path, const HostCsr<Entry>& a, Symmetry symmetry = Symmetry::general,
                         const std::string& comment = "") {
  std::ofstream file(path);
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, file, "cannot open '" << path << "' for writing");
  write_matrix_market(file, a, symmetry, comment);
  file.close();
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, file, "writing '" << path << "' failed");
}

}  // namespace io
}  // namespace compound_sparse
