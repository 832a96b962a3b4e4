#pragma once
// AnyMultiVector: a MultiVector (multi_vector.hpp) of either layout behind one type, as
// AnyVector is for CompoundVector (any_matrix.hpp): what the registry's SpMM, the tuner
// and TunedSpmv hold when the multivector layout is chosen at run time. get<Layout>()
// recovers the typed multivector and throws if the layout differs.

#include <any>
#include <string>
#include <vector>

#include "../error.hpp"
#include "../impl/overlap.hpp"
#include "../layouts/multi_vector.hpp"

namespace compound_sparse {

template <class Value, class MemorySpace>
class AnyMultiVector {
 public:
  using scalar_type = typename component_traits<Value>::scalar_type;
  /// A reference result in double, row j * n + i for value i of vector j, [row][component],
  /// on the multivector's memory space (squared_distance of multi_vector.hpp).
  using reference_view = Kokkos::View<const double**, Kokkos::LayoutRight, MemorySpace>;

  AnyMultiVector() = default;
  template <class Layout>
  explicit AnyMultiVector(MultiVector<Value, Layout, MemorySpace> m)
      : layout_(Layout::name()),
        size_(m.size()),
        count_(m.count()),
        footprint_(impl::footprint_of(m.data)),
        to_host_(&copy_to_host<Layout>),
        fill_(&fill_typed<Layout>),
        distance_(&distance_typed<Layout>),
        vectors_(std::move(m)) {}

  template <class Layout>
  const MultiVector<Value, Layout, MemorySpace>& get() const {
    const auto* m = std::any_cast<MultiVector<Value, Layout, MemorySpace>>(&vectors_);
    COMPOUND_SPARSE_REQUIRE(m != nullptr,
                            "multivector is stored as '" << layout_ << "', not '" << Layout::name() << "'");
    return *m;
  }

  const std::string& layout() const { return layout_; }  ///< "aos" or "soa" (MultiVector's layouts)
  int size() const { return size_; }                     ///< n, values per vector
  int count() const { return count_; }                   ///< k, vectors
  /// Where its values lie (impl/overlap.hpp): whether an output overlaps an input.
  const impl::MemoryFootprint& footprint() const { return footprint_; }
  /// The k vectors copied to the host (result[j][i]).
  std::vector<std::vector<Value>> to_host() const {
    COMPOUND_SPARSE_REQUIRE(to_host_ != nullptr, "empty AnyMultiVector");
    return to_host_(vectors_);
  }
  /// fill_components: every component of every vector set to `value`, where it lives.
  void fill(scalar_type value) const {
    COMPOUND_SPARSE_REQUIRE(fill_ != nullptr, "empty AnyMultiVector");
    fill_(vectors_, value);
  }
  /// squared_distance to `reference`, where the multivector lives.
  double squared_distance(const reference_view& reference) const {
    COMPOUND_SPARSE_REQUIRE(distance_ != nullptr, "empty AnyMultiVector");
    return distance_(vectors_, reference);
  }

 private:
  template <class Layout>
  static const MultiVector<Value, Layout, MemorySpace>& typed(const std::any& m) {
    return std::any_cast<const MultiVector<Value, Layout, MemorySpace>&>(m);
  }
  template <class Layout>
  static std::vector<std::vector<Value>> copy_to_host(const std::any& m) {
    return compound_sparse::to_host(typed<Layout>(m));
  }
  template <class Layout>
  static void fill_typed(const std::any& m, scalar_type value) {
    fill_components(typed<Layout>(m), value);
  }
  template <class Layout>
  static double distance_typed(const std::any& m, const reference_view& reference) {
    return compound_sparse::squared_distance(typed<Layout>(m), reference);
  }
  std::string layout_;
  int size_ = 0;
  int count_ = 0;
  impl::MemoryFootprint footprint_;
  std::vector<std::vector<Value>> (*to_host_)(const std::any&) = nullptr;
  void (*fill_)(const std::any&, scalar_type) = nullptr;
  double (*distance_)(const std::any&, const reference_view&) = nullptr;
  std::any vectors_;
};

}  // namespace compound_sparse
