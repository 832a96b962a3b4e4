#pragma once
// Choosing a variant for a matrix from the tuning database, in three rules:
//
// 1. exact: a record with the same fingerprint (pattern + entry type +
//    precision) — its measurements, fastest first.
//
// Rules 1 and 2 use the measurements at SelectionContext::vectors (1: the SpMV, k > 1:
// the SpMM with k vectors) and only the records that have such measurements.
// 2. nearest: the k records of the same entry type and precision closest in
//    feature distance (below); each variant that ran on all of them is scored
//    by the weighted mean of log(time / that record's best time), weights
//    1 / (distance + 0.05); the lowest score wins. With k = 1 this is "the
//    nearest neighbour's best variant". Variants that ran on only some of the k
//    are scored with a slowdown of 4 where they are missing. Mixed precision without a
//    mixed record at that k takes the entry type's float records instead (it stores float
//    entries; the explanation says so).
// 3. prior: when the database is missing, unreadable, has no record of this
//    entry type and precision, or names no usable variant, and a portable prior
//    (prior.hpp, tuning/prior.json) of this kind of device is given: its
//    ranking for the matrix's region, first usable variant.
// 4. heuristic (heuristic_variant): when neither decides.
//
// In rules 1 to 3 a variant is usable when its name parses, it is compiled into
// this build, and its outer layout fits the memory budget (`usable`); otherwise
// the next best is taken, and the reason recorded.
//
// Records measured on another device than SelectionContext::device_name count
// other_device_distance farther in rules 1 and 2; the explanation names their device.
//
// Feature distance between matrices a and b, with f(x) = log2(1 + x):
//   d^2 = sum_i w_i (f(a_i) - f(b_i))^2 / sum_i w_i
// over rows (w 1), nnz (w 1), nnz/row mean (w 2), max (w 1), stddev (w 1),
// bandwidth mean / rows * 1000 (w 0.5). Logarithms make the distance a ratio
// measure, so a 2x larger matrix is equally far at any size.

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "../device_info.hpp"
#include "../variants/variant_key.hpp"
#include "prior.hpp"
#include "selection_database.hpp"

namespace compound_sparse {

struct SelectionContext {
  /// All compiled variants (lanes_per_row 1), for the heuristic.
  std::vector<VariantKey> compiled;
  /// Whether a database variant may be chosen (compiled, fits the budget).
  /// The string says why not when it returns false.
  std::function<bool(const VariantKey&, std::string& why_not)> usable;
  /// Whether an outer layout fits the memory budget (for the heuristic).
  std::function<bool(const std::string& outer)> fits;
  /// Rows longer than this are dense (dense_row_threshold): for a matrix with
  /// one, only kinds that split rows (splits_rows) are usable, in every rule.
  /// Infinite by default: no such rule.
  double dense_row_threshold = std::numeric_limits<double>::infinity();
  int neighbours = 3;            ///< k of rule 2
  std::string skip_record_name;  ///< leave-one-out: ignore records of this name
  /// The device selection is for (DeviceInfo::name); "" = no preference. Records measured
  /// on another device (an H100 reading an H200's sm_90.json) count `other_device_distance`
  /// farther in rules 1 and 2, so this device's records win unless the others are that much
  /// nearer: an exact match from this device beats one from another, a nearest record from
  /// this device beats another device's within 0.3 of its distance.
  std::string device_name;
  double other_device_distance = 0.3;
  /// The number of vectors the variant is for (a vector bucket, vector_bucket.hpp): rules 1
  /// and 2 rank a record's measurements at this k only, and skip records without any; the
  /// prior and the heuristic know only the SpMV (k = 1). For k > 1 `usable` must also ask
  /// for the variant's SpMM (VariantRegistry::supports_spmm).
  int vectors = 1;
  /// Rule 3's prior; null: none (the heuristic decides where the database does not).
  const VariantPrior* prior = nullptr;
};

struct Selection {
  VariantKey key;
  std::string rule;           ///< "exact", "nearest", "prior" or "heuristic"
  std::string record;         ///< the database record used (exact, nearest: the closest)
  std::string record_device;  ///< the device `record` was measured on (find_record's key with `record`)
  double distance = 0;        ///< feature distance to `record` (with the other-device term, if it applies)
  std::string explanation;    ///< human-readable: rule, neighbours, fallbacks
  std::vector<std::string> warnings;
  /// Rules exact, nearest and prior: every usable variant they ranked, best first (`key` is
  /// the first); empty for the heuristic. Quick tuning (tuned_spmv.hpp) times the first few.
  std::vector<VariantKey> ranked;
  /// Rule nearest: each of the k nearest records' own fastest usable variant, nearest
  /// first, without repeats. A matrix that lies between its neighbours is often fastest with
  /// one of theirs rather than with what their weighted mean ranks first (`ranked` tends to
  /// repeat one launch shape), so quick tuning times these early. Empty for the other rules.
  std::vector<VariantKey> neighbour_bests;

  /// Whether a database record decided (rules exact and nearest): `record` names it.
  bool from_record() const { return rule == "exact" || rule == "nearest"; }
};

double feature_distance(const MatrixFeatures& a, const MatrixFeatures& b);

/// The longest row a schedule that gives each row to one lane group can take on
/// `device` without that row alone outlasting the rest of the product: 4 times
/// an even share of the merge items, (rows + nnz) / resident threads (2048 per
/// multiprocessor on a GPU, one per hardware thread on the host), times the
/// lanes that can share a row (32 on a GPU, 1 on the host). The circuit matrix
/// of issue 14 (512K rows, 3.9M non-zeros) on a 132-SM GPU: 4 * 16 * 32 = 2048,
/// so its 32K-entry rows are dense.
double dense_row_threshold(const MatrixFeatures& f, const DeviceInfo& device);

/// Rule 3 (also in docs/tuning.md). For a matrix with a dense row
/// (f.nnz_per_row_max > dense_row_threshold): the first compiled variant of a
/// kind that splits rows whose outer layout fits, in the default inner layouts
/// if compiled, launch bounds as below, 1 lane. Otherwise: the default layouts
/// (the first declared outer and inner layouts: CSR, AoS matrix, AoS vectors);
/// lanes_per_row = largest power of two <= mean nnz/row / 4, within [1, 32]
/// (1 below 8 non-zeros per row); dynamic_warp when row lengths spread
/// (stddev > 0.5 mean or max > 4 mean), static otherwise; launch bounds 128x4
/// if compiled, else the compiled pair of that layout and kind nearest to 512
/// threads per SM (n_t * n_b, by ratio; the first such in `compiled`). When the
/// default outer layout is over the budget, the first declared one that fits
/// (cmake/CompoundSparseVariantSpace.cmake); when the kind is not
/// compiled, the first compiled variant. Needs a non-empty `compiled`.
VariantKey heuristic_variant(const MatrixFeatures& f, const std::vector<VariantKey>& compiled,
                             const std::function<bool(const std::string& outer)>& fits = {},
                             double dense_row_threshold = std::numeric_limits<double>::infinity());

/// Rules 1-4. `db` may be null (no database); `db_note` describes where it
/// came from (or why there is none) for the explanation.
Selection select_variant(const MatrixFeatures& f, const SelectionDatabase* db, const std::string& db_note,
                         const SelectionContext& context);

}  // namespace compound_sparse
