#pragma once
// What compound-tune's reports share (leave_one_out.cpp, selection_check.cpp): the
// summary of a list of ratios, numbers as the tables print them, and the JSON half of
// a report written next to its Markdown.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace compound_tune {

struct RatioSummary {
  int count = 0;
  double median = 0, worst = 0, geometric_mean = 0;
};

/// Median, largest and geometric mean of `ratios` (all > 0); zeros when empty.
RatioSummary summarize_ratios(std::vector<double> ratios);

/// `x` with `digits` decimals.
std::string fixed(double x, int digits);

/// Writes `j` to <out>.json (its directory created); throws naming the file on failure.
void write_json_report(const nlohmann::json& j, const std::string& out);

}  // namespace compound_tune
