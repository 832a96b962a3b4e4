#pragma once
// The inner loop of the row kernels (SpMV, impl/spmv_functor.hpp; SpMM,
// impl/spmm_functor.hpp): one lane's share of a row's slots, in batches of loads
// (impl/row_batch.hpp says why).

#include <Kokkos_Core.hpp>

#include "../entries/entry_traits.hpp"
#include "row_slots.hpp"
#include "streaming_load.hpp"

namespace compound_sparse {
namespace impl {

/// N values of one row for N vectors: what a thread of the SpMM kernel accumulates
/// when it computes several vectors of its row (impl/spmm_functor.hpp).
template <class Vector, int N>
struct VectorTile {
  Vector v[N];
};

/// acc += entry * x, for one vector or for each vector of a tile (the entry read once).
template <class Entry, class Vector>
KOKKOS_INLINE_FUNCTION void multiply_add_into(Vector& acc, const Entry& entry, const Vector& x) {
  entry_traits<Entry>::multiply_add(acc, entry, x);
}
template <class Entry, class Vector, int N>
KOKKOS_INLINE_FUNCTION void multiply_add_into(VectorTile<Vector, N>& acc, const Entry& entry,
                                              const VectorTile<Vector, N>& x) {
  for (int s = 0; s < N; ++s) entry_traits<Entry>::multiply_add(acc.v[s], entry, x.v[s]);
}

/// Slot i of a row (i < slots.length): its column (first_column added) and its entry.
template <class Entry, class Inner, class Columns, class Values>
KOKKOS_INLINE_FUNCTION void load_row_slot(const RowSlots& slots, int first_column, int i, const Columns& col_indices,
                                          const Values& values, int& column, Entry& entry) {
  const int slot = slots.first + i * slots.step;
  column = first_column + load_index_streaming(col_indices, slot);
  entry = load_streaming<Entry, Inner>(values, slot);
}

/// Adds lane `lane`'s slots of a row to `acc`: slots lane, lane + lanes, lane + 2
/// lanes, ... in that order, as a ThreadVectorRange over the row would, so every
/// Batch gives the same bits. Indices and entries of the whole batch first, then x
/// at each column (load_x(column)): independent loads, in flight together.
template <int Batch, class Entry, class Inner, class Columns, class Values, class LoadX, class Vector>
KOKKOS_INLINE_FUNCTION void add_lane_slots(const RowSlots& slots, int first_column, int lane, int lanes,
                                           const Columns& col_indices, const Values& values, const LoadX& load_x,
                                           Vector& acc) {
  for (int k = lane; k < slots.length; k += Batch * lanes) {
    int columns[Batch];
    Entry entries[Batch];
    Vector xs[Batch];
    for (int u = 0; u < Batch; ++u)
      if (k + u * lanes < slots.length)
        load_row_slot<Entry, Inner>(slots, first_column, k + u * lanes, col_indices, values, columns[u], entries[u]);
    for (int u = 0; u < Batch; ++u)
      if (k + u * lanes < slots.length) xs[u] = load_x(columns[u]);
    for (int u = 0; u < Batch; ++u)
      if (k + u * lanes < slots.length) multiply_add_into(acc, entries[u], xs[u]);
  }
}

}  // namespace impl
}  // namespace compound_sparse
