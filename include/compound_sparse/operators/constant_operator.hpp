#pragma once
// A small operator known before the run and applied to very wide panels, C <- alpha A B + beta C:
// the interpolation and differentiation matrices of high-order flux-reconstruction and DG
// solvers (the GiMMiK method). ConstantOperator holds A on the host, checked once. What the
// kernels apply is its real expansion: every entry written as the real matrix by which it acts
// on a vector's components, with alpha folded in and zeros dropped. A complex, quaternion or
// block operator then costs only the products its non-zero components need, and one real
// kernel serves every entry type, a user's included.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "../entries/entry_traits.hpp"
#include "../error.hpp"
#include "../io/compound_format.hpp"  // io::mm_field: the entry type's name

namespace compound_sparse {

/// How an operator entry acts on a panel's vectors: entry_traits for compound entries; a real
/// scalar acts on real vectors by multiplication.
template <class Entry, class Enable = void>
struct operator_entry_traits {
  using vector_type = vector_type_t<Entry>;
  using coefficient_type = coefficient_type_t<Entry>;
  static vector_type act(const Entry& a, const vector_type& x) {
    vector_type y = entry_traits<Entry>::zero();
    entry_traits<Entry>::multiply_add(y, a, x);
    return y;
  }
  static vector_type scale(const coefficient_type& s, const vector_type& v) { return entry_traits<Entry>::scale(s, v); }
  static std::string name() { return io::mm_field<typename entry_traits<Entry>::template rebind<double>>::name(); }
};
template <class T>
struct operator_entry_traits<T, std::enable_if_t<std::is_floating_point<T>::value>> {
  using vector_type = T;
  using coefficient_type = T;
  static T act(T a, T x) { return a * x; }
  static T scale(T s, T v) { return s * v; }
  static std::string name() { return "real"; }
};

/// An operator's real expansion: (rows x components) by (cols x components) reals, row r's
/// non-zeros in row_offsets[r]..row_offsets[r+1], columns ascending. Row i * components + c
/// is component c of the operator's row i; so is the panel's row (panel.hpp).
template <class Scalar>
struct ExpandedOperator {
  int rows = 0;
  int cols = 0;
  int components = 1;  ///< of a panel's vector
  std::vector<int> row_offsets;
  std::vector<int> col_indices;
  std::vector<Scalar> values;
  std::int64_t nonzeros() const { return static_cast<std::int64_t>(values.size()); }
};

template <class Entry>
class ConstantOperator {
 public:
  using entry_type = Entry;
  using traits = operator_entry_traits<Entry>;
  using vector_type = typename traits::vector_type;
  using coefficient_type = typename traits::coefficient_type;
  using scalar_type = typename component_traits<Entry>::scalar_type;
  static constexpr int components = component_traits<vector_type>::size;

  /// A rows x cols operator from its entries in row-major order. Throws InvalidInput, naming
  /// the reason, for sizes below 1, a values vector of another length, or an entry with a
  /// component that is not finite (its row, column and component).
  ConstantOperator(int rows, int cols, std::vector<Entry> row_major) : rows_(rows), cols_(cols) {
    COMPOUND_SPARSE_REQUIRE(
        rows >= 1 && cols >= 1,
        "constant operator: " << rows << " x " << cols << " is no operator size (both must be >= 1)");
    const std::int64_t expected = static_cast<std::int64_t>(rows) * cols;
    COMPOUND_SPARSE_REQUIRE(static_cast<std::int64_t>(row_major.size()) == expected,
                            "constant operator: " << row_major.size() << " values given for a " << rows << " x " << cols
                                                  << " operator, which has " << expected);
    COMPOUND_SPARSE_REQUIRE(
        expected * components * components <= std::numeric_limits<int>::max(),
        "constant operator: " << rows << " x " << cols << " is too large for its expansion's 32-bit offsets");
    using entry_components = component_traits<Entry>;
    for (std::int64_t k = 0; k < expected; ++k)
      for (int c = 0; c < entry_components::size; ++c) {
        const auto value = entry_components::get(row_major[k], c);
        COMPOUND_SPARSE_REQUIRE(std::isfinite(value), "constant operator: entry (" << k / cols << ", " << k % cols
                                                                                   << ") component " << c << " is "
                                                                                   << value << ", not a finite number");
      }
    values_ = std::move(row_major);
  }

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  const Entry& operator()(int i, int j) const { return values_[static_cast<std::size_t>(i) * cols_ + j]; }
  const std::vector<Entry>& values() const { return values_; }

  /// Entries with a non-zero component.
  std::int64_t entry_nonzeros() const {
    std::int64_t n = 0;
    for (const auto& v : values_) n += is_zero_entry(v) ? 0 : 1;
    return n;
  }
  double density() const { return static_cast<double>(entry_nonzeros()) / static_cast<double>(values_.size()); }

  /// The real expansion of alpha A (see ExpandedOperator): entry (i, j) becomes the matrix
  /// whose column b is alpha * (A_ij e_b), e_b the b-th unit vector of a panel's vector, and
  /// only its non-zeros are kept.
  ExpandedOperator<scalar_type> expand(const coefficient_type& alpha) const {
    using vector_components = component_traits<vector_type>;
    ExpandedOperator<scalar_type> e;
    e.rows = rows_ * components;
    e.cols = cols_ * components;
    e.components = components;
    e.row_offsets.assign(static_cast<std::size_t>(e.rows) + 1, 0);
    std::vector<vector_type> columns(components);  // alpha A_ij e_b for b = 0..components-1
    for (int i = 0; i < rows_; ++i) {
      std::vector<std::vector<std::pair<int, scalar_type>>> row(components);
      for (int j = 0; j < cols_; ++j) {
        const Entry& a = (*this)(i, j);
        if (is_zero_entry(a)) continue;
        for (int b = 0; b < components; ++b) {
          vector_type unit{};
          for (int c = 0; c < components; ++c) vector_components::get(unit, c) = scalar_type(c == b ? 1 : 0);
          columns[b] = traits::scale(alpha, traits::act(a, unit));
        }
        for (int c = 0; c < components; ++c)
          for (int b = 0; b < components; ++b) {
            const scalar_type v = vector_components::get(columns[b], c);
            if (v != scalar_type(0)) row[c].emplace_back(j * components + b, v);
          }
      }
      for (int c = 0; c < components; ++c) {
        const int r = i * components + c;
        for (const auto& [col, v] : row[c]) {
          e.col_indices.push_back(col);
          e.values.push_back(v);
        }
        e.row_offsets[r + 1] = static_cast<int>(e.values.size());
      }
    }
    return e;
  }

  /// The real matrix (components x components, row-major) by which a coefficient s scales a
  /// panel's vector: column q is s e_q. The kernels apply beta this way.
  static std::vector<scalar_type> coefficient_matrix(const coefficient_type& s) {
    using vector_components = component_traits<vector_type>;
    std::vector<scalar_type> m(static_cast<std::size_t>(components) * components);
    for (int q = 0; q < components; ++q) {
      vector_type unit{};
      for (int c = 0; c < components; ++c) vector_components::get(unit, c) = scalar_type(c == q ? 1 : 0);
      const vector_type scaled = traits::scale(s, unit);
      for (int c = 0; c < components; ++c)
        m[static_cast<std::size_t>(c) * components + q] = vector_components::get(scaled, c);
    }
    return m;
  }

  /// A hash of the entry type, the shape and every value's bits (FNV-1a, 64 bits): the key of
  /// the operator's compiled kernels and of its tuning records.
  std::uint64_t hash() const {
    std::uint64_t h = 1469598103934665603ull;
    const auto mix = [&h](const void* data, std::size_t bytes) {
      const auto* p = static_cast<const unsigned char*>(data);
      for (std::size_t k = 0; k < bytes; ++k) h = (h ^ p[k]) * 1099511628211ull;
    };
    const std::string type = traits::name() + (sizeof(scalar_type) == 4 ? "_float" : "_double");
    mix(type.data(), type.size());
    mix(&rows_, sizeof rows_);
    mix(&cols_, sizeof cols_);
    mix(values_.data(), values_.size() * sizeof(Entry));
    return h;
  }

 private:
  static bool is_zero_entry(const Entry& a) {
    using entry_components = component_traits<Entry>;
    for (int c = 0; c < entry_components::size; ++c)
      if (entry_components::get(a, c) != 0) return false;
    return true;
  }

  int rows_ = 0;
  int cols_ = 0;
  std::vector<Entry> values_;
};

/// The operator's entries from a real matrix (row-major): each real value v as the entry
/// that acts as v times the identity (a complex or quaternion of real part v, a block v I).
template <class Entry>
ConstantOperator<Entry> constant_operator_from_real(int rows, int cols, const std::vector<double>& row_major) {
  using entry_components = component_traits<Entry>;
  using scalar = typename entry_components::scalar_type;
  std::vector<Entry> values(row_major.size());
  for (std::size_t k = 0; k < row_major.size(); ++k) {
    Entry e{};
    if constexpr (entry_components::size == 1) {
      entry_components::get(e, 0) = static_cast<scalar>(row_major[k]);
    } else {
      // The identity's components: the entry whose action on every unit vector is that vector.
      const int n = component_traits<typename operator_entry_traits<Entry>::vector_type>::size;
      const bool square_block = entry_components::size == n * n && n > 1 &&
                                !std::is_same<Entry, typename operator_entry_traits<Entry>::vector_type>::value;
      for (int c = 0; c < entry_components::size; ++c)
        entry_components::get(e, c) =
            static_cast<scalar>((square_block ? (c / n == c % n) : (c == 0)) ? row_major[k] : 0.0);
    }
    values[k] = e;
  }
  return ConstantOperator<Entry>(rows, cols, std::move(values));
}

}  // namespace compound_sparse
