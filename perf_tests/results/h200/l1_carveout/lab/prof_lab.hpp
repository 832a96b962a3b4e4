// Profile lab (not part of the library): the library's segmented-sum SpMV (and the lab's raw
// CUDA kernel) under L1/shared-memory carveout settings, against cuSPARSE's
// CSR ALG1 and ALG2 (both after cusparseSpMV_preprocess) on one matrix, for
//  - "determinism": 50 products each; how many differ bitwise from the first;
//  - "time": queued timing, 11 samples of 20 launches, on the matrix and on a copy whose
//    columns are k mod n (the same rows, x read in order instead of gathered);
//  - "profile": two products of each, for ncu.
// Every product checked against the double host reference.
#pragma once
#include "mp_lab.hpp"
#include "seg_lab.hpp"

#include <cstring>
#include <limits>

#define CHECK_CUDA(call)                                                                   \
  do {                                                                                     \
    const cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) std::printf("cuda error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
  } while (false)

template <class Entry>
struct ProfInputs {
  using V = cs::vector_type_t<Entry>;
  using scalar = typename cs::component_traits<Entry>::scalar_type;
  std::vector<V> xh;
  std::vector<Ref<Entry>> ref;
  double tol;
};

template <class Scalar>
std::vector<unsigned char> bits_of(const Kokkos::View<Scalar*>& d) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  std::vector<unsigned char> b(h.extent(0) * sizeof(Scalar));
  std::memcpy(b.data(), h.data(), b.size());
  return b;
}

// Runs `launch` once, checks, then by mode: counts bitwise differences over 50 runs,
// times, or launches once more (profile).
template <class Entry, class Launch, class YFlat>
void exercise(const char* name, const char* precision, const char* method, const std::string& mode,
              const ProfInputs<Entry>& in, double bytes, Launch&& launch, YFlat&& y_flat) {
  using V = cs::vector_type_t<Entry>;
  launch();
  Kokkos::fence();
  const auto y0 = y_flat();
  const double err = cs::relative_error(compound_sparse_bench::flat_host_copy<V>(y0), in.ref);
  std::printf("%-18s %-6s %-28s err %.1e %s", name, precision, method, err, err <= in.tol ? "ok" : "WRONG");
  if (mode == "determinism") {
    const auto first = bits_of(y0);
    int differ = 0;
    for (int r = 0; r < 50; ++r) {
      launch();
      Kokkos::fence();
      if (bits_of(y_flat()) != first) ++differ;
    }
    std::printf("  runs differing bitwise from the first: %d of 50", differ);
  } else if (mode == "time") {
    cs::TimingOptions timing;
    timing.mode = cs::TimingMode::Queued;
    timing.batch = 20;
    timing.samples = 11;
    const auto t = cs::time_launches<Exec>([&](int) { launch(); }, timing);
    std::printf("  %9.2f us  %5.2f TB/s (min %.2f max %.2f)", t.median_seconds * 1e6,
                bytes / t.median_seconds * 1e-12, t.min_seconds * 1e6, t.max_seconds * 1e6);
  } else {
    launch();
    Kokkos::fence();
  }
  std::printf("\n");
  std::fflush(stdout);
}

// The library's pass-1 functor launched as a plain CUDA kernel (no Kokkos launch).
template <class F, int T, int B>
__global__ void __launch_bounds__(T, B) raw_lib_pass1(F f) {
#if defined(__CUDA_ARCH__)
  const int tile = blockIdx.x * (T / 32) + threadIdx.x / 32;
  if (tile >= f.state.tiles) return;
  f.warp_tile(tile, threadIdx.x & 31);
#endif
}

template <class Entry>
void prof_matrix(const char* name, const char* precision, const cs::HostCsr<Entry>& host, const std::string& mode) {
  using V = cs::vector_type_t<Entry>;
  using scalar = typename cs::component_traits<Entry>::scalar_type;
  ProfInputs<Entry> in;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  in.xh.resize(host.num_cols);
  for (auto& v : in.xh)
    for (int c = 0; c < cs::component_traits<V>::size; ++c) cs::component_traits<V>::get(v, c) = u(rng);
  in.ref = cs::reference_spmv<double>(cs::real_value<cs::coefficient_type_t<Entry>>(1.0), host, in.xh,
                                      cs::real_value<cs::coefficient_type_t<Entry>>(0.0), std::vector<V>(host.num_rows));
  in.tol = sizeof(scalar) == 8 ? 1e-12 : 1e-4;
  const double bytes = cs::compulsory_bytes(host);
  std::printf("== %s %s: %d rows, %zu non-zeros, %.1f MB compulsory\n", name, precision, host.num_rows,
              static_cast<std::size_t>(host.num_entries()), bytes * 1e-6);

  {  // cuSPARSE, ALG1 and ALG2 after preprocess
    namespace cb = compound_sparse_bench;
    cb::CusparseHandle handle;
    auto rows = cb::to_device(host.row_offsets, "rows");
    auto cols = cb::to_device(host.col_indices, "cols");
    auto vals = cb::to_device(cb::interleaved(host.values), "vals");
    auto xs = cb::flat_device_copy<scalar>(in.xh);
    auto ys = cb::flat_device_copy<scalar>(std::vector<V>(host.num_rows));
    const Entry alpha(1, 0), beta(0, 0);
    const auto type = cb::complex_type<scalar>();
    for (auto alg : {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2}) {
      cusparseSpMatDescr_t a;
      cusparseDnVecDescr_t x, y;
      BENCH_CUSPARSE(cusparseCreateCsr(&a, host.num_rows, host.num_cols, static_cast<int64_t>(host.num_entries()),
                                       rows.data(), cols.data(), vals.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, type));
      BENCH_CUSPARSE(cusparseCreateDnVec(&x, host.num_cols, xs.data(), type));
      BENCH_CUSPARSE(cusparseCreateDnVec(&y, host.num_rows, ys.data(), type));
      size_t size = 0;
      BENCH_CUSPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, x, &beta, y, type,
                                             alg, &size));
      Kokkos::View<char*, Mem> buffer("buffer", std::max<size_t>(size, 1));
      BENCH_CUSPARSE(cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, x, &beta, y, type,
                                             alg, buffer.data()));
      Kokkos::fence();
      exercise<Entry>(name, precision, alg == CUSPARSE_SPMV_CSR_ALG1 ? "cusparse CSR ALG1+pre" : "cusparse CSR ALG2+pre",
                      mode, in, bytes,
                      [&] {
                        BENCH_CUSPARSE(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, x, &beta, y,
                                                    type, alg, buffer.data()));
                      },
                      [&] { return ys; });
      cusparseDestroySpMat(a);
      cusparseDestroyDnVec(x);
      cusparseDestroyDnVec(y);
    }
  }
  // L1 carveout lab: Kokkos 3.4 launches team kernels with cudaFuncCachePreferShared
  // (28 KB of L1 on Hopper); the library now sets a small carveout after the first
  // launch (impl/team_launch.hpp). The lab kernel and the library's segmented sum,
  // each under the cache settings below.
  const auto a = cs::to_device<cs::Csr, cs::Aos, Mem>(host);
  const auto x = cs::to_device<cs::Aos, Mem>(in.xh);
  const auto y = cs::to_device<cs::Aos, Mem>(std::vector<V>(host.num_rows), "y");
  cs::impl::RowResult<Entry, cs::Aos> result;
  result.alpha = cs::real_value<cs::coefficient_type_t<Entry>>(1.0);
  result.beta = cs::real_value<cs::coefficient_type_t<Entry>>(0.0);
  result.beta_is_zero = true;
  const Kokkos::View<scalar*> y_flat(reinterpret_cast<scalar*>(y.data.data()),
                                     host.num_rows * cs::component_traits<V>::size);
  const auto apply = [](const void* kernel, const std::string& setting, int small_percent) {
    if (setting == "pref-shared") {  // what Kokkos 3.4 does
      CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, -1));
      CHECK_CUDA(cudaFuncSetCacheConfig(kernel, cudaFuncCachePreferShared));
    } else if (setting == "carveout100") {
      CHECK_CUDA(cudaFuncSetCacheConfig(kernel, cudaFuncCachePreferShared));
      CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    } else if (setting == "pref-l1") {
      CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, -1));
      CHECK_CUDA(cudaFuncSetCacheConfig(kernel, cudaFuncCachePreferL1));
    } else if (setting == "small") {  // after Kokkos' PreferShared, as the library does
      CHECK_CUDA(cudaFuncSetCacheConfig(kernel, cudaFuncCachePreferShared));
      CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, small_percent));
    }
  };
  const char* settings[] = {"pref-shared", "carveout100", "pref-l1", "small"};

  const auto seg = [&](auto threads, auto blocks) {
    constexpr int K = 2, P = 2, T = decltype(threads)::value, B = decltype(blocks)::value;
    const SegPlan plan = seg_plan(host.row_offsets, K);
    Kokkos::View<V*, Mem> slots("slots", 2 * static_cast<std::size_t>(plan.tiles) + 2);
    const void* kernel = reinterpret_cast<const void*>(seg_pass1<scalar, K, P, T, B, true>);
    const cudaStream_t stream = Exec().cuda_stream();
    for (const char* setting : {"none", "small"}) {
      apply(kernel, setting, 10);
      char method[64];
      std::snprintf(method, sizeof method, "lab seg t%d.b%d %s", T, B, setting);
      Kokkos::deep_copy(y_flat, std::numeric_limits<scalar>::quiet_NaN());
      exercise<Entry>(name, precision, method, mode, in, bytes,
                      [&] {
                        seg_launch<scalar, K, P, T, B, true>(plan, a.col_indices.data(), a.values.data(),
                                                             x.data.data(), y.data.data(), slots.data(), stream);
                      },
                      [&] { return y_flat; });
    }
  };
  using std::integral_constant;
  seg(integral_constant<int, 128>{}, integral_constant<int, 16>{});


  const auto lib = [&](auto threads, auto blocks) {
    constexpr unsigned T = decltype(threads)::value, B = decltype(blocks)::value;
    Exec exec;
    char method[64];
    std::snprintf(method, sizeof method, "lib seg t%u.b%u", T, B);
    Kokkos::deep_copy(y_flat, std::numeric_limits<scalar>::quiet_NaN());
    exercise<Entry>(name, precision, method, mode, in, bytes,
                    [&] { cs::impl::segmented_sum_spmv<Exec, T, B>(exec, result, a, x, y); }, [&] { return y_flat; });
  };
  // Pass 1 alone: the lab kernel, the library's functor through Kokkos and as a plain kernel.
  const auto parts = [&](auto threads, auto blocks) {
    constexpr int T = decltype(threads)::value, B = decltype(blocks)::value;
    const SegPlan plan = seg_plan(host.row_offsets, 2);
    Kokkos::View<V*, Mem> slots("slots", 2 * static_cast<std::size_t>(plan.tiles) + 2);
    const cudaStream_t stream = Exec().cuda_stream();
    apply(reinterpret_cast<const void*>(seg_pass1<scalar, 2, 2, T, B, true>), "small", 10);
    char method[64];
    std::snprintf(method, sizeof method, "lab pass1 t%d.b%d", T, B);
    exercise<Entry>(name, precision, method, "time", in, bytes,
                    [&] {
                      seg_launch<scalar, 2, 2, T, B, true>(plan, a.col_indices.data(), a.values.data(), x.data.data(),
                                                           y.data.data(), slots.data(), stream, false);
                    },
                    [&] { return y_flat; });
    using functor = cs::impl::SegmentedSumFunctor<Entry, cs::Aos, cs::Aos, cs::Aos, Mem, true>;
    using policy_type = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<T, B>>;
    functor f;
    f.col_indices = a.col_indices;
    f.values = a.values;
    f.x = x.data;
    f.y = y.data;
    f.state = a.segmented;
    f.result = result;
    f.num_entries = static_cast<int>(a.num_entries);
    const int tiles = a.segmented.tiles, team = T / 32;
    std::snprintf(method, sizeof method, "lib pass1 kokkos t%d.b%d", T, B);
    exercise<Entry>(name, precision, method, "time", in, bytes,
                    [&] {
                      cs::impl::team_parallel_for("lab_pass1", policy_type(Exec(), (tiles + team - 1) / team, team, 32),
                                                  f);
                    },
                    [&] { return y_flat; });
    for (int percent : {-1}) {
      const void* raw = reinterpret_cast<const void*>(raw_lib_pass1<functor, T, B>);
      if (percent > 0)
        apply(raw, "small", percent);
      else
        apply(raw, "pref-l1", 0);
      std::snprintf(method, sizeof method, "lib pass1 raw t%d.b%d %s%d", T, B, percent > 0 ? "c" : "pref-l1",
                    percent);
      exercise<Entry>(name, precision, method, "time", in, bytes,
                      [&] { raw_lib_pass1<functor, T, B><<<(tiles + team - 1) / team, T, 0, stream>>>(f); },
                      [&] { return y_flat; });
    }
  };
  parts(integral_constant<int, 128>{}, integral_constant<int, 16>{});
  parts(integral_constant<int, 256>{}, integral_constant<int, 8>{});
  lib(integral_constant<unsigned, 128>{}, integral_constant<unsigned, 16>{});
  lib(integral_constant<unsigned, 256>{}, integral_constant<unsigned, 4>{});
  lib(integral_constant<unsigned, 512>{}, integral_constant<unsigned, 4>{});
  lib(integral_constant<unsigned, 128>{}, integral_constant<unsigned, 4>{});
  lib(integral_constant<unsigned, 256>{}, integral_constant<unsigned, 8>{});

  (void)settings;
}

// The same rows with columns k mod n: x read in order instead of gathered.
template <class Entry>
cs::HostCsr<Entry> in_order_columns(const cs::HostCsr<Entry>& a) {
  cs::HostCsr<Entry> b = a;
  for (std::size_t k = 0; k < b.col_indices.size(); ++k) b.col_indices[k] = static_cast<int>(k % a.num_cols);
  return b;
}
