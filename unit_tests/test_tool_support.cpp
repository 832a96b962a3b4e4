// What the command-line tools share (src/tools): the progress bar's ETA and the
// option parser's number and list checks.
#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "progress.hpp"

namespace {

/// Everything written to `file` so far.
std::string contents(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text += static_cast<char>(c);
  return text;
}

}  // namespace

TEST(ProgressBar, FinishingAPartShowsTheRemainingTimeNotZero) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  double now = 0;
  compound_tools::ProgressBar bar(100, out, [&] { return now; });
  now = 10;
  bar.advance(50, "first matrix");
  bar.finish("[1/2] first matrix done");
  // Half the work in 10 s: 10 s to go. (It read "ETA 0:00" at the end of every matrix.)
  EXPECT_NE(contents(out).find(" 50.0% elapsed 0:10 ETA 0:10  [1/2] first matrix done"), std::string::npos)
      << contents(out);
  now = 20;
  bar.advance(50, "second matrix");
  bar.finish("[2/2] second matrix done");
  EXPECT_NE(contents(out).find("100.0% elapsed 0:20 ETA 0:00  [2/2] second matrix done"), std::string::npos)
      << contents(out);
  std::fclose(out);
}

TEST(ProgressBar, DroppingAnOverestimateOnlyMovesTheBarForward) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  double now = 0;
  compound_tools::ProgressBar bar(100, out, [&] { return now; });
  bar.advance(40, "search");
  EXPECT_DOUBLE_EQ(bar.fraction(), 0.4);
  bar.drop(20);  // fewer candidates to re-time than estimated
  EXPECT_DOUBLE_EQ(bar.fraction(), 0.5);
  bar.drop(-5);  // a negative drop adds nothing
  EXPECT_DOUBLE_EQ(bar.fraction(), 0.5);
  bar.drop(1000);  // never below the work done
  EXPECT_DOUBLE_EQ(bar.fraction(), 1.0);
  std::fclose(out);
}

TEST(CommandLine, ByteCountsMustBeNonNegativeIntegers) {
  using compound_tools::non_negative_integer;
  EXPECT_EQ(non_negative_integer("0"), 0u);
  EXPECT_EQ(non_negative_integer("18446744073709551615"), ~std::size_t{0});
  for (const char* bad : {"-5", "", " 5", "5x", "1e3", "+5", "18446744073709551616"})
    EXPECT_THROW(non_negative_integer(bad), std::invalid_argument) << bad;
}

TEST(CommandLine, FiniteNumbersAtLeast) {
  using compound_tools::finite_number_at_least;
  EXPECT_DOUBLE_EQ(finite_number_at_least("1", 1), 1.0);
  EXPECT_DOUBLE_EQ(finite_number_at_least("1.25", 1), 1.25);
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "0.5", "1.5x", "", "x", "1e999"})
    EXPECT_THROW(finite_number_at_least(bad, 1), std::invalid_argument) << bad;
}

TEST(CommandLine, FactorBoundsAreZeroOrAtLeastTheLeast) {
  using compound_tools::factor_or_zero;
  EXPECT_DOUBLE_EQ(factor_or_zero("0", 1), 0.0);  // off
  EXPECT_DOUBLE_EQ(factor_or_zero("1", 1), 1.0);
  EXPECT_DOUBLE_EQ(factor_or_zero("3.5", 1), 3.5);
  for (const char* bad : {"0.5", "-1", "nan", "inf", "3x", ""}) {
    try {
      factor_or_zero(bad, 1);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), "a finite number >= 1, or 0 for no bound") << bad;
    }
  }
}

TEST(CommandLine, ListsAreSplitOnCommas) {
  using compound_tools::split_list;
  EXPECT_EQ(split_list("a"), std::vector<std::string>({"a"}));
  EXPECT_EQ(split_list("a,b,c"), std::vector<std::string>({"a", "b", "c"}));
}

// An empty item is a typo ("a,,b", a trailing comma) or a shell variable that expanded to
// nothing: every list option refuses it instead of dropping it.
TEST(CommandLine, ListsRefuseEmptyItemsAndEmptyLists) {
  using compound_tools::split_list;
  for (const char* bad : {",", "a,,b", "a,", ",a", ",,"}) {
    try {
      split_list(bad);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("without empty items"), std::string::npos) << bad << ": " << e.what();
    }
  }
  try {
    split_list("");
    ADD_FAILURE() << "the empty list was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "a non-empty comma-separated list");
  }
}

TEST(CommandLine, ListOptionsRefuseEmptyItems) {
  EXPECT_EQ(compound_tools::precision_list("float,double"), std::vector<std::string>({"double", "float"}));
  EXPECT_EQ(compound_tools::vector_count_list("4,1"), std::vector<int>({1, 4}));
  for (const char* bad : {"double,,float", "double,", ",", ""})
    EXPECT_THROW(compound_tools::precision_list(bad), std::invalid_argument) << bad;
  for (const char* bad : {"1,,2", "1,", ",", ""})
    EXPECT_THROW(compound_tools::vector_count_list(bad), std::invalid_argument) << bad;
}

TEST(CommandLine, UnknownNamesAreListedWithTheKnownOnes) {
  using compound_tools::unknown_names;
  const std::vector<std::string> known = {"a1", "a2"};
  EXPECT_EQ(unknown_names("--matrices", std::vector<std::string>{"a2", "a1"}, known, "zoo/index.json"), "");
  EXPECT_EQ(unknown_names("--matrices", std::vector<std::string>{"a1", "x", "y"}, known, "zoo/index.json"),
            "--matrices names no matrix of zoo/index.json: x, y (its matrices: a1, a2)");
}
