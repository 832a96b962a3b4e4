// compound-bench: our SpMV variants against cuSPARSE and Kokkos Kernels on the
// matrix zoo, in one run on one device, written as bench.json and bench.csv
// (perf_tests/report/make_report.py turns them into tables and plots).
//
//   compound-bench --zoo DIR/index.json --out DIR [--precision float,double,mixed|both|all]
//                  [--matrices a,b] [--search reduced|full] [--samples N] [--batch N]
//                  [--heatmap NAME] [--db tuning/sm_90.json] [--timing auto|wall|queued]
//                  [--variants NAME[,NAME...]] [--ops N,T,H] [--k 1,2,4,8,16]
//
// Per matrix and precision: every variant of the search is checked against the
// double host reference and timed cheaply; the five fastest overall and the five
// fastest CSR-AoS-AoS variants are timed again with full settings. "ours_default"
// is the best variant in the default layouts (VariantKey::has_default_layouts,
// schedule-only tuning), "ours_tuned" the best
// variant of all (joint layout and schedule tuning). Baselines are checked and
// timed the same way: cuSPARSE in every form that applies (cusparse_baseline.hpp), each
// recorded under "cusparse_forms", and the "cusparse" result is the fastest form that ran,
// so every ratio against cuSPARSE is against its fastest form on that matrix in this run.
// The zoo index's "structure" of each matrix (grid, mesh, irregular; "unknown" when the
// index has none) is copied into its record. With --db the search is not repeated: the
// measurements compound-tune stored for the matrix (same device, entry type, precision)
// take its place, and only the leaders and the baselines are timed here; with --variants
// only the named variants of ours are measured (Nsight Compute on a chosen variant of an
// xl matrix, without a search). Effective
// bandwidth uses compulsory bytes (matrix in CSR, x and y once) and is compared with a
// device-to-device copy timed in the run.
// --timing: every method (ours and the baselines) is timed the same way; auto (the
// default) is queued on CUDA, GPU time with the host out of the loop
// (compound_sparse/tuning/timing.hpp), and wall elsewhere; wall includes the host's launch
// overhead.
//
// --k: numbers of vectors (default 1). For each k > 1 (op N only: --k above 1 with --ops T
// or H is a usage error) every matrix and precision is measured again as the SpMM of k
// vectors: ours as the SpMM of the variants (the search's keys that have one,
// VariantRegistry::supports_spmm; with --db the record's measurements at that k where it
// has them), leaders re-timed as for k = 1; Kokkos Kernels' multivector spmv (rank-2
// LayoutLeft Views) and every cuSPARSE SpMM form (cusparse_spmm_forms), checked against
// the double reference of all k vectors. Every record and result carries "k" (1 for the
// SpMV); "seconds" is per product of all k vectors, "seconds_per_vector" that over k.
// --spmm-layouts N (with --k 1 and above): a k > 1 search (a matrix the database has no
// SpMM measurements of) keeps only the N matrix layouts whose SpMV was fastest in that
// matrix's k = 1 search (compound-tune's option of the same name; docs/tuning.md), recorded
// as the record's "spmm_layouts" (on helmholtz-box-small at k = 4, N = 2 searched 56
// variants instead of 248).
//
// Errors: a zoo index that cannot be used (missing, a directory, not JSON, no
// non-empty "matrices" list, an entry without name/file/class) stops the run with
// the index file and the reason, and so does a name of --matrices or --heatmap that the
// index lacks (listing its matrices) or a --heatmap the run does not measure: all before
// any work, exit 1. A bench.json or bench.csv that cannot be written stops the run with its
// name. A --db variant that this build cannot parse (a name from another version) is
// skipped with a warning naming the database, as run-time selection skips it. A matrix on which no variant of ours ran
// correctly is reported by name and makes the run exit 1 (after writing what it measured); a method that did not run
// prints "n/a" and why in the summary line, never a time.
//
// The bench of one matrix (run_matrix) is bench_matrix.hpp, compiled in one object per
// precision (bench_unit.cpp); this file parses the options and writes the report.

#include <algorithm>
#include <chrono>
#include <compound_sparse.hpp>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "bench_matrix.hpp"     // run_matrix_of_class, Options and the report's helpers
#include "command_line.hpp"     // the tools' "--name value" parsing
#include "entry_dispatch.hpp"   // compiled_entry_classes
#include "fastest_layouts.hpp"  // --spmm-layouts: fastest_layouts
#include "zoo_index.hpp"        // the checked index.json reader

using namespace compound_bench;  // cs, fs, json, Options and the report's helpers

namespace {

/// Prints the usage and exits: to stdout with 0 when asked for (--help), else to
/// stderr after `problem` with 2.
[[noreturn]] void usage(const char* argv0, const std::string& problem) {
  std::ostream& out = problem.empty() ? std::cout : std::cerr;
  if (!problem.empty()) out << argv0 << ": " << problem << "\n";
  out << "usage: " << argv0
      << " --zoo DIR/index.json --out DIR [--precision float,double,mixed|both|all] [--ops N,T,H]\n"
         "       [--k 1,2,4,8,16] [--matrices a,b] [--search reduced|full] [--samples N] [--batch N]\n"
         "       [--heatmap NAME] [--db FILE] [--timing auto|wall|queued] [--device-memory BYTES]\n"
         "       [--variants NAME[,NAME...]] [--spmm-layouts N]\n"
         "  --k above 1 (SpMM of k vectors) runs with --ops N only\n";
  out.flush();
  std::exit(problem.empty() ? 0 : 2);
}

Options parse(int argc, char** argv) {
  using compound_tools::integer_at_least;
  Options o;
  for (int i = 0; i < argc; ++i) o.command += (i ? " " : "") + std::string(argv[i]);
  const compound_tools::OptionSetters setters = {
      {"--zoo", [&](const std::string& v) { o.zoo = v; }},
      {"--out", [&](const std::string& v) { o.out = v; }},
      {"--precision", [&](const std::string& v) { o.precisions = compound_tools::precision_list(v); }},
      {"--ops",
       [&](const std::string& v) {
         o.ops.clear();
         for (const auto& op : compound_tools::split_list(v)) {
           const std::string name = compound_tools::one_of(op, {"N", "T", "H"});
           o.ops.push_back(name == "N" ? cs::Op::N : name == "T" ? cs::Op::T : cs::Op::H);
         }
       }},
      {"--k", [&](const std::string& v) { o.ks = compound_tools::vector_count_list(v); }},
      {"--spmm-layouts", [&](const std::string& v) { o.spmm_layouts = integer_at_least(v, 0); }},
      {"--matrices",
       [&](const std::string& v) {
         for (const auto& name : compound_tools::split_list(v)) o.matrices.insert(name);
       }},
      {"--search",
       [&](const std::string& v) {
         o.search = compound_tools::one_of(v, {"reduced", "full"});
       }},
      {"--samples", [&](const std::string& v) { o.timing.samples = integer_at_least(v, 1); }},
      {"--batch", [&](const std::string& v) { o.timing.batch = integer_at_least(v, 1); }},
      {"--heatmap", [&](const std::string& v) { o.heatmap = v; }},
      {"--db", [&](const std::string& v) { o.db = v; }},
      {"--variants",
       [&](const std::string& v) {
         // A malformed name stops the run here, before any work.
         for (const auto& name : compound_tools::split_list(v)) o.variants.push_back(cs::parse_variant_key(name));
       }},
      {"--device-memory", [&](const std::string& v) { o.device_memory = compound_tools::non_negative_integer(v); }},
      {"--timing",
       [&](const std::string& v) { o.timing.mode = o.search_timing.mode = compound_tools::timing_mode(v); }}};
  if (compound_tools::wants_help(argc, argv)) usage(argv[0], "");
  const std::string problem = compound_tools::parse_options(argc, argv, setters);
  if (!problem.empty()) usage(argv[0], problem);
  if (o.zoo.empty()) usage(argv[0], "--zoo is required");
  // The layouts come from each matrix's k = 1 search, which --k runs first (sorted).
  if (o.spmm_layouts > 0 && (o.ks.front() != 1 || o.ks.size() < 2))
    usage(argv[0], "--spmm-layouts takes its layouts from the SpMV's search: give --k 1 and at least one k above 1");
  // The SpMM is measured with A only: ours has no tuned copy of op(A) for k vectors, and
  // the baselines' SpMM forms run op N (cusparse_spmm_forms).
  const bool spmm = std::any_of(o.ks.begin(), o.ks.end(), [](int k) { return k > 1; });
  const bool transposes = std::any_of(o.ops.begin(), o.ops.end(), [](cs::Op op) { return op != cs::Op::N; });
  if (spmm && transposes) {
    usage(argv[0], "--k " + compound_tools::joined(o.ks, ",") +
                       " asks for the SpMM of several vectors, which runs with --ops N only; run --ops T,H with --k 1");
  }
  // The heat map is drawn from the SpMV of A (run_matrix): a run without it would ignore --heatmap.
  if (!o.heatmap.empty() && (std::find(o.ops.begin(), o.ops.end(), cs::Op::N) == o.ops.end() || o.ks.front() != 1))
    usage(argv[0], "--heatmap draws the SpMV's map (op N, k = 1): give --ops with N and --k with 1");
  return o;
}

/// The matrix names of --matrices and --heatmap, checked against the index before any work:
/// a name it lacks would otherwise be a matrix silently left out, or a map never drawn.
void check_names(const json& index, const Options& o) {
  std::vector<std::string> names;
  for (const auto& info : index) names.push_back(info.at("name").get<std::string>());
  const std::string unknown = compound_tools::unknown_names("--matrices", o.matrices, names, o.zoo.string());
  COMPOUND_SPARSE_REQUIRE(unknown.empty(), unknown);
  if (o.heatmap.empty()) return;
  COMPOUND_SPARSE_REQUIRE(std::find(names.begin(), names.end(), o.heatmap) != names.end(),
                          "--heatmap " << o.heatmap << " names no matrix of " << o.zoo.string()
                                       << " (its matrices: " << compound_tools::joined(names, ", ") << ")");
  COMPOUND_SPARSE_REQUIRE(
      o.matrices.empty() || o.matrices.count(o.heatmap),
      "--heatmap " << o.heatmap << " is not measured in this run (--matrices "
                   << compound_tools::joined(std::vector<std::string>(o.matrices.begin(), o.matrices.end()), ",")
                   << ")");
}

/// Writes `text` to `path`, or throws naming it: "wrote" is said of written files only, and
/// a report that cannot be saved stops the run before more is measured.
void write_text(const fs::path& path, const std::string& text) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream out(path);
  out << text;
  out.close();
  COMPOUND_SPARSE_REQUIRE_KIND(IoError, out, "cannot write " << path.string());
}

/// The source commit: $COMPOUND_SPARSE_COMMIT (for copies of the tree without
/// .git, such as the GPU machine's), else git's HEAD.
std::string git_commit() {
  if (const char* commit = std::getenv("COMPOUND_SPARSE_COMMIT")) return commit;
  FILE* pipe = popen("git rev-parse --short HEAD 2>/dev/null", "r");
  if (!pipe) return "unknown";
  char buffer[64] = {0};
  const bool got = std::fgets(buffer, sizeof buffer, pipe) != nullptr;
  pclose(pipe);
  std::string s = got ? buffer : "unknown";
  s.erase(s.find_last_not_of("\n ") + 1);
  return s.empty() ? "unknown" : s;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);  // o.spmm_layout_filter is set per matrix and precision
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    cs::require_timing_mode<Kokkos::DefaultExecutionSpace>(o.timing.mode, "--timing queued");  // before any work
    const json index = compound_tools::read_zoo_index(o.zoo.string());  // before any work: names the file
    check_names(index, o);
    const fs::path dir = o.zoo.parent_path();
    std::vector<std::string> failed;  // matrix (precision) on which no variant of ours ran
    const auto& device = cs::default_device_info();
    json report = {{"schema", 1},
                   {"command", o.command},
                   {"commit", git_commit()},
                   {"search", o.search},
                   // The variant space's lists, in declaration order, for the report.
                   {"entry_classes", compound_tools::compiled_entry_classes()},
                   {"outer_layouts", cs::outer_layout_names()},
                   {"timing",
                    {{"warmup", o.timing.warmup},
                     {"batch", o.timing.batch},
                     {"samples", o.timing.samples},
                     {"mode", cs::to_string(o.timing.mode)}}}};
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    report["date"] = date;
    report["device"] = {
        {"name", device.name},
        {"backend", device.backend},
        {"compute_capability", std::to_string(device.compute_major) + "." + std::to_string(device.compute_minor)},
        {"multiprocessors", device.multiprocessors},
        {"l2_cache_bytes", device.l2_cache_bytes},
        {"memory_bytes", device.memory_bytes}};
#ifdef KOKKOS_ENABLE_CUDA
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    report["device"]["cuda_runtime"] = std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
    report["device"]["driver"] = "CUDA " + std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
#endif
    auto copy_timing = o.timing;  // a 1 GiB copy needs no queuing
    copy_timing.mode = cs::TimingMode::Wall;
    report["copy_bandwidth_bytes_per_s"] = copy_bandwidth(copy_timing);
    report["read_bandwidth_bytes_per_s"] = read_bandwidth(copy_timing);
    std::fprintf(stderr, "compound-bench on %s (%s): copy bandwidth %.0f GB/s, read-only %.0f GB/s\n",
                 device.name.c_str(), device.backend.c_str(), report["copy_bandwidth_bytes_per_s"].get<double>() / 1e9,
                 report["read_bandwidth_bytes_per_s"].get<double>() / 1e9);
    report["matrices"] = json::array();
    report["skipped"] = json::array();  // matrices refused before their file was read, with why
    for (const auto& info : index) {
      const std::string name = info.at("name");
      if (!o.matrices.empty() && !o.matrices.count(name)) continue;
      const std::string cls = info.at("class");
      for (const auto& precision : o.precisions)
        for (const cs::Op op : o.ops) {
          o.spmm_layout_filter.clear();
          for (const int k : o.ks) {  // k > 1 with op N only (parse); sorted, so 1 comes first
            const auto start = std::chrono::steady_clock::now();
            json m;
            std::string refusal;
            COMPOUND_SPARSE_REQUIRE(run_matrix_of_class(cls, info, dir, precision, op, k, o, m, refusal),
                                    "zoo matrix "
                                        << name << ": entry type " << cls << "/" << precision
                                        << " is not compiled into this build (COMPOUND_SPARSE_VARIANT_ENTRIES="
                                        << COMPOUND_SPARSE_VARIANT_ENTRIES << ")");
            // "name", or "name^T" / "name^H" for a product with op(A), then " k=K" for the SpMM.
            const std::string shown = shown_name(name, op, k);
            if (!refusal.empty()) {  // recorded and said, the other matrices still run
              std::fprintf(stderr, "  %-24s %-6s %s\n", shown.c_str(), precision.c_str(), refusal.c_str());
              report["skipped"].push_back(
                  {{"name", name}, {"precision", precision}, {"op", cs::to_string(op)}, {"k", k}, {"reason", refusal}});
              write_text(o.out / "bench.json", report.dump(1) + "\n");
              continue;
            }
            // One summary line per matrix: the numbers a person scans for, and for a
            // method that did not run, why (never a time of 0).
            std::fprintf(stderr, "  %-24s %-6s tuned %s  default %s  cuSPARSE %s  (%.1f s: %s)\n", shown.c_str(),
                         precision.c_str(), time_or_reason(m["results"], "ours_tuned").c_str(),
                         time_or_reason(m["results"], "ours_default").c_str(),
                         time_or_reason(m["results"], "cusparse", true).c_str(),
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                         phase_summary(m["host_phase_seconds"]).c_str());
            for (const auto& r : m["results"])
              if (r["method"] == "ours_tuned" && !r["ok"].get<bool>()) failed.push_back(shown + " (" + precision + ")");
            if (k == 1 && o.spmm_layouts > 0) {  // the layouts of this matrix's k > 1 searches
              std::vector<cs::Measurement> searched;
              for (const auto& r : m["search"]) {
                cs::Measurement found;
                found.variant = r["variant"].get<std::string>();
                found.ok = r["ok"].get<bool>();
                found.seconds = r["seconds"].get<double>();
                searched.push_back(found);
              }
              o.spmm_layout_filter = compound_tools::fastest_layouts(searched, o.spmm_layouts);
              std::fprintf(stderr, "  %-24s %-6s SpMM searched on %s (--spmm-layouts %d)\n", name.c_str(),
                           precision.c_str(), compound_tools::joined(o.spmm_layout_filter, ", ").c_str(),
                           o.spmm_layouts);
            }
            report["matrices"].push_back(m);
            write_text(o.out / "bench.json", report.dump(1) + "\n");  // after every matrix: partial runs survive
          }
        }
    }
    // CSV: one row per matrix, precision, op, k and method, then one per cuSPARSE form (method
    // "cusparse_form"); speedup_vs_cusparse is against the fastest form ("cusparse") of the
    // same k. seconds is per product of all k vectors; effective bandwidth counts the
    // matrix once and the k vectors' x and y (compulsory_bytes).
    std::ostringstream csv;
    csv << "matrix,class,structure,precision,op,k,rows,nnz,method,variant,ok,seconds,effective_gb_per_s,"
           "fraction_of_copy,speedup_vs_cusparse,fraction_of_read,seconds_per_vector\n";
    const double copy = report["copy_bandwidth_bytes_per_s"];
    const double read = report["read_bandwidth_bytes_per_s"];
    for (const auto& m : report["matrices"]) {
      double cusparse = 0;
      for (const auto& r : m["results"])
        if (r["method"] == "cusparse" && r["ok"].get<bool>()) cusparse = r["seconds"];
      const auto row = [&](const json& r, const std::string& method) {
        const double s = r["seconds"];
        const bool ok = r["ok"];
        const double gbs = ok && s > 0 ? m["compulsory_bytes"].get<double>() / s / 1e9 : 0;
        csv << m["name"].get<std::string>() << "," << m["class"].get<std::string>() << ","
            << m["structure"].get<std::string>() << "," << m["precision"].get<std::string>() << ","
            << m["op"].get<std::string>() << "," << m["k"] << "," << m["rows"] << "," << m["nnz"] << "," << method
            << "," << r["variant"].get<std::string>() << "," << ok << "," << s << "," << gbs << ","
            << (ok ? gbs * 1e9 / copy : 0) << "," << (ok && s > 0 && cusparse > 0 ? cusparse / s : 0) << ","
            << (ok ? gbs * 1e9 / read : 0) << "," << s / m["k"].get<double>() << "\n";
      };
      for (const auto& r : m["results"]) row(r, r["method"].get<std::string>());
      for (const auto& r : m["cusparse_forms"]) row(r, "cusparse_form");
    }
    write_text(o.out / "bench.csv", csv.str());
    std::fprintf(stderr, "wrote %s and %s\n", (o.out / "bench.json").c_str(), (o.out / "bench.csv").c_str());
    if (!failed.empty()) {
      std::cerr << "compound-bench: error: no variant ran correctly for " << compound_tools::joined(failed, ", ")
                << "\n";
      return 1;
    }
  } catch (const std::exception& e) {
    std::cerr << "compound-bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
