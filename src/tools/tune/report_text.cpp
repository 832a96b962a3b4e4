// compound-tune's shared report pieces (report_text.hpp).
#include "report_text.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "compound_sparse/error.hpp"

namespace compound_tune {

RatioSummary summarize_ratios(std::vector<double> ratios) {
  RatioSummary s;
  s.count = static_cast<int>(ratios.size());
  if (ratios.empty()) return s;
  std::sort(ratios.begin(), ratios.end());
  const std::size_t n = ratios.size();
  s.median = n % 2 ? ratios[n / 2] : 0.5 * (ratios[n / 2 - 1] + ratios[n / 2]);
  s.worst = ratios.back();
  double logs = 0;
  for (double x : ratios) logs += std::log(x);
  s.geometric_mean = std::exp(logs / static_cast<double>(n));
  return s;
}

std::string fixed(double x, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << x;
  return s.str();
}

void write_json_report(const nlohmann::json& j, const std::string& out) {
  const std::filesystem::path base(out);
  if (base.has_parent_path()) std::filesystem::create_directories(base.parent_path());
  std::ofstream file(out + ".json");
  file << j.dump(2) << "\n";
  COMPOUND_SPARSE_REQUIRE(file, "writing " << out << ".json failed");
}

}  // namespace compound_tune
