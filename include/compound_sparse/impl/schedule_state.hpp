#pragma once
// The per-matrix state of the schedules, made with the matrix by every
// conversion once its offsets are on the device: the dynamic schedules' work
// counter and, for CSR, the merge-path index and carries and the segmented-sum
// bitmap, lists and partial sums.

#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "../layouts/sparse_matrix.hpp"
#include "merge_path.hpp"
#include "segmented_sum.hpp"

namespace compound_sparse {
namespace impl {

template <class Entry, class Outer, class Inner, class MemorySpace>
void make_schedule_state(SparseMatrix<Entry, Outer, Inner, MemorySpace>& m) {
  m.work_counter = Kokkos::View<unsigned, MemorySpace>("compound_sparse::work_counter");
  if constexpr (std::is_same<Outer, Csr>::value) {
    const std::size_t length = merge_path_index_length(m.num_rows, m.num_entries);
    const auto alloc = [](const char* label) {
      return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
    };
    auto& state = m.merge_path;
    state.index_rows = decltype(state.index_rows)(alloc("compound_sparse::merge_path_index_rows"), length);
    state.index_entries = decltype(state.index_entries)(alloc("compound_sparse::merge_path_index_entries"), length);
    state.carry_rows = decltype(state.carry_rows)(alloc("compound_sparse::carry_rows"), length - 1);
    state.carry_values = decltype(state.carry_values)(alloc("compound_sparse::carry_values"), length - 1);
    merge_path_index(m);
    make_segmented_state(m);
    Kokkos::fence();
  }
}

}  // namespace impl
}  // namespace compound_sparse
