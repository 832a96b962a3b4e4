#pragma once
// The variant registry: every SpMV variant compiled into the library, callable
// by name at run time.
//
// CMake generates explicit instantiations of every (outer layout x matrix inner
// layout x vector layout x schedule kind x launch bounds) for the entry types
// chosen at configure time (COMPOUND_SPARSE_VARIANT_ENTRIES) and registers them
// here, split over several translation units so the build parallelises.
// variant_registry<Entry>() is defined only for those entry types; using another
// one is a link error naming variant_registry.
//
//   const auto& reg = variant_registry<Kokkos::complex<double>>();
//   auto A = reg.convert_matrix("sell32", "soa", host_csr);
//   auto x = reg.convert_vector("aos", x_host);
//   reg.spmv(parse_variant_key("sell32.soa.aos.dynamic_warp.t256.b4.l1"), alpha, A, x, beta, y);

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "any_matrix.hpp"
#include "convert.hpp"
#include "entry_traits.hpp"
#include "error.hpp"
#include "host_csr.hpp"
#include "variant_key.hpp"

namespace compound_sparse {

template <class Entry, class MemorySpace = typename Kokkos::DefaultExecutionSpace::memory_space>
class VariantRegistry {
 public:
  using coefficient_type = coefficient_type_t<Entry>;
  using value_type = vector_type_t<Entry>;
  using matrix_type = AnyMatrix<Entry, MemorySpace>;
  using vector_type = AnyVector<value_type, MemorySpace>;
  using spmv_function = void (*)(const matrix_type&, const coefficient_type&, const vector_type&,
                                 const coefficient_type&, const vector_type&, int lanes_per_row);
  using matrix_converter = matrix_type (*)(const HostCsr<Entry>&, MemoryBudget);
  using memory_estimator = std::uint64_t (*)(const HostCsr<Entry>&);
  using vector_converter = vector_type (*)(const std::vector<value_type>&);

  void add_matrix_layout(const std::string& layout, matrix_converter convert, memory_estimator estimate) {
    matrix_layouts_[layout] = {convert, estimate};
  }
  void add_vector_layout(const std::string& layout, vector_converter convert) { vector_layouts_[layout] = convert; }
  void add_variant(const VariantKey& key, spmv_function run) {
    VariantKey compiled = key;
    compiled.lanes_per_row = 1;
    variants_[key.compiled_name()] = {compiled, run};
  }

  /// Every compiled variant, with lanes_per_row = 1 (lanes are a run-time choice).
  std::vector<VariantKey> variants() const {
    std::vector<VariantKey> keys;
    for (const auto& v : variants_) keys.push_back(v.second.key);
    return keys;
  }
  bool contains(const VariantKey& key) const {
    return variants_.count(key.compiled_name()) > 0 && key.lanes_per_row >= 1 && key.lanes_per_row <= 32 &&
           (key.lanes_per_row & (key.lanes_per_row - 1)) == 0;
  }

  /// Device bytes the layout would take for this matrix (no allocation).
  std::uint64_t memory_bytes(const std::string& outer, const HostCsr<Entry>& a) const {
    return find_layout(outer + ".aos").estimate(a);
  }
  matrix_type convert_matrix(const std::string& outer, const std::string& inner, const HostCsr<Entry>& a,
                             MemoryBudget budget = {}) const {
    return find_layout(outer + "." + inner).convert(a, budget);
  }
  vector_type convert_vector(const std::string& inner, const std::vector<value_type>& v) const {
    const auto it = vector_layouts_.find(inner);
    COMPOUND_SPARSE_REQUIRE_KIND(NotCompiled, it != vector_layouts_.end(),
                                 "no vector layout '" << inner << "' is registered");
    return it->second(v);
  }

  /// y = alpha A x + beta y with the variant `key`; A, x and y must be stored in
  /// the key's layouts (throws compound_sparse::InvalidInput otherwise, NotCompiled
  /// if the key names no compiled variant).
  void spmv(const VariantKey& key, const coefficient_type& alpha, const matrix_type& a, const vector_type& x,
            const coefficient_type& beta, const vector_type& y) const {
    const auto it = variants_.find(key.compiled_name());
    COMPOUND_SPARSE_REQUIRE_KIND(NotCompiled, it != variants_.end(),
                                 "variant '" << key.name() << "' is not compiled into this build");
    COMPOUND_SPARSE_REQUIRE(a.layout() == key.layout_name(),
                            "variant '" << key.name() << "' needs the matrix in '" << key.layout_name()
                                        << "' but it is stored as '" << a.layout() << "'");
    it->second.run(a, alpha, x, beta, y, key.lanes_per_row);
  }

 private:
  struct LayoutFunctions {
    matrix_converter convert;
    memory_estimator estimate;
  };
  struct Compiled {
    VariantKey key;
    spmv_function run;
  };
  const LayoutFunctions& find_layout(const std::string& layout) const {
    const auto it = matrix_layouts_.find(layout);
    COMPOUND_SPARSE_REQUIRE_KIND(NotCompiled, it != matrix_layouts_.end(),
                                 "no matrix layout '" << layout << "' is registered");
    return it->second;
  }
  std::map<std::string, LayoutFunctions> matrix_layouts_;
  std::map<std::string, vector_converter> vector_layouts_;
  std::map<std::string, Compiled> variants_;
};

/// The registry of the default execution space's memory space for Entry;
/// defined (by generated code) for the configured entry types only.
template <class Entry>
const VariantRegistry<Entry>& variant_registry();

}  // namespace compound_sparse

// Declarations of the generated specializations (build tree / install tree).
#include "compound_sparse/variant_config.hpp"
