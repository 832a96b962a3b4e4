// Sliced ELL row-kernel lab (not part of the library): why the complex float grids
// stay below cuSPARSE's SELL32, and what closes the gap. On one matrix and precision:
//  - cuSPARSE's forms (the bench's cusparse_forms, same timing and rotation);
//  - the library's Static row kernel on sell32 / sell32c16 (row_spmv, as the bench runs it),
//    and the same functor launched with one team per chunk of rows (no grid stride);
//  - raw CUDA row kernels, one thread per row of a 32-row slice, over:
//    persistent grid-stride (the library's league) or one block per 256/128 rows,
//    batch 4/8/16, cache hints (evict-first matrix, read-only x), and a software pipeline that
//    loads the next batch's columns and entries while x is gathered for this one.
// Every result is checked against the double host reference; queued timing like the bench.
#pragma once
#include <compound_sparse.hpp>
#include <cusparse_baseline.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

namespace cs = compound_sparse;
using Exec = Kokkos::Cuda;
using Mem = Kokkos::CudaSpace;

template <class S>
using vec2 = typename std::conditional<std::is_same<S, float>::value, float2, double2>::type;

template <class S, class Col>
struct SellArgs {
  const int* offsets;  // per slice
  const int* lengths;  // per row
  const int* bases;    // per slice (16-bit columns)
  const Col* cols;
  const vec2<S>* vals;
  const vec2<S>* x;
  vec2<S>* y;
  int rows;
};

template <bool Hint, class T>
__device__ __forceinline__ T ld_matrix(const T* p) {
  if constexpr (Hint) return __ldcs(p);
  else return *p;
}
template <bool Hint, class T>
__device__ __forceinline__ T ld_x(const T* p) {
  if constexpr (Hint) return __ldg(p);
  else return *p;
}
template <class V>
__device__ __forceinline__ void cfma(V& acc, const V& a, const V& b) {
  acc.x += a.x * b.x - a.y * b.y;
  acc.y += a.x * b.y + a.y * b.x;
}

template <class S, class Col, int Batch, bool Hints, bool Pipe>
__device__ __forceinline__ void sell_row(const SellArgs<S, Col>& a, int row) {
  using V = vec2<S>;
  const int slice = row >> 5;
  const int first = a.offsets[slice] + (row & 31);
  const int len = a.lengths[row];
  const int base = std::is_same<Col, int>::value ? 0 : a.bases[slice];
  V acc;
  acc.x = 0;
  acc.y = 0;
  if constexpr (!Pipe) {
    for (int k = 0; k < len; k += Batch) {
      int c[Batch];
      V v[Batch], xv[Batch];
#pragma unroll
      for (int u = 0; u < Batch; ++u)
        if (k + u < len) {
          c[u] = base + static_cast<int>(ld_matrix<Hints>(a.cols + first + (k + u) * 32));
          v[u] = ld_matrix<Hints>(a.vals + first + (k + u) * 32);
        }
#pragma unroll
      for (int u = 0; u < Batch; ++u)
        if (k + u < len) xv[u] = ld_x<Hints>(a.x + c[u]);
#pragma unroll
      for (int u = 0; u < Batch; ++u)
        if (k + u < len) cfma(acc, v[u], xv[u]);
    }
  } else {
    int c[Batch];
    V v[Batch];
#pragma unroll
    for (int u = 0; u < Batch; ++u)
      if (u < len) {
        c[u] = base + static_cast<int>(ld_matrix<Hints>(a.cols + first + u * 32));
        v[u] = ld_matrix<Hints>(a.vals + first + u * 32);
      }
    for (int k = 0; k < len; k += Batch) {
      V xv[Batch];
#pragma unroll
      for (int u = 0; u < Batch; ++u)
        if (k + u < len) xv[u] = ld_x<Hints>(a.x + c[u]);
      int cn[Batch];
      V vn[Batch];
#pragma unroll
      for (int u = 0; u < Batch; ++u)
        if (k + Batch + u < len) {
          cn[u] = base + static_cast<int>(ld_matrix<Hints>(a.cols + first + (k + Batch + u) * 32));
          vn[u] = ld_matrix<Hints>(a.vals + first + (k + Batch + u) * 32);
        }
#pragma unroll
      for (int u = 0; u < Batch; ++u)
        if (k + u < len) cfma(acc, v[u], xv[u]);
#pragma unroll
      for (int u = 0; u < Batch; ++u) {
        c[u] = cn[u];
        v[u] = vn[u];
      }
    }
  }
  a.y[row] = acc;
}

template <class S, class Col, int T, int MinB, int Batch, bool Persistent, bool Hints, bool Pipe>
__global__ void __launch_bounds__(T, MinB) sell_kernel(SellArgs<S, Col> a) {
  if constexpr (Persistent) {
    for (int row = blockIdx.x * T + threadIdx.x; row < a.rows; row += gridDim.x * T) sell_row<S, Col, Batch, Hints, Pipe>(a, row);
  } else {
    const int row = blockIdx.x * T + threadIdx.x;
    if (row < a.rows) sell_row<S, Col, Batch, Hints, Pipe>(a, row);
  }
}

struct LabTiming {
  cs::TimingOptions timing{5, 10, 50, cs::TimingMode::Queued};
};

template <class Entry>
struct LabCase {
  using V = cs::vector_type_t<Entry>;
  using S = typename cs::component_traits<Entry>::scalar_type;
  std::string name, precision;
  cs::HostCsr<Entry> host;
  cs::MeasureInputs<Entry> inputs;
  double bytes = 0;
  int rotation = 1;
  double copy_bw = 0;
  std::vector<Kokkos::View<S*>> y_flat;
};

template <class Entry, class Run, class Y>
void lab_time(LabCase<Entry>& c, const std::string& method, Run&& run, Y&& y_of) {
  using V = cs::vector_type_t<Entry>;
  using S = typename LabCase<Entry>::S;
  Kokkos::deep_copy(y_of(0), std::numeric_limits<S>::quiet_NaN());
  run(0);
  Kokkos::fence();
  const auto err = cudaGetLastError();
  const double rel = cs::relative_error(compound_sparse_bench::flat_host_copy<V>(y_of(0)), c.inputs.reference);
  const bool ok = err == cudaSuccess && rel <= c.inputs.tolerance;
  LabTiming lt;
  const auto t = cs::time_launches([&](int i) { run(i % c.rotation); }, lt.timing);
  std::printf("%-24s %-6s %-44s %s err %.1e  %9.2f us  %5.3f of copy  (min %.2f max %.2f)\n", c.name.c_str(),
              c.precision.c_str(), method.c_str(), ok ? "ok   " : "WRONG", rel, t.median_seconds * 1e6,
              c.bytes / t.median_seconds / c.copy_bw, t.min_seconds * 1e6, t.max_seconds * 1e6);
  if (err != cudaSuccess) std::printf("  cuda error: %s\n", cudaGetErrorString(err));
  std::fflush(stdout);
}

template <class Entry, class Col, class Outer>
void raw_family(LabCase<Entry>& c, const std::vector<cs::SparseMatrix<Entry, Outer, cs::Aos, Mem>>& mats,
                const std::vector<cs::CompoundVector<cs::vector_type_t<Entry>, cs::Aos, Mem>>& xs,
                const std::vector<cs::CompoundVector<cs::vector_type_t<Entry>, cs::Aos, Mem>>& ys, const char* tag) {
  using S = typename LabCase<Entry>::S;
  const int sms = cs::default_device_info().multiprocessors;
  const auto args = [&](int r) {
    SellArgs<S, Col> a;
    a.offsets = mats[r].offsets.data();
    a.lengths = mats[r].row_lengths.data();
    a.bases = mats[r].column_bases.data();
    a.cols = reinterpret_cast<const Col*>(mats[r].col_indices.data());
    a.vals = reinterpret_cast<const vec2<S>*>(mats[r].values.data());
    a.x = reinterpret_cast<const vec2<S>*>(xs[r].data.data());
    a.y = reinterpret_cast<vec2<S>*>(ys[r].data.data());
    a.rows = c.host.num_rows;
    return a;
  };
  const auto y_of = [&](int r) { return Kokkos::View<S*>(reinterpret_cast<S*>(ys[r].data.data()), 2 * c.host.num_rows); };
  const auto one = [&](auto kernel, int T, int MinB, int Batch, bool Persistent, bool Hints, bool Pipe) {
    const int blocks_all = (c.host.num_rows + T - 1) / T;
    const int blocks = Persistent ? std::min(blocks_all, sms * MinB) : blocks_all;
    cudaFuncSetCacheConfig(kernel, cudaFuncCachePreferL1);
    cudaFuncAttributes attr;
    cudaFuncGetAttributes(&attr, kernel);
    char method[96];
    std::snprintf(method, sizeof method, "raw %s t%d.b%d B%d %s%s%s r%d%s", tag, T, MinB, Batch, Persistent ? "persist" : "grid",
                  Hints ? " hint" : "", Pipe ? " pipe" : "", attr.numRegs, attr.localSizeBytes ? " SPILL" : "");
    const cudaStream_t stream = Exec().cuda_stream();
    lab_time(c, method, [&](int r) { kernel<<<blocks, T, 0, stream>>>(args(r)); }, y_of);
  };
#define LAB_ONE(T, B, BATCH, P, H, PIPE) \
  one(sell_kernel<S, Col, T, B, BATCH, P, H, PIPE>, T, B, BATCH, P, H, PIPE)
  // The library's shape: persistent, 256 x 4, batch 4.
  LAB_ONE(256, 4, 4, true, false, false);
  LAB_ONE(256, 4, 4, false, false, false);
  LAB_ONE(256, 4, 4, true, true, false);
  LAB_ONE(256, 4, 4, false, true, false);
  LAB_ONE(256, 4, 4, true, false, true);
  LAB_ONE(256, 4, 4, false, false, true);
  LAB_ONE(256, 4, 4, false, true, true);
  LAB_ONE(256, 2, 8, true, false, false);
  LAB_ONE(256, 2, 8, false, false, false);
  LAB_ONE(256, 2, 8, false, true, false);
  LAB_ONE(256, 2, 8, false, false, true);
  LAB_ONE(256, 2, 8, false, true, true);
  LAB_ONE(256, 2, 16, false, false, false);
  LAB_ONE(256, 2, 16, false, true, false);
  LAB_ONE(128, 4, 16, false, false, false);
  LAB_ONE(128, 4, 16, false, true, false);
  LAB_ONE(128, 8, 4, false, false, false);
  LAB_ONE(128, 8, 4, false, true, false);
  LAB_ONE(128, 8, 4, false, false, true);
  LAB_ONE(128, 6, 8, false, false, false);
  LAB_ONE(128, 6, 8, false, true, false);
  LAB_ONE(128, 6, 8, false, true, true);
  LAB_ONE(256, 3, 8, false, true, false);
  LAB_ONE(256, 3, 8, false, true, true);
#undef LAB_ONE
}

template <class Entry, class Outer>
void library_family(LabCase<Entry>& c, const char* tag) {
  using V = cs::vector_type_t<Entry>;
  using S = typename LabCase<Entry>::S;
  std::vector<cs::SparseMatrix<Entry, Outer, cs::Aos, Mem>> mats;
  std::vector<cs::CompoundVector<V, cs::Aos, Mem>> xs, ys;
  for (int r = 0; r < c.rotation; ++r) {
    mats.push_back(cs::to_device<Outer, cs::Aos, Mem>(c.host));
    xs.push_back(cs::to_device<cs::Aos, Mem>(c.inputs.x));
    ys.push_back(cs::to_device<cs::Aos, Mem>(std::vector<V>(c.host.num_rows), "y"));
  }
  const auto y_of = [&](int r) { return Kokkos::View<S*>(reinterpret_cast<S*>(ys[r].data.data()), 2 * c.host.num_rows); };
  cs::impl::RowResult<Entry, cs::Aos> result;
  result.alpha = cs::real_value<cs::coefficient_type_t<Entry>>(1.0);
  result.beta = cs::real_value<cs::coefficient_type_t<Entry>>(0.0);
  result.beta_is_zero = true;
  Exec exec;
  const auto lib = [&](auto threads, auto blocks) {
    constexpr unsigned T = decltype(threads)::value, B = decltype(blocks)::value;
    const cs::Schedule<cs::ScheduleKind::Static, T, B> schedule{1};
    char method[96];
    std::snprintf(method, sizeof method, "lib %s.aos.aos.static.t%u.b%u.l1 (batch %d)", tag, T, B,
                  cs::impl::row_spmv_batch<Exec, Entry, T, B>());
    lab_time(c, method, [&](int r) { cs::impl::row_spmv(exec, schedule, result, mats[r], xs[r], ys[r]); }, y_of);
    // The same functor, one team per chunk of rows (no grid stride).
    using functor = cs::impl::SpmvFunctor<cs::ScheduleKind::Static, Entry, Outer, cs::Aos, cs::Aos, cs::Aos, Mem,
                                          cs::impl::row_spmv_batch<Exec, Entry, T, B>()>;
    using policy_type = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<T, B>>;
    std::vector<functor> fs(c.rotation);
    for (int r = 0; r < c.rotation; ++r) {
      functor& f = fs[r];
      f.offsets = mats[r].offsets;
      f.row_lengths = mats[r].row_lengths;
      f.col_indices = mats[r].col_indices;
      f.column_bases = mats[r].column_bases;
      f.values = mats[r].values;
      f.work_counter = mats[r].work_counter;
      f.x = xs[r].data;
      f.y = ys[r].data;
      f.result = result;
      f.num_rows = c.host.num_rows;
      f.ell_stride = mats[r].ell_stride;
      f.lanes = 1;
      f.rows_per_team_chunk = T;
      f.team_chunks = (c.host.num_rows + T - 1) / T;
      f.rows_per_warp_chunk = 32;
      f.warp_chunks = (c.host.num_rows + 31) / 32;
    }
    std::snprintf(method, sizeof method, "lib %s.aos.aos.static.t%u.b%u.l1 full league", tag, T, B);
    lab_time(c, method,
             [&](int r) { cs::impl::team_parallel_for("lab", policy_type(exec, fs[r].team_chunks, T, 1), fs[r]); },
             y_of);
  };
  using std::integral_constant;
  lib(integral_constant<unsigned, 256>{}, integral_constant<unsigned, 4>{});
  lib(integral_constant<unsigned, 256>{}, integral_constant<unsigned, 2>{});
  lib(integral_constant<unsigned, 128>{}, integral_constant<unsigned, 8>{});
  using Col = typename std::remove_const<typename std::remove_reference<decltype(*mats[0].col_indices.data())>::type>::type;
  raw_family<Entry, Col, Outer>(c, mats, xs, ys, tag);
}

template <class Entry>
void lab_matrix(const std::string& name, const std::string& precision, cs::HostCsr<Entry> host, double copy_bw) {
  LabCase<Entry> c;
  c.name = name;
  c.precision = precision;
  c.host = std::move(host);
  c.inputs = cs::make_measure_inputs(c.host, cs::MeasureOptions{}.seed);
  c.bytes = cs::compulsory_bytes(c.host);
  c.copy_bw = copy_bw;
  const std::size_t cache = cs::default_device_info().l2_cache_bytes;
  c.rotation = std::max(1, std::min(8, int(std::ceil(4.0 * cache / c.bytes))));
  std::printf("== %s %s: %d rows, %zu non-zeros, %.1f MB compulsory, rotation %d\n", name.c_str(), precision.c_str(),
              c.host.num_rows, static_cast<std::size_t>(c.host.num_entries()), c.bytes * 1e-6, c.rotation);
  LabTiming lt;
  const auto forms = compound_sparse_bench::cusparse_forms(c.host, c.inputs.x, c.inputs.reference, lt.timing,
                                                           c.rotation, c.inputs.tolerance);
  for (const auto& f : forms)
    std::printf("%-24s %-6s %-44s %s err %.1e  %9.2f us  %5.3f of copy %s\n", name.c_str(), precision.c_str(),
                f.variant.c_str(), f.ok ? "ok   " : "FAIL ", f.relative_error, f.seconds * 1e6,
                f.ok ? c.bytes / f.seconds / copy_bw : 0.0, f.error.c_str());
  library_family<Entry, cs::SlicedEll<32>>(c, "sell32");
  library_family<Entry, cs::SlicedEll<32, 16>>(c, "sell32c16");
}
