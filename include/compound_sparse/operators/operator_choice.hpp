#pragma once
// Which kernel shape (operator_kernels.hpp) applies a constant operator fastest: no model
// predicts it well across operators and devices, so, as GiMMiK's users do, time every shape
// that can run the operator on a panel as wide as the application's, once. The answer is kept
// for the process (by the operator's hash, the panel width and the backend) and in the
// operator records (operator_records.hpp) for later processes on the same device.

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "../device_info.hpp"
#include "../tuning/timing.hpp"
#include "../tuning/tuning_cache.hpp"  // default_tuning_cache_dir
#include "../warnings.hpp"
#include "operator_kernels.hpp"
#include "operator_records.hpp"

namespace compound_sparse {

struct OperatorShapeTime {
  OperatorShape shape = OperatorShape::ColumnStream;
  double seconds = 0;   ///< median per application; 0 when refused
  std::string refused;  ///< why the shape cannot run the operator, or ""
};

struct OperatorChoice {
  OperatorShape shape = OperatorShape::ColumnStream;  ///< the fastest
  std::vector<OperatorShapeTime> times;               ///< every shape, in operator_shapes' order
  bool cached = false;                                ///< answered from an earlier choice of this process
  bool from_records = false;                          ///< answered from the operator records of an earlier process
};

template <class ExecutionSpace = Kokkos::DefaultExecutionSpace>
struct OperatorChoiceOptions {
  TimingOptions timing{5, 10, 10, preferred_timing_mode<ExecutionSpace>()};
  /// Where the operator records are (operator_records.hpp): "" = default_tuning_cache_dir();
  /// with use_records false they are neither read nor written.
  std::string records_dir;
  bool use_records = true;
};

namespace impl {
using operator_choice_key = std::tuple<std::uint64_t, std::int64_t, std::string>;
inline std::map<operator_choice_key, OperatorChoice>& operator_choices() {
  static std::map<operator_choice_key, OperatorChoice> choices;
  return choices;
}
inline std::mutex& operator_choices_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace impl

/// The fastest shape for `op` on panels of n vectors (n >= 1), timed with options.timing on
/// ExecutionSpace with beta = 0 and alpha = 1 (neither changes the work). Answers without timing
/// from this process's earlier choice for the same operator, width and backend, or from the
/// operator records of the device; stores what it timed there.
template <class Entry, class ExecutionSpace = Kokkos::DefaultExecutionSpace>
OperatorChoice choose_operator_shape(const ConstantOperator<Entry>& op, std::int64_t n,
                                     const OperatorChoiceOptions<ExecutionSpace>& options = {}) {
  COMPOUND_SPARSE_REQUIRE(n >= 1, "choose_operator_shape: " << n << " vectors; time on at least one");
  const impl::operator_choice_key key{op.hash(), n, ExecutionSpace::name()};
  {
    std::lock_guard<std::mutex> lock(impl::operator_choices_mutex());
    const auto it = impl::operator_choices().find(key);
    if (it != impl::operator_choices().end()) {
      OperatorChoice hit = it->second;
      hit.cached = true;
      return hit;
    }
  }
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(op.hash()));
  const DeviceInfo& device = default_device_info();
  const std::string dir = options.records_dir.empty() ? default_tuning_cache_dir() : options.records_dir;
  const std::string path = options.use_records ? operator_records_path(dir, device) : "";
  OperatorRecord record;
  std::vector<std::string> warnings;
  if (find_operator_record(path, hash, n, ExecutionSpace::name(), device.name, record, warnings)) {
    OperatorChoice choice;
    choice.shape = parse_operator_shape(record.shape);
    for (const auto shape : operator_shapes) {
      OperatorShapeTime t;
      t.shape = shape;
      t.refused = OperatorKernel<Entry, ExecutionSpace>::refusal(op, shape);
      for (const auto& [name, seconds] : record.seconds)
        if (name == to_string(shape)) t.seconds = seconds;
      choice.times.push_back(t);
    }
    choice.from_records = true;
    std::lock_guard<std::mutex> lock(impl::operator_choices_mutex());
    impl::operator_choices()[key] = choice;
    return choice;
  }
  for (const auto& w : warnings) warn(w);
  using kernel_type = OperatorKernel<Entry, ExecutionSpace>;
  using memory_space = typename kernel_type::memory_space;
  using coefficient = typename kernel_type::coefficient_type;
  auto b = make_operator_panel<Entry, memory_space>("choose_operator_shape::b", op.cols(), n);
  auto c = make_operator_panel<Entry, memory_space>("choose_operator_shape::c", op.rows(), n);
  Kokkos::deep_copy(b, typename kernel_type::scalar_type(1));
  coefficient one{};
  component_traits<coefficient>::get(one, 0) = 1;
  OperatorChoice choice;
  double best = 0;
  for (const auto shape : operator_shapes) {
    OperatorShapeTime t;
    t.shape = shape;
    t.refused = kernel_type::refusal(op, shape);
    if (t.refused.empty()) {
      const kernel_type kernel(op, one, shape);
      t.seconds =
          time_launches<ExecutionSpace>([&](int) { kernel.apply(b, coefficient{}, c); }, options.timing).median_seconds;
      if (best == 0 || t.seconds < best) {
        best = t.seconds;
        choice.shape = shape;
      }
    }
    choice.times.push_back(t);
  }
  record.operator_hash = hash;
  record.entry_type = ConstantOperator<Entry>::traits::name();
  record.precision = sizeof(typename kernel_type::scalar_type) == 4 ? "float" : "double";
  record.rows = op.rows();
  record.cols = op.cols();
  record.density = op.density();
  record.vectors = n;
  record.backend = ExecutionSpace::name();
  record.device = device.name;
  record.shape = to_string(choice.shape);
  for (const auto& t : choice.times)
    if (t.refused.empty()) record.seconds.emplace_back(to_string(t.shape), t.seconds);
  for (const auto& w : store_operator_record(path, record)) warn(w);
  std::lock_guard<std::mutex> lock(impl::operator_choices_mutex());
  impl::operator_choices()[key] = choice;
  return choice;
}

}  // namespace compound_sparse
