#pragma once
// The per-matrix state of the schedules, allocated with the matrix by every
// conversion: the dynamic schedules' work counter and, for CSR, the merge-path
// carries.

#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "../device_info.hpp"
#include "../sparse_matrix.hpp"
#include "merge_path.hpp"

namespace compound_sparse {
namespace impl {

template <class Entry, class Outer, class Inner, class MemorySpace>
void allocate_schedule_state(SparseMatrix<Entry, Outer, Inner, MemorySpace>& m) {
  m.work_counter = Kokkos::View<unsigned, MemorySpace>("compound_sparse::work_counter");
  if constexpr (std::is_same<Outer, Csr>::value) {
    const int workers = merge_path_max_workers(m.num_rows, m.num_entries,
                                               multiprocessor_count<typename MemorySpace::execution_space>());
    const auto alloc = [](const char* label) {
      return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
    };
    m.merge_path_carries.rows = decltype(m.merge_path_carries.rows)(alloc("compound_sparse::carry_rows"), workers);
    m.merge_path_carries.values =
        decltype(m.merge_path_carries.values)(alloc("compound_sparse::carry_values"), workers);
  }
}

}  // namespace impl
}  // namespace compound_sparse
