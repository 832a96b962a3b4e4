// Matrix Market and Harwell-Boeing I/O: exact round trips for every entry type,
// symmetry expansion, and malformed input rejected with file, line and reason.
#include <gtest/gtest.h>

#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/io/binary_csr.hpp>
#include <compound_sparse/io/harwell_boeing.hpp>
#include <compound_sparse/io/matrix_market.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

namespace cs = compound_sparse;
namespace io = compound_sparse::io;
using C = Kokkos::complex<double>;
using Q = cs::Quaternion<double>;
using B3 = cs::Block<double, 3>;
using B2 = cs::Block<double, 2>;

namespace {

// Values that a decimal round trip could easily get wrong.
double tricky(std::mt19937& rng) {
  static const double special[] = {0.1, 1.0 / 3, -0.0, 5e-324, 1.7976931348623157e308, -2.2250738585072014e-308, 1e22};
  std::uniform_int_distribution<int> pick(0, 9);
  const int p = pick(rng);
  if (p < 7) return special[p];
  return std::uniform_real_distribution<double>(-1e3, 1e3)(rng);
}

template <class Entry>
cs::HostCsr<Entry> random_matrix(int rows, int cols, std::mt19937& rng) {
  using traits = cs::component_traits<Entry>;
  std::vector<cs::CooEntry<Entry>> coo;
  std::uniform_int_distribution<int> r(0, rows - 1), c(0, cols - 1);
  for (int k = 0; k < 3 * rows; ++k) {
    Entry v;
    for (int i = 0; i < traits::size; ++i) traits::get(v, i) = tricky(rng);
    coo.push_back({r(rng), c(rng), v});
  }
  // Distinct positions only: duplicates would be summed (rounded) by csr_from_coo.
  std::sort(coo.begin(), coo.end(), [](auto& a, auto& b) { return a.row != b.row ? a.row < b.row : a.col < b.col; });
  coo.erase(std::unique(coo.begin(), coo.end(), [](auto& a, auto& b) { return a.row == b.row && a.col == b.col; }),
            coo.end());
  return cs::csr_from_coo(rows, cols, coo);
}

/// Adds mirror(A(i,j)) at (j,i) for the lower triangle of `a`, giving a matrix of symmetry `s`.
template <class Entry>
cs::HostCsr<Entry> symmetrize(const cs::HostCsr<Entry>& a, io::Symmetry s) {
  std::vector<cs::CooEntry<Entry>> coo;
  for (int r = 0; r < a.num_rows; ++r)
    for (int p = a.row_offsets[r]; p < a.row_offsets[r + 1]; ++p) {
      const int c = a.col_indices[p];
      if (c > r || (c == r && s == io::Symmetry::skew_symmetric)) continue;
      // A diagonal entry d becomes h + mirror(h), h = d/2, which is its own mirror (and
      // finite: the readers reject infinity, and d + d overflows for the largest double).
      Entry h = a.values[p];
      for (int i = 0; i < cs::component_traits<Entry>::size; ++i) cs::component_traits<Entry>::get(h, i) *= 0.5;
      const Entry v = c == r ? cs::add_components(h, io::mirror(h, s)) : a.values[p];
      coo.push_back({r, c, v});
      if (c != r) coo.push_back({c, r, io::mirror(v, s)});
    }
  return cs::csr_from_coo(a.num_rows, a.num_cols, coo);
}

template <class Entry>
void expect_identical(const cs::HostCsr<Entry>& a, const cs::HostCsr<Entry>& b) {
  EXPECT_EQ(a.num_rows, b.num_rows);
  EXPECT_EQ(a.num_cols, b.num_cols);
  EXPECT_EQ(a.row_offsets, b.row_offsets);
  EXPECT_EQ(a.col_indices, b.col_indices);
  ASSERT_EQ(a.values.size(), b.values.size());
  EXPECT_EQ(std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(Entry)), 0)
      << "values differ in some bit";
}

template <class Entry>
cs::HostCsr<Entry> round_trip(const cs::HostCsr<Entry>& a, io::Symmetry s) {
  std::stringstream file;
  io::write_matrix_market(file, a, s, "round trip\nsecond comment line");
  return io::read_matrix_market<Entry>(file, "round-trip.mtx");
}

template <class Entry>
void check_round_trips(const std::vector<io::Symmetry>& symmetries) {
  std::mt19937 rng(42);
  const auto rect = random_matrix<Entry>(13, 7, rng);
  expect_identical(rect, round_trip(rect, io::Symmetry::general));
  const auto square = random_matrix<Entry>(11, 11, rng);
  for (auto s : symmetries) {
    SCOPED_TRACE(io::to_string(s));
    const auto sym = symmetrize(square, s);
    EXPECT_NO_THROW(io::require_symmetry(sym, s));
    expect_identical(sym, round_trip(sym, s));
    expect_identical(sym, round_trip(sym, io::Symmetry::general));
  }
}

/// The message of the compound_sparse::Error that reading `text` with `read` throws.
template <class Read>
std::string error_of(const std::string& text, Read read) {
  std::istringstream in(text);
  try {
    read(in);
  } catch (const cs::Error& e) {
    return e.what();
  }
  return "no exception";
}

std::string error_of_mm(const std::string& text) {
  return error_of(text, [](std::istream& in) { io::read_matrix_market<C>(in, "bad.mtx"); });
}

}  // namespace

TEST(MatrixMarket, RoundTripIsExactForEveryEntryType) {
  using S = io::Symmetry;
  check_round_trips<double>({S::symmetric, S::skew_symmetric});
  check_round_trips<C>({S::symmetric, S::skew_symmetric, S::hermitian});
  check_round_trips<Q>({S::symmetric, S::skew_symmetric, S::hermitian});
  check_round_trips<B3>({S::symmetric, S::skew_symmetric});
  check_round_trips<B2>({S::symmetric});
}

TEST(MatrixMarket, RoundTripThroughAFile) {
  std::mt19937 rng(7);
  const auto a = random_matrix<Q>(20, 20, rng);
  const std::string path = ::testing::TempDir() + "compound_sparse_round_trip.mtx";
  io::write_matrix_market(path, a);
  expect_identical(a, io::read_matrix_market<Q>(path));
  const auto h = io::read_matrix_market_header(path);
  EXPECT_EQ(h.field, "quaternion");
  EXPECT_EQ(h.rows, 20);
  EXPECT_EQ(h.entries, static_cast<long long>(a.num_entries()));
  std::remove(path.c_str());
}

TEST(MatrixMarket, ExpandsSymmetries) {
  std::istringstream herm(
      "%%MatrixMarket matrix coordinate complex hermitian\n% comment\n\n3 3 3\n1 1 2 0\n3 1 1 -2\n3 3 5 0\n");
  const auto h = io::read_matrix_market<C>(herm, "h.mtx");
  EXPECT_EQ(h.row_offsets, (std::vector<int>{0, 2, 2, 4}));
  EXPECT_EQ(h.col_indices, (std::vector<int>{0, 2, 0, 2}));
  EXPECT_EQ(h.values[1], C(1, 2));  // (1,3) = conj((3,1))
  EXPECT_EQ(h.values[2], C(1, -2));

  std::istringstream skew("%%MatrixMarket matrix coordinate block2 skew-symmetric\n2 2 1\n2 1 1 2 3 4\n");
  const auto s = io::read_matrix_market<B2>(skew, "s.mtx");
  ASSERT_EQ(s.num_entries(), 2u);
  const B2 upper = s.values[0];  // (1,2) = -(2,1)^T
  EXPECT_EQ(upper.v[0], -1);
  EXPECT_EQ(upper.v[1], -3);
  EXPECT_EQ(upper.v[2], -2);
  EXPECT_EQ(upper.v[3], -4);

  std::istringstream quat("%%MatrixMarket matrix coordinate quaternion hermitian\n2 2 1\n2 1 1 2 3 4\n");
  const auto q = io::read_matrix_market<Q>(quat, "q.mtx");
  EXPECT_EQ(q.values[0], (Q{1, -2, -3, -4}));

  std::istringstream pattern("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n");
  const auto p = io::read_matrix_market<double>(pattern, "p.mtx");
  EXPECT_EQ(p.values, (std::vector<double>{1, 1, 1}));

  std::istringstream real("%%MatrixMarket matrix coordinate integer general\n1 2 1\n1 2 -7\n");
  EXPECT_EQ(io::read_matrix_market<C>(real, "r.mtx").values[0], C(-7, 0));  // real files read as complex
}

TEST(MatrixMarket, WriterRefusesAWrongSymmetryClaim) {
  std::vector<cs::CooEntry<C>> coo = {{0, 1, C(1, 1)}, {1, 0, C(1, 1)}};
  const auto a = cs::csr_from_coo(2, 2, coo);
  std::ostringstream out;
  EXPECT_NO_THROW(io::write_matrix_market(out, a, io::Symmetry::symmetric));
  EXPECT_THROW(io::write_matrix_market(out, a, io::Symmetry::hermitian), cs::Error);
  EXPECT_THROW(io::write_matrix_market(out, a, io::Symmetry::skew_symmetric), cs::Error);
  const auto b = cs::csr_from_coo(2, 2, std::vector<cs::CooEntry<C>>{{0, 1, C(1, 1)}});
  EXPECT_THROW(io::write_matrix_market(out, b, io::Symmetry::symmetric), cs::Error);
  std::ostringstream blocks;
  EXPECT_THROW(io::write_matrix_market(blocks, cs::HostCsr<B3>{}, io::Symmetry::hermitian), cs::Error);
}

TEST(MatrixMarket, MalformedFilesNameFileLineAndReason) {
  const std::string banner = "%%MatrixMarket matrix coordinate complex general\n";
  const std::pair<std::string, std::string> cases[] = {
      {"", "bad.mtx:0: empty file"},
      {"%%MatrixMarket matrix array complex general\n2 2\n", "bad.mtx:1: format 'array' is not supported"},
      {"%%MatrixMarket matrix coordinate octonion general\n", "bad.mtx:1: unknown field 'octonion'"},
      {"%%MatrixMarket matrix coordinate real hermitian\n", "bad.mtx:1: hermitian needs complex or quaternion"},
      {"%%MatrixMarket matrix coordinate quaternion general\n1 1 0\n", "bad.mtx:2: field 'quaternion' cannot be read"},
      {banner + "% only a comment\n", "bad.mtx:2: end of file before the size line"},
      {banner + "2 2\n", "bad.mtx:2: size line needs 3 integers"},
      {banner + "2 2 5\n", "bad.mtx:2: 5 entries do not fit a 2 x 2 matrix"},
      {banner + "3000000000 2 1\n", "does not fit 32-bit indices"},
      {banner + "2147483647 2147483647 0\n", "bad.mtx:2: size 2147483647 x 2147483647 is implausible for 0 entries"},
      {banner + "2 2 2\n1 1 1 0\n2 2 1\n", "bad.mtx:4: expected 4 fields, got 3"},
      {banner + "2 2 1\n1 3 1 0\n", "bad.mtx:3: column index '3' is not in [1, 2]"},
      {banner + "2 2 1\n0 1 1 0\n", "bad.mtx:3: row index '0' is not in [1, 2]"},
      {banner + "2 2 1\n1 1 1 x\n", "bad.mtx:3: 'x' is not a number"},
      {banner + "2 2 1\n1 1 1 1e999\n", "'1e999' is not a number"},
      {banner + "2 2 1\n1 1 1 0 0\n", "bad.mtx:3: expected 4 fields, got more"},
      {banner + "2 2 2\n1 1 1 0\n", "bad.mtx:3: end of file after 1 of the 2 declared entries"},
      {banner + "2 2 1\n1 1 1 0\n2 2 1 0\n", "bad.mtx:4: more entries than the 1 declared"},
      {"%%MatrixMarket matrix coordinate complex symmetric\n2 2 1\n1 2 1 0\n", "bad.mtx:3: entry (1, 2) is above"},
      {"%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n", "bad.mtx:3: skew-symmetric file stores"},
      {"%%MatrixMarket matrix coordinate complex symmetric\n2 3 0\n", "must be square"},
  };
  for (const auto& c : cases) EXPECT_NE(error_of_mm(c.first).find(c.second), std::string::npos) << error_of_mm(c.first);
  try {
    io::read_matrix_market<double>("/nonexistent/matrix.mtx");
    FAIL() << "expected an exception";
  } catch (const cs::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open '/nonexistent/matrix.mtx'"), std::string::npos);
  }
}

namespace {

// A 3 x 3 complex unsymmetric assembled matrix in Harwell-Boeing format,
//   [1+2i   0   -3.5i ]
//   [ 0     4     0   ]
//   [5-i    0   6+i/4 ]
// with value fields that touch ("5.0000E+00-1.0000E+00") and a D exponent.
const char* kHarwellBoeingCua =
    "Test matrix for the Harwell-Boeing reader                               TESTCUA \n"
    "             5             1             1             3             0\n"
    "CUA                        3             3             5             0\n"
    "(4I5)           (5I5)           (4E11.4)            (4E11.4)            \n"
    "    1    3    4    6\n"
    "    1    3    2    1    3\n"
    " 1.0000E+00 2.0000E+00 5.0000E+00-1.0000E+00\n"
    " 4.0000E+00 0.0000E+00 0.0000E+00-3.5000E+00\n"
    " 6.0000E+00 2.5000D-01\n";

std::string error_of_hb(const std::string& text) {
  return error_of(text, [](std::istream& in) { io::read_harwell_boeing<C>(in, "bad.cua"); });
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  return p == std::string::npos ? s : s.replace(p, from.size(), to);
}

}  // namespace

TEST(HarwellBoeing, ReadsComplexUnsymmetricAssembled) {
  std::istringstream in(kHarwellBoeingCua);
  const auto a = io::read_harwell_boeing<C>(in, "test.cua");
  EXPECT_EQ(a.num_rows, 3);
  EXPECT_EQ(a.num_cols, 3);
  EXPECT_EQ(a.row_offsets, (std::vector<int>{0, 2, 3, 5}));
  EXPECT_EQ(a.col_indices, (std::vector<int>{0, 2, 1, 0, 2}));
  EXPECT_EQ(a.values, (std::vector<C>{C(1, 2), C(0, -3.5), C(4, 0), C(5, -1), C(6, 0.25)}));
  // And exactly through Matrix Market.
  expect_identical(a, round_trip(a, io::Symmetry::general));
}

TEST(HarwellBoeing, ExpandsRealSymmetricAndPattern) {
  // [2 1; 1 3] stored as its lower triangle, and the pattern of [x 0; x x].
  std::istringstream rsa(
      "real symmetric                                                          RSA     \n"
      "             3             1             1             1\n"
      "RSA                        2             2             3             0\n"
      "(3I3)           (3I3)           (3F6.1)             \n"
      "  1  3  4\n"
      "  1  2  2\n"
      "   2.0   1.0   3.0\n");
  const auto s = io::read_harwell_boeing<double>(rsa, "s.rsa");
  EXPECT_EQ(s.row_offsets, (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(s.values, (std::vector<double>{2, 1, 1, 3}));
  std::istringstream pua(
      "pattern                                                                 PUA     \n"
      "             2             1             1             0\n"
      "PUA                        2             2             3             0\n"
      "(3I3)           (3I3)           \n"
      "  1  3  4\n"
      "  1  2  2\n");
  const auto p = io::read_harwell_boeing<double>(pua, "p.pua");
  EXPECT_EQ(p.col_indices, (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(p.values, (std::vector<double>{1, 1, 1}));
}

TEST(HarwellBoeing, MalformedFilesNameFileLineAndReason) {
  const std::string good = kHarwellBoeingCua;
  EXPECT_EQ(error_of_hb(good), "no exception");
  const std::pair<std::string, std::string> cases[] = {
      {"", "bad.cua:0: empty file"},
      {replace(good, "CUA    ", "CUE    "), "bad.cua:3: only assembled matrices"},
      {replace(good, "CUA    ", "XUA    "), "bad.cua:3: value type 'X'"},
      {replace(good, "(4I5)  ", "(4X5)  "), "bad.cua:4: format '(4X5)"},
      {replace(good, "(4E11.4)    ", "4E11.4      "), "bad.cua:4: format '4E11.4"},
      {replace(good, "    1    3    4    6", "    1    3    4    7"), "bad.cua:5: column pointers must run from 1"},
      {replace(good, "    1    3    4    6", "    1    4    3    6"), "bad.cua:5: column pointers decrease"},
      {replace(good, "    1    3    2    1    3", "    1    3    2    1    9"), "bad.cua:6: row index 9 of entry 5"},
      {replace(good, "    1    3    2    1    3", "    1    3    2    1    x"), "bad.cua:6: row indices: field 5"},
      {replace(good, " 6.0000E+00 2.5000D-01\n", ""), "bad.cua:8: end of file after 8 of 10 values"},
      {replace(good, "2.0000E+00", "2.0000Q+00"), "bad.cua:7: values: field 2 ' 2.0000Q+00' is not a number"},
      {replace(good, "             3             3             5", "             3             3            50"),
       "50 entries do not fit"},
  };
  for (const auto& c : cases) EXPECT_NE(error_of_hb(c.first).find(c.second), std::string::npos) << error_of_hb(c.first);
  std::istringstream complex(good);
  EXPECT_THROW(io::read_harwell_boeing<double>(complex, "c.cua"), cs::Error);  // complex file, real entries
}

// Issue 13: what a hostile probe found.

TEST(MatrixMarket, RejectsNonFiniteValues) {
  const std::string banner = "%%MatrixMarket matrix coordinate complex general\n";
  const std::pair<std::string, std::string> cases[] = {
      {banner + "2 2 1\n1 1 nan 0\n", "bad.mtx:3: 'nan' is not a finite number"},
      {banner + "2 2 1\n1 1 0 -inf\n", "bad.mtx:3: '-inf' is not a finite number"},
      {banner + "2 2 1\n1 1 Infinity 0\n", "bad.mtx:3: 'Infinity' is not a finite number"},
      // Each value is finite, their sum is not: the line of the duplicate that overflows.
      {banner + "2 2 3\n1 1 1e308 0\n2 2 1 0\n1 1 1e308 0\n",
       "bad.mtx:5: entry (1, 1): adding this duplicate makes its sum overflow"},
      {banner + "2 2 2\n2 1 0 -1.7e308\n2 1 0 -1.7e308\n", "bad.mtx:4: entry (2, 1): adding this duplicate"},
      // Stored (2, 1) of a symmetric file: named as stored, not as its mirror (1, 2).
      {"%%MatrixMarket matrix coordinate complex symmetric\n2 2 2\n2 1 1e308 0\n2 1 1e308 0\n",
       "bad.mtx:4: entry (2, 1): adding this duplicate"},
  };
  for (const auto& c : cases) EXPECT_NE(error_of_mm(c.first).find(c.second), std::string::npos) << error_of_mm(c.first);
  // Huge values that do not overflow, with and without duplicates, still read exactly.
  std::istringstream big(banner + "2 2 3\n1 1 1e308 0\n1 1 -1e308 0\n2 2 1.7976931348623157e308 0\n");
  const auto a = io::read_matrix_market<C>(big, "big.mtx");
  EXPECT_EQ(a.values, (std::vector<C>{C(0, 0), C(1.7976931348623157e308, 0)}));
  // A double that overflows a float component.
  std::istringstream to_float("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e300\n");
  EXPECT_THROW(io::read_matrix_market<float>(to_float, "f.mtx"), cs::IoError);
  std::istringstream quat("%%MatrixMarket matrix coordinate quaternion general\n1 1 1\n1 1 0 0 NaN 0\n");
  EXPECT_THROW(io::read_matrix_market<Q>(quat, "q.mtx"), cs::IoError);
}

TEST(MatrixMarket, WriterRefusesNonFiniteValues) {
  // What the reader refuses, the writer does not write (the file would not read back).
  cs::HostCsr<C> a = cs::csr_from_coo<C>(2, 2, {{0, 0, C(1, 0)}, {1, 0, C(0, std::nan(""))}});
  std::ostringstream out;
  try {
    io::write_matrix_market(out, a);
    ADD_FAILURE() << "NaN written";
  } catch (const cs::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("entry (2, 1) component 1 is nan"), std::string::npos) << e.what();
  }
  a.values[1] = C(std::numeric_limits<double>::infinity(), 0);
  EXPECT_THROW(io::write_matrix_market(out, a), cs::InvalidInput);
  a.values[1] = C(2, 3);
  EXPECT_NO_THROW(io::write_matrix_market(out, a));
}

TEST(HarwellBoeing, RejectsNonFiniteValues) {
  const std::string good = kHarwellBoeingCua;
  // Column 1 holds rows 1 and 1: a duplicate whose two halves are finite.
  const std::string duplicate =
      replace(replace(good, "    1    3    2    1    3", "    1    1    2    1    3"),
              " 1.0000E+00 2.0000E+00 5.0000E+00-1.0000E+00", "1.7000E+308 2.0000E+001.7000E+308-1.0000E+00");
  const std::pair<std::string, std::string> cases[] = {
      {replace(good, "2.0000E+00", "       NaN"), "bad.cua:7: values: field 2 '        NaN' is not a finite"},
      {replace(good, "-3.5000E+00", "  -Infinity"), "bad.cua:8: values: field 4 '  -Infinity' is not a finite"},
      {replace(good, " 6.0000E+00", "        inf"), "bad.cua:9: values: field 1 '        inf' is not a finite"},
      {duplicate, "bad.cua:7: entry (1, 1): adding this duplicate makes its sum overflow"},
  };
  for (const auto& c : cases) EXPECT_NE(error_of_hb(c.first).find(c.second), std::string::npos) << error_of_hb(c.first);
}

TEST(MatrixMarket, HermitianDiagonalMustBeReal) {
  const std::pair<std::string, std::string> cases[] = {
      {"%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n2 1 1 1\n2 2 3 0.5\n",
       "bad.mtx:4: diagonal entry (2, 2) of a hermitian matrix is not real (its imaginary part is not zero)"},
      {"%%MatrixMarket matrix coordinate complex hermitian\n1 1 1\n1 1 3 -1e-300\n",
       "bad.mtx:3: diagonal entry (1, 1)"},
  };
  for (const auto& c : cases) EXPECT_NE(error_of_mm(c.first).find(c.second), std::string::npos) << error_of_mm(c.first);
  const auto error_of_q = [](const std::string& text) {
    return error_of(text, [](std::istream& in) { io::read_matrix_market<Q>(in, "q.mtx"); });
  };
  const std::string quat = "%%MatrixMarket matrix coordinate quaternion hermitian\n1 1 1\n";
  EXPECT_NE(error_of_q(quat + "1 1 2 0 0 1\n")
                .find("q.mtx:3: diagonal entry (1, 1) of a hermitian matrix is not real "
                      "(its vector part is not zero)"),
            std::string::npos)
      << error_of_q(quat + "1 1 2 0 0 1\n");
  EXPECT_EQ(error_of_q(quat + "1 1 2 -0 0 0\n"), "no exception");  // -0 is zero
  // Symmetric (not hermitian) complex matrices may have any diagonal.
  EXPECT_EQ(error_of_mm("%%MatrixMarket matrix coordinate complex symmetric\n1 1 1\n1 1 3 0.5\n"), "no exception");
  // Harwell-Boeing CHA: the same rule.
  const std::string cha =
      "hermitian                                                               CHA     \n"
      "             4             1             1             2\n"
      "CHA                        2             2             2             0\n"
      "(3I3)           (3I3)           (2F6.1)             \n"
      "  1  3  3\n"
      "  1  2\n"
      "   2.0   0.0\n"
      "   1.0   1.0\n";
  EXPECT_EQ(error_of_hb(cha), "no exception");
  EXPECT_NE(
      error_of_hb(replace(cha, "   2.0   0.0", "   2.0   0.5")).find("bad.cua:7: diagonal entry (1, 1) of a hermitian"),
      std::string::npos)
      << error_of_hb(replace(cha, "   2.0   0.0", "   2.0   0.5"));
}

TEST(MatrixMarket, RejectsSizesTheFileCannotJustify) {
  // The probe's 77 bytes: 2^24 x 2^24 with one entry would need 64 MiB of row offsets
  // and, in every vector multiplied with it, hundreds more.
  const std::string probe = "%%MatrixMarket matrix coordinate complex general\n16777216 16777216 1\n1 1 1 0\n";
  EXPECT_NE(error_of_mm(probe).find("bad.mtx:2: size 16777216 x 16777216 is implausible for 1 entries: its row "
                                    "offsets alone would take 67108868 bytes"),
            std::string::npos)
      << error_of_mm(probe);
  std::istringstream probe_stream(probe);
  EXPECT_THROW(io::read_matrix_market<C>(probe_stream, "p.mtx"), cs::IoError);
  const std::string banner = "%%MatrixMarket matrix coordinate complex general\n";
  EXPECT_NE(error_of_mm(banner + "65537 1 0\n").find("implausible"), std::string::npos);
  EXPECT_NE(error_of_mm(banner + "1 65601 1\n1 1 1 0\n").find("implausible"), std::string::npos);
  // At the limit: 2^16 + 64 per entry rows and columns.
  EXPECT_EQ(error_of_mm(banner + "65536 65536 0\n"), "no exception");
  EXPECT_EQ(error_of_mm(banner + "65600 1 1\n1 1 1 0\n"), "no exception");
  EXPECT_EQ(error_of_mm(banner + "1000000 1000000 20000\n" +
                        [] {
                          std::string entries;
                          for (int i = 1; i <= 20000; ++i)
                            entries += std::to_string(i * 50) + " " + std::to_string(i) + " 1 0\n";
                          return entries;
                        }()),
            "no exception");
  // Harwell-Boeing: the same rule.
  const std::string good = kHarwellBoeingCua;
  EXPECT_NE(error_of_hb(replace(good, "CUA                        3", "CUA                 16777216"))
                .find("bad.cua:3: size 16777216 x 3 is implausible for 5 entries"),
            std::string::npos);
}

TEST(Parsers, ErrorsNameTheirSource) {
  // A directory is not an empty file.
  for (const auto& read : {+[](const std::string& p) { io::read_matrix_market<C>(p); },
                           +[](const std::string& p) { io::read_harwell_boeing<C>(p); },
                           +[](const std::string& p) { io::read_matrix_market_header(p); }}) {
    try {
      read(::testing::TempDir());
      FAIL() << "expected an exception";
    } catch (const cs::IoError& e) {
      EXPECT_NE(std::string(e.what()).find("it is a directory, not a file"), std::string::npos) << e.what();
    }
  }
  // A UTF-8 byte-order mark is skipped (documented in docs/zoo.md).
  std::istringstream bom("\xEF\xBB\xBF%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 2 3\n");
  EXPECT_EQ(io::read_matrix_market<C>(bom, "bom.mtx").values, (std::vector<C>{C(2, 3)}));
  std::istringstream hb_bom("\xEF\xBB\xBF" + std::string(kHarwellBoeingCua));
  EXPECT_EQ(io::read_harwell_boeing<C>(hb_bom, "bom.cua").num_entries(), 5u);
  // ... but only at the start of the file.
  EXPECT_NE(error_of_mm("%%MatrixMarket matrix coordinate complex general\n\xEF\xBB\xBF"
                        "1 1 1\n")
                .find("bad.mtx:2: '\\xef\\xbb\\xbf1' is not a non-negative integer"),
            std::string::npos);
  // Binary garbage is quoted with its bytes escaped and cut short.
  const std::string garbage =
      "%%MatrixMarket matrix coordinate " + std::string("\x01\xff\x00z", 4) + std::string(1000, '\x80') + " general\n";
  const std::string message = error_of_mm(garbage);
  EXPECT_NE(message.find("bad.mtx:1: unknown field '\\x01\\xff\\x00z\\x80\\x80"), std::string::npos) << message;
  EXPECT_NE(message.find("\\x80...'"), std::string::npos) << message;
  EXPECT_LT(message.size(), 300u) << message;
  for (const char ch : message) EXPECT_TRUE(ch >= 0x20 && ch < 0x7f) << message;
  const std::string banner_garbage = std::string(500, '\xfe') + "\n";
  const std::string banner_message = error_of_mm(banner_garbage);
  EXPECT_LT(banner_message.size(), 600u) << banner_message;
  for (const char ch : banner_message) EXPECT_TRUE(ch >= 0x20 && ch < 0x7f) << banner_message;
  std::string hb = replace(kHarwellBoeingCua, "2.0000E+00", "2.00\x07\xff\x1b[2J");
  EXPECT_NE(error_of_hb(hb).find("bad.cua:7: values: field 2 ' 2.00\\x07\\xff\\x1b[2J' is not a number"),
            std::string::npos)
      << error_of_hb(hb);
  EXPECT_EQ(io::quote(std::string("a\\b\n", 4)), "'a\\x5cb\\x0a'");
  EXPECT_EQ(io::quote(std::string(50, 'x')), "'" + std::string(40, 'x') + "...'");
}

// ---- binary CSR (.csrb), the xl zoo's format ------------------------------------

namespace {

std::string binary_path(const std::string& name) {
  return ::testing::TempDir() + "compound_sparse_" + name + ".csrb";
}

/// The bytes of the file at `path`.
std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

/// The reason of the error reading `path` as Entry, or "" if it reads.
template <class Entry>
std::string binary_read_error(const std::string& path) {
  try {
    io::read_binary_csr<Entry>(path);
  } catch (const cs::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(BinaryCsr, RoundTripIsExactForEveryEntryType) {
  std::mt19937 rng(21);
  const auto trip = [&](const auto& a, const std::string& name) {
    using Entry = typename std::decay_t<decltype(a)>::entry_type;
    const std::string path = binary_path(name);
    io::write_binary_csr(path, a);
    expect_identical(a, io::read_binary_csr<Entry>(path));
    std::remove(path.c_str());
  };
  trip(random_matrix<C>(37, 53, rng), "complex");
  trip(random_matrix<Q>(20, 20, rng), "quaternion");
  trip(random_matrix<B3>(33, 7, rng), "block3");
  trip(cs::HostCsr<C>{}, "empty");  // 0 x 0
  cs::HostCsr<C> no_entries;        // rows, no non-zeros
  no_entries.num_rows = 5;
  no_entries.num_cols = 3;
  no_entries.row_offsets.assign(6, 0);
  trip(no_entries, "no_entries");
}

TEST(BinaryCsr, FloatReadRoundsTheStoredDoubles) {
  cs::HostCsr<C> a;
  a.num_rows = a.num_cols = 1;
  a.row_offsets = {0, 1};
  a.col_indices = {0};
  a.values = {C(0.1, -1.0 / 3)};
  const std::string path = binary_path("float");
  io::write_binary_csr(path, a);
  const auto f = io::read_binary_csr<Kokkos::complex<float>>(path);
  EXPECT_EQ(f.values[0].real(), 0.1f);
  EXPECT_EQ(f.values[0].imag(), static_cast<float>(-1.0 / 3));
  a.values = {C(1e300, 0)};  // finite in double, not in float
  io::write_binary_csr(path, a);
  EXPECT_NE(binary_read_error<Kokkos::complex<float>>(path).find("non-zero 0 is not finite in this precision"),
            std::string::npos);
  std::remove(path.c_str());
}

TEST(BinaryCsr, CorruptFilesNameFileAndReason) {
  std::mt19937 rng(22);
  const auto a = random_matrix<C>(10, 12, rng);
  const std::string good = binary_path("good"), bad = binary_path("bad");
  io::write_binary_csr(good, a);
  const std::string bytes = file_bytes(good);
  const std::size_t offsets_at = 40, cols_at = offsets_at + 4 * 11;
  const auto expect_error = [&](const std::string& corrupt, const std::string& reason) {
    write_bytes(bad, corrupt);
    const std::string error = binary_read_error<C>(bad);
    EXPECT_NE(error.find(bad + ": "), std::string::npos) << "got: " << error;
    EXPECT_NE(error.find(reason), std::string::npos) << "got: " << error;
  };
  expect_error("%%MatrixMarket matrix coordinate complex general\n", "not a CompoundSparse binary CSR file");
  expect_error(bytes.substr(0, 20), "the file ends inside its 40-byte header");
  expect_error(bytes.substr(0, bytes.size() - 1), "the file is " + std::to_string(bytes.size() - 1) + " bytes");
  expect_error(bytes + "x", "(truncated or corrupt)");
  auto set_int = [&](std::string b, std::size_t at, std::int32_t v) {
    std::memcpy(&b[at], &v, 4);
    return b;
  };
  expect_error(set_int(bytes, 8, 4), "its entries have 4 components, the entry type has 2");
  expect_error(set_int(bytes, 12, 4), "its components are 4 bytes, the format's are 8");
  std::string negative = bytes;
  const std::int64_t minus = -1;
  std::memcpy(&negative[16], &minus, 8);
  expect_error(negative, "outside 0 .. 2^31 - 1");
  expect_error(set_int(bytes, offsets_at + 4 * 3, 1000), "row_offsets decrease");
  expect_error(set_int(bytes, cols_at, 12), "column index");
  expect_error(set_int(bytes, cols_at, -1), "column index");
  std::string nan = bytes;
  const double not_a_number = std::nan("");
  std::memcpy(&nan[cols_at + 4 * a.num_entries()], &not_a_number, 8);
  expect_error(nan, "non-zero 0 is not finite");
  EXPECT_EQ(binary_read_error<C>(good), "");
  EXPECT_NE(binary_read_error<C>(binary_path("missing")).find("cannot open"), std::string::npos);
  std::remove(good.c_str());
  std::remove(bad.c_str());
}
