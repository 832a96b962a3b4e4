#pragma once
// How each entry type is spelled in a Matrix Market file, and how a stored
// triangle is mirrored. This is the one place that knows the file convention
// for compound entries (docs/zoo.md describes it for people):
//
//   %%MatrixMarket matrix coordinate <field> <symmetry>
//   rows cols entries              (counted in compound entries: block rows, blocks)
//   i j c_0 c_1 ... c_{k-1}        (1-based; the k components in component_traits order)
//
// field: real | integer | pattern | complex (standard, k = 1, 1, 0, 2), and the
// CompoundSparse extensions quaternion (k = 4: w x y z) and block<E> (k = E*E,
// the block row-major), e.g. block3. Standard readers reject the extension fields
// instead of misreading them, which is why they are new field names rather than
// extra columns under "real".
// symmetry: general | symmetric | skew-symmetric | hermitian. A non-general file
// stores the lower triangle (i >= j; i > j for skew-symmetric) and the reader adds
// A(j,i) = mirror(A(i,j)): symmetric A_ij^T, skew-symmetric -A_ij^T, hermitian
// the conjugate transpose (complex and quaternion entries only). ^T transposes a
// block; scalars, complex numbers and quaternions are their own transpose.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "../entries/block.hpp"
#include "../entries/components.hpp"
#include "../entries/mixed_precision.hpp"
#include "../entries/quaternion.hpp"
#include "../error.hpp"
#include "../layouts/host_csr.hpp"

namespace compound_sparse {
namespace io {

enum class Symmetry { general, symmetric, skew_symmetric, hermitian };

inline const char* to_string(Symmetry s) {
  switch (s) {
    case Symmetry::symmetric:
      return "symmetric";
    case Symmetry::skew_symmetric:
      return "skew-symmetric";
    case Symmetry::hermitian:
      return "hermitian";
    default:
      return "general";
  }
}

/// Per entry type: the Matrix Market field it is written as, which fields it can
/// be read from, and the two component maps that define mirroring.
/// transpose(c): the component of A that lands in component c of A^T.
/// conjugate_negates(c): whether conjugation flips the sign of component c.
template <class Entry>
struct mm_field;  // not defined: specialise it to read and write your entry type

template <>
struct mm_field<double> {
  static std::string name() { return "real"; }
  static bool readable_from(const std::string& f) { return f == "real" || f == "integer" || f == "pattern"; }
  static bool has_conjugate() { return false; }
  static int transpose(int c) { return c; }
  static bool conjugate_negates(int) { return false; }
};

/// Single precision reads and writes the same files (values rounded on reading).
template <>
struct mm_field<float> : mm_field<double> {};

template <class T>
struct mm_field<Kokkos::complex<T>> {
  static std::string name() { return "complex"; }
  static bool readable_from(const std::string& f) {
    return f == "complex" || f == "real" || f == "integer" || f == "pattern";
  }
  static bool has_conjugate() { return true; }
  static int transpose(int c) { return c; }
  static bool conjugate_negates(int c) { return c == 1; }
};

template <class T>
struct mm_field<Quaternion<T>> {
  static std::string name() { return "quaternion"; }
  static bool readable_from(const std::string& f) { return f == "quaternion"; }
  static bool has_conjugate() { return true; }
  static int transpose(int c) { return c; }
  static bool conjugate_negates(int c) { return c != 0; }
};

template <class T, int E>
struct mm_field<Block<T, E>> {
  static std::string name() { return "block" + std::to_string(E); }
  static bool readable_from(const std::string& f) { return f == name(); }
  static bool has_conjugate() { return false; }  // real blocks: hermitian would just be symmetric
  static int transpose(int c) { return (c % E) * E + c / E; }
  static bool conjugate_negates(int) { return false; }
};

/// Mixed precision reads and writes the files of its stored entry type.
template <class Entry>
struct mm_field<Mixed<Entry>> : mm_field<Entry> {};

/// Number of values a data line of `field` carries per entry (0 for pattern).
inline int mm_field_components(const std::string& field) {
  if (field == "pattern") return 0;
  if (field == "real" || field == "integer") return 1;
  if (field == "complex") return 2;
  if (field == "quaternion") return 4;
  if (field.size() > 5 && field.compare(0, 5, "block") == 0 && field.size() <= 7) {
    int e = 0;
    for (std::size_t i = 5; i < field.size(); ++i) {
      if (field[i] < '0' || field[i] > '9') return -1;
      e = e * 10 + (field[i] - '0');
    }
    return e >= 1 && e <= 16 ? e * e : -1;
  }
  return -1;
}

/// The entry stored at (j, i) when `a` is stored at (i, j) in a matrix of symmetry `s`.
template <class Entry>
Entry mirror(const Entry& a, Symmetry s) {
  using traits = component_traits<Entry>;
  using field = mm_field<Entry>;
  Entry m = a;
  for (int c = 0; c < traits::size; ++c) {
    auto v = traits::get(a, field::transpose(c));
    if (s == Symmetry::skew_symmetric || (s == Symmetry::hermitian && field::conjugate_negates(c))) v = -v;
    traits::get(m, c) = v;
  }
  return m;
}

/// Exact (bitwise for finite values) equality of two entries, component by component.
template <class Entry>
bool same_entry(const Entry& a, const Entry& b) {
  using traits = component_traits<Entry>;
  for (int c = 0; c < traits::size; ++c)
    if (!(traits::get(a, c) == traits::get(b, c))) return false;
  return true;
}

/// Whether every component of `a` is finite (no NaN, no infinity).
template <class Entry>
bool finite_entry(const Entry& a) {
  using traits = component_traits<Entry>;
  for (int c = 0; c < traits::size; ++c)
    if (!std::isfinite(static_cast<double>(traits::get(a, c)))) return false;
  return true;
}

/// Whether `a` may sit on the diagonal of a matrix of symmetry `s`: A(i,i) =
/// mirror(A(i,i)), i.e. a real diagonal for hermitian matrices (zero imaginary part
/// of a complex number, zero vector part of a quaternion).
template <class Entry>
bool valid_diagonal(const Entry& a, Symmetry s) {
  return s != Symmetry::hermitian || same_entry(a, mirror(a, s));
}

/// csr_from_coo for entries read from a file whose values are all finite, where
/// lines[i] is the line entry i came from. Summing duplicates can still overflow
/// (two entries of 1e308): that throws IoError naming the entry and the line where
/// its sum stopped being finite, instead of storing an infinity.
template <class Entry>
HostCsr<Entry> csr_from_file_entries(const std::string& source, int rows, int cols, std::vector<CooEntry<Entry>> coo,
                                     const std::vector<long>& lines) {
  using traits = component_traits<Entry>;
  // No sum of a subset can overflow while the sum of all magnitudes stays below half
  // the largest component value (the factor 2 covers rounding of up to 2^31
  // additions); only beyond it are the duplicates grouped, so that normal files pay
  // one pass over the values. (Long double would not help: it may be double.)
  const double largest = static_cast<double>(std::numeric_limits<typename traits::scalar_type>::max());
  double magnitude = 0;
  for (const auto& e : coo)
    for (int c = 0; c < traits::size; ++c) magnitude += std::abs(static_cast<double>(traits::get(e.value, c)));
  if (!(magnitude <= largest / 2)) {
    // Sum in csr_from_coo's order: a stable sort by position keeps the file order of duplicates.
    std::vector<std::size_t> order(coo.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return coo[a].row != coo[b].row ? coo[a].row < coo[b].row : coo[a].col < coo[b].col;
    });
    std::size_t worst = coo.size();  // the overflow at the earliest line (a stored, not mirrored, entry on ties)
    Entry sum = coo.front().value;   // not empty: the magnitudes add up to something
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto& e = coo[order[i]];
      const bool duplicate = i > 0 && coo[order[i - 1]].row == e.row && coo[order[i - 1]].col == e.col;
      sum = duplicate ? add_components(sum, e.value) : e.value;
      if (duplicate && !finite_entry(sum) &&
          (worst == coo.size() || lines[order[i]] < lines[worst] ||
           (lines[order[i]] == lines[worst] && e.row >= e.col)))
        worst = order[i];
    }
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, worst == coo.size(),
                                 source << ":" << lines[worst] << ": entry (" << coo[worst].row + 1 << ", "
                                        << coo[worst].col + 1
                                        << "): adding this duplicate makes its sum overflow (not finite)");
  }
  return csr_from_coo(rows, cols, std::move(coo));
}

}  // namespace io
}  // namespace compound_sparse
