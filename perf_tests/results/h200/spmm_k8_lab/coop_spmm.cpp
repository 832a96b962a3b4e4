// The SpMM of k = 8 complex<double> vectors (Aos multivectors) on Sliced ELL: is it limited by the
// matrix bytes it keeps in flight? (perf_tests/results/h200/gpu_build/README.md, run 6: at
// 256:8 a thread has 32 registers and loads one slot at a time; the row's four threads each
// hold the same entry.)
//
//   coop_spmm MATRIX.mtx [CSV [check]]
//
// "check": each product once, compared, not timed (for compute-sanitizer).
// Times, per product of 8 vectors, on the matrix (complex, Matrix Market):
//   library.tT.bB.vV.batchN  the library's row kernel (impl::row_spmm, Static, lanes 1) with V
//                            vectors a thread and a batch of N slots, at launch bounds T:B;
//   coop.tT.bB               the kernel below: each of a row's four threads loads a different
//                            slot's column and entry, the next four slots' while the current
//                            four are used, and the others take them by shuffles; each thread
//                            gathers x for its two vectors one slot at a time;
//   spmv.t256.b4.l2          one SpMV (k = 1) on the same layout, for the per-vector ratio.
// Every SpMM is checked bit for bit against the library's at 256:8 (the same order of
// multiply-adds per vector), and that against the double host reference. Median of 7 runs of
// 20 products after 5 warm-ups, CUDA events. A lab: it needs CUDA and is not built by the
// project (run_on_device.sh).

#include <cuda_runtime.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/io/matrix_market.hpp>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace cs = compound_sparse;
using C = Kokkos::complex<double>;
using Outer = cs::SlicedEll<32>;
using Matrix = cs::SparseMatrix<C, Outer, cs::Aos>;
using Multi = cs::MultiVector<C, cs::Aos>;
using Exec = Kokkos::Cuda;
constexpr int k = 8;

struct CoopArgs {
  Matrix::index_view offsets, row_lengths, column_bases;
  Matrix::column_view col_indices;
  Matrix::values_view values;
  int ell_stride = 0, num_rows = 0;
  const C* x = nullptr;
  C* y = nullptr;
  cs::impl::RowResult<C, cs::Aos> result;
};

/// Row `row`'s slot j (column, entry), or nothing past its end.
__device__ inline void load_slot(const CoopArgs& a, const cs::impl::RowSlots& slots, int base, int j, int& column,
                                 C& entry) {
  if (j < slots.length) {
    const int s = slots.first + j * slots.step;
    column = base + cs::impl::load_index_streaming(a.col_indices, s);
    entry = cs::impl::load_streaming<C, cs::Aos>(a.values, s);
  }
}

template <unsigned Threads, unsigned MinBlocks>
__global__ void __launch_bounds__(Threads, MinBlocks) coop_k8(const CoopArgs a) {
#if defined(__CUDA_ARCH__)  // shuffle_components (impl/plain_kernel.hpp) is device code only
  using traits = cs::entry_traits<C>;
  const int t = static_cast<int>(threadIdx.x & 3);   // vectors 2t and 2t + 1 of the row
  const unsigned mask = 0xfu << (threadIdx.x & 28);  // the row's four lanes
  const int rows_per_grid = static_cast<int>(gridDim.x * (Threads / 4));
  for (int row = static_cast<int>(blockIdx.x * (Threads / 4) + threadIdx.x / 4); row < a.num_rows;
       row += rows_per_grid) {
    const auto slots = cs::impl::row_slots<Outer>(a.offsets, a.row_lengths, a.ell_stride, row);
    const int base = cs::impl::column_base<Outer>(a.column_bases, row);
    C acc0 = traits::zero(), acc1 = traits::zero();
    int column = 0;
    C entry = traits::zero();
    load_slot(a, slots, base, t, column, entry);
    for (int j = 0; j < slots.length; j += 4) {
      int next_column = 0;
      C next_entry = traits::zero();
      load_slot(a, slots, base, j + 4 + t, next_column, next_entry);
      const int count = slots.length - j < 4 ? slots.length - j : 4;
      for (int u = 0; u < count; ++u) {
        const int c = __shfl_sync(mask, column, u, 4);
        const C e = cs::impl::shuffle_components(entry, [=](auto v) { return __shfl_sync(mask, v, u, 4); });
        const C* p = a.x + static_cast<std::ptrdiff_t>(c) * k + 2 * t;
        const C x0 = cs::impl::load_readonly_at(p);
        const C x1 = cs::impl::load_readonly_at(p + 1);
        traits::multiply_add(acc0, e, x0);
        traits::multiply_add(acc1, e, x1);
      }
      column = next_column;
      entry = next_entry;
    }
    C* y = a.y + static_cast<std::ptrdiff_t>(row) * k + 2 * t;
    a.result.store_at(y, acc0);
    a.result.store_at(y + 1, acc1);
  }
#else
  (void)a;
#endif
}

template <unsigned Threads, unsigned MinBlocks>
void coop(const Matrix& a, const Multi& x, const Multi& y) {
  CoopArgs args;
  args.offsets = a.offsets;
  args.row_lengths = a.row_lengths;
  args.column_bases = a.column_bases;
  args.col_indices = a.col_indices;
  args.values = a.values;
  args.ell_stride = a.ell_stride;
  args.num_rows = a.num_rows;
  args.x = x.data.data();
  args.y = y.data.data();
  args.result = cs::impl::RowResult<C, cs::Aos>::make(C(1, 0), C(0, 0));
  const int blocks = cs::default_device_info().multiprocessors * static_cast<int>(MinBlocks);
  coop_k8<Threads, MinBlocks><<<blocks, Threads, 0, Exec().cuda_stream()>>>(args);
}

template <unsigned Threads, unsigned MinBlocks, int Vectors, int Batch>
void library(const Matrix& a, const Multi& x, const Multi& y) {
  cs::impl::row_spmm<Exec, cs::ScheduleKind::Static, Threads, MinBlocks, C, Outer, cs::Aos, cs::Aos, cs::Aos,
                     Kokkos::CudaSpace, Vectors, Batch>(
      Exec(), cs::Schedule<cs::ScheduleKind::Static, Threads, MinBlocks>{},
      cs::impl::RowResult<C, cs::Aos>::make(C(1, 0), C(0, 0)), a, x, y);
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

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: coop_spmm MATRIX.mtx [CSV]\n");
    return 2;
  }
  const std::string path = argv[1];
  std::FILE* csv = argc > 2 ? std::fopen(argv[2], "w") : nullptr;
  const bool check_only = argc > 3 && std::string(argv[3]) == "check";
  const auto host = cs::io::read_matrix_market<C>(path);
  const auto a = cs::to_device<Outer, cs::Aos>(host);
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<std::vector<C>> x_host(k, std::vector<C>(host.num_cols));
  for (auto& v : x_host)
    for (auto& value : v) value = C(u(rng), u(rng));
  const auto x = cs::to_device<cs::Aos>(x_host);
  const std::vector<std::vector<C>> zeros(k, std::vector<C>(host.num_rows));
  const auto y_ref = cs::to_device<cs::Aos>(zeros, "Y_ref");
  const auto y = cs::to_device<cs::Aos>(zeros, "Y");

  // The reference product: the library at 256:8, against the double host reference.
  library<256, 8, 2, 1>(a, x, y_ref);
  Kokkos::fence();
  const auto ref = cs::to_host(y_ref);
  double worst = 0;
  for (int j = 0; j < k; ++j) {
    const auto exact = cs::reference_spmv<double>(C(1, 0), host, x_host[j], C(0, 0), zeros[j]);
    double num = 0, den = 0;
    for (int i = 0; i < host.num_rows; ++i) {
      num += Kokkos::abs(ref[j][i] - exact[i]) * Kokkos::abs(ref[j][i] - exact[i]);
      den += Kokkos::abs(exact[i]) * Kokkos::abs(exact[i]);
    }
    worst = std::max(worst, std::sqrt(num / (den > 0 ? den : 1)));
  }
  std::printf("%s: %d rows, %zu non-zeros; library 256:8 against the host reference: relative error %.2e\n",
              path.c_str(), host.num_rows, host.num_entries(), worst);
  if (!(worst < 1e-12)) return 1;

  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto report = [&](const std::string& name, auto run) {
    Kokkos::deep_copy(y.data, C(nan, nan));  // a product that writes nothing cannot pass for the last one
    double seconds = 0;
    if (check_only) {
      run(a, x, y);
      Kokkos::fence();
    } else {
      seconds = median_seconds([&] { run(a, x, y); });
    }
    const auto got = cs::to_host(y);
    bool same = true;
    for (int j = 0; j < k; ++j) same &= std::memcmp(got[j].data(), ref[j].data(), ref[j].size() * sizeof(C)) == 0;
    std::printf("%-32s %9.2f us a product, %8.2f us a vector, bits %s\n", name.c_str(), seconds * 1e6,
                seconds * 1e6 / k, same ? "as the library's" : "DIFFER");
    if (csv) std::fprintf(csv, "%s,%.9g,%d\n", name.c_str(), seconds, same ? 1 : 0);
  };
  report("library.t256.b8.v2.batch1", library<256, 8, 2, 1>);
  report("library.t256.b8.v2.batch2", library<256, 8, 2, 2>);
  report("library.t256.b4.v2.batch2", library<256, 4, 2, 2>);
  report("library.t256.b4.v2.batch4", library<256, 4, 2, 4>);
  report("library.t256.b2.v2.batch4", library<256, 2, 2, 4>);
  report("library.t256.b2.v4.batch2", library<256, 2, 4, 2>);
  report("coop.t256.b8", coop<256, 8>);
  report("coop.t256.b4", coop<256, 4>);
  report("coop.t256.b2", coop<256, 2>);

  if (check_only) {
    if (csv) std::fclose(csv);
    return 0;
  }
  // One SpMV on the same layout (k = 1), for the per-vector ratio.
  cs::Schedule<cs::ScheduleKind::Static, 256, 4> spmv_schedule;
  spmv_schedule.lanes_per_row = 2;
  const auto x1 = cs::only_vector(cs::to_device<cs::Aos>(std::vector<std::vector<C>>{x_host[0]}));
  const auto y1 = cs::only_vector(cs::to_device<cs::Aos>(std::vector<std::vector<C>>{zeros[0]}, "y"));
  const double spmv = median_seconds([&] { cs::spmv(spmv_schedule, C(1, 0), a, x1, C(0, 0), y1); });
  std::printf("%-32s %9.2f us\n", "spmv.t256.b4.l2", spmv * 1e6);
  if (csv) {
    std::fprintf(csv, "spmv.t256.b4.l2,%.9g,1\n", spmv);
    std::fclose(csv);
  }
  return 0;
}
