// The warning sink (warnings.hpp): library warnings reach the installed sink and
// nothing else; set_warning_sink returns the previous sink and an empty one
// restores the default (std::cerr); warn_once passes each distinct text once.
#include <gtest/gtest.h>

#include <compound_sparse.hpp>
#include <compound_sparse/tuning/tuned_spmv.hpp>
#include <compound_sparse/warnings.hpp>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tuning_test_helpers.hpp"

namespace cs = compound_sparse;
using namespace compound_sparse_test;
using C = Kokkos::complex<double>;

namespace {

/// Collects the warnings passed to it (from any thread).
class Capture {
 public:
  cs::WarningSink sink() {
    return [this](const std::string& text) {
      const std::lock_guard<std::mutex> lock(mutex_);
      texts_.push_back(text);
    };
  }
  std::vector<std::string> texts() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return texts_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> texts_;
};

/// Installs a sink for one test and puts the previous one back, also when the test fails.
class SinkScope {
 public:
  explicit SinkScope(cs::WarningSink sink) : previous_(cs::set_warning_sink(std::move(sink))) {}
  ~SinkScope() { cs::set_warning_sink(previous_); }
  SinkScope(const SinkScope&) = delete;
  SinkScope& operator=(const SinkScope&) = delete;

 private:
  cs::WarningSink previous_;
};

/// A text no other test warns with (warn_once remembers texts for the whole process).
std::string unique(const std::string& text) {
  return text + " (" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + ")";
}

}  // namespace

TEST(Warnings, LibraryWarningGoesToTheSinkNotToStderr) {
  const ScratchDir empty("warnings_no_database");  // TunedSpmv finds no database here
  cs::TunedSpmvOptions options;
  options.database_dir = empty.str();
  Capture capture;
  std::string explanation;
  {
    const SinkScope scope(capture.sink());
    ::testing::internal::CaptureStderr();
    const cs::TunedSpmv<C> op(banded<C>(50, 3), options);
    const std::string stderr_text = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(stderr_text, "");
    explanation = op.explanation();
  }
  const std::string expected = "no tuning database " + cs::database_file_name(cs::default_device_info()) +
                               " for this device (searched " + empty.str() +
                               "); using the portable prior or the heuristic";
  EXPECT_EQ(capture.texts(), std::vector<std::string>{expected});
  EXPECT_NE(explanation.find("warning: " + expected), std::string::npos) << explanation;
}

TEST(Warnings, SetWarningSinkReturnsThePreviousAndEmptyRestoresTheDefault) {
  Capture first, second;
  const cs::WarningSink before = cs::set_warning_sink(first.sink());
  EXPECT_FALSE(before) << "a test left its sink installed";
  cs::warn("to first");
  cs::WarningSink previous = cs::set_warning_sink(second.sink());
  ASSERT_TRUE(previous);
  previous("through the returned sink");  // it is the first one
  cs::warn("to second");
  previous = cs::set_warning_sink(cs::WarningSink());
  ASSERT_TRUE(previous);
  EXPECT_EQ(first.texts(), (std::vector<std::string>{"to first", "through the returned sink"}));
  EXPECT_EQ(second.texts(), std::vector<std::string>{"to second"});
  // The default again: one line on std::cerr, and no sink returned for it.
  ::testing::internal::CaptureStderr();
  cs::warn("to the default");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "compound_sparse: warning: to the default\n");
  EXPECT_FALSE(cs::set_warning_sink(cs::WarningSink()));
  EXPECT_EQ(second.texts().size(), 1u);
}

TEST(Warnings, WarnOnceWarnsEachDistinctTextOnce) {
  Capture capture;
  const SinkScope scope(capture.sink());
  const std::string a = unique("a"), b = unique("b");
  cs::warn_once(a);
  cs::warn_once(b);
  cs::warn_once(a);
  cs::warn(a);  // warn itself does not deduplicate
  EXPECT_EQ(capture.texts(), (std::vector<std::string>{a, b, a}));
}

TEST(Warnings, WarnOnceIsOnceAcrossThreads) {
  Capture capture;
  const SinkScope scope(capture.sink());
  const std::string text = unique("from every thread");
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&text] {
      for (int i = 0; i < 200; ++i) cs::warn_once(text);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(capture.texts(), std::vector<std::string>{text});
}
