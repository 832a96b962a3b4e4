#pragma once
// The timing and checking steps compound-assembly-bench's cases share: fenced medians, per-launch
// times, a matrix's arrays as bytes, and host vectors copied to the device.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <compound_sparse/tuning/timing.hpp>
#include <string>
#include <vector>

namespace compound_bench {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  Kokkos::fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Median time of `samples` calls of `step` after one untimed call (fenced wall time: the
/// steps allocate and synchronise, so their launches cannot be queued).
template <class Step>
double median_seconds(int samples, const Step& step) {
  step();
  std::vector<double> times;
  for (int s = 0; s < samples; ++s) {
    Kokkos::fence();
    const auto start = std::chrono::steady_clock::now();
    step();
    times.push_back(seconds_since(start));
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Per launch, of a step without allocations: queued where CUDA allows and the step does not
/// synchronise (the product, the copy), else wall time of fenced batches (refresh and
/// assemble end with a fence, so that their caller may read the matrix).
template <class Launch>
double launch_seconds(const Launch& launch, compound_sparse::TimingMode mode = compound_sparse::TimingMode::Wall) {
  compound_sparse::TimingOptions timing;
  timing.mode = mode;
  timing.warmup = 2;
  timing.batch = 5;
  timing.samples = 7;
  return compound_sparse::time_launches([&](int) { launch(); }, timing).median_seconds;
}

/// All of a matrix's arrays as bytes on the host, with its sizes: equal exactly when two
/// matrices are the same bits.
template <class Matrix>
std::vector<unsigned char> bytes_of(const Matrix& m) {
  std::vector<unsigned char> bytes;
  bytes.reserve(64);  // never a null buffer to grow from (GCC 12's -Wnonnull false positive)
  const auto append_value = [&](const auto& value) {
    const auto* first = reinterpret_cast<const unsigned char*>(&value);
    bytes.insert(bytes.end(), first, first + sizeof(value));
  };
  append_value(m.num_rows);
  append_value(m.num_cols);
  append_value(m.num_entries);
  append_value(m.num_slots);
  const auto append = [&](const auto& view) {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
    const auto* first = reinterpret_cast<const unsigned char*>(host.data());
    append_value(host.span());
    if (host.span() > 0)
      bytes.insert(bytes.end(), first, first + host.span() * sizeof(typename decltype(host)::value_type));
  };
  append(m.offsets);
  append(m.row_lengths);
  append(m.col_indices);
  append(m.column_bases);
  append(m.values);
  return bytes;
}

/// A host vector as a new device View.
template <class T>
Kokkos::View<const T*, Kokkos::DefaultExecutionSpace::memory_space> device_copy(const std::vector<T>& host,
                                                                                const char* label) {
  Kokkos::View<T*, Kokkos::DefaultExecutionSpace::memory_space> view(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), host.size());
  Kokkos::deep_copy(view, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                              host.data(), host.size()));
  return view;
}

}  // namespace compound_bench
