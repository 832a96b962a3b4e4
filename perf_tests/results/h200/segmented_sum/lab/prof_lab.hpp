// Profile lab (not part of the library): the library's merge-path SpMV against cuSPARSE's
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
  // The library's merge path at its two best launch bounds, then the segmented-sum lab kernel.
  const auto a = cs::to_device<cs::Csr, cs::Aos, Mem>(host);
  const auto x = cs::to_device<cs::Aos, Mem>(in.xh);
  const auto y = cs::to_device<cs::Aos, Mem>(std::vector<V>(host.num_rows), "y");
  cs::impl::RowResult<Entry, cs::Aos> result;
  result.alpha = cs::real_value<cs::coefficient_type_t<Entry>>(1.0);
  result.beta = cs::real_value<cs::coefficient_type_t<Entry>>(0.0);
  result.beta_is_zero = true;
  const Kokkos::View<scalar*> y_flat(reinterpret_cast<scalar*>(y.data.data()),
                                     host.num_rows * cs::component_traits<V>::size);
  const auto now = cs::impl::merge_path_functor(result, a, x, y);
  const auto one = [&](auto bounds, const char* label, const auto& f, auto threads) {
    constexpr unsigned T = decltype(threads)::value, B = decltype(bounds)::value;
    using functor = std::decay_t<decltype(f)>;
    using policy_type = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<T, B>>;
    Exec exec;
    const auto launches = [&](std::size_t b) {
      return policy_type(exec, 1, 1).set_scratch_size(0, Kokkos::PerTeam(b)).team_size_max(
                 f, Kokkos::ParallelForTag()) >= static_cast<int>(T);
    };
    const auto tile = cs::impl::merge_path_tile<functor>(
        true, T, static_cast<std::size_t>(policy_type::scratch_size_max(0)), launches);
    char method[64];
    std::snprintf(method, sizeof method, "%s t%u.b%u ipw%d", label, T, B, tile.items_per_worker);
    Kokkos::deep_copy(y_flat, std::numeric_limits<scalar>::quiet_NaN());
    exercise<Entry>(name, precision, method, mode, in, bytes,
                    [&] { cs::impl::launch_merge_path<T, B>(exec, f, static_cast<int>(T), tile); },
                    [&] { return y_flat; });
  };
  using t128 = std::integral_constant<unsigned, 128>;
  using t256 = std::integral_constant<unsigned, 256>;
  one(std::integral_constant<unsigned, 16>{}, "merge_path", now, t128{});
  if (mode != "profile") one(std::integral_constant<unsigned, 8>{}, "merge_path", now, t256{});

  const auto seg = [&](auto k, auto p, auto threads, auto blocks, auto stream_loads, bool pass2 = true) {
    constexpr int K = decltype(k)::value, P = decltype(p)::value, T = decltype(threads)::value,
                  B = decltype(blocks)::value;
    constexpr bool S = decltype(stream_loads)::value;
    const SegPlan plan = seg_plan(host.row_offsets, K);
    Kokkos::View<V*, Mem> slots("slots", 2 * static_cast<std::size_t>(plan.tiles) + 2);
    char method[64];
    std::snprintf(method, sizeof method, "seg K%d P%d t%d.b%d%s%s", K, P, T, B, S ? " cs" : "",
                  pass2 ? "" : " pass1-only");
    Kokkos::deep_copy(y_flat, std::numeric_limits<scalar>::quiet_NaN());
    const cudaStream_t stream = Exec().cuda_stream();
    if (!pass2) {  // checked with pass 2 first, then timed without it
      seg_launch<scalar, K, P, T, B, S>(plan, a.col_indices.data(), a.values.data(), x.data.data(), y.data.data(),
                                        slots.data(), stream);
      Kokkos::fence();
    }
    exercise<Entry>(name, precision, method, pass2 ? mode : std::string("time"), in, bytes,
                    [&] {
                      seg_launch<scalar, K, P, T, B, S>(plan, a.col_indices.data(), a.values.data(), x.data.data(),
                                                        y.data.data(), slots.data(), stream, pass2);
                    },
                    [&] { return y_flat; });
  };
  using std::integral_constant;
  const std::false_type plain;
  const std::true_type cs_loads;
  seg(integral_constant<int, 4>{}, integral_constant<int, 4>{}, integral_constant<int, 128>{},
      integral_constant<int, 8>{}, plain);
  if (mode == "profile") return;
  seg(integral_constant<int, 4>{}, integral_constant<int, 4>{}, integral_constant<int, 128>{},
      integral_constant<int, 8>{}, cs_loads);
  if (mode == "time") {
    seg(integral_constant<int, 4>{}, integral_constant<int, 4>{}, integral_constant<int, 128>{},
        integral_constant<int, 8>{}, plain, false);
    seg(integral_constant<int, 4>{}, integral_constant<int, 4>{}, integral_constant<int, 128>{},
        integral_constant<int, 8>{}, cs_loads, false);
  }
  seg(integral_constant<int, 2>{}, integral_constant<int, 2>{}, integral_constant<int, 128>{},
      integral_constant<int, 16>{}, plain);
  seg(integral_constant<int, 2>{}, integral_constant<int, 2>{}, integral_constant<int, 128>{},
      integral_constant<int, 16>{}, cs_loads);
  seg(integral_constant<int, 4>{}, integral_constant<int, 4>{}, integral_constant<int, 128>{},
      integral_constant<int, 12>{}, cs_loads);
  seg(integral_constant<int, 4>{}, integral_constant<int, 4>{}, integral_constant<int, 256>{},
      integral_constant<int, 4>{}, cs_loads);
  seg(integral_constant<int, 8>{}, integral_constant<int, 8>{}, integral_constant<int, 128>{},
      integral_constant<int, 8>{}, cs_loads);
  seg(integral_constant<int, 8>{}, integral_constant<int, 4>{}, integral_constant<int, 128>{},
      integral_constant<int, 8>{}, cs_loads);
  seg(integral_constant<int, 1>{}, integral_constant<int, 1>{}, integral_constant<int, 128>{},
      integral_constant<int, 16>{}, cs_loads);
}

// The same rows with columns k mod n: x read in order instead of gathered.
template <class Entry>
cs::HostCsr<Entry> in_order_columns(const cs::HostCsr<Entry>& a) {
  cs::HostCsr<Entry> b = a;
  for (std::size_t k = 0; k < b.col_indices.size(); ++k) b.col_indices[k] = static_cast<int>(k % a.num_cols);
  return b;
}
