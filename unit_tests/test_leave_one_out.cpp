// compound-tune's leave-one-out report (src/tools/tune/leave_one_out.hpp): each record judged by the
// selection the other records make, against the record's own stored times.
#include <gtest/gtest.h>

#include <compound_sparse.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "leave_one_out.hpp"
#include "tuning_test_helpers.hpp"

namespace cs = compound_sparse;
using namespace compound_sparse_test;
using C = Kokkos::complex<double>;

namespace {

/// Two variants this build compiles for C, with one lane a row (leave-one-out compares
/// lanes by name: one lane keeps the names as written).
std::vector<std::string> two_compiled_variants() {
  std::vector<std::string> names;
  for (const auto& k : cs::variant_registry<C>().variants())
    if (k.lanes_per_row == 1 && names.size() < 2) names.push_back(k.name());
  return names;
}

/// `r` with SpMM measurements of 8 vectors after its SpMV ones, under the same names.
cs::TunedMatrix with_spmm(cs::TunedMatrix r, const std::vector<std::pair<std::string, double>>& times) {
  for (const auto& [variant, seconds] : times) r.measurements.push_back(at_k(variant, 8, seconds));
  return r;
}

}  // namespace

TEST(LeaveOneOut, JudgesTheSpmvByItsSpmvTimesOnly) {
  const auto names = two_compiled_variants();
  ASSERT_EQ(names.size(), 2u);
  const std::string& a = names[0];
  const std::string& b = names[1];
  const auto f = cs::matrix_features(banded<C>(1000, 7));
  // The two others rank b first; the left-out "odd" has a as its best, b 3x slower. The SpMM
  // times come last and rank the other way round, which a reader taking every measurement
  // of a name (the last one wins) would see instead.
  const auto db = shipped({with_spmm(record("one", f, {{a, 2.0}, {b, 1.0}}), {{a, 0.1}, {b, 9.0}}),
                           with_spmm(record("two", f, {{a, 2.0}, {b, 1.0}}), {{a, 0.1}, {b, 9.0}}),
                           with_spmm(record("odd", f, {{a, 1.0}, {b, 3.0}}), {{a, 4.0}, {b, 2.0}})});
  const auto rows = compound_tune::leave_one_out(db, 3);
  ASSERT_EQ(rows.size(), 3u);
  const auto& odd = rows[2];
  ASSERT_EQ(odd.name, "odd");
  EXPECT_EQ(odd.best, a);
  EXPECT_EQ(odd.selected, b) << odd.rule;
  EXPECT_DOUBLE_EQ(odd.best_seconds, 1.0);
  EXPECT_DOUBLE_EQ(odd.selected_seconds, 3.0);
  EXPECT_DOUBLE_EQ(odd.ratio, 3.0);
  for (int i = 0; i < 2; ++i) {  // b is their best, and the other's choice too
    EXPECT_EQ(rows[i].selected, b) << rows[i].name;
    EXPECT_DOUBLE_EQ(rows[i].best_seconds, 1.0) << rows[i].name;
    EXPECT_DOUBLE_EQ(rows[i].ratio, 1.0) << rows[i].name;
  }
}

TEST(LeaveOneOut, ARecordIsJudgedAsOnItsDeviceAndTheReportNamesDevices) {
  // Devices of one compute capability share a file (an H200's and an H100's records of the
  // same matrices in sm_90.json). Each left-out record is selected for as on its own device:
  // that device's records preferred (selection.hpp), the matrix's records of every device left out.
  const auto names = two_compiled_variants();
  ASSERT_EQ(names.size(), 2u);
  const std::string& a = names[0];
  const std::string& b = names[1];
  const auto f = cs::matrix_features(banded<C>(1000, 7));
  const auto on = [](cs::TunedMatrix r, const std::string& device) {
    r.device = device;
    return r;
  };
  auto db = shipped(
      {on(record("one", f, {{a, 1.0}, {b, 2.0}}), "GPU A"), on(record("one", f, {{a, 2.0}, {b, 1.0}}), "GPU B"),
       on(record("two", f, {{a, 1.0}, {b, 2.0}}), "GPU A"), on(record("two", f, {{a, 2.0}, {b, 1.0}}), "GPU B")});
  db.device.name = "GPU A";
  const auto rows = compound_tune::leave_one_out(db, 3);
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& r : rows) {
    EXPECT_EQ(r.neighbour, r.name == "one" ? "two" : "one") << r.name << " " << r.device;
    EXPECT_EQ(r.neighbour_device, r.device) << r.name;
    EXPECT_EQ(r.selected, r.device == "GPU A" ? a : b) << r.name << " " << r.device;
    EXPECT_DOUBLE_EQ(r.ratio, 1.0) << r.name << " " << r.device;
  }
  const ScratchDir dir("loo_devices");
  const std::string out = dir.str() + "/loo";
  compound_tune::write_loo_report(db, "test.json", 3, out);
  std::ifstream md(out + ".md");
  std::stringstream text;
  text << md.rdbuf();
  EXPECT_NE(text.str().find("| one (GPU B) | complex | double |"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("two (GPU B) (0.00)"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("| GPU A | 2 | 1.000 | 1.000 | 1.000 |"), std::string::npos) << text.str();
  // Auto's sweep: every tenth up to 0.6, then 0.8 and 1.0, with the default marked once
  // (it is one of them) and never standing in for another distance.
  const std::string report = text.str();
  for (const char* distance : {"| 0.00 |", "| 0.40 |", "| 0.50 |", "| 0.60 |", "| 1.00 |"})
    EXPECT_NE(report.find(distance), std::string::npos) << distance << "\n" << report;
  const auto marked = report.find(" (default) |");
  ASSERT_NE(marked, std::string::npos) << report;
  EXPECT_EQ(report.find(" (default) |", marked + 1), std::string::npos) << report;
  EXPECT_NE(report.find("| 0.30 (default) |"), std::string::npos) << report;
}

TEST(LeaveOneOut, CloseDistanceSweepTrustsExactAndNearRecordsOnly) {
  // Auto trusts an exact record at any distance, a nearest one within the close distance,
  // never the heuristic; elsewhere it takes quick tuning's ratio, and a row whose pick has no
  // stored time is left out.
  const auto row = [](bool exact, bool nearest, double distance, double ratio, double quick) {
    compound_tune::LooRow r;
    r.exact = exact;
    r.nearest = nearest;
    r.distance = distance;
    r.ratio = ratio;
    r.quick_ratio = quick;
    return r;
  };
  const std::vector<compound_tune::LooRow> rows = {row(true, false, 0.0, 1.0, 1.2), row(false, true, 0.3, 1.5, 1.0),
                                                   row(false, false, 0.0, 2.0, 1.1), row(false, true, 0.7, 1.0, 1.3),
                                                   row(false, true, 0.9, 1.0, 0.0)};
  EXPECT_DOUBLE_EQ(compound_tune::auto_ratio_at(rows[2], 10.0), 1.1);  // the heuristic is never trusted
  const auto sweep = compound_tune::close_distance_sweep(rows, {0.0, 0.5, 1.0});
  ASSERT_EQ(sweep.size(), 3u);
  // 0: only the exact record; Auto's ratios 1.0, 1.0, 1.1, 1.3 (the last row has none).
  EXPECT_EQ(sweep[0].trusted, 1);
  EXPECT_EQ(sweep[0].summary.count, 4);
  EXPECT_DOUBLE_EQ(sweep[0].summary.worst, 1.3);
  EXPECT_EQ(sweep[0].beyond_5_percent, 2);
  // 0.5: the record at 0.3 too, and its 1.5 becomes the worst.
  EXPECT_EQ(sweep[1].trusted, 2);
  EXPECT_DOUBLE_EQ(sweep[1].summary.worst, 1.5);
  EXPECT_EQ(sweep[1].beyond_5_percent, 3);
  // 1.0: every nearest record; the one without a quick time now counts with its own.
  EXPECT_EQ(sweep[2].trusted, 4);
  EXPECT_EQ(sweep[2].summary.count, 5);
  EXPECT_EQ(sweep[2].beyond_5_percent, 2);
}
