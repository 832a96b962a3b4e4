// Configure-time check (cmake/CompoundSparseKokkos.cmake): a default-constructed View holds no
// allocation record, so that assigning to it and destroying it are safe. With GCC 12 and some
// snapshots of Kokkos' mdspan-based View the program crashes here (docs/building.md).
#include <Kokkos_Core.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  Kokkos::View<int*, Kokkos::HostSpace> view;
  view = Kokkos::View<int*, Kokkos::HostSpace>("compound_sparse::default_view_check", 1);
  return view.use_count() == 1 ? 0 : 1;
}
