// The warning sink (warnings.hpp): one per process, behind a mutex.
#include "compound_sparse/warnings.hpp"

#include <iostream>
#include <mutex>
#include <set>
#include <utility>

namespace compound_sparse {
namespace {

struct SinkState {
  std::mutex mutex;
  WarningSink sink;  // empty: the default, std::cerr
};

// Function-local statics: usable from other translation units' static initialisers.
SinkState& sink_state() {
  static SinkState state;
  return state;
}

}  // namespace

WarningSink set_warning_sink(WarningSink sink) {
  SinkState& state = sink_state();
  const std::lock_guard<std::mutex> lock(state.mutex);
  std::swap(state.sink, sink);
  return sink;
}

void warn(const std::string& text) {
  WarningSink sink;
  {
    SinkState& state = sink_state();
    const std::lock_guard<std::mutex> lock(state.mutex);
    sink = state.sink;
  }
  // Called without the lock, so a sink may warn or replace itself.
  if (sink)
    sink(text);
  else
    std::cerr << "compound_sparse: warning: " + text + "\n";  // one write: lines of concurrent warnings stay whole
}

void warn_once(const std::string& text) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  bool first = false;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    first = warned.insert(text).second;
  }
  if (first) warn(text);
}

}  // namespace compound_sparse
