#pragma once
// A one-line progress bar with ETA for the tools (compound-tune, compound-bench), on stderr: redrawn in
// place (\r) on a terminal, a plain line every few seconds otherwise (logs, CI).
// Work is counted in units proportional to the expected time (variants x
// non-zeros), so the ETA stays sensible when matrix sizes differ by 1000x.
// The total is an estimate made up front; where the work turns out smaller
// (fewer candidates to re-time, a matrix skipped) the caller drops the difference,
// so that the fraction done only grows. The ETA is always the estimate: it reads
// 0:00 only when all the work is done, not at the end of each part.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

namespace compound_tools {

class ProgressBar {
 public:
  /// `out` and `clock` (seconds since any fixed point) are for tests; `out` is
  /// treated as a log (no \r redraws) unless it is a terminal.
  explicit ProgressBar(double total_units, std::FILE* out = stderr, std::function<double()> clock = {})
      : total_(total_units > 0 ? total_units : 1),
        out_(out),
        tty_(::isatty(::fileno(out)) != 0),
        clock_(clock ? std::move(clock) : steady_seconds),
        start_(clock_()),
        last_(-1e9) {}

  /// Adds `units` of finished work; `label` names what is running.
  void advance(double units, const std::string& label) {
    done_ += units;
    const double t = seconds();
    if (tty_ ? t - last_ < 0.2 : t - last_ < 5.0) return;  // throttle redraws
    last_ = t;
    draw(label, false);
  }
  /// Removes `units` of expected work that will not be done (an estimate that was
  /// too high): the fraction done grows, never shrinks.
  void drop(double units) { total_ = std::max(done_, total_ - std::max(0.0, units)); }
  /// Draws the line now and ends it (the end of a part: a matrix, a run).
  void finish(const std::string& label) { draw(label, true); }
  double elapsed() const { return seconds(); }
  double fraction() const { return std::min(1.0, done_ / total_); }

 private:
  static double steady_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  double seconds() const { return clock_() - start_; }
  static std::string clock(double s) {
    char text[32];
    const long total = static_cast<long>(s + 0.5);
    std::snprintf(text, sizeof text, "%ld:%02ld", total / 60, total % 60);
    return text;
  }
  void draw(const std::string& label, bool final) const {
    const double f = fraction();
    const int width = 30, filled = static_cast<int>(f * width);
    const std::string bar = std::string(filled, '#') + std::string(width - filled, '.');
    const double t = seconds();
    const std::string eta = done_ > 0 ? clock(t * std::max(0.0, total_ - done_) / done_) : "?";
    std::fprintf(out_, "%s[%s] %5.1f%% elapsed %s ETA %s  %-50.50s%s", tty_ ? "\r" : "", bar.c_str(), 100 * f,
                 clock(t).c_str(), eta.c_str(), label.c_str(), tty_ && !final ? "" : "\n");
    std::fflush(out_);
  }
  double total_;
  double done_ = 0;
  std::FILE* out_;
  bool tty_;
  std::function<double()> clock_;
  double start_;
  double last_;
};

}  // namespace compound_tools
