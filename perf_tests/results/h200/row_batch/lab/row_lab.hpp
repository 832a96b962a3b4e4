// Row-kernel batch lab (not part of the library): the Static row kernel as checked out, on
// Csr / Ell / Sell32 (AoS), launch bounds 256 x {1,2,4,8}, lanes {1,2,4,8}, and batches of
// 1, 2, 4, 8 slots per lane, against every cuSPARSE form the bench times; queued timing,
// every result checked against the double host reference. The batch spmv would use
// (row_spmv_batch) is marked "*".
#pragma once
#include <compound_sparse.hpp>
#include <cusparse_baseline.hpp>

#include <cstdio>
#include <random>
#include <string>

namespace cs = compound_sparse;
using Exec = Kokkos::Cuda;
using Mem = Kokkos::CudaSpace;

template <class Entry>
using Ref = cs::vector_type_t<typename cs::entry_traits<Entry>::template rebind<double>>;

template <class Entry, class Outer, unsigned T, unsigned B, int Batch>
void time_one(const char* name, const char* precision, const cs::HostCsr<Entry>& host,
              const cs::SparseMatrix<Entry, Outer, cs::Aos, Mem>& a,
              const cs::CompoundVector<cs::vector_type_t<Entry>, cs::Aos, Mem>& x,
              const cs::CompoundVector<cs::vector_type_t<Entry>, cs::Aos, Mem>& y, const std::vector<Ref<Entry>>& ref,
              double tol, const cs::TimingOptions& timing, double bytes) {
  using V = cs::vector_type_t<Entry>;
  for (int lanes : {1, 2, 4, 8}) {
    if (!std::is_same<Outer, cs::Csr>::value && lanes > 4) continue;
    cs::impl::RowResult<Entry, cs::Aos> result;
    result.alpha = cs::real_value<cs::coefficient_type_t<Entry>>(1.0);
    result.beta = cs::real_value<cs::coefficient_type_t<Entry>>(0.0);
    result.beta_is_zero = true;
    cs::Schedule<cs::ScheduleKind::Static, T, B> s;
    s.lanes_per_row = lanes;
    Exec exec;
    const auto launch = [&](int) {
      cs::impl::row_spmv<Exec, cs::ScheduleKind::Static, T, B, Entry, Outer, cs::Aos, cs::Aos, cs::Aos, Mem, Batch>(
          exec, s, result, a, x, y);
    };
    Kokkos::deep_copy(y.data, std::nan(""));
    launch(0);
    Kokkos::fence();
    const double err = cs::relative_error(cs::to_host(y), ref);
    const auto t = cs::time_launches<Exec>(launch, timing);
    const bool chosen = Batch == cs::impl::row_spmv_batch<Exec, Entry, T, B>();
    std::printf("%-22s %-6s %-6s t%u.b%u l%d batch %d%s %9.2f us %6.2f TB/s err %.1e %s\n", name, precision,
                Outer::name().c_str(), T, B, lanes, Batch, chosen ? "*" : " ", t.median_seconds * 1e6,
                bytes / t.median_seconds * 1e-12, err, err <= tol ? "ok" : "WRONG");
    std::fflush(stdout);
  }
}

template <class Entry, class Outer, unsigned T, unsigned B>
void time_batches(const char* name, const char* precision, const cs::HostCsr<Entry>& host,
                  const cs::SparseMatrix<Entry, Outer, cs::Aos, Mem>& a,
                  const cs::CompoundVector<cs::vector_type_t<Entry>, cs::Aos, Mem>& x,
                  const cs::CompoundVector<cs::vector_type_t<Entry>, cs::Aos, Mem>& y,
                  const std::vector<Ref<Entry>>& ref, double tol, const cs::TimingOptions& timing, double bytes) {
  time_one<Entry, Outer, T, B, 1>(name, precision, host, a, x, y, ref, tol, timing, bytes);
  time_one<Entry, Outer, T, B, 2>(name, precision, host, a, x, y, ref, tol, timing, bytes);
  time_one<Entry, Outer, T, B, 4>(name, precision, host, a, x, y, ref, tol, timing, bytes);
  time_one<Entry, Outer, T, B, 8>(name, precision, host, a, x, y, ref, tol, timing, bytes);
}

template <class Entry, class Outer>
void time_layout(const char* name, const char* precision, const cs::HostCsr<Entry>& host,
                 const cs::CompoundVector<cs::vector_type_t<Entry>, cs::Aos, Mem>& x,
                 const cs::CompoundVector<cs::vector_type_t<Entry>, cs::Aos, Mem>& y,
                 const std::vector<Ref<Entry>>& ref, double tol, const cs::TimingOptions& timing, double bytes) {
  const auto a = cs::to_device<Outer, cs::Aos, Mem>(host);
  time_batches<Entry, Outer, 256, 1>(name, precision, host, a, x, y, ref, tol, timing, bytes);
  time_batches<Entry, Outer, 256, 2>(name, precision, host, a, x, y, ref, tol, timing, bytes);
  time_batches<Entry, Outer, 256, 4>(name, precision, host, a, x, y, ref, tol, timing, bytes);
  time_batches<Entry, Outer, 256, 8>(name, precision, host, a, x, y, ref, tol, timing, bytes);
}

template <class Entry>
void run_matrix(const char* name, const char* precision, const cs::HostCsr<Entry>& host) {
  using V = cs::vector_type_t<Entry>;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<V> xh(host.num_cols);
  for (auto& v : xh)
    for (int c = 0; c < cs::component_traits<V>::size; ++c) cs::component_traits<V>::get(v, c) = u(rng);
  const auto ref = cs::reference_spmv<double>(cs::real_value<cs::coefficient_type_t<Entry>>(1.0), host, xh,
                                              cs::real_value<cs::coefficient_type_t<Entry>>(0.0),
                                              std::vector<V>(host.num_rows));
  const double tol = sizeof(typename cs::component_traits<Entry>::scalar_type) == 8 ? 1e-12 : 1e-4;
  const auto x = cs::to_device<cs::Aos, Mem>(xh);
  const auto y = cs::to_device<cs::Aos, Mem>(std::vector<V>(host.num_rows), "y");
  const double bytes = cs::compulsory_bytes(host);
  cs::TimingOptions timing;
  timing.mode = cs::TimingMode::Queued;
  timing.batch = 20;
  timing.samples = 15;
  std::printf("== %s %s: %d rows, %zu non-zeros, %.1f MB compulsory\n", name, precision, host.num_rows,
              static_cast<std::size_t>(host.num_entries()), bytes * 1e-6);
  const auto forms = compound_sparse_bench::cusparse_forms(host, xh, ref, timing, 1, tol);
  for (const auto& f : forms)
    std::printf("%-22s %-6s cusparse %-40s %9.2f us %6.2f TB/s %s %s\n", name, precision, f.variant.c_str(),
                f.seconds * 1e6, f.ok ? bytes / f.seconds * 1e-12 : 0.0, f.ok ? "ok" : "FAILED", f.error.c_str());
  time_layout<Entry, cs::Ell>(name, precision, host, x, y, ref, tol, timing, bytes);
  time_layout<Entry, cs::SlicedEll<32>>(name, precision, host, x, y, ref, tol, timing, bytes);
  time_layout<Entry, cs::Csr>(name, precision, host, x, y, ref, tol, timing, bytes);
}

/// `a` with its values converted to Entry (the zoo builds double precision).
template <class Entry, class Wide>
cs::HostCsr<Entry> narrowed(const cs::HostCsr<Wide>& a) {
  cs::HostCsr<Entry> n;
  n.num_rows = a.num_rows;
  n.num_cols = a.num_cols;
  n.row_offsets = a.row_offsets;
  n.col_indices = a.col_indices;
  n.values.reserve(a.values.size());
  for (const auto& v : a.values) n.values.push_back(cs::convert_components<Entry>(v));
  return n;
}

void run_complex_float(const char* name, const cs::HostCsr<Kokkos::complex<double>>& a);
void run_complex_double(const char* name, const cs::HostCsr<Kokkos::complex<double>>& a);
void run_block_float(const char* name, const cs::HostCsr<cs::Block<double, 3>>& a);
void run_block_double(const char* name, const cs::HostCsr<cs::Block<double, 3>>& a);
