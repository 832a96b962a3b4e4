#pragma once
// Mixed precision: entries stored in single precision, products computed in double.
//
//   SparseMatrix<Mixed<Kokkos::complex<float>>, Csr, Aos, Memory> a = to_device<...>(host);
//   CompoundVector<Kokkos::complex<double>, Aos, Memory> x, y;   // double vectors
//   spmv(schedule, alpha /* complex<double> */, a, x, beta, y);
//
// Mixed<Entry> is an entry type like any other (entry_traits.hpp): the matrix keeps
// Entry's float components, so it streams float's bytes, while x, y, alpha, beta and
// every product and sum are in Entry's double counterpart. Each entry is widened to
// double in the kernel's multiply-add, where the multiply happens anyway, so every
// layout, schedule and tuning path of the library serves it unchanged, and the
// variant space declares it as the precision "mixed" (complex_mixed, ...).
//
// Accuracy: widening a float to double is exact, so y is the double product of the
// stored (rounded) matrix: against a double reference of that matrix its error is
// double's, not float's. That is what iterative refinement wants from its inner
// product with a float copy of A.

#include <Kokkos_Core.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "../layouts/host_csr.hpp"
#include "../products/reference.hpp"  // convert_components
#include "components.hpp"
#include "entry_traits.hpp"

namespace compound_sparse {

/// An entry stored as Entry (single precision) that multiplies in double.
template <class Entry>
struct Mixed {
  static_assert(std::is_same<typename component_traits<Entry>::scalar_type, float>::value,
                "Mixed<Entry>: Entry stores float components (its double counterpart computes)");
  Entry stored;
};

template <class T>
struct is_mixed_precision : std::false_type {};
template <class Entry>
struct is_mixed_precision<Mixed<Entry>> : std::true_type {};
template <class T>
inline constexpr bool is_mixed_precision_v = is_mixed_precision<T>::value;

/// The stored components, read and written as Entry's.
template <class Entry>
struct component_traits<Mixed<Entry>> {
  using stored_traits = component_traits<Entry>;
  using scalar_type = typename stored_traits::scalar_type;
  static constexpr int size = stored_traits::size;
  KOKKOS_INLINE_FUNCTION static scalar_type& get(Mixed<Entry>& m, int c) { return stored_traits::get(m.stored, c); }
  KOKKOS_INLINE_FUNCTION static scalar_type get(const Mixed<Entry>& m, int c) {
    return stored_traits::get(m.stored, c);
  }
};

/// Vectors, coefficients and arithmetic of Entry's double counterpart; the entry is
/// widened to it inside multiply_add. rebind gives Entry's own rebinds, so the double
/// reference of a Mixed<complex<float>> matrix is the complex<double> one.
template <class Entry>
struct entry_traits<Mixed<Entry>> {
  using wide_entry = typename entry_traits<Entry>::template rebind<double>;
  using wide = entry_traits<wide_entry>;
  using vector_type = typename wide::vector_type;
  using coefficient_type = typename wide::coefficient_type;
  template <class S>
  using rebind = typename entry_traits<Entry>::template rebind<S>;

  /// The entry in double: exact, component by component.
  KOKKOS_INLINE_FUNCTION static wide_entry widen(const Mixed<Entry>& a) {
    using stored_traits = component_traits<Entry>;
    wide_entry w;
    for (int c = 0; c < stored_traits::size; ++c)
      component_traits<wide_entry>::get(w, c) = static_cast<double>(stored_traits::get(a.stored, c));
    return w;
  }
  KOKKOS_INLINE_FUNCTION static vector_type zero() { return wide::zero(); }
  KOKKOS_INLINE_FUNCTION static void multiply_add(vector_type& acc, const Mixed<Entry>& a, const vector_type& x) {
    wide::multiply_add(acc, widen(a), x);
  }
  KOKKOS_INLINE_FUNCTION static vector_type scale(const coefficient_type& alpha, const vector_type& v) {
    return wide::scale(alpha, v);
  }
  KOKKOS_INLINE_FUNCTION static vector_type add(const vector_type& u, const vector_type& v) { return wide::add(u, v); }
};

/// The single-precision storage of `a` for mixed-precision products: every entry
/// rounded to float (the nearest float, component by component). InvalidInput, naming the
/// first such entry, for a component that is not finite or lies outside float's range:
/// rounded, it would be an infinity that turns the product into NaN.
template <class WideEntry>
HostCsr<Mixed<typename entry_traits<WideEntry>::template rebind<float>>> to_mixed(const HostCsr<WideEntry>& a) {
  using stored = typename entry_traits<WideEntry>::template rebind<float>;
  using traits = component_traits<WideEntry>;
  validate(a, "to_mixed");
  for (int r = 0; r < a.num_rows; ++r)
    for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
      for (int c = 0; c < traits::size; ++c) {
        const double v = static_cast<double>(traits::get(a.values[k], c));
        COMPOUND_SPARSE_REQUIRE(
            std::isfinite(v) && std::abs(v) <= static_cast<double>(std::numeric_limits<float>::max()),
            "to_mixed: entry " << k << " (row " << r << ", column " << a.col_indices[k] << ") component " << c << " is "
                               << v
                               << (std::isfinite(v) ? ", outside float's range (magnitude at most "
                                                    : ", not a finite number (float's range: "
                                                      "magnitude at most ")
                               << std::numeric_limits<float>::max() << ")");
      }
  return map_entries(a, [](const WideEntry& e) { return convert_components<Mixed<stored>>(e); });
}

/// The double matrix that a mixed-precision matrix multiplies as: every stored entry
/// widened exactly (what a double product of the same rounded matrix uses).
template <class Entry>
HostCsr<typename entry_traits<Mixed<Entry>>::wide_entry> widened(const HostCsr<Mixed<Entry>>& a) {
  validate(a, "widened");
  return map_entries(a, [](const Mixed<Entry>& e) { return entry_traits<Mixed<Entry>>::widen(e); });
}

/// The name of an entry type's precision in variant names, the zoo and the tuning
/// database: "float", "double" or "mixed".
template <class Entry>
std::string precision_name() {
  if constexpr (is_mixed_precision_v<Entry>)
    return "mixed";
  else
    return std::is_same<typename component_traits<Entry>::scalar_type, float>::value ? "float" : "double";
}

}  // namespace compound_sparse
