#pragma once
// Warnings from CompoundSparse: conditions that do not stop a call but that a
// person should hear about (no tuning database for this device, so TunedSpmv uses
// its heuristic). They go to a process-wide sink, by default std::cerr as
// "compound_sparse: warning: <text>"; an application with its own logging (or a
// test that wants silence) installs another sink:
//
//   const auto previous = cs::set_warning_sink([&](const std::string& text) { log.warn(text); });
//   ...
//   cs::set_warning_sink(previous);  // back to what was there before

#include <functional>
#include <string>

namespace compound_sparse {

/// Receives the text of a warning (without "compound_sparse: warning: " or a newline).
using WarningSink = std::function<void(const std::string&)>;

/// Sends every later warning to `sink` and returns the sink installed before. An
/// empty function stands for the default (std::cerr) both ways: passing one restores
/// the default, and one is returned while the default was installed, so that
/// set_warning_sink(previous) always restores the previous state. Thread-safe; the
/// sink is called on the warning thread, without the library's lock held, so it
/// may itself call set_warning_sink or warn.
WarningSink set_warning_sink(WarningSink sink);

/// Passes `text` to the warning sink.
void warn(const std::string& text);

/// warn(text) unless this process already warned with the same text (from any thread).
void warn_once(const std::string& text);

}  // namespace compound_sparse
