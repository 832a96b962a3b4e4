#pragma once
// compound-bench's bench of one matrix (run_matrix<Entry>) and the helpers it shares with
// main (compound_bench.cpp, which says what is measured). Split from main so that the
// entry types compile in parallel: bench_unit.cpp instantiates run_matrix for the
// compiled entry types of one precision per object (run_matrix_of_unit).

#include <algorithm>
#include <chrono>
#include <compound_sparse.hpp>
#include <compound_sparse/io/matrix_market.hpp>
#include <compound_sparse/tuning/database.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cusparse_baseline.hpp"
#include "fastest_layouts.hpp"  // --spmm-layouts
#include "progress.hpp"         // the tools' progress bar with ETA
#include "zoo_index.hpp"        // read_zoo_matrix
#ifdef COMPOUND_SPARSE_BENCH_KOKKOS_KERNELS
#include "kokkos_kernels_baseline.hpp"
#endif

namespace compound_bench {

namespace cs = compound_sparse;
namespace fs = std::filesystem;
using json = nlohmann::json;

struct Options {
  fs::path zoo;
  fs::path out = "bench_out";
  std::vector<std::string> precisions{"double", "float"};
  std::vector<cs::Op> ops{cs::Op::N};  // --ops: products with op(A) (transpose.hpp)
  std::vector<int> ks{1};              // --k: vectors per product, 1 the SpMV, above 1 the SpMM
  std::set<std::string> matrices;      // empty: all
  std::string search = "reduced";
  cs::TimingOptions timing{5, 10, 50, cs::preferred_timing_mode()};
  cs::TimingOptions search_timing{2, 10, 5, cs::preferred_timing_mode()};  // compound-tune's search
  std::string heatmap;                                                     // matrix name
  fs::path db;                           // tuning database whose measurements replace the search
  std::vector<cs::VariantKey> variants;  // --variants: these of ours replace the search (profiling one variant)
  std::size_t device_memory = 0;         // bytes a matrix may need on the device; 0: the device's own
  std::string command;
  int spmm_layouts = 0;  // --spmm-layouts N: a k > 1 search only on the N layouts fastest at k = 1 (0: all)
  /// Set by the run for each matrix and precision from its k = 1 search (--spmm-layouts):
  /// the matrix layouts a k > 1 search keeps; empty, every layout.
  std::vector<std::string> spmm_layout_filter;
};

inline double copy_bandwidth(const cs::TimingOptions& timing) {
  // 1 GiB each way on a GPU (far beyond L2); 64 MiB on the host.
  const std::size_t n = cs::default_device_info().l2_cache_bytes ? (std::size_t(1) << 27) : (std::size_t(1) << 23);
  Kokkos::View<double*> a("bench::copy_a", n), b("bench::copy_b", n);
  Kokkos::deep_copy(a, 1.0);
  const auto t = cs::time_launches([&](int) { Kokkos::deep_copy(Kokkos::DefaultExecutionSpace(), b, a); }, timing);
  return 2.0 * n * sizeof(double) / t.median_seconds;
}

/// The read-only roof: bytes per second of summing the same array the copy uses (one
/// read per element, no writes), what a kernel that only streams its inputs can reach.
/// Each iteration of the reduction adds `loads` elements, `n / loads` apart, so that a
/// thread has that many independent loads in flight and each of them coalesces across a
/// warp. One element per iteration measured 1.27 TB/s on the H200, under a third of the
/// copy's 4.1 TB/s (its loads waited on each other: the roof was the kernel's latency,
/// not the memory's). The sum is checked, so that a reduction that read nothing cannot
/// pass as fast.
inline double read_bandwidth(const cs::TimingOptions& timing) {
  constexpr int loads = 8;
  const int n = cs::default_device_info().l2_cache_bytes ? (1 << 27) : (1 << 23);
  static_assert((1 << 23) % loads == 0, "the array splits into `loads` equal parts");
  const int part = n / loads;
  Kokkos::View<double*> a("bench::read_a", n);
  Kokkos::deep_copy(a, 1.0);
  Kokkos::View<double> sum("bench::read_sum");
  const auto t = cs::time_launches(
      [&](int) {
        Kokkos::parallel_reduce(
            "bench::read_roof", Kokkos::RangePolicy<>(0, part),
            KOKKOS_LAMBDA(int i, double& s) {
              double v[loads];
              for (int k = 0; k < loads; ++k) v[k] = a(i + k * part);
              for (int k = 0; k < loads; ++k) s += v[k];
            },
            sum);
      },
      timing);
  double total = 0;
  Kokkos::deep_copy(total, sum);
  COMPOUND_SPARSE_REQUIRE(total == static_cast<double>(n),
                          "the read-bandwidth kernel summed " << total << " instead of " << n);
  return static_cast<double>(n) * sizeof(double) / t.median_seconds;
}

inline json measurement_json(const std::string& method, const cs::Measurement& m) {
  return {{"method", method},
          {"variant", m.variant},
          {"k", m.k},
          {"ok", m.ok},
          {"seconds", m.seconds},
          {"seconds_per_vector", m.seconds / m.k},
          {"relative_error", m.relative_error},
          {"error", m.error}};
}

inline json baseline_json(const compound_sparse_bench::BaselineResult& b) {
  json j = {{"method", b.method},
            {"variant", b.variant},
            {"k", b.k},
            {"ok", b.ok},
            {"seconds", b.seconds},
            {"seconds_per_vector", b.seconds / b.k},
            {"relative_error", b.relative_error},
            {"error", b.error}};
  if (!b.note.empty()) j["note"] = b.note;
  if (b.repeats > 0) {
    j["repeats"] = b.repeats;
    j["repeats_differing"] = b.repeats_differing;
  }
  return j;
}

/// The matrix's "structure" in the zoo index (grid, mesh, irregular), or "unknown" for
/// an index written before the field existed.
inline std::string structure_of(const json& info) {
  const auto it = info.find("structure");
  return it != info.end() && it->is_string() && !it->get<std::string>().empty() ? it->get<std::string>() : "unknown";
}

/// How many of compound_sparse_bench::reproducibility_repeats reruns of `key` on
/// `host` and `x` give other bits than its first product (0 for every variant:
/// spmv is deterministic, which the unit tests check; the bench records it beside
/// the baselines' count).
template <class Entry>
int repeats_differing(const cs::HostCsr<Entry>& host, const std::vector<cs::vector_type_t<Entry>>& x,
                      const cs::VariantKey& key) {
  using coefficient = cs::coefficient_type_t<Entry>;
  const auto& registry = cs::variant_registry<Entry>();
  const auto a = registry.convert_matrix(key.outer, key.inner, host);
  const auto xd = registry.convert_vector(key.vector, x);
  const auto y = registry.convert_vector(key.vector, std::vector<cs::vector_type_t<Entry>>(host.num_rows));
  const auto one = cs::real_value<coefficient>(1), zero = cs::real_value<coefficient>(0);
  const auto bits = [&] {
    const auto h = y.to_host();
    return compound_sparse_bench::raw_bits(h.data(), h.size());
  };
  registry.spmv(key, one, a, xd, zero, y);
  return compound_sparse_bench::differing_reruns(
      bits(), [&] { registry.spmv(key, one, a, xd, zero, y); }, bits);
}

/// The same for the SpMM of `key` with the k vectors `x_vectors` (multivectors in the key's
/// vector layout): spmm is deterministic too (spmm.hpp).
template <class Entry>
int repeats_differing(const cs::HostCsr<Entry>& host,
                      const std::vector<std::vector<cs::vector_type_t<Entry>>>& x_vectors, const cs::VariantKey& key) {
  using coefficient = cs::coefficient_type_t<Entry>;
  using value = cs::vector_type_t<Entry>;
  const auto& registry = cs::variant_registry<Entry>();
  const auto a = registry.convert_matrix(key.outer, key.inner, host);
  const auto xd = registry.convert_multivector(key.vector, x_vectors);
  const auto y = registry.convert_multivector(
      key.vector, std::vector<std::vector<value>>(x_vectors.size(), std::vector<value>(host.num_rows)));
  const auto one = cs::real_value<coefficient>(1), zero = cs::real_value<coefficient>(0);
  const auto bits = [&] {
    std::vector<unsigned char> all;
    for (const auto& v : y.to_host()) {
      const auto b = compound_sparse_bench::raw_bits(v.data(), v.size());
      all.insert(all.end(), b.begin(), b.end());
    }
    return all;
  };
  registry.spmm(key, one, a, xd, zero, y);
  return compound_sparse_bench::differing_reruns(
      bits(), [&] { registry.spmm(key, one, a, xd, zero, y); }, bits);
}

/// The fastest `count` successful measurements among those accepted by `keep`.
template <class Keep>
std::vector<cs::VariantKey> fastest(const std::vector<cs::Measurement>& all, std::size_t count, Keep&& keep) {
  std::vector<cs::Measurement> ok;
  for (const auto& m : all)
    if (m.ok && keep(m.key())) ok.push_back(m);
  std::sort(ok.begin(), ok.end(), [](const auto& p, const auto& q) { return p.seconds < q.seconds; });
  std::vector<cs::VariantKey> keys;
  for (std::size_t i = 0; i < ok.size() && i < count; ++i) keys.push_back(ok[i].key());
  return keys;
}

inline const cs::Measurement* best_of(const std::vector<cs::Measurement>& ms) {
  const cs::Measurement* best = nullptr;
  for (const auto& m : ms)
    if (m.ok && (!best || m.seconds < best->seconds)) best = &m;
  return best;
}

/// The stored times of `name` in `db` with k vectors, as the bench's search (empty if the
/// database has no such record, or none at that k). `db` is either form, the shipped
/// database or the tuner's full output (read_for_selection): the variants that ran
/// correctly, with their times; a record without SpMV times gives one failed measurement
/// that says so. The database is read once per run. A variant this build
/// cannot parse (another version's name) is left out with a warning naming the database,
/// as run-time selection leaves it out: the rest of the record is still a valid search.
inline std::vector<cs::Measurement> stored_search(const fs::path& db, const std::string& name,
                                                  const std::string& entry_type, const std::string& precision, int k) {
  static const cs::SelectionDatabase database = cs::read_for_selection(db.string());
  // This device's record where the file holds several devices' (selection_database.hpp).
  const cs::SelectionRecord* record =
      cs::find_record_preferring(database, name, entry_type, precision, cs::default_device_info().name);
  if (record == nullptr) return {};
  const cs::RecordTimes* times = record->at(k);  // the SpMV's (k = 1) or the SpMM's with k vectors
  if (times == nullptr || times->size() == 0) {
    // Every record was tuned at k = 1: none there means that no variant ran correctly when it
    // was tuned, which the bench reports rather than searching again. A k > 1 the record
    // lacks was not tuned: the bench's own search.
    if (k > 1) return {};
    cs::Measurement failed;
    failed.variant = record->best.empty() ? "the database's record" : record->best;
    failed.error = "no SpMV time in " + db.string() + " (no variant ran correctly when it was tuned)";
    return {failed};
  }
  std::vector<cs::Measurement> usable;
  for (std::size_t i = 0; i < times->size(); ++i) {
    cs::Measurement m;
    m.variant = times->variant(i);
    m.k = k;
    m.ok = true;
    m.seconds = m.min_seconds = m.max_seconds = times->seconds(i);
    try {
      (void)m.key();  // throws for a name this build cannot parse
    } catch (const cs::Error& e) {
      std::cerr << "compound-bench: warning: " << db.string() << ": record '" << name << "' (" << entry_type << "/"
                << precision << "): skipping variant '" << m.variant << "': " << e.reason() << "\n";
      continue;
    }
    usable.push_back(m);
  }
  return usable;
}

/// "  12.34 us" ("  12.34 us [variant]" with `variant`), or "n/a (why)" for a result
/// that did not run.
inline std::string time_or_reason(const json& results, const std::string& method, bool variant = false) {
  for (const auto& r : results)
    if (r["method"] == method) {
      if (r["ok"].get<bool>()) {
        char text[32];
        std::snprintf(text, sizeof text, "%8.2f us", 1e6 * r["seconds"].get<double>());
        return variant ? std::string(text) + " [" + r["variant"].get<std::string>() + "]" : std::string(text);
      }
      return "n/a (" + r["error"].get<std::string>() + ")";
    }
  return "n/a (not run)";
}

/// "read_and_reference 3.1, search 20.4, ..." from a matrix's host_phase_seconds.
inline std::string phase_summary(const json& phases) {
  std::string text;
  for (const char* phase : {"read_and_reference", "search", "leaders", "cusparse", "kokkos_kernels", "heatmap"}) {
    if (!phases.contains(phase)) continue;
    char value[32];
    std::snprintf(value, sizeof value, " %.1f", phases[phase].get<double>());
    text += (text.empty() ? "" : ", ") + std::string(phase) + value;
  }
  return text;
}

/// A matrix's size: what the device-memory check needs.
struct MatrixSize {
  double rows = 0, cols = 0, nonzeros = 0;
};

/// The size the zoo index gives for `info`, when it gives one (compound-zoo writes
/// rows and columns besides the nonzeros every index has; a hand-written index may
/// leave them out).
inline std::optional<MatrixSize> indexed_size(const json& info) {
  if (!info.contains("rows") || !info.contains("columns")) return std::nullopt;
  return MatrixSize{info.at("rows").get<double>(), info.at("columns").get<double>(), info.at("nonzeros").get<double>()};
}

/// Why a matrix of `size` would not fit the device, or "" when it fits or the
/// device's memory is unknown (host backends without --device-memory). Checked
/// before the matrix's file is read where the index gives its size, else as soon
/// as it is read, before anything goes to the device. The bench holds the
/// matrix's CSR in up to three copies at once (its own, a converted layout, a
/// cuSPARSE copy) and four vectors (4k for the SpMM of k: an x and a y of k vectors
/// each, twice); a cuSPARSE form that needs more still (the real expansions) fails on its
/// own, with its reason.
template <class Entry>
std::string device_memory_refusal(const MatrixSize& size, const Options& o, int k) {
  const std::size_t memory = o.device_memory ? o.device_memory : cs::default_device_info().memory_bytes;
  if (memory == 0) return "";
  const double csr = size.nonzeros * (sizeof(Entry) + sizeof(int)) + (size.rows + 1) * sizeof(int);
  const double need = 3 * csr + 2.0 * k * (size.rows + size.cols) * sizeof(cs::vector_type_t<Entry>);
  if (need <= 0.9 * static_cast<double>(memory)) return "";
  std::ostringstream why;
  why << "needs about " << need / 1e9 << " GB of device memory (3 copies of its " << csr / 1e9
      << " GB CSR in this precision, and the vectors" << (k > 1 ? " of the " + std::to_string(k) + " products" : "")
      << "), more than 90% of the " << memory / 1e9 << " GB "
      << (o.device_memory ? "that --device-memory allows" : "the device has") << ": not run";
  return why.str();
}

/// How a result is named in the output: "name", or "name^T" / "name^H" for op(A), and
/// " k=K" after it for the SpMM of K vectors.
inline std::string shown_name(const std::string& name, cs::Op op, int k = 1) {
  return (op == cs::Op::N ? name : name + "^" + cs::to_string(op)) + (k > 1 ? " k=" + std::to_string(k) : "");
}

/// Bytes the product of A with k vectors must move at least: the SpMV's compulsory bytes
/// (matrix in CSR, x and y once; measure.hpp) with x and y k times: the matrix is read
/// once for all k vectors.
template <class Entry>
double compulsory_bytes(const cs::HostCsr<Entry>& a, int k) {
  return cs::compulsory_bytes(a) +
         (k - 1.0) * (static_cast<double>(a.num_rows) + a.num_cols) * sizeof(cs::vector_type_t<Entry>);
}

/// The matrix the baselines multiply: A, or for mixed precision its stored entries
/// widened to double. Neither cuSPARSE nor Kokkos Kernels multiplies a float matrix
/// with double vectors, so a mixed-precision product is measured against what a user
/// would run without it: the double product of the same (rounded) matrix, with the
/// same x and reference.
template <class Entry>
decltype(auto) baseline_matrix(const cs::HostCsr<Entry>& a) {
  if constexpr (cs::is_mixed_precision_v<Entry>)
    return cs::widened(a);
  else
    return a;  // decltype(auto) of a reference parameter: no copy
}

/// The bench of one matrix in one precision, with op(A) and k vectors (k > 1: the SpMM,
/// op N); `refusal` is set (and nothing else done) when the matrix would not fit the
/// device: before its file is read where the index gives its size, else once it is read.
template <class Entry>
json run_matrix(const json& info, const fs::path& dir, const std::string& precision, cs::Op op, int k, const Options& o,
                std::string& refusal) {
  const std::string name = info.at("name");
  const auto indexed = indexed_size(info);
  if (indexed) refusal = device_memory_refusal<Entry>(*indexed, o, k);
  if (!refusal.empty()) return {};
  // Host seconds per phase, recorded with the results: at 50M+ non-zeros the host side
  // (conversions, checks) takes far longer than the timed products, and this says where.
  json phases = json::object();
  auto phase_start = std::chrono::steady_clock::now();
  const auto end_phase = [&](const char* phase) {
    const auto now = std::chrono::steady_clock::now();
    phases[phase] = std::chrono::duration<double>(now - phase_start).count();
    phase_start = now;
  };
  const auto file_matrix = compound_tools::read_zoo_matrix<Entry>(dir / info.at("file").get<std::string>());
  if (!indexed)
    refusal = device_memory_refusal<Entry>(
        MatrixSize{double(file_matrix.num_rows), double(file_matrix.num_cols), double(file_matrix.num_entries())}, o,
        k);
  if (!refusal.empty()) return {};
  // Ours multiplies op(A) as TunedSpmv does for apply(op, ...): a copy of op(A), searched and
  // tuned as a matrix of its own; the baselines multiply the file's A with their op.
  const cs::HostCsr<Entry> transposed_copy = op == cs::Op::N ? cs::HostCsr<Entry>{} : cs::transposed(file_matrix, op);
  const cs::HostCsr<Entry>& host = op == cs::Op::N ? file_matrix : transposed_copy;
  // x and reference, once; with k > 1 also the k vectors (the first is x) and their
  // references one after the other, which ours and the baselines' SpMM are checked with.
  const auto inputs = cs::make_measure_inputs(host, cs::MeasureOptions{}.seed, k);
  end_phase("read_and_reference");
  json out = {{"name", name},
              {"class", info.at("class")},
              {"structure", structure_of(info)},
              {"precision", precision},
              {"op", cs::to_string(op)},
              {"k", k},
              {"rows", host.num_rows},
              {"cols", host.num_cols},
              {"nnz", host.num_entries()},
              {"compulsory_bytes", compulsory_bytes(host, k)}};
  const auto& registry = cs::variant_registry<Entry>();
  for (const auto& outer : cs::outer_layout_names()) out["memory_bytes"][outer] = registry.memory_bytes(outer, host);

  // Search: every variant checked and timed cheaply, or the tuner's stored search.
  std::vector<cs::Measurement> found;
  if (!o.variants.empty()) {
    cs::MeasureOptions given;
    given.timing = o.search_timing;
    given.drop_slower_than = 0;  // each was asked for
    found = cs::measure_variants(host, inputs, o.variants, given);
    out["search_source"] = "--variants";
  } else if (!o.db.empty() && op == cs::Op::N) {  // the database holds A's records, not op(A)'s
    found = stored_search(o.db, name, cs::entry_type_name<Entry>(), precision, k);
  }
  if (found.empty()) {
    auto keys = o.search == "full" ? cs::all_variant_keys<Entry>() : cs::reduced_variant_keys<Entry>();
    // The SpMM of k > 1 vectors: the variants that have one (the launch bounds of
    // COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS, registry.hpp).
    // With --spmm-layouts, only on the matrix layouts fastest at k = 1 (o.spmm_layout_filter).
    if (k > 1)
      keys.erase(std::remove_if(keys.begin(), keys.end(),
                                [&](const cs::VariantKey& key) {
                                  return !registry.supports_spmm(key) ||
                                         !compound_tools::searched_layout(o.spmm_layout_filter, key);
                                }),
                 keys.end());
    if (k > 1 && !o.spmm_layout_filter.empty()) out["spmm_layouts"] = o.spmm_layout_filter;
    cs::MeasureOptions search;
    search.timing = o.search_timing;
    compound_tools::ProgressBar progress(static_cast<double>(keys.size()));
    const std::string label = shown_name(name, op, k) + " (" + precision + ") ";
    found = cs::measure_variants(host, inputs, keys, search, [&](std::size_t, std::size_t, const cs::VariantKey& key) {
      progress.advance(1, label + key.name());
    });
    progress.finish(label + "searched");
  } else if (o.variants.empty()) {
    out["search_source"] = o.db.string();
  }
  for (const auto& m : found) out["search"].push_back(measurement_json("search", m));
  end_phase("search");

  // Re-time the leaders with full settings: the five fastest in the default layouts and the
  // five fastest of all, in one call, so that a layout both use is converted once and a
  // variant both hold is timed once (two calls doubled the bench's time on the large
  // irregular matrices, whose leaders are all CSR-AoS).
  cs::MeasureOptions full;
  full.timing = o.timing;
  const auto is_default = [](const cs::VariantKey& key) { return key.has_default_layouts(); };
  auto leaders = fastest(found, 5, [](const cs::VariantKey&) { return true; });
  for (const auto& key : fastest(found, 5, is_default))
    if (std::none_of(leaders.begin(), leaders.end(), [&](const cs::VariantKey& l) { return l.name() == key.name(); }))
      leaders.push_back(key);
  const auto tuned_runs = cs::measure_variants(host, inputs, leaders, full);
  std::vector<cs::Measurement> default_runs;
  for (const auto& m : tuned_runs)
    if (is_default(m.key())) default_runs.push_back(m);
  const auto* best_default = best_of(default_runs);
  const auto* best_tuned = best_of(tuned_runs);
  if (best_default && best_tuned && best_default->seconds < best_tuned->seconds) best_tuned = best_default;
  cs::Measurement failed;
  failed.k = k;
  failed.error = "no variant ran correctly";
  for (const auto& m : found)
    if (!m.ok) {  // the first reason, so that the report says what went wrong
      failed.error += " (first failure: " + m.variant + ": " + m.error + ")";
      break;
    }
  // With --spmm-layouts the k > 1 search may leave CSR-AoS out altogether: then the default
  // was not searched, which is no failure of it.
  cs::Measurement not_searched = failed;
  not_searched.error = "not searched (--spmm-layouts kept no CSR-AoS layout)";
  const bool default_searched =
      std::any_of(found.begin(), found.end(), [&](const cs::Measurement& m) { return is_default(m.key()); });
  out["results"].push_back(measurement_json("ours_default", best_default       ? *best_default
                                                            : default_searched ? failed
                                                                               : not_searched));
  out["results"].push_back(measurement_json("ours_tuned", best_tuned ? *best_tuned : failed));
  if (best_tuned) {
    out["results"].back()["repeats"] = compound_sparse_bench::reproducibility_repeats;
    out["results"].back()["repeats_differing"] = k == 1 ? repeats_differing(host, inputs.x, best_tuned->key())
                                                        : repeats_differing(host, inputs.x_vectors, best_tuned->key());
  }
  end_phase("leaders");

  // Baselines on the same x (or k vectors) and reference as our check.
  const auto& x = inputs.x;
  const auto& reference = k == 1 ? inputs.reference : inputs.multi_reference;
  const double tolerance = inputs.tolerance;
  const auto& baseline_host = baseline_matrix(file_matrix);  // a temporary, extended, for mixed precision
  const int rotation = best_tuned ? best_tuned->rotation : 1;
  // cuSPARSE: every form (SpMV, or SpMM for k > 1), then the fastest that ran as "cusparse"
  // (the ratios' baseline).
  const auto forms =
      k == 1 ? compound_sparse_bench::cusparse_forms(baseline_host, x, reference, o.timing, rotation, tolerance, op)
             : compound_sparse_bench::cusparse_spmm_forms(baseline_host, inputs.x_vectors, reference, o.timing,
                                                          rotation, tolerance);
  const auto best = compound_sparse_bench::fastest_cusparse(forms);
  out["results"].push_back(baseline_json(best));
  // The headline baseline, named as such: the same result as method "cusparse".
  out["cusparse_best"] = best.ok ? json{{"variant", best.variant}, {"seconds", best.seconds}}
                                 : json{{"variant", "none"}, {"error", best.error}};
  out["cusparse_forms"] = json::array();
  for (const auto& f : forms) out["cusparse_forms"].push_back(baseline_json(f));
  end_phase("cusparse");
#ifdef COMPOUND_SPARSE_BENCH_KOKKOS_KERNELS
  out["results"].push_back(
      baseline_json(k == 1 ? compound_sparse_bench::kokkos_kernels_baseline(baseline_host, x, reference, o.timing,
                                                                            rotation, tolerance, op)
                           : compound_sparse_bench::kokkos_kernels_spmm_baseline(
                                 baseline_host, inputs.x_vectors, reference, o.timing, rotation, tolerance)));
#else
  out["results"].push_back(json{{"method", "kokkos_kernels"},
                                {"variant", k == 1 ? "crs" : "crs_mv"},
                                {"k", k},
                                {"ok", false},
                                {"seconds", 0},
                                {"seconds_per_vector", 0},
                                {"relative_error", 0},
                                {"error", "Kokkos Kernels not found at configure time"}});
#endif
  end_phase("kokkos_kernels");

  // Heat map: every compiled launch-bounds pair for the tuned layout, kind and lanes.
  if (name == o.heatmap && best_tuned && op == cs::Op::N && k == 1) {  // the SpMV's map
    const cs::VariantKey tuned = best_tuned->key();
    std::vector<cs::VariantKey> cells;
    for (auto cell : registry.variants())
      if (cell.layout_name() == tuned.layout_name() && cell.vector == tuned.vector && cell.kind == tuned.kind) {
        cell.lanes_per_row = tuned.lanes_per_row;
        cells.push_back(cell);
      }
    json heat = {{"variant_prefix", tuned.layout_name() + "." + tuned.vector + "." + cs::to_string(tuned.kind)},
                 {"lanes_per_row", tuned.lanes_per_row},
                 {"cells", json::array()}};
    for (const auto& m : cs::measure_variants(host, inputs, cells, full)) {
      const cs::VariantKey cell = m.key();
      heat["cells"].push_back(
          {{"threads", cell.threads}, {"teams_per_sm", cell.teams_per_sm}, {"seconds", m.seconds}, {"ok", m.ok}});
    }
    out["heatmap"] = heat;
    end_phase("heatmap");
  }
  out["host_phase_seconds"] = phases;
  return out;
}

/// The object (bench_unit.cpp) that compiles run_matrix<Entry>: one per precision (float,
/// double, mixed), so that the three compile in parallel (as one file compound-bench was the
/// build's longest translation unit), while the entry types of one precision, which share
/// the baselines' scalar kernels (Kokkos Kernels' and cuSPARSE's on the real expansions),
/// have them compiled once.
template <class Entry>
constexpr std::size_t bench_unit_of() {
  if constexpr (cs::is_mixed_precision_v<Entry>)
    return 2;
  else
    return std::is_same<typename cs::component_traits<Entry>::scalar_type, float>::value ? 0 : 1;
}
constexpr std::size_t bench_units = 3;

/// run_matrix for the compiled entry type of class `entry_class` in `precision` when object
/// `Unit` compiles it (result and refusal as run_matrix's); false, doing nothing, otherwise.
/// Defined in bench_unit.cpp, which CMake builds once per unit (COMPOUND_BENCH_UNIT).
template <std::size_t Unit>
bool run_matrix_of_unit(const std::string& entry_class, const json& info, const fs::path& dir,
                        const std::string& precision, cs::Op op, int k, const Options& o, json& result,
                        std::string& refusal);

/// run_matrix for the compiled entry type of class `entry_class` in `precision`; false when
/// this build compiles no such entry type.
inline bool run_matrix_of_class(const std::string& entry_class, const json& info, const fs::path& dir,
                                const std::string& precision, cs::Op op, int k, const Options& o, json& result,
                                std::string& refusal) {
  bool found = false;
  cs::for_each_index<0, bench_units>([&](auto unit) {
    found = found ||
            run_matrix_of_unit<decltype(unit)::value>(entry_class, info, dir, precision, op, k, o, result, refusal);
  });
  return found;
}

}  // namespace compound_bench
