#pragma once
// Harwell-Boeing reader: assembled matrices (types ?UA, ?SA, ?HA, ?ZA, ?RA with
// ? = R real, C complex, P pattern), e.g. mhd1280b.cua from the Anasazi test set.
// Reads the fixed-width Fortran fields the header's formats describe (nIw for
// indices; nEw.d, nDw.d, nFw.d, nGw.d, optionally with a kP scale factor, for
// values), so that fields which touch ("1.0E+00-2.0E+00") parse correctly.
// Right-hand sides are ignored; elemental (?xE) matrices are rejected.
// Malformed input, or a file that cannot be opened, throws compound_sparse::IoError;
// malformed input with "<file>:<line>: <reason>".

#include <fstream>
#include <string>
#include <vector>

#include "../layouts/host_csr.hpp"
#include "compound_format.hpp"
#include "text_input.hpp"

namespace compound_sparse {
namespace io {

namespace detail {

/// A Fortran edit descriptor like (13I6) or (1P,5E15.8): `per_line` fields of `width` characters.
struct FortranFormat {
  int per_line = 0;
  int width = 0;
  char kind = 0;  ///< 'I' or 'R' (any real descriptor)
};

inline FortranFormat parse_fortran_format(const std::string& text, bool integer, LineReader& in) {
  std::string f;
  for (char ch : text)
    if (ch != ' ') f += static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
  COMPOUND_SPARSE_PARSE_REQUIRE(in, f.size() >= 2 && f.front() == '(' && f.back() == ')',
                                "format " << quote(text) << " is not a parenthesised Fortran format");
  f = f.substr(1, f.size() - 2);
  // Optional scale factor "kP" or "kP,": it does not change fields that carry an exponent.
  const std::size_t p = f.find('P');
  if (p != std::string::npos) {
    f = f.substr(p + 1);
    if (!f.empty() && f[0] == ',') f = f.substr(1);
  }
  std::size_t i = 0;
  auto number = [&](int& v) {
    const std::size_t start = i;
    v = 0;
    while (i < f.size() && f[i] >= '0' && f[i] <= '9' && v < 100000) v = v * 10 + (f[i++] - '0');
    return i > start;
  };
  FortranFormat fmt;
  if (!number(fmt.per_line)) fmt.per_line = 1;
  COMPOUND_SPARSE_PARSE_REQUIRE(in, i < f.size(), "format " << quote(text) << " has no edit descriptor");
  const char d = f[i++];
  COMPOUND_SPARSE_PARSE_REQUIRE(in, integer ? d == 'I' : (d == 'E' || d == 'D' || d == 'F' || d == 'G'),
                                "format " << quote(text) << ": descriptor " << quote(std::string(1, d))
                                          << " is not supported for " << (integer ? "indices" : "values"));
  fmt.kind = integer ? 'I' : 'R';
  COMPOUND_SPARSE_PARSE_REQUIRE(in, number(fmt.width) && fmt.width > 0 && fmt.width <= 100,
                                "format " << quote(text) << " has no valid field width");
  int ignored = 0;
  if (i < f.size() && f[i] == '.') {
    ++i;
    COMPOUND_SPARSE_PARSE_REQUIRE(in, number(ignored), "format " << quote(text) << ": digits expected after '.'");
  }
  if (i < f.size() && f[i] == 'E') {  // exponent width, as in E15.8E3
    ++i;
    COMPOUND_SPARSE_PARSE_REQUIRE(in, number(ignored), "format " << quote(text) << ": digits expected after 'E'");
  }
  COMPOUND_SPARSE_PARSE_REQUIRE(in, i == f.size() && fmt.per_line > 0 && fmt.per_line <= 1000,
                                "format " << quote(text) << " is not a single repeated edit descriptor");
  return fmt;
}

/// Parses one Fortran real field: 'D' exponents, and exponents without a letter ("1.5-3").
inline bool parse_fortran_real(std::string field, double& value) {
  std::string t;
  for (char ch : field)
    if (ch != ' ') t += ch == 'D' || ch == 'd' ? 'E' : ch;
  if (t.empty()) {
    value = 0;  // Fortran reads a blank field as zero
    return true;
  }
  if (t.find_first_of("Ee") == std::string::npos) {
    const std::size_t sign = t.find_last_of("+-");
    if (sign != std::string::npos && sign > 0) t.insert(sign, 1, 'E');
  }
  return parse_real(t, value);
}

/// Reads `count` numbers in format `fmt`, starting on a new line; `lines` (if not
/// null) gets the line of each number, for errors found after reading.
template <class T>
void read_fortran_fields(LineReader& in, const FortranFormat& fmt, long long count, std::vector<T>& out,
                         const char* what, std::vector<long>* lines = nullptr) {
  std::string line, field;
  out.clear();
  out.reserve(static_cast<std::size_t>(std::min<long long>(count, 1 << 20)));
  if (lines) lines->clear();
  while (static_cast<long long>(out.size()) < count) {
    COMPOUND_SPARSE_PARSE_REQUIRE(in, in.next(line),
                                  "end of file after " << out.size() << " of " << count << " " << what);
    for (int k = 0; k < fmt.per_line && static_cast<long long>(out.size()) < count; ++k) {
      const std::size_t start = static_cast<std::size_t>(k) * fmt.width;
      if (start >= line.size()) break;  // short line: trailing fields omitted
      field = line.substr(start, fmt.width);
      if (fmt.kind == 'I') {
        std::string t;
        for (char ch : field)
          if (ch != ' ') t += ch;
        long long v = 0;
        COMPOUND_SPARSE_PARSE_REQUIRE(in, parse_integer(t, v) && v >= -2147483647 && v <= 2147483647,
                                      what << ": field " << k + 1 << " " << quote(field) << " is not an integer");
        out.push_back(static_cast<T>(v));
      } else {
        double v = 0;
        COMPOUND_SPARSE_PARSE_REQUIRE(in, parse_fortran_real(field, v),
                                      what << ": field " << k + 1 << " " << quote(field) << " is not a number");
        // NaN and infinity would poison every product with the matrix: no file means them.
        COMPOUND_SPARSE_PARSE_REQUIRE(in, std::isfinite(v),
                                      what << ": field " << k + 1 << " " << quote(field)
                                           << " is not a finite number (NaN and infinity are rejected)");
        out.push_back(static_cast<T>(v));
      }
      if (lines) lines->push_back(in.line());
    }
  }
}

inline bool header_integers(const std::string& text, long long* v, int n) {
  std::size_t pos = 0;
  std::string token;
  for (int i = 0; i < n; ++i)
    if (!next_token(text, pos, token) || !parse_integer(token, v[i]) || v[i] < 0) return false;
  return true;
}

}  // namespace detail

/// Reads an assembled Harwell-Boeing matrix from `stream`; `source` names it in errors.
/// Entry is double (real and pattern files) or Kokkos::complex<double> (all three).
/// Symmetric (S), hermitian (H) and skew-symmetric (Z) matrices are expanded.
template <class Entry>
HostCsr<Entry> read_harwell_boeing(std::istream& stream, const std::string& source) {
  using traits = component_traits<Entry>;
  LineReader in(stream, source);
  std::string line;
  COMPOUND_SPARSE_PARSE_REQUIRE(in, in.next(line), "empty file, expected a title line");
  COMPOUND_SPARSE_PARSE_REQUIRE(in, in.next(line), "end of file, expected the card counts line");
  long long cards[5] = {0, 0, 0, 0, 0};
  COMPOUND_SPARSE_PARSE_REQUIRE(in, detail::header_integers(line, cards, 4),
                                "expected card counts TOTCRD PTRCRD INDCRD VALCRD [RHSCRD]");
  detail::header_integers(line, cards, 5);  // RHSCRD is optional
  const long long rhs_cards = cards[4];
  COMPOUND_SPARSE_PARSE_REQUIRE(in, in.next(line), "end of file, expected the type and size line");
  COMPOUND_SPARSE_PARSE_REQUIRE(in, line.size() >= 3, "expected the matrix type (e.g. CUA) in columns 1-3");
  std::string type = line.substr(0, 3);
  for (auto& ch : type)
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
  long long size[3];
  COMPOUND_SPARSE_PARSE_REQUIRE(in, detail::header_integers(line.substr(3), size, 3),
                                "expected NROW NCOL NNZERO after the matrix type");
  COMPOUND_SPARSE_PARSE_REQUIRE(in, type[0] == 'R' || type[0] == 'C' || type[0] == 'P',
                                "value type " << quote(type.substr(0, 1)) << " is not R, C or P");
  COMPOUND_SPARSE_PARSE_REQUIRE(in, std::string("USHZR").find(type[1]) != std::string::npos,
                                "structure " << quote(type.substr(1, 1)) << " is not U, S, H, Z or R");
  COMPOUND_SPARSE_PARSE_REQUIRE(in, type[2] == 'A',
                                "only assembled matrices (type ??A) are supported, got " << quote(type));
  COMPOUND_SPARSE_PARSE_REQUIRE(in, type[0] != 'C' || traits::size >= 2,
                                "complex matrix " << quote(type) << " cannot be read as real entries");
  COMPOUND_SPARSE_PARSE_REQUIRE(in, type[1] != 'H' || type[0] == 'C', "hermitian structure needs complex values");
  COMPOUND_SPARSE_PARSE_REQUIRE(in, size[0] <= 2147483647 && size[1] <= 2147483647,
                                "size " << size[0] << " x " << size[1] << " does not fit 32-bit indices");
  COMPOUND_SPARSE_PARSE_REQUIRE(in, static_cast<long double>(size[2]) <= static_cast<long double>(size[0]) * size[1],
                                size[2] << " entries do not fit a " << size[0] << " x " << size[1] << " matrix");
  require_plausible_size(in, size[0], size[1], size[2]);
  const Symmetry symmetry = type[1] == 'S'   ? Symmetry::symmetric
                            : type[1] == 'H' ? Symmetry::hermitian
                            : type[1] == 'Z' ? Symmetry::skew_symmetric
                                             : Symmetry::general;
  COMPOUND_SPARSE_PARSE_REQUIRE(in, symmetry == Symmetry::general || size[0] == size[1],
                                to_string(symmetry) << " matrix must be square");
  const int rows = static_cast<int>(size[0]), cols = static_cast<int>(size[1]);
  const long long nnz = size[2];
  COMPOUND_SPARSE_PARSE_REQUIRE(in, in.next(line), "end of file, expected the formats line");
  line.resize(std::max<std::size_t>(line.size(), 72), ' ');
  const auto ptr_fmt = detail::parse_fortran_format(line.substr(0, 16), true, in);
  const auto ind_fmt = detail::parse_fortran_format(line.substr(16, 16), true, in);
  detail::FortranFormat val_fmt;
  if (type[0] != 'P') val_fmt = detail::parse_fortran_format(line.substr(32, 20), false, in);
  if (rhs_cards > 0) COMPOUND_SPARSE_PARSE_REQUIRE(in, in.next(line), "end of file, expected the right-hand side line");

  std::vector<long long> ptr, ind;
  std::vector<double> val;
  std::vector<long> ind_lines, val_lines;  // where each row index and value was, for errors found later
  detail::read_fortran_fields(in, ptr_fmt, static_cast<long long>(cols) + 1, ptr, "column pointers");
  COMPOUND_SPARSE_PARSE_REQUIRE(
      in, ptr[0] == 1 && ptr[cols] == nnz + 1,
      "column pointers must run from 1 to NNZERO+1 = " << nnz + 1 << ", got " << ptr[0] << " .. " << ptr[cols]);
  for (int c = 0; c < cols; ++c)
    COMPOUND_SPARSE_PARSE_REQUIRE(in, ptr[c] <= ptr[c + 1], "column pointers decrease at column " << c + 1);
  detail::read_fortran_fields(in, ind_fmt, nnz, ind, "row indices", &ind_lines);
  const int k = type[0] == 'C' ? 2 : type[0] == 'R' ? 1 : 0;
  if (k > 0) detail::read_fortran_fields(in, val_fmt, nnz * k, val, "values", &val_lines);

  std::vector<CooEntry<Entry>> coo;
  std::vector<long> lines;  // the line of each entry's (last) value, where a duplicate sum overflows
  coo.reserve(static_cast<std::size_t>(nnz) * (symmetry == Symmetry::general ? 1 : 2));
  lines.reserve(coo.capacity());
  for (int c = 0; c < cols; ++c)
    for (long long p = ptr[c] - 1; p < ptr[c + 1] - 1; ++p) {
      const long long r = ind[p];
      // Checked here, not while reading, because only the pointers say which column it is in.
      COMPOUND_SPARSE_REQUIRE_KIND(IoError, r >= 1 && r <= rows,
                                   source << ":" << ind_lines[p] << ": row index " << r << " of entry " << p + 1
                                          << " is not in [1, " << rows << "]");
      Entry value;
      for (int i = 0; i < traits::size; ++i) traits::get(value, i) = 0;
      if (k == 0) traits::get(value, 0) = 1;
      for (int i = 0; i < k; ++i) traits::get(value, i) = val[p * k + i];
      const long value_line = k > 0 ? val_lines[p * k + k - 1] : ind_lines[p];
      COMPOUND_SPARSE_REQUIRE_KIND(
          IoError, finite_entry(value),
          source << ":" << value_line << ": entry " << p + 1 << " overflows the entry type's components");
      if (symmetry != Symmetry::general) {
        COMPOUND_SPARSE_REQUIRE_KIND(IoError, r - 1 >= c,
                                     source << ":" << ind_lines[p] << ": entry (" << r << ", " << c + 1
                                            << ") is above the diagonal of a " << to_string(symmetry) << " matrix");
        // The diagonal is its own mirror: hermitian means a real diagonal.
        COMPOUND_SPARSE_REQUIRE_KIND(IoError, r - 1 != c || valid_diagonal(value, symmetry),
                                     source << ":" << value_line << ": diagonal entry (" << r << ", " << r
                                            << ") of a hermitian matrix is not real (its imaginary part is not zero)");
        if (r - 1 != c) {
          coo.push_back({c, static_cast<int>(r - 1), mirror(value, symmetry)});
          lines.push_back(value_line);
        }
      }
      coo.push_back({static_cast<int>(r - 1), c, value});
      lines.push_back(value_line);
    }
  return csr_from_file_entries(source, rows, cols, std::move(coo), lines);
}

/// Reads the Harwell-Boeing file at `path` (see the stream overload).
template <class Entry>
HostCsr<Entry> read_harwell_boeing(const std::string& path) {
  std::ifstream file = open_input(path);
  return read_harwell_boeing<Entry>(file, path);
}

}  // namespace io
}  // namespace compound_sparse
