#pragma once
// Type-erased device matrices and vectors: a SparseMatrix or CompoundVector of
// any layout behind one type, so that run-time code (the tuner, the tuning
// database's selection, benchmarks) can hold "the matrix in the chosen layout"
// without knowing that layout at compile time. The typed object is recovered
// with get<...>(), which throws if the layout differs.

#include <any>
#include <string>
#include <vector>

#include "../error.hpp"
#include "../layouts/compound_vector.hpp"
#include "../layouts/refresh.hpp"
#include "../layouts/sparse_matrix.hpp"

namespace compound_sparse {

template <class Entry, class MemorySpace>
class AnyMatrix {
 public:
  AnyMatrix() = default;
  template <class Outer, class Inner>
  explicit AnyMatrix(SparseMatrix<Entry, Outer, Inner, MemorySpace> m)
      : layout_(Outer::name() + "." + Inner::name()),
        num_rows_(m.num_rows),
        num_cols_(m.num_cols),
        bytes_(compound_sparse::memory_bytes(m)),
        refresh_(&refresh_typed<Outer, Inner>),
        matrix_(std::move(m)) {}

  template <class Outer, class Inner>
  const SparseMatrix<Entry, Outer, Inner, MemorySpace>& get() const {
    const auto* m = std::any_cast<SparseMatrix<Entry, Outer, Inner, MemorySpace>>(&matrix_);
    COMPOUND_SPARSE_REQUIRE(
        m != nullptr, "matrix is stored as '" << layout_ << "', not '" << Outer::name() << "." << Inner::name() << "'");
    return *m;
  }

  const std::string& layout() const { return layout_; }  ///< "<outer>.<inner>", VariantKey::layout_name()
  int num_rows() const { return num_rows_; }
  int num_cols() const { return num_cols_; }
  std::size_t memory_bytes() const { return bytes_; }
  bool empty() const { return !matrix_.has_value(); }
  /// refresh_values (refresh.hpp) on the stored matrix: new values in the order of the CSR
  /// it was built from, the pattern kept.
  void refresh_values(const Kokkos::View<const Entry*, MemorySpace>& values) const {
    COMPOUND_SPARSE_REQUIRE(refresh_ != nullptr, "refresh_values of an empty AnyMatrix");
    refresh_(matrix_, values);
  }

 private:
  template <class Outer, class Inner>
  static void refresh_typed(const std::any& m, const Kokkos::View<const Entry*, MemorySpace>& values) {
    compound_sparse::refresh_values(*std::any_cast<SparseMatrix<Entry, Outer, Inner, MemorySpace>>(&m), values);
  }

  std::string layout_;
  int num_rows_ = 0;
  int num_cols_ = 0;
  std::size_t bytes_ = 0;
  void (*refresh_)(const std::any&, const Kokkos::View<const Entry*, MemorySpace>&) = nullptr;
  std::any matrix_;
};

template <class Value, class MemorySpace>
class AnyVector {
 public:
  using scalar_type = typename component_traits<Value>::scalar_type;
  /// A reference result in double, [value][component], on the vector's memory space.
  using reference_view = Kokkos::View<const double**, Kokkos::LayoutRight, MemorySpace>;

  AnyVector() = default;
  template <class Inner>
  explicit AnyVector(CompoundVector<Value, Inner, MemorySpace> v)
      : layout_(Inner::name()),
        size_(v.size()),
        to_host_(&copy_to_host<Inner>),
        fill_(&fill_typed<Inner>),
        distance_(&distance_typed<Inner>),
        vector_(std::move(v)) {}

  template <class Inner>
  const CompoundVector<Value, Inner, MemorySpace>& get() const {
    const auto* v = std::any_cast<CompoundVector<Value, Inner, MemorySpace>>(&vector_);
    COMPOUND_SPARSE_REQUIRE(v != nullptr, "vector is stored as '" << layout_ << "', not '" << Inner::name() << "'");
    return *v;
  }

  const std::string& layout() const { return layout_; }
  int size() const { return size_; }
  std::vector<Value> to_host() const {
    COMPOUND_SPARSE_REQUIRE(to_host_ != nullptr, "empty AnyVector");
    return to_host_(vector_);
  }
  /// fill_components: every component set to `value`, where the vector lives.
  void fill(scalar_type value) const {
    COMPOUND_SPARSE_REQUIRE(fill_ != nullptr, "empty AnyVector");
    fill_(vector_, value);
  }
  /// squared_distance to `reference` ([value][component] in double), where the vector lives.
  double squared_distance(const reference_view& reference) const {
    COMPOUND_SPARSE_REQUIRE(distance_ != nullptr, "empty AnyVector");
    return distance_(vector_, reference);
  }

 private:
  template <class Inner>
  static const CompoundVector<Value, Inner, MemorySpace>& typed(const std::any& v) {
    return std::any_cast<const CompoundVector<Value, Inner, MemorySpace>&>(v);
  }
  template <class Inner>
  static std::vector<Value> copy_to_host(const std::any& v) {
    return compound_sparse::to_host(typed<Inner>(v));
  }
  template <class Inner>
  static void fill_typed(const std::any& v, scalar_type value) {
    fill_components(typed<Inner>(v), value);
  }
  template <class Inner>
  static double distance_typed(const std::any& v, const reference_view& reference) {
    return compound_sparse::squared_distance(typed<Inner>(v), reference);
  }
  std::string layout_;
  int size_ = 0;
  std::vector<Value> (*to_host_)(const std::any&) = nullptr;
  void (*fill_)(const std::any&, scalar_type) = nullptr;
  double (*distance_)(const std::any&, const reference_view&) = nullptr;
  std::any vector_;
};

}  // namespace compound_sparse
