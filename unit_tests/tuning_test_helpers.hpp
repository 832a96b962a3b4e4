#pragma once
// Shared by the tuning tests: small matrices, hand-made database records (in the tuner's
// full form, shipped where the library reads them) and a scratch directory per test.
#include <unistd.h>

#include <compound_sparse/layouts/host_csr.hpp>
#include <compound_sparse/tuning/database.hpp>
#include <compound_sparse/tuning/selection_database.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "test_matrices.hpp"

namespace compound_sparse_test {

namespace cs = compound_sparse;

/// n x n with `width` non-zeros per row around the diagonal, plus one row of
/// `long_row` entries (row 0) when long_row > 0; random values.
template <class Entry>
cs::HostCsr<Entry> banded(int n, int width, int long_row = 0, unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::vector<cs::CooEntry<Entry>> coo;
  for (int i = 0; i < n; ++i)
    for (int d = -width / 2; d < width - width / 2; ++d)
      if (i + d >= 0 && i + d < n) coo.push_back({i, i + d, random_value<Entry>(rng)});
  for (int j = 0; j < long_row && j < n; ++j) coo.push_back({0, j, random_value<Entry>(rng)});
  return cs::csr_from_coo<Entry>(n, n, coo);
}

/// A passing measurement of `variant` at k vectors (1: the SpMV) taking `seconds`.
inline cs::Measurement at_k(const std::string& variant, int k, double seconds) {
  cs::Measurement m;
  m.variant = variant;
  m.k = k;
  m.ok = true;
  m.seconds = m.min_seconds = m.max_seconds = seconds;
  return m;
}

/// A record with `times` (variant, seconds) of the SpMV; the fastest becomes best.
inline cs::TunedMatrix record(const std::string& name, const cs::MatrixFeatures& features,
                              const std::vector<std::pair<std::string, double>>& times) {
  cs::TunedMatrix t;
  t.name = name;
  t.features = features;
  t.search = "full";
  for (const auto& [variant, seconds] : times) {
    t.measurements.push_back(at_k(variant, 1, seconds));
    if (t.best.empty() || seconds < t.best_seconds) {
      t.best = variant;
      t.best_seconds = seconds;
    }
  }
  return t;
}

/// `records` as the shipped database of this process's device: what TunedSpmv, selection,
/// the prior and the reports read (ship_database, as compound-tune --ship makes it).
inline cs::SelectionDatabase shipped(const std::vector<cs::TunedMatrix>& records) {
  auto db = cs::empty_tuning_database();
  db.matrices = records;
  return cs::ship_database(db);
}

/// A fresh directory under the system temp dir, removed on destruction.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag)
      : path_(std::filesystem::temp_directory_path() / ("compound_sparse_" + tag + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string str() const { return path_.string(); }
  /// Where TunedSpmv looks for this device's database in this directory.
  std::string database() const { return (path_ / cs::database_file_name(cs::default_device_info())).string(); }
  void write(const std::string& file, const std::string& text) const {
    std::ofstream(path_ / file, std::ios::binary) << text;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace compound_sparse_test
