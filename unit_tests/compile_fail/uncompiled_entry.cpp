// Must not compile: Block<float, 2> is declared but left out of the registry by the
// default COMPOUND_SPARSE_VARIANT_ENTRIES, and variant_registry says so with a
// static_assert instead of an undefined reference at link time
// (ctest: configure.uncompiled_entry_is_a_static_assert).
#include <compound_sparse/variants/registry.hpp>

int main() {
  static_assert(!compound_sparse::is_compiled_entry<compound_sparse::Block<float, 2>>::value,
                "this test needs an entry type that the build does not compile");
  return compound_sparse::variant_registry<compound_sparse::Block<float, 2>>().variants().empty() ? 1 : 0;
}
