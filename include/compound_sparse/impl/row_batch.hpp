#pragma once
// How many of its row's slots a thread of the row kernel (impl/spmv_functor.hpp)
// loads before it multiplies.
//
// A row's loop has a trip count known only at run time, and nvcc does not
// unroll it: one slot at a time, a thread waits for the column index, then
// for x at that column, two memory latencies per slot, with nothing else in
// flight. On a 7-point complex stencil that left our ELL kernel at a third
// of the copy bandwidth where cuSPARSE's Sliced ELL reached half of it. Loading a
// batch of slots first (indices, values, then x for each) keeps the batch's loads in
// flight together.
//
// A batch lives in registers, and the launch bounds set how many a thread has
// (the register file over the resident threads, at most 255). The batch is the
// largest power of two, at most 8, whose entries, x values and indices fit in
// what is left of that after a fixed allowance for the loop's own registers,
// so that the batch does not make the kernel spill (ptxas -v on sm_90: no spill
// at the chosen batch for complex<float> and Block<double,3> at 256 threads x 1,
// 2, 4, 8 teams; some larger batches did). Host backends keep one slot
// at a time: their compilers vectorise the loop themselves, and the host
// database was measured with it.

#include "../entries/entry_traits.hpp"

namespace compound_sparse {
namespace impl {

/// Registers per multiprocessor on every CUDA architecture since sm_50.
constexpr unsigned register_file_per_sm = 65536;
/// Registers the row loop needs besides its batch: addresses, bounds, the
/// accumulator's bookkeeping, the reduction over lanes.
constexpr unsigned row_loop_registers = 24;
constexpr int max_row_batch = 8;

/// Slots per batch for Entry at launch bounds (Threads, MinTeams) on a GPU, for a
/// thread that accumulates `Vectors` vectors of its row (the SpMM kernel; 1 for the SpMV).
template <class Entry, unsigned Threads, unsigned MinTeams, int Vectors = 1>
constexpr int row_batch() {
  using vector_type = typename entry_traits<Entry>::vector_type;
  const unsigned resident = Threads * MinTeams;
  const unsigned registers = register_file_per_sm / resident < 255 ? register_file_per_sm / resident : 255;
  const unsigned accumulator = Vectors * static_cast<unsigned>(sizeof(vector_type) + 3) / 4;
  if (registers <= row_loop_registers + accumulator) return 1;
  const unsigned spare_bytes = 4 * (registers - row_loop_registers - accumulator);
  const unsigned slot_bytes = static_cast<unsigned>(sizeof(Entry) + Vectors * sizeof(vector_type) + sizeof(int));
  int batch = 1;
  while (batch < max_row_batch && static_cast<unsigned>(2 * batch) * slot_bytes <= spare_bytes) batch *= 2;
  return batch;
}

}  // namespace impl
}  // namespace compound_sparse
