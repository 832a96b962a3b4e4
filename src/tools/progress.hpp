#pragma once
// A one-line progress bar with ETA for the tools (compound-tune, compound-bench), on stderr: redrawn in
// place (\r) on a terminal, a plain line every few seconds otherwise (logs, CI).
// Work is counted in units proportional to the expected time (variants x
// non-zeros), so the ETA stays sensible when matrix sizes differ by 1000x.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace compound_tools {

class ProgressBar {
 public:
  explicit ProgressBar(double total_units)
      : total_(total_units > 0 ? total_units : 1), tty_(::isatty(::fileno(stderr)) != 0), start_(now()), last_(-1e9) {}

  /// Adds `units` of finished work; `label` names what is running.
  void advance(double units, const std::string& label) {
    done_ += units;
    const double t = seconds();
    if (tty_ ? t - last_ < 0.2 : t - last_ < 5.0) return;  // throttle redraws
    last_ = t;
    draw(label, false);
  }
  void finish(const std::string& label) { draw(label, true); }
  double elapsed() const { return seconds(); }

 private:
  static std::chrono::steady_clock::time_point now() { return std::chrono::steady_clock::now(); }
  double seconds() const { return std::chrono::duration<double>(now() - start_).count(); }
  static std::string clock(double s) {
    char text[32];
    const long total = static_cast<long>(s + 0.5);
    std::snprintf(text, sizeof text, "%ld:%02ld", total / 60, total % 60);
    return text;
  }
  void draw(const std::string& label, bool final) const {
    const double fraction = std::min(1.0, done_ / total_);
    const int width = 30, filled = static_cast<int>(fraction * width);
    const std::string bar = std::string(filled, '#') + std::string(width - filled, '.');
    const double t = seconds();
    const std::string eta = done_ > 0 ? clock(t * (total_ - done_) / done_) : "?";
    std::fprintf(stderr, "%s[%s] %5.1f%% elapsed %s ETA %s  %-50.50s%s", tty_ ? "\r" : "", bar.c_str(), 100 * fraction,
                 clock(t).c_str(), final ? "0:00" : eta.c_str(), label.c_str(), tty_ && !final ? "" : "\n");
    std::fflush(stderr);
  }
  double total_;
  double done_ = 0;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
  double last_;
};

}  // namespace compound_tools
