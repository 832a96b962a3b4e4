// compound-dist-bench: the distributed product (DistributedSpmv, distributed_spmv.hpp) on zoo
// matrices, one device per MPI rank, for the scaling measurements of docs/scaling.md:
//
//   mpiexec -n R compound-dist-bench --zoo DIR/index.json --out FILE.json [--matrices a,b]
//                [--precision double|float] [--order natural|rcm|both] [--samples N] [--repeat N]
//                [--exchange auto|mpi|nccl] [--build host|device|both]
//                [--kokkos-num-devices=R]   (Kokkos: rank i on device i % R)
//
// Per matrix (and order): every rank reads the matrix, reorders it by reverse Cuthill-McKee
// for --order rcm, takes its block of the partition balanced by non-zeros
// (balanced_row_partition) and builds its DistributedSpmv (TunedSpmv per block, no quick
// tuning). One product is checked against the double host reference on every rank
// (relative error of the gathered y, 1e-4 float, 1e-12 double); then time_phases takes,
// each as the median of --samples of the slowest rank: the whole product, the exchange
// alone, the diagonal and off-diagonal products alone, and the fraction of the exchange the
// product hides. --repeat N takes those timings N times in the process, one after the other:
// the first are the record's, all N are in its "repeats" (the spread of a rerun, without
// reading and building the matrix again). --exchange picks the halo exchange (HaloExchange: auto takes NCCL where built
// and every rank has a GPU of its own; mpi is host-staged, the comparison for NCCL). Rank 0
// writes FILE.json: the ranks, the device, and per matrix the exchange used, the halo
// (values received per product, summed over ranks, and as a fraction of the rows), each
// rank's rows, non-zeros, halo, boundary rows (those of the off-diagonal block) and
// variants, the times, and rank 0's host phases in seconds (host_seconds: read, reorder,
// partition, local_rows, build_host / upload / build_device = the DistributedSpmv constructor
// from the host rows, their copy to the device and the constructor from them there, each
// after a barrier, reference, check, timing). --build picks the constructor (host, device,
// or both: the device-built operator is timed, and its product must have the host-built
// one's bits, same_bits_as_host_build).
// perf_tests/report/scaling.py turns runs with 1 and 2 ranks into strong and weak scaling efficiencies.
//
// Errors: an unusable index or option, or a name of --matrices that the index lacks, stops
// every rank with the reason before any work (exit 2 for usage, 1 otherwise); a matrix
// whose product differs from the reference is recorded with ok false and makes the run exit 1.

#include <mpi.h>

#include <chrono>
#include <compound_sparse.hpp>
#include <compound_sparse/distributed/distributed_spmv.hpp>
#include <compound_sparse/tuning/measure.hpp>  // relative_error
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "command_line.hpp"
#include "entry_dispatch.hpp"
#include "zoo_index.hpp"

namespace cs = compound_sparse;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct Options {
  fs::path zoo, out;
  std::set<std::string> matrices;
  std::string precision = "double";
  std::vector<std::string> orders{"natural"};
  int samples = 20;
  int repeats = 1;
  cs::HaloExchange exchange = cs::HaloExchange::Auto;
  std::string build = "host";  ///< host, device or both
};

int rank_of() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int ranks_of() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

/// One matrix in one order: the record of FILE.json.
template <class Entry>
json measure(const cs::HostCsr<Entry>& read, const std::string& order, const Options& o) {
  using V = cs::vector_type_t<Entry>;
  using coefficient = cs::coefficient_type_t<Entry>;
  const int rank = rank_of(), ranks = ranks_of();
  // The host's share of a run (this rank's): where a device machine's time goes besides products.
  json host_seconds;
  auto phase_start = std::chrono::steady_clock::now();
  const auto phase_end = [&](const char* name) {
    const auto now = std::chrono::steady_clock::now();
    host_seconds[name] = std::chrono::duration<double>(now - phase_start).count();
    phase_start = now;
  };
  cs::HostCsr<Entry> reordered;  // the natural order multiplies `read` itself: no copy
  if (order == "rcm") reordered = cs::permuted(read, cs::reverse_cuthill_mckee(read));
  const cs::HostCsr<Entry>& a = order == "rcm" ? reordered : read;
  phase_end("reorder");
  const auto partition = cs::balanced_row_partition(a, ranks);
  const auto halos = cs::halo_sizes(a, partition);
  phase_end("partition");
  cs::TunedSpmvOptions options;
  options.quick_tune = cs::QuickTune::Never;  // the ranks would time candidates at once
  options.use_cache = false;
  const auto own_rows = cs::local_rows(a, partition, rank);
  phase_end("local_rows");
  // Built from the host rows, from the same rows on the device (an application that
  // assembles there), or both: then the device-built operator is timed and must give the
  // host-built one's bits.
  using op_type = cs::DistributedSpmv<Entry>;
  std::unique_ptr<op_type> built_on_host, built_on_device;
  if (o.build != "device") {
    MPI_Barrier(MPI_COMM_WORLD);
    phase_end("wait");
    built_on_host = std::make_unique<op_type>(MPI_COMM_WORLD, partition, own_rows, options, o.exchange);
    phase_end("build_host");
  }
  if (o.build != "host") {
    using memory_space = typename op_type::memory_space;
    const auto row_map = cs::impl::device_list<memory_space>(own_rows.row_offsets, "row_map");
    const auto entries = cs::impl::device_list<memory_space>(own_rows.col_indices, "entries");
    const auto values = cs::impl::device_list<memory_space>(own_rows.values, "values");
    Kokkos::fence();
    MPI_Barrier(MPI_COMM_WORLD);
    phase_end("upload");
    built_on_device = std::make_unique<op_type>(MPI_COMM_WORLD, partition,
                                                cs::make_device_csr(own_rows.num_cols, row_map, entries, values),
                                                options, o.exchange);
    phase_end("build_device");
  }
  const op_type& op = built_on_device ? *built_on_device : *built_on_host;
  // Checked: one product against the reference (x = a fixed pattern, same on every rank).
  const auto inputs = cs::make_measure_inputs(a, 12345);
  phase_end("reference");
  const std::vector<V> own_x(inputs.x.begin() + partition.begin(rank), inputs.x.begin() + partition.end(rank));
  const auto x = op.make_vector(own_x);
  const auto y = op.make_vector(std::vector<V>(op.local_rows()));
  const auto one = cs::real_value<coefficient>(1), zero = cs::real_value<coefficient>(0);
  op.apply(one, x, zero, y);
  const double error = cs::relative_error(cs::allgathered(MPI_COMM_WORLD, partition, cs::to_host(y)), inputs.reference);
  bool same_bits = true;
  if (built_on_host && built_on_device) {
    const auto y_host = op.make_vector(std::vector<V>(op.local_rows()));
    built_on_host->apply(one, x, zero, y_host);
    const auto mine = cs::to_host(y), theirs = cs::to_host(y_host);
    int same = std::memcmp(mine.data(), theirs.data(), mine.size() * sizeof(V)) == 0;
    MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    same_bits = same == 1;
    built_on_host.reset();  // its device memory, before the timing
  }
  const bool ok = std::isfinite(error) && error <= inputs.tolerance && same_bits;
  phase_end("check");
  const auto t = op.time_phases(one, x, zero, y, o.samples);
  json repeats = json::array();
  for (int r = 0; r < o.repeats; ++r) {
    const auto again = r == 0 ? t : op.time_phases(one, x, zero, y, o.samples);
    repeats.push_back({{"product_seconds", again.product_seconds},
                       {"exchange_seconds", again.exchange_seconds},
                       {"local_seconds", again.local_seconds},
                       {"remote_seconds", again.remote_seconds},
                       {"hidden_fraction", again.hidden_fraction}});
  }
  phase_end("timing");
  // Each rank's part, gathered on rank 0.
  constexpr int fields = 5;
  const long long mine[fields] = {
      op.local_rows(),
      static_cast<long long>(a.row_offsets[partition.end(rank)] - a.row_offsets[partition.begin(rank)]),
      static_cast<long long>(op.halo_size()), static_cast<long long>(op.send_size()),
      static_cast<long long>(op.boundary_rows())};
  std::vector<long long> all(fields * static_cast<std::size_t>(ranks));
  MPI_Gather(mine, fields, MPI_LONG_LONG, all.data(), fields, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  json parts = json::array();
  long long halo_total = 0;
  for (int p = 0; p < ranks; ++p) {
    const long long* part = all.data() + fields * p;
    parts.push_back({{"rank", p},
                     {"rows", part[0]},
                     {"nonzeros", part[1]},
                     {"halo", part[2]},
                     {"sends", part[3]},
                     {"boundary_rows", part[4]}});
    halo_total += halos[p];
  }
  parts[0]["diagonal_variant"] = op.diagonal().variant().name();
  parts[0]["off_diagonal_variant"] = op.off_diagonal() ? op.off_diagonal()->variant().name() : "";
  return {{"order", order},
          {"exchange", op.exchange()},
          {"rows", a.num_rows},
          {"nonzeros", a.num_entries()},
          {"halo_values", halo_total},
          {"halo_fraction", a.num_rows > 0 ? double(halo_total) / a.num_rows : 0.0},
          {"parts", parts},
          {"ok", ok},
          {"relative_error", error},
          {"build", o.build},
          {"build_seconds", host_seconds[built_on_device ? "build_device" : "build_host"]},
          {"same_bits_as_host_build", same_bits},
          {"host_seconds", host_seconds},
          {"product_seconds", t.product_seconds},
          {"exchange_seconds", t.exchange_seconds},
          {"local_seconds", t.local_seconds},
          {"remote_seconds", t.remote_seconds},
          {"hidden_fraction", t.hidden_fraction},
          {"repeats", repeats}};
}

int run(const Options& o, const std::string& command) {
  const json index = compound_tools::read_zoo_index(o.zoo.string());
  // Every name of --matrices, before any work: every rank stops on a name the index lacks.
  std::vector<std::string> names;
  for (const auto& m : index) names.push_back(m.at("name").get<std::string>());
  const std::string unknown = compound_tools::unknown_names("--matrices", o.matrices, names, o.zoo.string());
  COMPOUND_SPARSE_REQUIRE(unknown.empty(), unknown);
  const int rank = rank_of();
  const auto& device = cs::default_device_info();
  json report = {{"schema", 1},
                 {"command", command},
                 {"ranks", ranks_of()},
                 {"samples", o.samples},
                 {"device", {{"name", device.name}, {"backend", device.backend}}},
                 {"matrices", json::array()}};
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  report["date"] = date;
  bool all_ok = true;
  for (const auto& m : index) {
    const std::string name = m.at("name").get<std::string>();
    if (!o.matrices.empty() && !o.matrices.count(name)) continue;
    const std::string entry = m.at("class").get<std::string>();
    const fs::path file = o.zoo.parent_path() / m.at("file").get<std::string>();
    const bool known = compound_tools::dispatch_entry(entry, o.precision, [&](auto tag) {
      using Entry = typename decltype(tag)::type;
      // --precision is double or float: the mixed-precision types never match, and are not
      // compiled here (each entry type is a copy of the whole measurement).
      if constexpr (!cs::is_mixed_precision_v<Entry>) {
        if (rank == 0) std::cerr << "compound-dist-bench: " << name << " (" << entry << "/" << o.precision << ")\n";
        const auto reading = std::chrono::steady_clock::now();
        const auto a = compound_tools::read_zoo_matrix<Entry>(file);
        const double read_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - reading).count();
        COMPOUND_SPARSE_REQUIRE(a.num_rows == a.num_cols, name << " is " << a.num_rows << " x " << a.num_cols
                                                               << ": the distributed product needs a square matrix");
        for (const auto& order : o.orders) {
          json record = measure(a, order, o);
          record["name"] = name;
          record["class"] = entry;
          record["precision"] = o.precision;
          record["host_seconds"]["read"] = read_seconds;  // once for the matrix, whatever the orders
          all_ok = all_ok && record["ok"].get<bool>();
          if (rank == 0)
            std::cerr << "  " << order << " (" << record["exchange"].get<std::string>() << "): halo "
                      << record["halo_fraction"].get<double>() * 100 << "% of the rows, "
                      << record["product_seconds"].get<double>() * 1e6 << " us a product, exchange "
                      << record["exchange_seconds"].get<double>() * 1e6 << " us, "
                      << record["hidden_fraction"].get<double>() * 100 << "% hidden; error "
                      << record["relative_error"].get<double>() << (record["ok"].get<bool>() ? "" : " (WRONG)") << "\n";
          report["matrices"].push_back(record);
        }
      }
    });
    COMPOUND_SPARSE_REQUIRE(
        known, name << ": class '" << entry << "' in " << o.precision << " is not compiled into this build");
  }
  if (rank == 0) {
    if (o.out.has_parent_path()) fs::create_directories(o.out.parent_path());
    std::ofstream file(o.out);
    file << report.dump(1) << "\n";
    file.close();
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, file, "cannot write " << o.out.string());  // "wrote" only when it did
    std::cerr << "compound-dist-bench: wrote " << o.out << "\n";
  }
  return all_ok ? 0 : 1;
}

/// The usage, on rank 0 only.
void usage(const char* argv0, std::ostream& out) {
  if (rank_of() == 0)
    out << "usage: mpiexec -n R " << argv0
        << " --zoo DIR/index.json --out FILE.json [--matrices a,b] [--precision double|float]"
           " [--order natural|rcm|both] [--samples N] [--repeat N] [--exchange auto|mpi|nccl]"
           " [--build host|device|both]\n";
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  // Asked for: the usage on stdout, exit 0, before Kokkos, which prints its own help for --help.
  if (compound_tools::wants_help(argc, argv)) {
    usage(argv[0], std::cout);
    MPI_Finalize();
    return 0;
  }
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    Options o;
    const compound_tools::OptionSetters setters = {
        {"--zoo", [&](const std::string& v) { o.zoo = v; }},
        {"--out", [&](const std::string& v) { o.out = v; }},
        {"--matrices",
         [&](const std::string& v) {
           for (const auto& name : compound_tools::split_list(v)) o.matrices.insert(name);
         }},
        {"--precision",
         [&](const std::string& v) {
           o.precision = compound_tools::one_of(v, {"double", "float"});
         }},
        {"--order",
         [&](const std::string& v) {
           const std::string order = compound_tools::one_of(v, {"natural", "rcm", "both"});
           o.orders = order == "both" ? std::vector<std::string>{"natural", "rcm"} : std::vector<std::string>{order};
         }},
        {"--samples", [&](const std::string& v) { o.samples = compound_tools::integer_at_least(v, 1); }},
        {"--repeat", [&](const std::string& v) { o.repeats = compound_tools::integer_at_least(v, 1); }},
        {"--build",
         [&](const std::string& v) {
           o.build = compound_tools::one_of(v, {"host", "device", "both"});
         }},
        {"--exchange", [&](const std::string& v) {
           const std::string exchange = compound_tools::one_of(v, {"auto", "mpi", "nccl"});
           o.exchange = exchange == "mpi"    ? cs::HaloExchange::Mpi
                        : exchange == "nccl" ? cs::HaloExchange::Nccl
                                             : cs::HaloExchange::Auto;
         }}};
    std::string problem = compound_tools::parse_options(argc, argv, setters);
    if (problem.empty() && (o.zoo.empty() || o.out.empty())) problem = "--zoo and --out are required";
    if (!problem.empty()) {
      if (rank_of() == 0) std::cerr << "compound-dist-bench: " << problem << "\n";
      usage(argv[0], std::cerr);
      rc = 2;
    } else {
      try {
        rc = run(o, compound_tools::joined(std::vector<std::string>(argv, argv + argc), " "));
      } catch (const std::exception& e) {
        std::cerr << "compound-dist-bench (rank " << rank_of() << "): " << e.what() << "\n";
        rc = 1;
      }
    }
  }
  if (rc == 1) MPI_Abort(MPI_COMM_WORLD, 1);  // a rank that failed alone would leave the others waiting
  MPI_Finalize();
  return rc;
}
