// GoogleTest entry point that brings Kokkos up once for the whole test binary.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstdlib>

int main(int argc, char** argv) {
#ifdef COMPOUND_SPARSE_TEST_CACHE_DIR
  // TunedSpmv's quick-tuning cache goes to the build tree, not the user's ~/.cache;
  // tests of the cache itself give each case its own directory.
  setenv("COMPOUND_SPARSE_CACHE_DIR", COMPOUND_SPARSE_TEST_CACHE_DIR, 0);
#endif
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
