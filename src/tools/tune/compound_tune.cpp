// compound-tune: measures SpMV variants on this device for a set of matrices and
// writes (merges into) its full output <db-dir>/<device key>.json (database.hpp); with
// --ship, makes the shipped database the library reads of it (selection_database.hpp); with
// --loo, evaluates selection quality from a database alone. docs/tuning.md.
//
//   compound-tune --zoo DIR/index.json [--matrices a,b] [--entry CLASS]
//                 [--precision float,double,mixed|both|all] [--search full|reduced] [--db-dir DIR] [--resume
//                 yes|no|extend]
//                 [--samples N --batch N --warmup N] [--top N --final-samples N --final-batch N]
//                 [--retime-within R --retime-max N] [--budget-bytes N] [--timing auto|wall|queued]
//                 [--drop-slower-than R] [--max-padding R] [--dense-row-threshold N|device] [--k 1,2,4,8,16]
//                 [--spmm-layouts N]
//   compound-tune --matrix FILE.mtx --entry CLASS [same options]
//   (CLASS: an entry class compiled into the registry: complex, quaternion, block3, ...)
//   compound-tune --ship FULL.json --out SHIPPED.json   (the shipped database of a tuner output)
// The reports (--loo, --learn-prior, --prior-loo, --check-selection) read a database in either
// form: the tuner's output is shipped in memory first (read_for_selection).
//   compound-tune --loo DB.json --out PREFIX [--neighbours K]   (writes PREFIX.json, PREFIX.md)
//   compound-tune --learn-prior OUT.json --from A.json[,B.json...]  (the portable prior, prior.hpp)
//   compound-tune --merge OUT.json --from A.json[,B.json...]  (one database of their records: run_merge)
//   compound-tune --prior-loo DB.json --from A.json[,B.json...] --out PREFIX  (the prior alone, leave-one-out)
//   compound-tune --check-selection DB.json --zoo DIR/index.json --out PREFIX [--best-from DB2.json]
//                 [--quick-spmvs N] [--matrices a,b] [--entry CLASS] [--precision ...] [--neighbours K]
//                 [--final-samples N --final-batch N] [--timing ...]
//                 (selection measured on this device, leave-one-out: selection_check.hpp)
//
// Search: every candidate is timed cheaply (--samples x --batch launches), then
// the candidates within --retime-within of the fastest (at least the --top
// fastest, at most --retime-max) are timed again with the full timing of the perf
// suite (--final-samples x --final-batch); the best is the fastest of those.
// Re-timing every near-best candidate, not just a top few, matters for selection:
// a variant picked for a similar matrix is then judged by the same careful timing
// as the best (leave-one-out compares the two). The search's batch defaults to the
// final one, so that both amortise the per-batch fence alike. --timing: auto (the
// default) is queued on CUDA, GPU time with the host out of the loop (compound_sparse/tuning/timing.hpp),
// so that kernels shorter than a launch are ranked by their own time, not by the
// host's launch rate; wall elsewhere. The record says which timing it holds.
//
// Bounds, so that an irregular matrix does not take hours (compound_sparse/tuning/measure.hpp):
// a layout that would store more than --max-padding (default 3) slots per non-zero is
// refused before it is converted (recorded as failed, with the ratio), and a candidate
// whose first timed batch is more than --drop-slower-than (default 3) times the fastest
// so far is not timed further (recorded ok and "dropped", with that batch's time). The
// heuristic's choice (selection.hpp) and its neighbours are measured first, so that the
// fastest so far is a good one early. 0 turns either bound off. Each record stores the
// seconds its tuning took (tuning_seconds); the tuner prints them per matrix and
// precision with the counts of dropped and refused candidates.
//
// A matrix with a dense row (a row longer than the device's dense_row_threshold,
// selection.hpp, or --dense-row-threshold N) is given a kind that splits rows by every
// selection rule, so only those kinds are timed on it: the row schedules would be the
// slowest candidates by far there, and timing them was most of an irregular matrix's
// tuning time. The tuner prints how many it skipped.
//
// --k 1,8 (numbers of vectors, among the buckets 1, 2, 4, 8, 16): the search runs once per k,
// the SpMM with k vectors for k > 1 (keys without an SpMM, those of launch bounds outside
// COMPOUND_SPARSE_SPMM_LAUNCH_BOUNDS, left out), and the record holds every k's
// measurements (Measurement::k), from which TunedSpmv selects for products with several
// vectors. The record's best is always the SpMV's, so k = 1 is always searched. Tuning a
// matrix again at other k keeps the record's measurements at the k not searched.
//
// --resume yes extends a record that stands for the matrix but lacks some of --k's numbers of
// vectors, where it was measured on this device: only the missing k are searched (the SpMM's
// layouts, with --spmm-layouts, picked from the record's SpMV measurements), and the record
// keeps its SpMV measurements and its best. So k buckets can be added to a whole tuned
// database for the cost of the SpMM's search alone. Another device's record of the matrix
// (an H200's in the sm_90.json an H100 tunes into) is not this device's: this device's record
// is tuned whole beside it, since one record's measurements all come from one device
// (database.hpp). --resume extend does the extensions only: it neither retunes a record nor
// adds one (run on another device than the records', it changes nothing and says why for
// each matrix).
// --spmm-layouts N searches the SpMM only on the N matrix layouts whose SpMV was fastest:
// the SpMM's fastest matrix layout is almost always among the SpMV's two fastest (the H100's
// records of 8-10 layouts were within 0.5% with N = 2), while the SpMM's measurements are
// most of a record's tuning time (docs/tuning.md).
//
// Records are added to the database one matrix at a time under a file lock
// (update_tuning_database), so tuners running at once into one --db-dir keep each
// other's records. --resume yes (the default) skips a matrix whose record of this device
// the database already holds with the same fingerprint, search and timing, so that an
// interrupted run continues where it stopped. A matrix on which no variant ran
// correctly is not recorded, and the tuner exits 1 naming it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "compound_sparse/io/matrix_market.hpp"
#include "compound_sparse/tuning/database.hpp"
#include "compound_sparse/tuning/measure.hpp"
#include "compound_sparse/tuning/prior.hpp"
#include "compound_sparse/tuning/selection.hpp"
#include "entry_dispatch.hpp"
#include "fastest_layouts.hpp"
#include "leave_one_out.hpp"
#include "progress.hpp"
#include "selection_check.hpp"
#include "zoo_index.hpp"

namespace cs = compound_sparse;
namespace fs = std::filesystem;
using compound_tools::ProgressBar;

namespace {

struct Options {
  // The tuner's output stays apart from the shipped databases (tuning/ in the source tree),
  // which --ship makes of it.
  std::string zoo, matrix_file, entry, search = "reduced", db_dir = "tuner_output";
  std::vector<std::string> precisions{"double", "float"};  // --precision (both by default)
  std::vector<std::string> names;
  // warmup, batch, samples, mode: the search, then the perf suite's timing for the near-best candidates
  cs::TimingOptions quick{2, 10, 5, cs::preferred_timing_mode()};
  cs::TimingOptions final{5, 10, 50, cs::preferred_timing_mode()};
  int top = 5;
  double retime_within = 1.25;  // re-time every candidate within this factor of the fastest ...
  int retime_max = 48;          // ... but no more than this many
  std::size_t budget = std::numeric_limits<std::size_t>::max();
  double drop_slower_than = 3.0;    // stop a candidate after one batch over this factor x the fastest so far (0: off)
  double max_padding = 3.0;         // refuse layouts storing more slots per non-zero (0: off)
  double dense_row_threshold = -1;  // rows longer than this are dense; < 0: the device's rule
  bool resume = true;               // keep matching records (an interrupted run continues)
  bool extend_only = false;         // --resume extend: only give records the k they lack
  std::string loo, out;
  int neighbours = 3;
  std::string learn_prior, prior_loo;      // --learn-prior OUT, --prior-loo DB
  std::vector<std::string> from;           // --from: the databases a prior is learned from, or --merge joins
  std::string merge;                       // --merge OUT
  std::string ship;                        // --ship FULL (with --out)
  std::string check_selection, best_from;  // --check-selection DB, --best-from DB2 (default DB)
  std::string compare_with;                // --compare-with REPORT.json: another build's choices, timed too
  int quick_spmvs = cs::default_quick_tune_spmvs;
  std::vector<int> ks{1};  // --k: numbers of vectors searched (1, the SpMV, always among them)
  int spmm_layouts = 0;    // --spmm-layouts N: at k > 1 only the N matrix layouts fastest at k = 1 (0: all)
};

/// Launches one measurement with `t` costs: warm-up and timed batches, plus about
/// two for the layout conversion and the correctness check.
double launches(const cs::TimingOptions& t) {
  return t.warmup + static_cast<double>(t.samples) * t.batch + 2;
}

/// One matrix in one precision.
struct Job {
  std::string name, file, entry, precision;
  long long nnz = 0;
  std::size_t keys = 0;
  /// Progress units of one launch: proportional to its expected time.
  double unit() const { return static_cast<double>(nnz) + 1000; }
  /// Candidates re-timed at most (the count is known only after the search).
  std::size_t most_retimed(const Options& o) const {
    return std::min(keys, static_cast<std::size_t>(std::max(o.top, o.retime_max)));
  }
  /// The expected work: the search, and the re-timing of as many candidates as
  /// it may need. Re-timing one costs ten times a search timing with the default
  /// options; leaving it out made the ETA read 0:00 at the end of every search.
  /// One search per number of vectors (--k), each launch of k vectors costing about
  /// sqrt(k) SpMVs (the SpMM reads the matrix once for all k vectors, docs/performance.md).
  double units(const Options& o) const { return units(o, o.ks); }
  /// The same for a search of `ks` only (a record extended by the k it lacks).
  double units(const Options& o, const std::vector<int>& ks) const {
    double vectors = 0;
    for (const int k : ks) vectors += std::sqrt(static_cast<double>(k));
    return unit() * vectors *
           (static_cast<double>(keys) * launches(o.quick) + static_cast<double>(most_retimed(o)) * launches(o.final));
  }
};

int usage(const char* argv0, std::ostream& out, int code) {
  const std::string classes = compound_tools::joined(compound_tools::compiled_entry_classes());
  out << "usage: " << argv0 << " --zoo DIR/index.json [--matrices a,b] [--entry " << classes
      << "]\n"
         "         [--precision float,double,mixed|both|all] [--search full|reduced] [--db-dir DIR] [--resume "
         "yes|no|extend]\n"
         "         [--samples N] [--batch N] [--warmup N] [--top N] [--final-samples N] [--final-batch N]\n"
         "         [--retime-within R] [--retime-max N] [--budget-bytes N] [--timing auto|wall|queued]\n"
         "         [--drop-slower-than R] [--max-padding R]   (R: a factor >= 1, or 0 for no bound; default 3)\n"
         "         [--k 1,2,4,8,16]   (numbers of vectors searched, the SpMM for k > 1; 1 is always searched, but\n"
         "                             --resume yes gives a record of this device only the k it lacks)\n"
         "         [--spmm-layouts N]   (k > 1: the SpMM only on the N matrix layouts fastest at k = 1; 0, the\n"
         "                               default: every layout)\n"
         "         [--dense-row-threshold N|device]   (rows longer than N are dense: only kinds that split rows\n"
         "                                              are timed; default: the device's rule)\n"
         "       "
      << argv0 << " --matrix FILE.mtx --entry " << classes << " [same options]\n       " << argv0
      << " --ship FULL.json --out SHIPPED.json   (the shipped database the library reads)\n       " << argv0
      << " --loo DB.json --out PREFIX [--neighbours K]\n       " << argv0
      << " --learn-prior OUT.json --from A.json[,B.json...]\n       " << argv0
      << " --merge OUT.json --from A.json[,B.json...]   (their records in one database; the header the last's)\n"
         "       "
      << argv0 << " --prior-loo DB.json --from A.json[,B.json...] --out PREFIX\n       " << argv0
      << " --check-selection DB.json --zoo DIR/index.json --out PREFIX [--best-from DB2.json] [--quick-spmvs N]\n"
         "         [--compare-with REPORT.json] [--matrices a,b] [--entry CLASS] [--precision ...] [--neighbours K] "
         "[--final-samples N]\n"
         "         [--final-batch N] [--timing auto|wall|queued]\n";
  return code;
}

template <class Entry>
std::vector<cs::VariantKey> search_keys(const std::string& search) {
  return search == "full" ? cs::all_variant_keys<Entry>() : cs::reduced_variant_keys<Entry>();
}

/// Why the record `r` in the database cannot stand for tuning `f` with `o` now, or
/// "" when it can (--resume keeps it).
std::string retune_reason(const cs::TunedMatrix& r, const cs::MatrixFeatures& f, const Options& o) {
  const std::string timing = cs::to_string(o.quick.mode);
  if (r.features.fingerprint != f.fingerprint)
    return "the matrix changed (fingerprint " + f.fingerprint + ", record " + r.features.fingerprint + ")";
  if (r.search != o.search) return "the record's search is '" + r.search + "', this run's '" + o.search + "'";
  if (r.timing != timing) return "the record was timed '" + r.timing + "', this run times '" + timing + "'";
  if (r.best.empty()) return "the record has no variant that ran";
  return "";
}

/// The numbers of vectors of --k that record `r` has no measurement at.
std::vector<int> missing_vector_counts(const cs::TunedMatrix& r, const Options& o) {
  std::vector<int> missing;
  for (const int k : o.ks)
    if (std::none_of(r.measurements.begin(), r.measurements.end(), [k](const cs::Measurement& m) { return m.k == k; }))
      missing.push_back(k);
  return missing;
}

/// Launches a search measurement `m` took, against launches(t) expected: a dropped
/// candidate stopped after the warm-up and one batch, a failed or refused one after
/// the check at most.
double spent_launches(const cs::Measurement& m, const cs::TimingOptions& t) {
  if (!m.ok) return 1;
  if (m.dropped) return t.warmup + static_cast<double>(t.batch) + 2;
  return launches(t);
}

/// A factor bound as the options write it: the number, or "off".
std::string bound_text(double factor) {
  if (!cs::measure_bound_enabled(factor)) return "off";
  std::ostringstream text;
  text << factor;
  return text.str();
}

/// What tune() did besides the record.
struct TuneCounts {
  int dropped = 0, refused = 0, skipped = 0;
  double dense_row_threshold = 0;  ///< the threshold this matrix was judged by
  std::string spmm_layouts;        ///< the matrix layouts the SpMM was searched on (--spmm-layouts), if restricted
};

/// The search of `keys` with k vectors (the SpMV for k = 1, the SpMM otherwise): every key
/// timed cheaply, the near-best again with the full timing; the measurements in the order
/// searched, the re-timed ones replaced by their full timing (Measurement::retimed).
template <class Entry>
std::vector<cs::Measurement> search_with_vectors(const cs::HostCsr<Entry>& a, const std::vector<cs::VariantKey>& keys,
                                                 int k, const Job& job, const Options& o,
                                                 const cs::MeasureOptions& quick, ProgressBar& bar,
                                                 const std::string& label, TuneCounts& counts) {
  const double weight = std::sqrt(static_cast<double>(k));  // Job::units
  const double final_units = job.unit() * weight * launches(o.final);
  const std::string what = label + (k > 1 ? " k=" + std::to_string(k) : std::string());
  const auto inputs = cs::make_measure_inputs(a, quick.seed, k);  // x and reference, once for both passes
  auto measured = cs::measure_variants(
      a, inputs, keys, quick, [&](std::size_t, std::size_t, const cs::VariantKey& key, const cs::Measurement& m) {
        // A dropped or refused candidate took less than a search timing: the rest
        // of its share leaves the estimate.
        const double spent = spent_launches(m, o.quick);
        bar.drop((launches(o.quick) - spent) * job.unit() * weight);
        bar.advance(spent * job.unit() * weight, what + " " + key.name());
        counts.dropped += m.dropped;
        counts.refused += m.refused;
      });
  // Keys without an SpMM (k > 1) were left out of the search: their share leaves the estimate.
  bar.drop(static_cast<double>(job.keys - keys.size()) * launches(o.quick) * job.unit() * weight);

  // The near-best candidates again, with full timing (dropped ones are, by then,
  // far from the best).
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < measured.size(); ++i)
    if (measured[i].ok && !measured[i].dropped) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t p, std::size_t q) { return measured[p].seconds < measured[q].seconds; });
  std::size_t count = std::min<std::size_t>(order.size(), static_cast<std::size_t>(std::max(0, o.top)));
  while (count < order.size() && static_cast<int>(count) < o.retime_max &&
         measured[order[count]].seconds <= o.retime_within * measured[order.front()].seconds)
    ++count;
  order.resize(count);
  bar.drop(static_cast<double>(job.most_retimed(o) - count) * final_units);  // the estimate assumed the most
  std::vector<cs::VariantKey> top;
  for (auto i : order) top.push_back(measured[i].key());
  cs::MeasureOptions full = quick;
  full.timing = o.final;
  full.drop_slower_than = 0;  // the candidates are all near the best: each gets the full timing
  const auto retimed =
      cs::measure_variants(a, inputs, top, full, [&](std::size_t, std::size_t, const cs::VariantKey& key) {
        bar.advance(final_units, what + " re-time " + key.name());
      });
  for (auto& m : measured) {
    const auto again =
        std::find_if(retimed.begin(), retimed.end(), [&](const cs::Measurement& r) { return r.variant == m.variant; });
    if (again != retimed.end() && again->ok) {
      m = *again;
      m.retimed = true;
    }
  }
  return measured;
}

/// The record of `a`: the search at every k of `ks`. `extending` (--resume, a record of this
/// device that lacks some k): `ks` are those k, its SpMV measurements choose the SpMM's layouts,
/// and the new record takes its best; merge_record keeps its measurements at the other k.
template <class Entry>
cs::TunedMatrix tune(const cs::HostCsr<Entry>& a, const cs::MatrixFeatures& features, const Job& job, const Options& o,
                     const std::vector<int>& ks, const cs::TunedMatrix* extending, ProgressBar& bar,
                     const std::string& label, TuneCounts& counts) {
  const auto started = std::chrono::steady_clock::now();
  const auto& registry = cs::variant_registry<Entry>();
  cs::MeasureOptions quick;
  quick.timing = o.quick;
  quick.budget.max_bytes = o.budget;
  quick.drop_slower_than = o.drop_slower_than;
  quick.max_padding_ratio = o.max_padding;
  // The heuristic's choice (and the variants most like it) first: the early drop
  // compares every later candidate with the fastest so far.
  const auto fits = [&](const std::string& outer) {
    return registry.memory_bytes(outer, a) <= o.budget && registry.refusal(outer, a).empty() &&
           (!cs::measure_bound_enabled(o.max_padding) ||
            static_cast<double>(registry.num_slots(outer, a)) <=
                o.max_padding * static_cast<double>(std::max<std::size_t>(1, a.num_entries())));
  };
  // A dense row: selection only ever gives this matrix a kind that splits rows.
  const double dense_row =
      o.dense_row_threshold >= 0 ? o.dense_row_threshold : cs::dense_row_threshold(features, cs::default_device_info());
  counts.dense_row_threshold = dense_row;
  auto candidates = search_keys<Entry>(o.search);
  if (features.nnz_per_row_max > dense_row) {
    const auto kept = std::stable_partition(candidates.begin(), candidates.end(),
                                            [](const cs::VariantKey& k) { return cs::splits_rows(k.kind); });
    counts.skipped = static_cast<int>(candidates.end() - kept);
    candidates.erase(kept, candidates.end());
    bar.drop(counts.skipped * launches(o.quick) * job.unit());
  }
  const auto keys =
      cs::likely_fast_first(candidates, cs::heuristic_variant(features, registry.variants(), fits, dense_row));
  std::vector<cs::Measurement> measured;
  std::vector<std::string> spmm_layouts;  // --spmm-layouts: from the SpMV's search (k = 1 comes first)
  for (const int k : ks) {
    if (k > 1 && o.spmm_layouts > 0 && spmm_layouts.empty()) {
      spmm_layouts = compound_tools::fastest_layouts(extending ? extending->measurements : measured, o.spmm_layouts);
      counts.spmm_layouts = compound_tools::joined(spmm_layouts, ", ");
    }
    std::vector<cs::VariantKey> with_spmm;
    for (const auto& key : keys)
      if (k == 1 || (registry.supports_spmm(key) && compound_tools::searched_layout(spmm_layouts, key)))
        with_spmm.push_back(key);
    const auto found = search_with_vectors(a, with_spmm, k, job, o, quick, bar, label, counts);
    measured.insert(measured.end(), found.begin(), found.end());
  }

  cs::TunedMatrix t;
  t.name = job.name;
  t.source = fs::path(job.file).filename().string();
  t.features = features;
  t.search = o.search;
  t.timing = cs::to_string(o.quick.mode);
  t.device = cs::default_device_info().name;
  for (const auto& m : measured) {
    t.measurements.push_back(m);
    // The database refuses an ok time that is not positive (it cannot be ranked):
    // record such a timing as a failure rather than write a file no one can read.
    auto& stored = t.measurements.back();
    if (stored.ok && !(std::isfinite(stored.seconds) && stored.seconds > 0)) {
      stored.ok = false;
      stored.error = "timing gave " + std::to_string(stored.seconds) + " s per product, not a positive time";
    }
  }
  // Best: the fastest retimed SpMV (they share the same, more careful timing);
  // the fastest of all when none could be retimed.
  const auto pick_best = [&t](bool retimed_only) {
    for (const auto& m : t.measurements)
      if (m.ok && m.k == 1 && (m.retimed || !retimed_only) && (t.best.empty() || m.seconds < t.best_seconds)) {
        t.best = m.variant;
        t.best_seconds = m.seconds;
      }
  };
  pick_best(true);
  if (t.best.empty()) pick_best(false);
  t.tuning_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (extending) {  // no SpMV was searched: the record's stands
    t.best = extending->best;
    t.best_seconds = extending->best_seconds;
    t.tuning_seconds += extending->tuning_seconds;
  }
  return t;
}

std::vector<Job> make_jobs(const Options& o) {
  std::vector<std::pair<Job, std::string>> matrices;  // job without precision, its class
  if (!o.zoo.empty()) {
    const auto index = compound_tools::read_zoo_index(o.zoo);  // checked: names the file and the problem
    const fs::path dir = fs::path(o.zoo).parent_path();
    for (const auto& m : index) {
      Job j;
      j.name = m.at("name").get<std::string>();
      j.file = (dir / m.at("file").get<std::string>()).string();
      j.entry = m.at("class").get<std::string>();
      j.nnz = m.at("nonzeros").get<long long>();
      if (!o.names.empty() && std::find(o.names.begin(), o.names.end(), j.name) == o.names.end()) continue;
      if (!o.entry.empty() && j.entry != o.entry) continue;
      matrices.push_back({j, j.entry});
    }
    for (const auto& n : o.names)
      COMPOUND_SPARSE_REQUIRE(
          std::any_of(matrices.begin(), matrices.end(), [&](const auto& p) { return p.first.name == n; }),
          "no matrix '" << n << "' (of entry type '" << o.entry << "') in " << o.zoo);
  } else {
    Job j;
    j.name = fs::path(o.matrix_file).stem().string();
    j.file = o.matrix_file;
    j.entry = o.entry;
    j.nnz = cs::io::read_matrix_market_header(o.matrix_file).entries;
    matrices.push_back({j, j.entry});
  }
  std::vector<Job> jobs;
  for (const auto& [m, entry] : matrices)
    for (const std::string& p : o.precisions) {
      Job j = m;
      j.precision = p;
      if (!compound_tools::dispatch_entry(
              entry, p, [&](auto tag) { j.keys = search_keys<typename decltype(tag)::type>(o.search).size(); })) {
        std::cerr << "compound-tune: skipping " << j.name << " " << entry << "/" << p
                  << ": not compiled in (COMPOUND_SPARSE_VARIANT_ENTRIES=" << COMPOUND_SPARSE_VARIANT_ENTRIES << ")\n";
        continue;
      }
      jobs.push_back(j);
    }
  return jobs;
}

int run_tuner(const Options& o) {
  cs::require_timing_mode<Kokkos::DefaultExecutionSpace>(o.quick.mode, "--timing queued");  // before any work
  const auto jobs = make_jobs(o);
  COMPOUND_SPARSE_REQUIRE(!jobs.empty(), "nothing to tune");
  const std::string path = (fs::path(o.db_dir) / cs::database_file_name(cs::default_device_info())).string();
  // The records already there, for --resume; an unreadable database stops the run
  // here, before any work (it is never overwritten).
  cs::TuningDatabase db = cs::empty_tuning_database();
  if (fs::exists(path)) db.matrices = cs::read_tuning_database(path).matrices;
  const std::string this_device = db.device.name;  // this process's (empty_tuning_database)
  const std::string timing = cs::to_string(o.quick.mode);
  int other_timing = 0;
  for (const auto& m : db.matrices) other_timing += m.timing != timing;
  if (other_timing > 0)  // selection compares times within a record only, so a mix still works
    std::cerr << "compound-tune: note: " << other_timing << " record(s) in " << path << " were timed '"
              << (timing == "wall" ? "queued" : "wall") << "', the new ones '" << timing << "'\n";
  std::cerr << "compound-tune: " << jobs.size() << " matrix/precision pair(s), search " << o.search << ", device "
            << db.device.name << " (" << db.device.backend << "), database " << path << "\n";
  double total = 0;
  for (const auto& j : jobs) total += j.units(o);
  ProgressBar bar(total);
  std::vector<std::string> failed, skipped, not_extended;
  TuneCounts all;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Job& j = jobs[i];
    const std::string what = j.name + " " + j.entry + "/" + j.precision;
    const std::string label = "[" + std::to_string(i + 1) + "/" + std::to_string(jobs.size()) + "] " + what;
    std::optional<cs::TunedMatrix> t;
    TuneCounts counts;
    const cs::TunedMatrix* extending = nullptr;  // --resume: a record of this device given the k it lacks
    compound_tools::dispatch_entry(j.entry, j.precision, [&](auto tag) {
      using Entry = typename decltype(tag)::type;
      const auto a = compound_tools::read_zoo_matrix<Entry>(j.file);  // float: components rounded on reading
      const auto features = cs::matrix_features(a);
      const cs::TunedMatrix* record = cs::find_record(db, j.name, j.entry, j.precision, this_device);
      std::vector<int> ks = o.ks;
      const auto leave = [&](const std::string& why) {  // --resume extend: nothing to extend
        bar.drop(j.units(o));
        std::cerr << "compound-tune: not tuning " << what << ": " << why << " (--resume extend)\n";
        not_extended.push_back(what);
      };
      // Another device's record of the matrix (an H200's in an H100's sm_90.json) is not this
      // one's: tuning adds this device's record beside it (merge_record).
      if (o.extend_only && record == nullptr)
        return leave("the database has no record of it from " + this_device + " to extend");
      if (o.resume && record != nullptr) {
        std::string why = retune_reason(*record, features, o);
        const std::vector<int> missing = missing_vector_counts(*record, o);
        if (why.empty() && missing.empty()) {
          bar.drop(j.units(o));
          std::cerr << "compound-tune: skipping " << what << ": " << path << " already holds it (fingerprint "
                    << features.fingerprint << ", search " << o.search << ", timing " << record->timing
                    << "; --resume no retunes)\n";
          skipped.push_back(what);
          return;
        }
        const std::string lacking = "the record has no measurement with k = " + compound_tools::joined(missing, ", ");
        if (why.empty() && missing.front() == 1) why = lacking;  // no SpMV: nothing to extend
        if (why.empty()) {
          extending = record;
          ks = missing;
          bar.drop(j.units(o) - j.units(o, ks));
          std::cerr << "compound-tune: extending " << what << ": " << lacking
                    << "; its SpMV measurements and best are kept (--resume no retunes)\n";
        } else if (o.extend_only) {
          return leave(why);
        } else {
          std::cerr << "compound-tune: retuning " << what << ": " << why << "\n";
        }
      }
      t = tune<Entry>(a, features, j, o, ks, extending, bar, label, counts);
    });
    if (!t) continue;
    int ok = 0;
    std::string first_error;
    for (const auto& m : t->measurements) {
      ok += m.ok;
      if (!m.ok && first_error.empty()) first_error = m.error;
    }
    bar.finish(label + " done");
    all.dropped += counts.dropped;
    all.refused += counts.refused;
    std::cerr << "  " << what << ": tuned in " << t->tuning_seconds << " s"
              << (extending ? " (with the record's earlier search)" : "") << "; " << t->measurements.size()
              << " candidates: " << counts.dropped << " dropped after one batch (--drop-slower-than "
              << bound_text(o.drop_slower_than) << "), " << counts.refused
              << " refused before converting (--max-padding " << bound_text(o.max_padding) << ", --budget-bytes), "
              << counts.skipped << " skipped for a dense row (longest row " << t->features.nnz_per_row_max
              << ", threshold " << counts.dense_row_threshold << ")\n";
    if (!counts.spmm_layouts.empty())
      std::cerr << "  " << what << ": SpMM searched on the " << o.spmm_layouts
                << " matrix layouts fastest at k = 1 (--spmm-layouts): " << counts.spmm_layouts << "\n";
    if (t->best.empty()) {
      // Nothing to select from: recording it would only hide the failure.
      std::cerr << "compound-tune: " << what << " (" << j.file << "): no variant ran correctly (0/"
                << t->measurements.size() << " ok; first failure: " << first_error << "); not recorded\n";
      failed.push_back(what);
      continue;
    }
    std::cerr << "  " << what << ": best " << t->best << " " << t->best_seconds * 1e6 << " us (" << ok << "/"
              << t->measurements.size() << " variants ok)\n";
    // After every matrix (an interruption loses at most one), locked and merged
    // with what other tuners wrote meanwhile.
    cs::update_tuning_database(path, {std::move(*t)});
  }
  std::cerr << "compound-tune: " << (jobs.size() - skipped.size() - not_extended.size() - failed.size()) << " tuned, "
            << skipped.size() << " skipped (already in the database), "
            << (o.extend_only ? std::to_string(not_extended.size()) + " not extended, " : std::string())
            << failed.size() << " failed; " << all.dropped << " candidates dropped, " << all.refused
            << " refused; database " << path << "; " << bar.elapsed() << " s\n";
  if (!failed.empty()) {
    std::cerr << "compound-tune: error: no variant ran correctly for " << compound_tools::joined(failed, ", ") << "\n";
    return 1;
  }
  return 0;
}

/// --merge OUT --from A,B,...: the records of every database into one, in order, written
/// atomically to OUT. One rule for a record identity (matrix, entry type, precision, device)
/// in several inputs, the tuner's (merge_record): the later file's record replaces the
/// earlier one's (keeping, where both have one fingerprint, the earlier one's measurements at
/// the k the later lacks), and each replacement is printed with both bests. One file holding
/// an identity twice has no order to go by: read_tuning_database refuses it, so nothing is
/// written. Records of other devices stand side by side. The header (device, versions) is the
/// last file's, the launch bounds all of theirs. How an H100's records with every k bucket
/// joined an H200's in tuning/sm_90.json.
int run_merge(const std::string& out, const std::vector<std::string>& from) {
  namespace fs = std::filesystem;
  // An existing OUT that is no input would be replaced by the inputs' records, losing its own.
  std::error_code exists_error;
  if (fs::exists(out, exists_error)) {
    const bool an_input = std::any_of(from.begin(), from.end(), [&](const std::string& path) {
      std::error_code ignored;
      return fs::equivalent(out, path, ignored);
    });
    COMPOUND_SPARSE_REQUIRE_KIND(IoError, an_input,
                                 out << " exists and is none of the --from files: merging would replace its records "
                                        "with theirs; name it in --from to keep them, or remove it first");
  }
  cs::TuningDatabase merged = cs::empty_tuning_database();
  merged.matrices.clear();
  merged.launch_bounds.clear();     // the inputs' bounds, not this build's
  std::vector<std::string> origin;  // the input each merged record came from, by position
  for (const auto& path : from) {
    cs::TuningDatabase db = cs::read_tuning_database(path);
    std::vector<cs::TunedMatrix> records = std::move(db.matrices);
    db.matrices.clear();
    cs::merge_database(merged, db);  // the header and the launch bounds
    for (auto& m : records) {
      const auto* old = cs::find_record(merged, m.name, m.features.entry_type, m.features.precision, m.device);
      if (old == nullptr) {
        origin.push_back(path);
      } else {
        const auto at = static_cast<std::size_t>(old - merged.matrices.data());
        std::cerr << "compound-tune: " << path << "'s record of " << m.name << " " << m.features.entry_type << "/"
                  << m.features.precision << " on " << m.device << " replaces " << origin[at] << "'s: best " << m.best
                  << " (was " << old->best << ")\n";
        origin[at] = path;
      }
      cs::merge_record(merged, std::move(m));
    }
  }
  cs::write_tuning_database(merged, out);
  std::map<std::string, int> per_device;
  for (const auto& m : merged.matrices) ++per_device[m.device];
  std::cerr << "compound-tune: wrote " << out << ": " << merged.matrices.size() << " record(s)";
  for (const auto& [device, n] : per_device) std::cerr << "; " << n << " of " << device;
  std::cerr << "\n";
  return 0;
}

/// --ship FULL --out OUT: the shipped database of a tuner output (ship_database), written
/// atomically to OUT: what TunedSpmv reads, a table of variants and each record's times.
/// FULL must be the full form: shipping a shipped file again would say nothing new, and
/// read_tuning_database refuses it with the reason.
int run_ship(const std::string& full, const std::string& out) {
  const cs::SelectionDatabase shipped = cs::ship_database(cs::read_tuning_database(full));
  const std::string text = cs::to_json_text(shipped);
  cs::detail::write_file_atomically(text, out);
  std::map<std::string, int> per_device;
  for (const auto& r : shipped.records) ++per_device[r.device];
  std::cerr << "compound-tune: wrote " << out << " (" << text.size() << " bytes): " << shipped.records.size()
            << " record(s)";
  for (const auto& [device, n] : per_device) std::cerr << "; " << n << " of " << device;
  std::cerr << "\n";
  return 0;
}

/// --check-selection: selection_check.hpp for every matrix/precision pair of the zoo;
/// exits 1 when a pair could not be judged (no exhaustive record, or its best failed).
int run_selection_check(const Options& o, const std::string& command) {
  cs::require_timing_mode<Kokkos::DefaultExecutionSpace>(o.final.mode, "--timing queued");  // before any work
  const auto jobs = make_jobs(o);
  COMPOUND_SPARSE_REQUIRE(!jobs.empty(), "nothing to check");
  const cs::SelectionDatabase db = cs::read_for_selection(o.check_selection);
  const std::string best_from = o.best_from.empty() ? o.check_selection : o.best_from;
  const cs::SelectionDatabase best_db = o.best_from.empty() ? db : cs::read_for_selection(o.best_from);
  const compound_tune::ComparedChoices compared =
      o.compare_with.empty() ? compound_tune::ComparedChoices{} : compound_tune::read_compared_choices(o.compare_with);
  compound_tune::SelectionCheckOptions options;
  options.quick_tune_spmvs = o.quick_spmvs;
  options.neighbours = o.neighbours;
  options.timing = o.final;
  const fs::path work = o.out + ".left_out";  // one database per left-out matrix, removed after its pairs
  std::cerr << "compound-tune: checking selection on " << jobs.size() << " matrix/precision pair(s), database "
            << o.check_selection << " (" << db.records.size() << " records), exhaustive best from " << best_from
            << "\n";
  ProgressBar bar(static_cast<double>(jobs.size()));
  std::vector<compound_tune::SelectionCheckRow> rows;
  std::vector<std::string> unjudged;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Job& j = jobs[i];
    const std::string what = j.name + " " + j.entry + "/" + j.precision;
    const std::string dir = (work / j.name).string();
    // A matrix's pairs are consecutive (make_jobs): its database is written once for all
    // of them (and read once: TunedSpmv's read is cached while the file stays).
    if (i == 0 || jobs[i - 1].name != j.name) compound_tune::write_left_out_database(db, j.name, dir);
    compound_tools::dispatch_entry(j.entry, j.precision, [&](auto tag) {
      using Entry = typename decltype(tag)::type;
      const auto a = compound_tools::read_zoo_matrix<Entry>(j.file);
      const auto other =
          compared.find(compound_tune::pair_key(j.name, cs::entry_type_name<Entry>(), cs::precision_name<Entry>()));
      rows.push_back(compound_tune::check_selection<Entry>(
          a, j.name, dir,
          cs::find_record_preferring(best_db, j.name, j.entry, j.precision, cs::default_device_info().name), options,
          other == compared.end() ? nullptr : &other->second));
    });
    const auto& r = rows.back();
    bar.advance(1, "[" + std::to_string(i + 1) + "/" + std::to_string(jobs.size()) + "] " + what);
    if (!r.error.empty()) {
      unjudged.push_back(what + ": " + r.error);
      std::cerr << "\n  " << what << ": " << r.error << "\n";
    } else {
      std::cerr << "\n  " << what << ": best " << r.best_seconds * 1e6 << " us; never (" << r.never.rule << ") "
                << r.never.ratio << ", always " << r.always.ratio << " (" << r.always.spmvs << " SpMVs), auto ("
                << r.automatic.rule << ") " << r.automatic.ratio << "\n";
    }
    if (i + 1 == jobs.size() || jobs[i + 1].name != j.name) fs::remove_all(dir);
  }
  bar.finish("checked");
  fs::remove_all(work);
  compound_tune::write_selection_check(rows, o.check_selection, best_from, options, command, o.out, o.compare_with);
  std::cerr << "compound-tune: wrote " << o.out << ".json and " << o.out << ".md\n";
  if (!unjudged.empty()) {
    std::cerr << "compound-tune: error: " << unjudged.size()
              << " pair(s) not judged: " << compound_tools::joined(unjudged, "; ") << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using compound_tools::integer_at_least;
  using compound_tools::one_of;
  Options o;
  const compound_tools::OptionSetters setters = {
      {"--zoo", [&](const std::string& v) { o.zoo = v; }},
      {"--matrix", [&](const std::string& v) { o.matrix_file = v; }},
      {"--matrices", [&](const std::string& v) { o.names = compound_tools::split_list(v); }},
      {"--entry", [&](const std::string& v) { o.entry = one_of(v, compound_tools::compiled_entry_classes()); }},
      {"--precision", [&](const std::string& v) { o.precisions = compound_tools::precision_list(v); }},
      {"--search",
       [&](const std::string& v) {
         o.search = one_of(v, {"full", "reduced"});
       }},
      {"--db-dir", [&](const std::string& v) { o.db_dir = v; }},
      {"--samples", [&](const std::string& v) { o.quick.samples = integer_at_least(v, 1); }},
      {"--batch", [&](const std::string& v) { o.quick.batch = integer_at_least(v, 1); }},
      {"--warmup", [&](const std::string& v) { o.quick.warmup = integer_at_least(v, 0); }},
      {"--top", [&](const std::string& v) { o.top = integer_at_least(v, 0); }},
      {"--final-samples", [&](const std::string& v) { o.final.samples = integer_at_least(v, 1); }},
      {"--final-batch", [&](const std::string& v) { o.final.batch = integer_at_least(v, 1); }},
      {"--retime-within",
       [&](const std::string& v) { o.retime_within = compound_tools::finite_number_at_least(v, 1); }},
      {"--retime-max", [&](const std::string& v) { o.retime_max = integer_at_least(v, 0); }},
      {"--budget-bytes", [&](const std::string& v) { o.budget = compound_tools::non_negative_integer(v); }},
      {"--drop-slower-than", [&](const std::string& v) { o.drop_slower_than = compound_tools::factor_or_zero(v, 1); }},
      {"--max-padding", [&](const std::string& v) { o.max_padding = compound_tools::factor_or_zero(v, 1); }},
      {"--dense-row-threshold",
       [&](const std::string& v) {
         o.dense_row_threshold = v == "device" ? -1 : compound_tools::finite_number_at_least(v, 0);
       }},
      {"--resume",
       [&](const std::string& v) {
         const std::string mode = one_of(v, {"yes", "no", "extend"});
         o.resume = mode != "no";
         o.extend_only = mode == "extend";
       }},
      {"--timing", [&](const std::string& v) { o.quick.mode = o.final.mode = compound_tools::timing_mode(v); }},
      {"--loo", [&](const std::string& v) { o.loo = v; }},
      {"--out", [&](const std::string& v) { o.out = v; }},
      {"--neighbours", [&](const std::string& v) { o.neighbours = integer_at_least(v, 1); }},
      {"--learn-prior", [&](const std::string& v) { o.learn_prior = v; }},
      {"--merge", [&](const std::string& v) { o.merge = v; }},
      {"--ship", [&](const std::string& v) { o.ship = v; }},
      {"--prior-loo", [&](const std::string& v) { o.prior_loo = v; }},
      {"--from", [&](const std::string& v) { o.from = compound_tools::split_list(v); }},
      {"--check-selection", [&](const std::string& v) { o.check_selection = v; }},
      {"--best-from", [&](const std::string& v) { o.best_from = v; }},
      {"--compare-with", [&](const std::string& v) { o.compare_with = v; }},
      {"--quick-spmvs", [&](const std::string& v) { o.quick_spmvs = integer_at_least(v, 0); }},
      {"--spmm-layouts", [&](const std::string& v) { o.spmm_layouts = integer_at_least(v, 0); }},
      {"--k", [&](const std::string& v) {
         o.ks = compound_tools::vector_count_list(v);
         if (o.ks.front() != 1) o.ks.insert(o.ks.begin(), 1);  // the record's best is the SpMV's
       }}};
  if (compound_tools::wants_help(argc, argv)) return usage(argv[0], std::cout, 0);  // asked for: not an error
  const std::string problem = compound_tools::parse_options(argc, argv, setters);
  if (!problem.empty()) {
    std::cerr << "compound-tune: " << problem << "\n";
    return usage(argv[0], std::cerr, 2);
  }
  try {
    if (!o.loo.empty()) {
      if (o.out.empty()) {
        std::cerr << "compound-tune: --loo needs --out PREFIX (the report's PREFIX.json and PREFIX.md)\n";
        return usage(argv[0], std::cerr, 2);
      }
      compound_tune::write_loo_report(cs::read_for_selection(o.loo), o.loo, o.neighbours, o.out);
      std::cerr << "compound-tune: wrote " << o.out << ".json and " << o.out << ".md\n";
      return 0;
    }
    if (!o.ship.empty()) {
      if (o.out.empty()) {
        std::cerr << "compound-tune: --ship needs --out SHIPPED.json\n";
        return usage(argv[0], std::cerr, 2);
      }
      return run_ship(o.ship, o.out);
    }
    if (!o.merge.empty()) {
      if (o.from.empty()) {
        std::cerr << "compound-tune: --merge needs --from\n";
        return usage(argv[0], std::cerr, 2);
      }
      return run_merge(o.merge, o.from);
    }
    if (!o.learn_prior.empty() || !o.prior_loo.empty()) {
      if (o.from.empty()) {
        std::cerr << "compound-tune: " << (o.learn_prior.empty() ? "--prior-loo" : "--learn-prior")
                  << " needs --from A.json[,B.json...] (the databases the prior is learned from)\n";
        return usage(argv[0], std::cerr, 2);
      }
      if (!o.prior_loo.empty() && o.out.empty()) {
        std::cerr << "compound-tune: --prior-loo needs --out PREFIX (the report's PREFIX.md)\n";
        return usage(argv[0], std::cerr, 2);
      }
      std::vector<cs::SelectionDatabase> read;
      for (const auto& path : o.from) read.push_back(cs::read_for_selection(path));
      std::vector<const cs::SelectionDatabase*> dbs;
      for (const auto& db : read) dbs.push_back(&db);
      if (!o.learn_prior.empty()) {
        cs::write_variant_prior(cs::learn_prior(dbs, o.from), o.learn_prior);
        std::cerr << "compound-tune: wrote " << o.learn_prior << "\n";
      }
      if (!o.prior_loo.empty()) {
        compound_tune::write_prior_loo_report(cs::read_for_selection(o.prior_loo), o.prior_loo, dbs, o.from, o.out);
        std::cerr << "compound-tune: wrote " << o.out << ".md\n";
      }
      return 0;
    }
    if (!o.check_selection.empty()) {
      if (o.zoo.empty() || o.out.empty()) {
        std::cerr << "compound-tune: --check-selection needs --zoo and --out\n";
        return usage(argv[0], std::cerr, 2);
      }
      Kokkos::ScopeGuard kokkos(argc, argv);
      return run_selection_check(o, compound_tools::joined(std::vector<std::string>(argv, argv + argc), " "));
    }
    if (o.zoo.empty() == o.matrix_file.empty() || (!o.matrix_file.empty() && o.entry.empty())) {
      std::cerr << "compound-tune: give either --zoo or --matrix (with --entry)\n";
      return usage(argv[0], std::cerr, 2);
    }
    Kokkos::ScopeGuard kokkos(argc, argv);
    return run_tuner(o);
  } catch (const std::exception& e) {
    std::cerr << "\ncompound-tune: " << e.what() << "\n";
    return 1;
  }
}
