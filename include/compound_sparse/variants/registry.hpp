#pragma once
// The variant registry: every SpMV variant compiled into the library, callable
// by name at run time.
//
// CMake generates explicit instantiations of every point of the variant space
// (cmake/CompoundSparseVariantSpace.cmake: outer layout x matrix inner layout x
// vector layout x schedule kind x launch bounds) for the entry types chosen at
// configure time (COMPOUND_SPARSE_VARIANT_ENTRIES) and registers them here, split
// over several translation units so the build parallelises (impl/variant_units.hpp).
// variant_registry<Entry>() exists only for those entry types (is_compiled_entry);
// another one stops the compilation with a static_assert saying so.
//
// The same keys name SpMM variants (spmm.hpp), Y = alpha A X + beta Y for k vectors at
// once: for them the key's vector layout is the multivector layout (aos: a row's k
// values together, soa: vector by vector). In the full variant space every variant of the
// launch bounds COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS has an SpMM; the default set compiles
// those that selection takes for k > 1 (supports_spmm).
//
//   const auto& reg = variant_registry<Kokkos::complex<double>>();
//   const VariantKey key = parse_variant_key(name);  // a name from the tuning database
//   auto A = reg.convert_matrix(key.outer, key.inner, host_csr);
//   auto x = reg.convert_vector(key.vector, x_host);
//   reg.spmv(key, alpha, A, x, beta, y);
//   auto X = reg.convert_multivector(key.vector, x_vectors);  // k host vectors
//   if (reg.supports_spmm(key)) reg.spmm(key, alpha, A, X, beta, Y);

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "../entries/entry_traits.hpp"
#include "../error.hpp"
#include "../layouts/convert.hpp"
#include "../layouts/device_csr.hpp"
#include "../layouts/host_csr.hpp"
#include "any_matrix.hpp"
#include "any_multi_vector.hpp"
#include "compound_sparse/variant_space.hpp"
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
  using refusal_check = std::string (*)(const HostCsr<Entry>&);
  /// The same three for a matrix already on the device (device_csr.hpp): built, sized and
  /// refused there.
  using device_csr_type = DeviceCsr<Entry, MemorySpace>;
  using device_matrix_converter = matrix_type (*)(const device_csr_type&, MemoryBudget);
  using device_memory_estimator = std::uint64_t (*)(const device_csr_type&);
  using device_refusal_check = std::string (*)(const device_csr_type&);
  using vector_converter = vector_type (*)(const std::vector<value_type>&);
  using multivector_type = AnyMultiVector<value_type, MemorySpace>;
  using spmm_function = void (*)(const matrix_type&, const coefficient_type&, const multivector_type&,
                                 const coefficient_type&, const multivector_type&, int lanes_per_row);
  using multivector_converter = multivector_type (*)(const std::vector<std::vector<value_type>>&);

  void add_matrix_layout(const std::string& outer, const std::string& inner, matrix_converter convert,
                         memory_estimator estimate, refusal_check why_refused) {
    matrix_layouts_[outer + "." + inner] = convert;
    memory_estimators_[outer] = estimate;  // the inner layout moves components, not bytes
    refusals_[outer] = why_refused;
  }
  void add_device_build(const std::string& outer, const std::string& inner, device_matrix_converter convert,
                        device_memory_estimator estimate, device_refusal_check why_refused) {
    device_layouts_[outer + "." + inner] = convert;
    device_memory_estimators_[outer] = estimate;
    device_refusals_[outer] = why_refused;
  }
  void add_vector_layout(const std::string& layout, vector_converter convert, multivector_converter convert_multi) {
    vector_layouts_[layout] = convert;
    multivector_layouts_[layout] = convert_multi;
  }
  /// `run_spmm` may be null: the variant has no SpMM (its launch bounds compile none).
  void add_variant(const VariantKey& key, spmv_function run, spmm_function run_spmm) {
    VariantKey compiled = key;
    compiled.lanes_per_row = 1;
    variants_[key.compiled_name()] = {compiled, run, run_spmm};
  }

  /// Every compiled variant, with lanes_per_row = 1 (lanes are a run-time choice,
  /// for the kinds that use them).
  std::vector<VariantKey> variants() const {
    std::vector<VariantKey> keys;
    for (const auto& v : variants_) keys.push_back(v.second.key);
    return keys;
  }
  bool contains(const VariantKey& key) const {
    return variants_.count(key.compiled_name()) > 0 && key.lanes_per_row >= 1 && key.lanes_per_row <= 32 &&
           (key.lanes_per_row & (key.lanes_per_row - 1)) == 0 && (uses_lanes(key.kind) || key.lanes_per_row == 1);
  }

  /// Whether the variant `key` (contains) has an SpMM: the variants of the launch bounds
  /// COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS (SpmmLaunchBounds), every kind, both layouts, in
  /// the full space; in the default set those that selection for k > 1 vectors takes.
  bool supports_spmm(const VariantKey& key) const {
    const auto it = variants_.find(key.compiled_name());
    return contains(key) && it->second.run_spmm != nullptr;
  }

  /// Device bytes the layout would take for this matrix (no allocation).
  std::uint64_t memory_bytes(const std::string& outer, const HostCsr<Entry>& a) const {
    const auto it = memory_estimators_.find(outer);
    COMPOUND_SPARSE_REQUIRE_KIND(NotCompiled, it != memory_estimators_.end(),
                                 "no outer layout '" << outer << "' is registered");
    return it->second(a);
  }
  /// Why the outer layout cannot hold this matrix, or "" if it can (layout_refusal:
  /// 32-bit slot offsets, 16-bit column offsets; no allocation). Conversion
  /// throws BudgetExceeded with this reason.
  std::string refusal(const std::string& outer, const HostCsr<Entry>& a) const {
    const auto it = refusals_.find(outer);
    COMPOUND_SPARSE_REQUIRE_KIND(NotCompiled, it != refusals_.end(), "no outer layout '" << outer << "' is registered");
    return it->second(a);
  }
  std::uint64_t memory_bytes(const std::string& outer, const device_csr_type& a) const {
    return registered(device_memory_estimators_, outer, "outer layout")(a);
  }
  std::string refusal(const std::string& outer, const device_csr_type& a) const {
    return registered(device_refusals_, outer, "outer layout")(a);
  }
  /// Slots the outer layout would store for this matrix, padding included
  /// (layout_num_slots; no allocation). For any declared outer layout (OuterLayouts).
  template <class Matrix>  // HostCsr<Entry> or device_csr_type
  std::uint64_t num_slots(const std::string& outer, const Matrix& a) const {
    std::uint64_t slots = 0;
    bool found = false;
    for_each_type(OuterLayouts{}, [&](auto tag) {
      using Outer = typename decltype(tag)::type;
      if (!found && Outer::name() == outer) {
        slots = layout_num_slots<Outer>(a);
        found = true;
      }
    });
    COMPOUND_SPARSE_REQUIRE_KIND(NotCompiled, found, "no outer layout '" << outer << "' is declared");
    return slots;
  }
  matrix_type convert_matrix(const std::string& outer, const std::string& inner, const HostCsr<Entry>& a,
                             MemoryBudget budget = {}) const {
    const auto it = matrix_layouts_.find(outer + "." + inner);
    COMPOUND_SPARSE_REQUIRE_KIND(NotCompiled, it != matrix_layouts_.end(),
                                 "no matrix layout '" << outer << "." << inner << "' is registered");
    return it->second(a, budget);
  }
  matrix_type convert_matrix(const std::string& outer, const std::string& inner, const device_csr_type& a,
                             MemoryBudget budget = {}) const {
    return registered(device_layouts_, outer + "." + inner, "matrix layout")(a, budget);
  }
  vector_type convert_vector(const std::string& inner, const std::vector<value_type>& v) const {
    const auto it = vector_layouts_.find(inner);
    COMPOUND_SPARSE_REQUIRE_KIND(NotCompiled, it != vector_layouts_.end(),
                                 "no vector layout '" << inner << "' is registered");
    return it->second(v);
  }
  /// A device multivector in `layout` ("aos" or "soa") from k host vectors of n values
  /// each (vectors[j][i] is value i of vector j; InvalidInput if their sizes differ).
  multivector_type convert_multivector(const std::string& layout,
                                       const std::vector<std::vector<value_type>>& vectors) const {
    const auto it = multivector_layouts_.find(layout);
    COMPOUND_SPARSE_REQUIRE_KIND(NotCompiled, it != multivector_layouts_.end(),
                                 "no multivector layout '" << layout << "' is registered");
    return it->second(vectors);
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

  /// Y = alpha A X + beta Y with the SpMM of variant `key`: A in the key's matrix layout,
  /// X and Y multivectors in its vector layout (InvalidInput otherwise, and for the
  /// mismatched sizes spmm refuses; NotCompiled when the key names no compiled variant or
  /// one without an SpMM, supports_spmm).
  void spmm(const VariantKey& key, const coefficient_type& alpha, const matrix_type& a, const multivector_type& x,
            const coefficient_type& beta, const multivector_type& y) const {
    const auto it = variants_.find(key.compiled_name());
    COMPOUND_SPARSE_REQUIRE_KIND(NotCompiled, it != variants_.end(),
                                 "variant '" << key.name() << "' is not compiled into this build");
    COMPOUND_SPARSE_REQUIRE_KIND(
        NotCompiled, it->second.run_spmm != nullptr,
        "variant '" << key.name() << "' has no SpMM: its launch bounds t" << key.threads << ".b" << key.teams_per_sm
                    << " are not in COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS (" << COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS
                    << "), or the variant set (COMPOUND_SPARSE_VARIANT_SET) compiles its SpMV only");
    COMPOUND_SPARSE_REQUIRE(a.layout() == key.layout_name(),
                            "variant '" << key.name() << "' needs the matrix in '" << key.layout_name()
                                        << "' but it is stored as '" << a.layout() << "'");
    it->second.run_spmm(a, alpha, x, beta, y, key.lanes_per_row);
  }

 private:
  template <class Function>
  static Function registered(const std::map<std::string, Function>& functions, const std::string& name,
                             const char* what) {
    const auto it = functions.find(name);
    COMPOUND_SPARSE_REQUIRE_KIND(NotCompiled, it != functions.end(),
                                 "no " << what << " '" << name << "' is registered");
    return it->second;
  }
  struct Compiled {
    VariantKey key;
    spmv_function run;
    spmm_function run_spmm;  ///< null: no SpMM compiled for its launch bounds
  };
  std::map<std::string, matrix_converter> matrix_layouts_;     ///< by "outer.inner"
  std::map<std::string, memory_estimator> memory_estimators_;  ///< by outer layout
  std::map<std::string, refusal_check> refusals_;              ///< by outer layout
  std::map<std::string, device_matrix_converter> device_layouts_;
  std::map<std::string, device_memory_estimator> device_memory_estimators_;
  std::map<std::string, device_refusal_check> device_refusals_;
  std::map<std::string, vector_converter> vector_layouts_;
  std::map<std::string, multivector_converter> multivector_layouts_;
  std::map<std::string, Compiled> variants_;
};

namespace impl {
/// Defined by the generated registry unit of each compiled entry type.
template <class Entry>
const VariantRegistry<Entry>& compiled_variant_registry();
}  // namespace impl

/// The registry of the default execution space's memory space for Entry, which
/// must be one of the compiled entry types (CompiledEntries).
template <class Entry>
const VariantRegistry<Entry>& variant_registry() {
  static_assert(is_compiled_entry<Entry>::value,
                "variant_registry: this entry type is not compiled into the library; add it to "
                "COMPOUND_SPARSE_VARIANT_ENTRIES (the declared types are in cmake/CompoundSparseVariantSpace.cmake)");
  return impl::compiled_variant_registry<Entry>();
}

}  // namespace compound_sparse
