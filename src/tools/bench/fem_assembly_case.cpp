// compound-assembly-bench's finite-element cases (fem_assembly_case.hpp). Per case:
//   host          the zoo's assembly on one core: the element contributions, csr_from_coo
//   per way of summing (P1Assembly or P2Assembly into SlicedEll<32>.soa, the Bin-BCSR* of the
//   method):
//     build       the constructor: the pattern from the topology, the layout, the way's arrays
//     assemble    assemble(problem): every element entry computed and summed into the layout
//     peak        the most device memory held at once by the constructor and one assemble
//     kept        what stays besides the mesh: the matrix and the way's arrays
//     bandwidth   (the matrix's values written + the mesh read) / assemble, against a copy
//   checked against the host assembly converted: bit for bit for the gathers, within 1e-14 of
//   the largest value for the scatters, a coloured scatter the same bits twice.
//   coo           CooAssembly of the same layout from the element contributions' positions, and
//                 assemble() of their values (the contributions made on the host, not timed)
//   cusparse      cuSPARSE's route to a CSR from the same contributions (cusparse_coo_path.hpp)

#include "fem_assembly_case.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <compound_sparse.hpp>
#include <compound_sparse/zoo/elasticity.hpp>
#include <compound_sparse/zoo/helmholtz.hpp>
#include <compound_sparse/zoo/tet_mesh.hpp>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "assembly_cases.hpp"
#include "bench_steps.hpp"
#include "command_line.hpp"
#include "cusparse_coo_path.hpp"
#include "device_memory_high_water.hpp"

namespace compound_bench {
namespace {

namespace cs = compound_sparse;
namespace zoo = compound_sparse::zoo;
using json = nlohmann::json;
using memory_space = Kokkos::DefaultExecutionSpace::memory_space;
using Outer = cs::SlicedEll<32>;
using Inner = cs::Soa;

constexpr cs::Summation summations[] = {cs::Summation::per_entry, cs::Summation::per_node,
                                        cs::Summation::per_node_inline, cs::Summation::atomic_scatter,
                                        cs::Summation::coloured_scatter};

cs::DeviceTetMesh<memory_space> device_mesh(const zoo::TetMesh& m) {
  Kokkos::View<double* [3], Kokkos::LayoutRight, memory_space> points("bench::points", m.points.size());
  Kokkos::View<int* [4], Kokkos::LayoutRight, memory_space> cells("bench::cells", m.tets.size());
  const auto host_points = Kokkos::create_mirror_view(points);
  const auto host_cells = Kokkos::create_mirror_view(cells);
  for (std::size_t p = 0; p < m.points.size(); ++p)
    for (int d = 0; d < 3; ++d) host_points(p, d) = m.points[p][d];
  for (std::size_t t = 0; t < m.tets.size(); ++t)
    for (int q = 0; q < 4; ++q) host_cells(t, q) = m.tets[t][q];
  Kokkos::deep_copy(points, host_points);
  Kokkos::deep_copy(cells, host_cells);
  return cs::make_device_tet_mesh(points, cells);
}

/// The largest difference between two matrices' values over their largest value.
template <class Matrix>
double relative_difference(const Matrix& got, const Matrix& want) {
  const auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got.values);
  const auto w = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), want.values);
  double largest = 0, worst = 0;
  for (std::size_t i = 0; i < w.extent(0); ++i)
    for (std::size_t c = 0; c < w.extent(1); ++c) {
      largest = std::max(largest, std::abs(w(i, c)));
      worst = std::max(worst, std::abs(g(i, c) - w(i, c)));
    }
  return largest > 0 ? worst / largest : worst;
}

/// The case on one mesh: elements of order Order, `contributions` the host's element entries
/// over the order's nodes (P1: the points; P2: the points, then the edges).
template <int Order, class Entry, class Problem>
json measure_mesh(const std::string& name, const zoo::TetMesh& m, const Problem& problem,
                  std::vector<cs::CooEntry<Entry>> contributions, int samples, bool& all_ok) {
  using matrix_type = cs::SparseMatrix<Entry, Outer, Inner, memory_space>;
  json r;
  r["case"] = name;
  r["entry"] = cs::entry_type_name<Entry>() + " " + cs::precision_name<Entry>();
  r["layout"] = Outer::name() + "." + Inner::name();
  r["order"] = Order;
  r["points"] = m.points.size();
  r["cells"] = m.tets.size();
  const auto fail = [&](json& where, const std::string& what) {
    all_ok = false;
    where["errors"].push_back(what);
    std::cerr << "compound-assembly-bench: " << name << ": " << what << "\n";
  };
  // The host's assembly: csr_from_coo of the contributions, timed.
  const int n =
      Order == 1 ? static_cast<int>(m.points.size()) : static_cast<int>(m.points.size() + zoo::mesh_edges(m).size());
  const auto host = case_of_contributions(name, n, std::move(contributions));
  r["nodes"] = n;
  r["host_assembly_s"] = host.host_assembly_seconds;
  r["nnz"] = host.matrix.num_entries();
  r["contributions"] = host.rows.size();
  std::printf("%s: P%d, %s, %zu points, %d nodes, %zu cells, %zu non-zeros\n", name.c_str(), Order,
              r["entry"].get<std::string>().c_str(), m.points.size(), n, m.tets.size(), host.matrix.num_entries());
  std::fflush(stdout);

  const auto mesh_start = std::chrono::steady_clock::now();
  const auto mesh = device_mesh(m);
  r["mesh_copy_and_check_s"] = seconds_since(mesh_start);
  const matrix_type reference = cs::to_device<Outer, Inner>(host.matrix);
  const auto reference_bytes = bytes_of(reference);
  const double matrix_bytes = static_cast<double>(cs::memory_bytes(reference));
  r["matrix_bytes"] = matrix_bytes;
  const double nnz = static_cast<double>(host.matrix.num_entries());
  {
    const std::size_t doubles = std::max<std::size_t>(1, host.matrix.num_entries() * sizeof(Entry) / sizeof(double));
    Kokkos::View<double*, memory_space> from("bench::copy_from", doubles), to("bench::copy_to", doubles);
    const double seconds = launch_seconds([&] { Kokkos::deep_copy(Kokkos::DefaultExecutionSpace(), to, from); },
                                          cs::preferred_timing_mode());
    r["copy_gb_per_s"] = 2.0 * doubles * sizeof(double) / seconds / 1e9;
  }
  const double compulsory =
      nnz * sizeof(Entry) + static_cast<double>(m.tets.size()) * 16 + static_cast<double>(m.points.size()) * 24;

  json ways = json::array();
  for (const auto how : summations) {
    using assembly_type = cs::LagrangeAssembly<Order, Entry, Outer, Inner, memory_space>;
    json w;
    w["summation"] = cs::summation_name(how);
    w["build_s"] = median_seconds(samples, [&] { assembly_type a(mesh, how); });
    {
      DeviceMemoryHighWater memory;
      assembly_type a(mesh, how);
      a.assemble(problem);
      Kokkos::fence();
      w["peak_bytes"] = memory.peak_bytes();
      w["kept_bytes"] = memory.current_bytes();
    }
    const assembly_type assembly(mesh, how);
    assembly.assemble(problem);
    const bool exact =
        how == cs::Summation::per_entry || how == cs::Summation::per_node || how == cs::Summation::per_node_inline;
    if (exact) {
      if (bytes_of(assembly.matrix()) != reference_bytes) fail(w, "differs from the host assembly");
    } else {
      const double difference = relative_difference(assembly.matrix(), reference);
      w["relative_difference"] = difference;
      if (!(difference <= 1e-14)) fail(w, "off the host assembly by " + std::to_string(difference));
    }
    if (how == cs::Summation::coloured_scatter) {
      w["colours"] = assembly.num_colours();
      const auto first = bytes_of(assembly.matrix());
      assembly.assemble(problem);
      if (bytes_of(assembly.matrix()) != first) fail(w, "a second coloured assembly differs from the first");
    }
    const double assemble_seconds = launch_seconds([&] { assembly.assemble(problem); });
    w["assemble_s"] = assemble_seconds;
    w["total_s"] = w["build_s"].get<double>() + assemble_seconds;
    w["fraction_of_copy"] = compulsory / assemble_seconds / (r["copy_gb_per_s"].get<double>() * 1e9);
    ways.push_back(w);
    std::printf("  %s done\n", cs::summation_name(how));
    std::fflush(stdout);
  }
  r["summations"] = ways;

  // The COO paths from the element contributions.
  const auto rows = device_copy(host.rows, "bench::rows");
  const auto cols = device_copy(host.cols, "bench::cols");
  const auto values = device_copy(host.values, "bench::contributions");
  {
    using coo_type = cs::CooAssembly<Entry, Outer, Inner, memory_space>;
    json c;
    c["pattern_s"] = median_seconds(samples, [&] { coo_type a(n, n, rows, cols); });
    {
      DeviceMemoryHighWater memory;
      coo_type a(n, n, rows, cols);
      a.assemble(values);
      Kokkos::fence();
      c["peak_bytes"] = memory.peak_bytes();
    }
    const coo_type coo(n, n, rows, cols);
    coo.assemble(values);
    if (bytes_of(coo.matrix()) != reference_bytes) fail(c, "the COO assembly differs from the host assembly");
    c["assemble_s"] = launch_seconds([&] { coo.assemble(values); });
    c["total_s"] = c["pattern_s"].get<double>() + c["assemble_s"].get<double>();
    r["coo"] = c;
  }
  const auto cusparse = cusparse_coo_path<Entry>(n, n, rows, cols, values, host.matrix, samples);
  json b;
  b["form"] = cusparse.form;
  b["ok"] = cusparse.ok;
  if (!cusparse.error.empty()) b["error"] = cusparse.error;
  if (cusparse.ok) {
    b["first_s"] = cusparse.first_seconds;
    b["peak_bytes"] = cusparse.peak_bytes;
    b["relative_error"] = cusparse.relative_error;
  }
  if (cusparse.wrong) fail(b, cusparse.error);
  r["cusparse"] = b;
  return r;
}

}  // namespace

bool is_fem_case(const std::string& kind) {
  return kind == "fem" || kind == "fem-helmholtz" || kind == "fem-mesh" || kind == "fem-p2" || kind == "fem-p2-mesh";
}

json measure_fem_case(const std::string& spec, int samples, bool& all_ok) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon), argument = spec.substr(colon + 1);
  const auto [lambda, mu] = zoo::lame_parameters(1.0, 0.3);
  const bool from_file = kind == "fem-mesh" || kind == "fem-p2-mesh";
  const auto m = from_file ? zoo::read_tetgen_mesh(argument) : [&] {
    const int n = compound_tools::integer_at_least(argument, 1);
    return zoo::box_mesh(n, n, n);
  }();
  const auto p1 = cs::uniform_elasticity(static_cast<int>(m.tets.size()), lambda, mu);
  if (kind == "fem" || kind == "fem-mesh")
    return measure_mesh<1, cs::Block<double, 3>>(spec, m, p1, zoo::elasticity_contributions(m, lambda, mu), samples,
                                                 all_ok);
  if (kind == "fem-p2" || kind == "fem-p2-mesh")
    return measure_mesh<2, cs::Block<double, 3>>(spec, m, cs::P2Elasticity<memory_space>{p1.lambda, p1.mu},
                                                 zoo::p2_elasticity_contributions(m, lambda, mu), samples, all_ok);
  const int n = compound_tools::integer_at_least(argument, 1);
  // About 10 grid points per wavelength, as helmholtz:N.
  const cs::P1Helmholtz problem{2 * 3.141592653589793 * n / 10};
  return measure_mesh<1, Kokkos::complex<double>>(spec, m, problem, zoo::helmholtz_contributions(m, problem.wavenumber),
                                                  samples, all_ok);
}

void print_fem_case(const json& r) {
  const double nnz = r["nnz"].get<double>();
  std::printf("  host assembly %.3f s; copy %.0f GB/s; matrix %.1f MB (%.0f non-zeros)\n",
              r["host_assembly_s"].get<double>(), r["copy_gb_per_s"].get<double>(),
              r["matrix_bytes"].get<double>() / 1e6, nnz);
  std::printf("  %-17s %9s %11s %9s %6s %6s %6s %9s\n", "summation", "build ms", "assemble ms", "total ms", "%copy",
              "peak", "kept", "x cuSPARSE");
  const double matrix_bytes = r["matrix_bytes"].get<double>();
  const bool cusparse_ok = r["cusparse"]["ok"].get<bool>();
  for (const auto& w : r["summations"]) {
    const double total = w["total_s"].get<double>();
    std::printf("  %-17s %9.3f %11.3f %9.3f %6.0f %6.2f %6.2f", w["summation"].get<std::string>().c_str(),
                1e3 * w["build_s"].get<double>(), 1e3 * w["assemble_s"].get<double>(), 1e3 * total,
                100 * w["fraction_of_copy"].get<double>(), w["peak_bytes"].get<double>() / matrix_bytes,
                w["kept_bytes"].get<double>() / matrix_bytes);
    if (cusparse_ok) std::printf(" %9.2f", r["cusparse"]["first_s"].get<double>() / total);
    std::printf("%s\n", w.contains("errors") ? "  CHECK FAILED" : "");
  }
  const auto& c = r["coo"];
  std::printf("  COO path (CooAssembly): pattern %.3f ms, assemble %.3f ms, peak %.2f\n",
              1e3 * c["pattern_s"].get<double>(), 1e3 * c["assemble_s"].get<double>(),
              c["peak_bytes"].get<double>() / matrix_bytes);
  if (cusparse_ok)
    std::printf("  cuSPARSE %s: %.3f ms, peak %.2f\n", r["cusparse"]["form"].get<std::string>().c_str(),
                1e3 * r["cusparse"]["first_s"].get<double>(), r["cusparse"]["peak_bytes"].get<double>() / matrix_bytes);
  else
    std::printf("  cuSPARSE: n/a (%s)\n", r["cusparse"]["error"].get<std::string>().c_str());
}

}  // namespace compound_bench
