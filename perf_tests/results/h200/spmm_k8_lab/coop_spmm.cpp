// The SpMM of k = 8 vectors of complex<double> or quaternions of doubles (Aos multivectors) on Sliced ELL: is it
// limited by the matrix bytes it keeps in flight? (perf_tests/results/h200/gpu_build/README.md, run 6: at 256:8 a
// thread has 32 registers and loads one slot at a time; the row's four threads each hold the same entry.)
//
//   coop_spmm complex|quaternion MATRIX.mtx|MATRIX.csrb [CSV [check [PARTS]]]
//
// "check": each product once, compared, not timed (for compute-sanitizer); with PARTS
// (comma-separated), only the kernels whose names hold one of them.
// Times, per product of 8 vectors, on the matrix (Matrix Market, or binary CSR as the xl zoo
// writes it):
//   library.tT.bB.vV.batchN[.lL]  the library's row kernel (impl::row_spmm, Static) with V vectors
//                                 a thread, a batch of N slots and L lanes a row (default 1), at
//                                 launch bounds T:B;
//   coop.gG[.xahead].tT.bB        the kernel below: a row's G threads (4 or 8) each load a
//                                 different slot's column and entry, the next G slots' while the
//                                 current G are used, and take them from each other by shuffles;
//                                 each thread gathers x for its 8 / G vectors, slot by slot, or
//                                 (xahead) for the whole batch first;
//   coop.gG.dD.tT.bB              the same with D slots a member in each batch (D G in flight);
//   coop.gG.tileN.tT.bB           coop with a block's rows in tiles of N steps (for_each_block_step);
//   staged.*, own.*               runs 3 and 4's other kernels (cp.async staging; no shuffles):
//                                 in this file at commit e80dac3, their numbers in the README;
//   ceiling.*                     kernels above on the matrix with every column replaced by its
//                                 row's: x's gathers all near, a ceiling rather than a product;
//   spmv.t256.b4.l2               one SpMV (k = 1) on the same layout, for the per-vector ratio.
// Every SpMM is compared with the library's at 256:8, lanes 1 (the same order of multiply-adds
// per vector, so the same bits except with lanes > 1; any product more than 1e-13 away, relative
// 2-norm, fails the run), and that against the double host reference. Median of 7 runs of 20
// products after 5 warm-ups, CUDA events. A lab: it needs CUDA and is not built by the project
// (scripts/gpu_spmm.sh's k8lab step builds it).

#include <cuda_runtime.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/io/binary_csr.hpp>
#include <compound_sparse/io/matrix_market.hpp>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace cs = compound_sparse;
using Outer = cs::SlicedEll<32>;
template <class C>
using Matrix = cs::SparseMatrix<C, Outer, cs::Aos>;
template <class C>
using Multi = cs::MultiVector<C, cs::Aos>;
using Exec = Kokkos::Cuda;
constexpr int k = 8;

/// alpha = 1, beta = 0 for entries C.
template <class C>
cs::impl::RowResult<C, cs::Aos> overwrite() {
  using coefficient = cs::coefficient_type_t<C>;
  return cs::impl::RowResult<C, cs::Aos>::make(cs::real_value<coefficient>(1), cs::real_value<coefficient>(0));
}

/// Squared 2-norm of a vector value (its components).
template <class V>
double squared_norm(const V& v) {
  using traits = cs::component_traits<V>;
  double sum = 0;
  for (int c = 0; c < traits::size; ++c) sum += static_cast<double>(traits::get(v, c)) * traits::get(v, c);
  return sum;
}

template <class C>
struct CoopArgs {
  typename Matrix<C>::index_view offsets, row_lengths, column_bases;
  typename Matrix<C>::column_view col_indices;
  typename Matrix<C>::values_view values;
  int ell_stride = 0, num_rows = 0;
  const C* x = nullptr;
  C* y = nullptr;
  cs::impl::RowResult<C, cs::Aos> result;
};

/// The first rows of a block's steps of RowsPerBlock rows. The block takes tiles of TileSteps
/// steps in turn (tile b, b + gridDim.x, ...) and a tile's steps in order. TileSteps = 1 is the
/// grid-stride loop of the library's Static schedule; with more, the rows a block has in
/// flight stay next to those it had just before, so on a banded matrix more of x's gathers
/// can hit L1 (the rows two grid lines apart, 2 x 161 rows on helmholtz-box-xl, within one
/// block's tile instead of in blocks on other multiprocessors).
template <int RowsPerBlock, int TileSteps, class F>
__device__ void for_each_block_step(int num_rows, const F& f) {
  constexpr int tile_rows = RowsPerBlock * TileSteps;
  for (int tile = static_cast<int>(blockIdx.x); static_cast<long long>(tile) * tile_rows < num_rows;
       tile += static_cast<int>(gridDim.x))
    for (int step = 0; step < TileSteps; ++step) {
      const int first = tile * tile_rows + step * RowsPerBlock;
      if (first >= num_rows) break;
      f(first);
    }
}

/// The vector a row's thread t sums s-th: V t + s (its V vectors together), or, interleaved,
/// t + G s, so that the group's s-th loads of x take one run of G consecutive values (64 bytes
/// of complex<double> for G = 4) rather than every other 16 bytes of 128: half the sectors a
/// load instruction touches.
template <int G, int V, bool Interleave>
__device__ constexpr int vector_of(int t, int s) {
  return Interleave ? t + G * s : V * t + s;
}

/// Row `row`'s slot j (column, entry), or nothing past its end.
template <class C>
__device__ inline void load_slot(const CoopArgs<C>& a, const cs::impl::RowSlots& slots, int base, int j, int& column,
                                 C& entry) {
  if (j < slots.length) {
    const int s = slots.first + j * slots.step;
    column = base + cs::impl::load_index_streaming(a.col_indices, s);
    entry = cs::impl::load_streaming<C, cs::Aos>(a.values, s);
  }
}

/// The product by a row's group of G threads (G = 4 or 8), thread t of the group summing
/// vectors V t .. V t + V - 1 (V = k / G). Thread t loads slot j + t of each batch of G
/// slots, and slots j + G + t's while batch j is used; the group takes each slot's column
/// and entry from its loader by shuffles. XAhead: x at every column of the batch is loaded
/// before the first multiply-add (more loads in flight, G V more values in registers).
/// Each vector's multiply-adds run in slot order, as the library's with one lane a row.
/// TileSteps > 1: a block's rows come in tiles (for_each_block_step).
template <class C, unsigned Threads, unsigned MinBlocks, int G, bool XAhead, int TileSteps = 1>
__global__ void __launch_bounds__(Threads, MinBlocks) coop_kernel(const CoopArgs<C> a) {
#if defined(__CUDA_ARCH__)  // shuffle_components (impl/plain_kernel.hpp) is device code only
  static_assert(G == 4 || G == 8, "a row's group is 4 or 8 threads");
  constexpr int V = k / G;
  using traits = cs::entry_traits<C>;
  const int t = static_cast<int>(threadIdx.x % G);
  const unsigned mask = ((1u << G) - 1u) << (threadIdx.x & 31u & ~static_cast<unsigned>(G - 1));
  for_each_block_step<static_cast<int>(Threads / G), TileSteps>(a.num_rows, [&](int first_row) {
    const int row = first_row + static_cast<int>(threadIdx.x / G);
    if (row >= a.num_rows) return;
    const auto slots = cs::impl::row_slots<Outer>(a.offsets, a.row_lengths, a.ell_stride, row);
    const int base = cs::impl::column_base<Outer>(a.column_bases, row);
    const C* x_t = a.x + V * t;
    C acc[V];
    for (int s = 0; s < V; ++s) acc[s] = traits::zero();
    int column = 0;
    C entry = traits::zero();
    load_slot(a, slots, base, t, column, entry);
    for (int j = 0; j < slots.length; j += G) {
      int next_column = 0;
      C next_entry = traits::zero();
      load_slot(a, slots, base, j + G + t, next_column, next_entry);
      const int count = slots.length - j < G ? slots.length - j : G;
      const auto shuffled = [&](int u, int& c, C& e) {
        c = __shfl_sync(mask, column, u, G);
        e = cs::impl::shuffle_components(entry, [=](auto v) { return __shfl_sync(mask, v, u, G); });
      };
      if constexpr (XAhead) {
        int c[G];
        C e[G];
        C xs[G][V];
#pragma unroll
        for (int u = 0; u < G; ++u)
          if (u < count) {
            shuffled(u, c[u], e[u]);
            for (int s = 0; s < V; ++s)
              xs[u][s] = cs::impl::load_readonly_at(x_t + static_cast<std::ptrdiff_t>(c[u]) * k + s);
          }
#pragma unroll
        for (int u = 0; u < G; ++u)
          if (u < count)
            for (int s = 0; s < V; ++s) traits::multiply_add(acc[s], e[u], xs[u][s]);
      } else {
#pragma unroll
        for (int u = 0; u < G; ++u)
          if (u < count) {
            int c;
            C e;
            shuffled(u, c, e);
            for (int s = 0; s < V; ++s)
              traits::multiply_add(acc[s], e, cs::impl::load_readonly_at(x_t + static_cast<std::ptrdiff_t>(c) * k + s));
          }
      }
      column = next_column;
      entry = next_entry;
    }
    C* y = a.y + static_cast<std::ptrdiff_t>(row) * k + V * t;
    for (int s = 0; s < V; ++s) a.result.store_at(y + s, acc[s]);
  });
#else
  (void)a;
#endif
}

/// coop_kernel (without x ahead) with D slots a member in each batch: member t loads slots
/// i + d G + t (d < D) of batch i, and batch i + D G's while batch i is used, so D G slots of
/// the row and D G more are in flight. The slots are used in order, i + d G + u: the same bits.
/// Interleave: thread t sums vectors t, t + G, ... (vector_of).
template <class C, unsigned Threads, unsigned MinBlocks, int G, int D, bool Interleave = false>
__global__ void __launch_bounds__(Threads, MinBlocks) coop_deep_kernel(const CoopArgs<C> a) {
#if defined(__CUDA_ARCH__)
  static_assert((G == 2 || G == 4 || G == 8) && D >= 1,
                "a row's group is 2, 4 or 8 threads, a member holds a slot at least");
  constexpr int V = k / G;
  using traits = cs::entry_traits<C>;
  const int t = static_cast<int>(threadIdx.x % G);
  const unsigned mask = ((1u << G) - 1u) << (threadIdx.x & 31u & ~static_cast<unsigned>(G - 1));
  const int rows_per_grid = static_cast<int>(gridDim.x * (Threads / G));
  for (int row = static_cast<int>(blockIdx.x * (Threads / G) + threadIdx.x / G); row < a.num_rows;
       row += rows_per_grid) {
    const auto slots = cs::impl::row_slots<Outer>(a.offsets, a.row_lengths, a.ell_stride, row);
    const int base = cs::impl::column_base<Outer>(a.column_bases, row);
    const C* x_t = a.x;
    C acc[V];
    for (int s = 0; s < V; ++s) acc[s] = traits::zero();
    int column[D];
    C entry[D];
#pragma unroll
    for (int d = 0; d < D; ++d) {
      column[d] = 0;
      entry[d] = traits::zero();
      load_slot(a, slots, base, d * G + t, column[d], entry[d]);
    }
    for (int i = 0; i < slots.length; i += D * G) {
      int next_column[D];
      C next_entry[D];
#pragma unroll
      for (int d = 0; d < D; ++d) {
        next_column[d] = 0;
        next_entry[d] = traits::zero();
        load_slot(a, slots, base, i + D * G + d * G + t, next_column[d], next_entry[d]);
      }
      const int count = slots.length - i < D * G ? slots.length - i : D * G;
#pragma unroll
      for (int d = 0; d < D; ++d)
#pragma unroll
        for (int u = 0; u < G; ++u)
          if (d * G + u < count) {
            const int c = __shfl_sync(mask, column[d], u, G);
            const C e = cs::impl::shuffle_components(entry[d], [=](auto v) { return __shfl_sync(mask, v, u, G); });
            for (int s = 0; s < V; ++s)
              traits::multiply_add(acc[s], e,
                                   cs::impl::load_readonly_at(x_t + static_cast<std::ptrdiff_t>(c) * k +
                                                              vector_of<G, V, Interleave>(t, s)));
          }
#pragma unroll
      for (int d = 0; d < D; ++d) {
        column[d] = next_column[d];
        entry[d] = next_entry[d];
      }
    }
    C* y = a.y + static_cast<std::ptrdiff_t>(row) * k;
    for (int s = 0; s < V; ++s) a.result.store_at(y + vector_of<G, V, Interleave>(t, s), acc[s]);
  }
#else
  (void)a;
#endif
}

/// The coop kernels' arguments: A, X and Y, with alpha = 1 and beta = 0.
template <class C>
CoopArgs<C> coop_args(const Matrix<C>& a, const Multi<C>& x, const Multi<C>& y) {
  CoopArgs<C> args;
  args.offsets = a.offsets;
  args.row_lengths = a.row_lengths;
  args.column_bases = a.column_bases;
  args.col_indices = a.col_indices;
  args.values = a.values;
  args.ell_stride = a.ell_stride;
  args.num_rows = a.num_rows;
  args.x = x.data.data();
  args.y = y.data.data();
  args.result = overwrite<C>();
  return args;
}

/// Kernel on MinBlocks blocks a multiprocessor, as the library launches its row kernels
/// (impl/plain_kernel.hpp): preferring L1 over shared memory (the first run of this lab left
/// the carveout to the driver, which gave the coop kernels 23 KB of L1), a failed launch an
/// exception.
template <auto Kernel, unsigned Threads, unsigned MinBlocks, class C>
void launch_coop(const Matrix<C>& a, const Multi<C>& x, const Multi<C>& y) {
  const int blocks = cs::default_device_info().multiprocessors * static_cast<int>(MinBlocks);
  cs::impl::launch_plain_kernel<Kernel>(Exec(), blocks, static_cast<int>(Threads), coop_args(a, x, y), "a coop kernel");
}

template <class C, unsigned Threads, unsigned MinBlocks, int G, bool XAhead, int TileSteps = 1>
void coop(const Matrix<C>& a, const Multi<C>& x, const Multi<C>& y) {
  launch_coop<coop_kernel<C, Threads, MinBlocks, G, XAhead, TileSteps>, Threads, MinBlocks>(a, x, y);
}

template <class C, unsigned Threads, unsigned MinBlocks, int G, int D, bool Interleave = false>
void coop_deep(const Matrix<C>& a, const Multi<C>& x, const Multi<C>& y) {
  launch_coop<coop_deep_kernel<C, Threads, MinBlocks, G, D, Interleave>, Threads, MinBlocks>(a, x, y);
}

/// The library's row kernel with Vectors vectors a thread, a batch of Batch slots and
/// Lanes lanes a row (Lanes > 1 sums each vector in another order: not the same bits).
/// FixedGroups: at one lane a row, the library's shared loads compiled for the group of k = 8
/// (SpmmFunctor::compute_row_fixed_group), or (false) for any group.
template <class C, unsigned Threads, unsigned MinBlocks, int Vectors, int Batch, int Lanes = 1, bool FixedGroups = true>
void library(const Matrix<C>& a, const Multi<C>& x, const Multi<C>& y) {
  cs::Schedule<cs::ScheduleKind::Static, Threads, MinBlocks> schedule;
  schedule.lanes_per_row = Lanes;
  cs::impl::row_spmm<Exec, cs::ScheduleKind::Static, Threads, MinBlocks, C, Outer, cs::Aos, cs::Aos, cs::Aos,
                     Kokkos::CudaSpace, Vectors, Batch, FixedGroups>(Exec(), schedule, overwrite<C>(), a, x, y);
}

/// Median over 7 runs of 20 calls of f, in seconds per call, after 5 warm-ups.
template <class F>
double median_seconds(const F& f) {
  for (int i = 0; i < 5; ++i) f();
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<double> runs;
  for (int r = 0; r < 7; ++r) {
    cudaEventRecord(start, Exec().cuda_stream());
    for (int i = 0; i < 20; ++i) f();
    cudaEventRecord(stop, Exec().cuda_stream());
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    runs.push_back(ms * 1e-3 / 20);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(runs.begin(), runs.end());
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) {
    std::fprintf(stderr, "coop_spmm: CUDA error %s\n", cudaGetErrorString(status));
    std::exit(1);
  }
  return runs[3];
}

/// The lab on the matrix at `path` with entries C (complex or quaternion, double).
template <class C>
int run(const std::string& path, std::FILE* csv, bool check_only, const std::vector<std::string>& only) {
  using V = cs::vector_type_t<C>;
  const bool binary = path.size() > 5 && path.compare(path.size() - 5, 5, ".csrb") == 0;  // the xl zoo
  const auto host = binary ? cs::io::read_binary_csr<C>(path) : cs::io::read_matrix_market<C>(path);
  const auto a = cs::to_device<Outer, cs::Aos>(host);
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<std::vector<V>> x_host(k, std::vector<V>(host.num_cols));
  for (auto& v : x_host)
    for (auto& value : v)
      for (int c = 0; c < cs::component_traits<V>::size; ++c) cs::component_traits<V>::get(value, c) = u(rng);
  const auto x = cs::to_device<cs::Aos>(x_host);
  const std::vector<std::vector<V>> zeros(k, std::vector<V>(host.num_rows, cs::entry_traits<C>::zero()));
  const auto y_ref = cs::to_device<cs::Aos>(zeros, "Y_ref");
  const auto y = cs::to_device<cs::Aos>(zeros, "Y");

  // The reference product: the library at 256:8, against the double host reference.
  library<C, 256, 8, 2, 1>(a, x, y_ref);
  Kokkos::fence();
  const auto ref = cs::to_host(y_ref);
  double worst = 0;
  for (int j = 0; j < k; ++j) {
    const auto exact = cs::reference_spmv<double>(cs::real_value<cs::coefficient_type_t<C>>(1), host, x_host[j],
                                                  cs::real_value<cs::coefficient_type_t<C>>(0), zeros[j]);
    double num = 0, den = 0;
    for (int i = 0; i < host.num_rows; ++i) {
      num += squared_norm(ref[j][i] + (-1.0) * exact[i]);
      den += squared_norm(exact[i]);
    }
    worst = std::max(worst, std::sqrt(num / (den > 0 ? den : 1)));
  }
  std::printf("%s: %d rows, %zu non-zeros; library 256:8 against the host reference: relative error %.2e\n",
              path.c_str(), host.num_rows, host.num_entries(), worst);
  if (!(worst < 1e-12)) return 1;

  const double nan = std::numeric_limits<double>::quiet_NaN();
  int failures = 0;
  const auto report = [&](const std::string& name, auto run) {
    const bool wanted = only.empty() || std::any_of(only.begin(), only.end(), [&](const std::string& part) {
                          return name.find(part) != std::string::npos;
                        });
    if (!wanted) return;
    V nans;
    for (int c = 0; c < cs::component_traits<V>::size; ++c) cs::component_traits<V>::get(nans, c) = nan;
    Kokkos::deep_copy(y.data, nans);  // a product that writes nothing cannot pass for the last one
    double seconds = 0;
    if (check_only) {
      run(a, x, y);
      Kokkos::fence();
    } else {
      seconds = median_seconds([&] { run(a, x, y); });
    }
    const auto got = cs::to_host(y);
    bool same = true;
    double num = 0, den = 0;  // relative 2-norm difference from the library's product at 256:8
    for (int j = 0; j < k; ++j) {
      same &= std::memcmp(got[j].data(), ref[j].data(), ref[j].size() * sizeof(V)) == 0;
      for (int i = 0; i < host.num_rows; ++i) {
        num += squared_norm(got[j][i] + (-1.0) * ref[j][i]);
        den += squared_norm(ref[j][i]);
      }
    }
    const double difference = std::sqrt(num / (den > 0 ? den : 1));  // NaN where a value was not written
    const bool close = difference <= 1e-13;
    failures += close ? 0 : 1;
    std::printf("%-34s %9.2f us a product, %8.2f us a vector, %s %.1e\n", name.c_str(), seconds * 1e6,
                seconds * 1e6 / k,
                same    ? "bits as the library's,"
                : close ? "bits differ, close,"
                        : "WRONG,",
                difference);
    if (csv) std::fprintf(csv, "%s,%.9g,%d,%.3g\n", name.c_str(), seconds, same ? 1 : 0, difference), std::fflush(csv);
  };
  if (csv) std::fprintf(csv, "name,seconds,same_bits,relative_difference\n");
  // The library's kernel (at one lane a row on CUDA, its shared-load kernel: the batch is not
  // used), 2 vectors a thread (its choice for complex<double>), then 1; at k = 8 on Aos
  // multivectors compiled for the group (FixedGroups), ".generic" for any group.
  report("library.t256.b8.v2.batch1", library<C, 256, 8, 2, 1>);
  report("library.t256.b4.v2.batch2", library<C, 256, 4, 2, 2>);
  report("library.t256.b4.v1.batch4", library<C, 256, 4, 1, 4>);
  report("library.t256.b2.v2.batch4", library<C, 256, 2, 2, 4>);
  report("library.generic.t256.b4.v2", library<C, 256, 4, 2, 2, 1, false>);
  report("library.generic.t256.b4.v1", library<C, 256, 4, 1, 4, 1, false>);
  // Runs 3 and 4's forms: the row's group shares the loads (coop), with interleaved vectors and
  // two slots a member in flight (.il.d2, run 4's fastest on helmholtz-box-xl). Runs 3 and 4
  // (commits 1c2ce48, e80dac3) measured more kernels: the README has their numbers.
  report("coop.g4.t256.b4", coop<C, 256, 4, 4, false>);
  report("coop.g8.t256.b4", coop<C, 256, 4, 8, false>);
  report("coop.g4.il.d2.t256.b4", coop_deep<C, 256, 4, 4, 2, true>);

  if (check_only) {
    if (csv) std::fclose(csv);
    return failures == 0 ? 0 : 1;
  }
  // One SpMV on the same layout (k = 1), for the per-vector ratio.
  cs::Schedule<cs::ScheduleKind::Static, 256, 4> spmv_schedule;
  spmv_schedule.lanes_per_row = 2;
  // only_vector views the multivector's values: the multivectors must outlive it.
  const auto x1_multi = cs::to_device<cs::Aos>(std::vector<std::vector<V>>{x_host[0]});
  const auto y1_multi = cs::to_device<cs::Aos>(std::vector<std::vector<V>>{zeros[0]}, "y");
  const auto x1 = cs::only_vector(x1_multi);
  const auto y1 = cs::only_vector(y1_multi);
  const double spmv = median_seconds([&] {
    cs::spmv(spmv_schedule, cs::real_value<cs::coefficient_type_t<C>>(1), a, x1,
             cs::real_value<cs::coefficient_type_t<C>>(0), y1);
  });
  std::printf("%-34s %9.2f us\n", "spmv.t256.b4.l2", spmv * 1e6);
  if (csv) std::fprintf(csv, "spmv.t256.b4.l2,%.9g,1\n", spmv);

  // A ceiling, not a product of this matrix: every column replaced by its row's, so that x's
  // gathers hit L1 (the same instructions, bytes of the matrix and of Y). How fast the
  // kernels would be if x's rows were always near.
  auto own_columns = host;
  for (int r = 0; r < own_columns.num_rows; ++r)
    for (auto e = own_columns.row_offsets[r]; e < own_columns.row_offsets[r + 1]; ++e) own_columns.col_indices[e] = r;
  const auto diagonal = cs::to_device<Outer, cs::Aos>(own_columns);
  const auto ceiling = [&](const std::string& name, auto run) {
    const double seconds = median_seconds([&] { run(diagonal, x, y); });
    std::printf("%-34s %9.2f us a product, %8.2f us a vector (own-row columns: a ceiling)\n", name.c_str(),
                seconds * 1e6, seconds * 1e6 / k);
    if (csv) std::fprintf(csv, "%s,%.9g,0,\n", name.c_str(), seconds);
  };
  ceiling("ceiling.library.t256.b4.v2.batch2", library<C, 256, 4, 2, 2>);
  ceiling("ceiling.coop.g4.il.d2.t256.b4", coop_deep<C, 256, 4, 4, 2, true>);
  if (csv) std::fclose(csv);
  return failures == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line out at once, should a later kernel fail
  const std::string entry = argc > 1 ? argv[1] : "";
  if (argc < 3 || (entry != "complex" && entry != "quaternion")) {
    std::fprintf(stderr, "usage: coop_spmm complex|quaternion MATRIX.mtx|MATRIX.csrb [CSV [check [PARTS]]]\n");
    return 2;
  }
  const std::string path = argv[2];
  std::FILE* csv = argc > 3 ? std::fopen(argv[3], "w") : nullptr;
  const bool check_only = argc > 4 && std::string(argv[4]) == "check";
  std::vector<std::string> only;  // "check" PARTS: only the kernels whose names hold one of the comma-separated parts
  if (check_only && argc > 5)
    for (std::string rest = argv[5]; !rest.empty();) {
      const auto comma = rest.find(',');
      if (comma != 0) only.push_back(rest.substr(0, comma));
      rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    }
  return entry == "complex" ? run<Kokkos::complex<double>>(path, csv, check_only, only)
                            : run<cs::Quaternion<double>>(path, csv, check_only, only);
}
