// compound-assembly-bench: matrices made on the device (docs/perf.md, "Matrices made on the
// device"): every layout built there from a CSR, refreshed in place and assembled from a
// contribution list, against the host path and cuSPARSE's device path, in one run on one device.
//
//   compound-assembly-bench [--cases elasticity:24,helmholtz:32,stencil:24,reassembly:20]
//                           [--out FILE.json] [--samples N] [--host-samples N] [--steps N]
//
// Per case (assembly_cases.hpp: elasticity:N, helmholtz:N, stencil:N), per layout (every outer
// x inner layout of this build):
//   host_build    to_device<Outer, Inner> of the host path's CSR: converted on the host, copied
//   device_build  matrix_from_csr_views<Outer, Inner> of the same CSR on the device; its peak
//   refresh       refresh_values of the CSR's values, as bandwidth over its compulsory bytes
//                 (each value read once and written once) against a device-to-device copy
//   pattern       CooAssembly's constructor from the contributions' positions; its peak
//   assemble      CooAssembly::assemble of the contributions' values (compulsory bytes: each
//                 contribution read once, each non-zero written once)
// every matrix checked bit for bit against the host path's (the device build, the refreshed
// one after its values were zeroed, the assembled one). Once per case:
//   spmv          the product the builds are weighed against: TunedSpmv (Auto, Aos vectors) of
//                 the device CSR, checked against the double host reference
//   cusparse      cuSPARSE's path from the same list (cusparse_coo_path.hpp), checked likewise
//   kokkos_kernels Kokkos Kernels' path from it (kokkos_kernels_coo_path.hpp: sort_and_merge_matrix,
//                 then sumIntoValues per step), checked against the host path's matrix
//   host_assembly csr_from_coo's time on the host, where the case has one
// The cases fem:N, fem-helmholtz:N and fem-mesh:BASE assemble a tetrahedral mesh's P1 matrix, fem-p2:N and
// fem-p2-mesh:BASE its P2 elasticity matrix, on the device by every way of summing (fem_assembly_case.hpp). The case
// reassembly:N is different: the loop of example_elasticity_reassembly (its clamped beam of 4N x N x N cubes),
// assembled and solved --steps times (default 5) on CompoundSparse and on cuSPARSE (reassembly_loop.hpp). Peaks are the
// most device memory (Kokkos allocations) held at once during the step, over what was held before it (the
// contributions, the CSR).
//
// Times are medians of --samples (default 5) after a warm-up; the host build is timed
// --host-samples times (default 1: at 50M non-zeros it takes seconds). Writes FILE.json
// (default assembly.json) and prints a table; exit 1 if any check failed, 2 on a usage error.

#include <algorithm>
#include <chrono>
#include <compound_sparse.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "assembly_cases.hpp"
#include "bench_steps.hpp"
#include "command_line.hpp"
#include "cusparse_coo_path.hpp"
#include "device_memory_high_water.hpp"
#include "fem_assembly_case.hpp"
#ifdef COMPOUND_SPARSE_BENCH_KOKKOS_KERNELS
#include "kokkos_kernels_coo_path.hpp"
#endif
#include "max_relative_error.hpp"
#include "reassembly_loop.hpp"

namespace cs = compound_sparse;
using compound_bench::bytes_of;
using compound_bench::device_copy;
using compound_bench::launch_seconds;
using compound_bench::median_seconds;
using compound_bench::seconds_since;
using json = nlohmann::json;
using memory_space = Kokkos::DefaultExecutionSpace::memory_space;

namespace {

struct Options {
  std::vector<std::string> cases = {"elasticity:24", "helmholtz:32", "stencil:24"};
  std::string out = "assembly.json";
  int samples = 5;
  int host_samples = 1;
  int steps = 5;  ///< of the reassembly cases
};

/// The case's arrays on the device, and what every layout of it is weighed against.
template <class Entry>
struct DeviceCase {
  const compound_bench::AssemblyCase<Entry>& host;
  Kokkos::View<const int*, memory_space> rows, cols;
  Kokkos::View<const Entry*, memory_space> contributions;
  cs::CsrViews<Entry, memory_space> csr;  ///< the host path's CSR, on the device
  double copy_bytes_per_second = 0;       ///< device-to-device copy, for the bandwidth fractions
  double spmv_seconds = 0;                ///< the tuned product's
};

/// One layout of the case: builds, refresh and assembly, timed and checked. A layout the
/// host path refuses (its padding over the budget) must be refused by the device paths too.
template <class Entry, class Outer, class Inner>
json measure_layout(const DeviceCase<Entry>& c, const Options& options, bool& all_ok) {
  using matrix = cs::SparseMatrix<Entry, Outer, Inner, memory_space>;
  json r;
  r["layout"] = Outer::name() + "." + Inner::name();
  const auto fail = [&](const std::string& what) {
    all_ok = false;
    r["errors"].push_back(what);
    std::cerr << "compound-assembly-bench: " << c.host.name << " " << r["layout"].get<std::string>() << ": " << what
              << "\n";
  };
  matrix host;
  try {
    std::vector<double> times;
    for (int s = 0; s < options.host_samples; ++s) {
      const auto start = std::chrono::steady_clock::now();
      host = cs::to_device<Outer, Inner>(c.host.matrix);
      times.push_back(seconds_since(start));
    }
    std::sort(times.begin(), times.end());
    r["host_build_s"] = times[times.size() / 2];
  } catch (const cs::InvalidInput& refused) {
    r["refused"] = refused.what();
    bool device_refused = false;
    try {
      cs::matrix_from_csr_views<Outer, Inner>(c.csr.num_cols, c.csr.row_map, c.csr.entries, c.csr.values);
    } catch (const cs::InvalidInput&) {
      device_refused = true;
    }
    if (!device_refused) fail("the host path refused the layout but the device build did not");
    return r;
  }
  const auto host_bytes = bytes_of(host);
  const double entry_bytes = static_cast<double>(sizeof(Entry));
  const double nnz = static_cast<double>(host.num_entries);
  r["slots"] = host.num_slots;
  r["matrix_bytes"] = cs::memory_bytes(host);

  // The device build.
  const auto build = [&] {
    return cs::matrix_from_csr_views<Outer, Inner>(c.csr.num_cols, c.csr.row_map, c.csr.entries, c.csr.values);
  };
  r["device_build_s"] = median_seconds(options.samples, [&] { build(); });
  {
    compound_bench::DeviceMemoryHighWater memory;
    const matrix built = build();
    r["device_build_peak_bytes"] = memory.peak_bytes();
  }
  matrix device = build();
  if (bytes_of(device) != host_bytes) fail("the device build differs from the host path's matrix");
  r["device_vs_host"] = r["host_build_s"].get<double>() / r["device_build_s"].get<double>();
  r["build_over_spmv"] = r["device_build_s"].get<double>() / c.spmv_seconds;

  // Refresh: zeroed first, so every slot it must write is checked.
  Kokkos::deep_copy(device.values, 0);
  cs::refresh_values(device, c.csr.values);
  if (bytes_of(device) != host_bytes) fail("the refreshed matrix differs from the host path's");
  const double refresh_seconds = launch_seconds([&] { cs::refresh_values(device, c.csr.values); });
  r["refresh_s"] = refresh_seconds;
  r["refresh_fraction_of_copy"] = 2 * nnz * entry_bytes / refresh_seconds / c.copy_bytes_per_second;

  // COO assembly: the pattern once, then the values.
  using assembly_type = cs::CooAssembly<Entry, Outer, Inner, memory_space>;
  const int n_rows = c.host.num_rows, n_cols = c.host.num_cols;
  r["pattern_s"] = median_seconds(options.samples, [&] { assembly_type a(n_rows, n_cols, c.rows, c.cols); });
  {
    compound_bench::DeviceMemoryHighWater memory;
    assembly_type a(n_rows, n_cols, c.rows, c.cols);
    a.assemble(c.contributions);
    Kokkos::fence();
    r["pattern_peak_bytes"] = memory.peak_bytes();
    r["assembly_kept_bytes"] = memory.current_bytes();
  }
  const assembly_type assembly(n_rows, n_cols, c.rows, c.cols);
  assembly.assemble(c.contributions);
  if (bytes_of(assembly.matrix()) != host_bytes) fail("the assembled matrix differs from the host path's");
  const double assemble_seconds = launch_seconds([&] { assembly.assemble(c.contributions); });
  r["assemble_s"] = assemble_seconds;
  const double contributions = static_cast<double>(c.contributions.extent(0));
  r["assemble_fraction_of_copy"] = (contributions + nnz) * entry_bytes / assemble_seconds / c.copy_bytes_per_second;
  return r;
}

template <class Entry, class Outer, class... Inners>
void measure_outer(const DeviceCase<Entry>& c, const Options& options, bool& all_ok, json& layouts,
                   cs::TypeList<Inners...>) {
  (layouts.push_back(measure_layout<Entry, Outer, Inners>(c, options, all_ok)), ...);
}

template <class Entry, class... Outers>
void measure_layouts(const DeviceCase<Entry>& c, const Options& options, bool& all_ok, json& layouts,
                     cs::TypeList<Outers...>) {
  (measure_outer<Entry, Outers>(c, options, all_ok, layouts, cs::InnerLayouts{}), ...);
}

json coo_path_json(const compound_bench::CooPathResult& baseline) {
  json b;
  b["form"] = baseline.form;
  b["ok"] = baseline.ok;
  if (!baseline.error.empty()) b["error"] = baseline.error;
  if (baseline.ok) {
    b["first_s"] = baseline.first_seconds;
    b["step_s"] = baseline.step_seconds;
    b["peak_bytes"] = baseline.peak_bytes;
    b["matrix_bytes"] = baseline.matrix_bytes;
    b["relative_error"] = baseline.relative_error;
  }
  return b;
}

template <class Entry>
json measure_case(const compound_bench::AssemblyCase<Entry>& host, const Options& options, bool& all_ok) {
  using vector_value = cs::vector_type_t<Entry>;
  using vector = cs::CompoundVector<vector_value, cs::Aos, memory_space>;
  using coefficient = cs::coefficient_type_t<Entry>;
  json r;
  r["case"] = host.name;
  r["entry"] = cs::entry_type_name<Entry>() + " " + cs::precision_name<Entry>();
  r["rows"] = host.num_rows;
  r["cols"] = host.num_cols;
  r["nnz"] = host.matrix.num_entries();
  r["contributions"] = host.rows.size();
  r["entry_bytes"] = sizeof(Entry);
  if (host.host_assembly_seconds >= 0) r["host_assembly_s"] = host.host_assembly_seconds;
  std::printf("%s: %s, %d rows, %zu non-zeros from %zu contributions\n", host.name.c_str(),
              r["entry"].get<std::string>().c_str(), host.num_rows, host.matrix.num_entries(), host.rows.size());

  DeviceCase<Entry> c{host,
                      device_copy(host.rows, "bench::rows"),
                      device_copy(host.cols, "bench::cols"),
                      device_copy(host.values, "bench::contributions"),
                      {},
                      0,
                      0};
  c.csr = cs::csr_views(cs::to_device<cs::Csr, cs::Aos>(host.matrix));

  // The copy every bandwidth fraction is against: as many bytes as the matrix's values.
  {
    const std::size_t doubles = std::max<std::size_t>(1, host.matrix.num_entries() * sizeof(Entry) / sizeof(double));
    Kokkos::View<double*, memory_space> from("bench::copy_from", doubles), to("bench::copy_to", doubles);
    const double seconds = launch_seconds([&] { Kokkos::deep_copy(Kokkos::DefaultExecutionSpace(), to, from); },
                                          cs::preferred_timing_mode());
    c.copy_bytes_per_second = 2.0 * doubles * sizeof(double) / seconds;
    r["copy_gb_per_s"] = c.copy_bytes_per_second / 1e9;
  }

  // The tuned product of the device CSR: the yardstick of the builds.
  {
    cs::TunedSpmvOptions tuning;
    tuning.vector_layout = "aos";
    const auto start = std::chrono::steady_clock::now();
    const cs::TunedSpmv<Entry> tuned(cs::make_device_csr(c.csr.num_cols, c.csr.row_map, c.csr.entries, c.csr.values),
                                     tuning);
    r["tuned_spmv_construct_s"] = seconds_since(start);
    r["tuned_variant"] = tuned.variant().name();
    std::vector<vector_value> x_host(host.num_cols);
    using vtraits = cs::component_traits<vector_value>;
    for (int i = 0; i < host.num_cols; ++i)
      for (int k = 0; k < vtraits::size; ++k) vtraits::get(x_host[i], k) = ((5 * i + 2 * k) % 13) / 8.0 - 0.75;
    const vector x = cs::to_device<cs::Aos>(x_host, "bench::x");
    const vector y = cs::to_device<cs::Aos>(std::vector<vector_value>(host.num_rows), "bench::y");
    const auto apply = [&] { tuned.apply(cs::real_value<coefficient>(1), x, cs::real_value<coefficient>(0), y); };
    c.spmv_seconds = launch_seconds(apply, cs::preferred_timing_mode());
    apply();
    const double error = compound_bench::max_relative_error(host.matrix, x_host, cs::to_host(y));
    r["spmv_s"] = c.spmv_seconds;
    r["spmv_relative_error"] = error;
    // The tuned variant may run in float-accumulating forms only where asked; in double a
    // relative error this size means a wrong product.
    if (!(error <= 1e-10)) {
      all_ok = false;
      std::cerr << "compound-assembly-bench: " << host.name << ": the tuned SpMV is off the reference by " << error
                << "\n";
    }
  }

  json layouts = json::array();
  measure_layouts<Entry>(c, options, all_ok, layouts, cs::OuterLayouts{});
  r["layouts"] = layouts;

  // A library may refuse a matrix (cuSPARSE's CSR keeps the repeated positions, and a tiny
  // matrix can then hold more entries than rows x columns; memory): that is reported, a wrong
  // result fails.
  const auto report_baseline = [&](const char* key, const compound_bench::CooPathResult& baseline) {
    r[key] = coo_path_json(baseline);
    if (baseline.wrong) {
      all_ok = false;
      std::cerr << "compound-assembly-bench: " << host.name << ": " << key << ": " << baseline.error << "\n";
    }
  };
  report_baseline("cusparse", compound_bench::cusparse_coo_path<Entry>(host.num_rows, host.num_cols, c.rows, c.cols,
                                                                       c.contributions, host.matrix, options.samples));
#ifdef COMPOUND_SPARSE_BENCH_KOKKOS_KERNELS
  report_baseline("kokkos_kernels",
                  compound_bench::kokkos_kernels_coo_path<Entry>(host.num_rows, host.num_cols, c.rows, c.cols,
                                                                 c.contributions, host.matrix, options.samples));
#else
  compound_bench::CooPathResult without;
  without.form = "none";
  without.error = "built without Kokkos Kernels";
  report_baseline("kokkos_kernels", without);
#endif
  return r;
}

void print_case(const json& r) {
  const double spmv = r["spmv_s"].get<double>();
  std::printf("  tuned SpMV %s: %.1f us; copy %.0f GB/s", r["tuned_variant"].get<std::string>().c_str(), 1e6 * spmv,
              r["copy_gb_per_s"].get<double>());
  if (r.contains("host_assembly_s"))
    std::printf("; csr_from_coo on the host %.3f s", r["host_assembly_s"].get<double>());
  std::printf("\n  %-12s %10s %10s %8s %8s %9s %6s %10s %10s %8s %6s\n", "layout", "host ms", "device ms", "x host",
              "x SpMV", "refresh", "%copy", "pattern ms", "assemble", "%copy", "peak");
  const double input_bytes = r["contributions"].get<double>() * (8.0 + r["entry_bytes"].get<double>());
  for (const auto& l : r["layouts"]) {
    if (l.contains("refused")) {
      std::printf("  %-12s refused (host and device)\n", l["layout"].get<std::string>().c_str());
      continue;
    }
    const double peak =
        (input_bytes + l["pattern_peak_bytes"].get<double>()) / (input_bytes + l["matrix_bytes"].get<double>());
    std::printf("  %-12s %10.2f %10.3f %8.0f %8.1f %6.1f us %6.0f %10.3f %7.1f us %6.0f %6.2f%s\n",
                l["layout"].get<std::string>().c_str(), 1e3 * l["host_build_s"].get<double>(),
                1e3 * l["device_build_s"].get<double>(), l["device_vs_host"].get<double>(),
                l["build_over_spmv"].get<double>(), 1e6 * l["refresh_s"].get<double>(),
                100 * l["refresh_fraction_of_copy"].get<double>(), 1e3 * l["pattern_s"].get<double>(),
                1e6 * l["assemble_s"].get<double>(), 100 * l["assemble_fraction_of_copy"].get<double>(), peak,
                l.contains("errors") ? "  CHECK FAILED" : "");
  }
  for (const auto& [key, name] : {std::pair<const char*, const char*>{"cusparse", "cuSPARSE"},
                                  std::pair<const char*, const char*>{"kokkos_kernels", "Kokkos Kernels"}}) {
    const auto& b = r[key];
    if (b["ok"].get<bool>())
      std::printf("  %s %s: first %.3f ms, step %.1f us, peak %.2f GB\n", name, b["form"].get<std::string>().c_str(),
                  1e3 * b["first_s"].get<double>(), 1e6 * b["step_s"].get<double>(),
                  b["peak_bytes"].get<double>() / 1e9);
    else
      std::printf("  %s: n/a (%s)\n", name, b["error"].get<std::string>().c_str());
  }
}

/// "class:N" -> the case's measurements.
json run_case(const std::string& spec, const Options& options, bool& all_ok) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  if (compound_bench::is_fem_case(kind)) return compound_bench::measure_fem_case(spec, options.samples, all_ok);
  const int n = compound_tools::integer_at_least(colon == std::string::npos ? "" : spec.substr(colon + 1), 1);
  if (kind == "elasticity") return measure_case(compound_bench::elasticity_case(spec, n), options, all_ok);
  if (kind == "helmholtz") return measure_case(compound_bench::helmholtz_case(spec, n), options, all_ok);
  if (kind == "reassembly") return compound_bench::measure_reassembly_loop(spec, n, options.steps, all_ok);
  return measure_case(compound_bench::stencil_case(spec, n), options, all_ok);
}

/// Checks a case name before any work: "elasticity|helmholtz|stencil|reassembly|fem|fem-helmholtz|fem-p2:N",
/// N >= 1, or "fem-mesh|fem-p2-mesh:BASE".
void check_case(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  if (colon == std::string::npos || (kind != "elasticity" && kind != "helmholtz" && kind != "stencil" &&
                                     kind != "reassembly" && !compound_bench::is_fem_case(kind)))
    throw std::invalid_argument(
        "cases are elasticity:N, helmholtz:N, stencil:N, reassembly:N, fem:N, fem-helmholtz:N, fem-p2:N, "
        "fem-mesh:BASE or fem-p2-mesh:BASE");
  if (kind != "fem-mesh" && kind != "fem-p2-mesh") compound_tools::integer_at_least(spec.substr(colon + 1), 1);
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "usage: compound-assembly-bench [--cases elasticity:N,helmholtz:N,stencil:N,reassembly:N,fem:N,fem-helmholtz:N,"
      "fem-p2:N,fem-mesh:BASE,fem-p2-mesh:BASE] [--out FILE.json] "
      "[--samples N] [--host-samples N] [--steps N]\n";
  if (compound_tools::wants_help(argc, argv)) {
    std::cout << usage;
    return 0;
  }
  Options options;
  const std::string problem = compound_tools::parse_options(
      argc, argv,
      {{"--cases",
        [&](const std::string& v) {
          options.cases = compound_tools::split_list(v);
          for (const auto& c : options.cases) check_case(c);
        }},
       {"--out", [&](const std::string& v) { options.out = v; }},
       {"--samples", [&](const std::string& v) { options.samples = compound_tools::integer_at_least(v, 1); }},
       {"--host-samples", [&](const std::string& v) { options.host_samples = compound_tools::integer_at_least(v, 1); }},
       {"--steps", [&](const std::string& v) { options.steps = compound_tools::integer_at_least(v, 1); }}});
  if (!problem.empty()) {
    std::cerr << "compound-assembly-bench: " << problem << "\n" << usage;
    return 2;
  }
  if (!std::ofstream(options.out, std::ios::app)) {  // before any work, not after it
    std::cerr << "compound-assembly-bench: cannot write " << options.out << "\n";
    return 1;
  }
  Kokkos::ScopeGuard kokkos(argc, argv);
  json report;
  report["device"] = cs::default_device_info().name;
  report["backend"] = cs::default_device_info().backend;
  report["command"] = [&] {
    std::string command;
    for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
    return command;
  }();
  report["samples"] = options.samples;
  report["cases"] = json::array();
  bool all_ok = true;
  for (const auto& spec : options.cases) {
    try {
      report["cases"].push_back(run_case(spec, options, all_ok));
    } catch (const std::exception& e) {  // an unreadable mesh, a refused size
      std::cerr << "compound-assembly-bench: " << spec << ": " << e.what() << "\n";
      return 1;
    }
    if (report["cases"].back().contains("ours"))
      compound_bench::print_reassembly_loop(report["cases"].back());
    else if (report["cases"].back().contains("summations"))
      compound_bench::print_fem_case(report["cases"].back());
    else
      print_case(report["cases"].back());
    // Written after every case, so a run stopped part-way keeps what it measured.
    std::ofstream out(options.out);
    out << report.dump(1) << "\n";
    if (!out) {
      std::cerr << "compound-assembly-bench: cannot write " << options.out << "\n";
      return 1;
    }
  }
  std::printf("%s\n", all_ok ? "all checks passed" : "SOME CHECKS FAILED");
  return all_ok ? 0 : 1;
}
