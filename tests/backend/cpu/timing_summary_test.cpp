// The timing statistics every worker reports: quartiles, median, extremes and the two spreads.
#include "cutune/timing_summary.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace cutune {
namespace {

TEST(TimingSummary, OnePreemptedRepetitionAmongTwentyLeavesTheRobustSpreadSmall) {
  // 20 repetitions within 1% of 1 ms, one of them preempted and 35x as long.
  std::vector<double> runs;
  for (int i = 0; i < 20; ++i) runs.push_back(1.0 + 0.0005 * i);
  runs[7] = 35.0;
  const TimingSummary summary = summarize_timings(runs);
  EXPECT_EQ(summary.repetitions, 20);
  EXPECT_EQ(summary.max_ms, 35.0);
  EXPECT_EQ(summary.min_ms, 1.0);
  EXPECT_GT(summary.range_spread(), 30.0);  // the 3400% the range spread would show
  EXPECT_GT(summary.iqr_spread(), 0.0);
  EXPECT_LT(summary.iqr_spread(), 0.01);
  EXPECT_NEAR(summary.median_ms, 1.005, 1e-3);
}

TEST(TimingSummary, QuartilesInterpolateBetweenClosestRanks) {
  // Unsorted on purpose; sorted: 1 2 3 4 5 6 7 8. Positions 1.75, 3.5, 5.25 (NumPy's default).
  const TimingSummary summary = summarize_timings({8, 3, 1, 6, 2, 7, 5, 4});
  EXPECT_DOUBLE_EQ(summary.p25_ms, 2.75);
  EXPECT_DOUBLE_EQ(summary.median_ms, 4.5);
  EXPECT_DOUBLE_EQ(summary.p75_ms, 6.25);
  EXPECT_DOUBLE_EQ(summary.iqr_spread(), 3.5 / 4.5);
  EXPECT_DOUBLE_EQ(summary.range_spread(), 7.0 / 4.5);
  // An odd count has an exact middle.
  EXPECT_DOUBLE_EQ(summarize_timings({3, 1, 2}).median_ms, 2.0);
}

TEST(TimingSummary, FewOrNoRepetitions) {
  const TimingSummary one = summarize_timings({2.5});
  EXPECT_EQ(one.repetitions, 1);
  EXPECT_EQ(one.median_ms, 2.5);
  EXPECT_EQ(one.iqr_spread(), 0.0);
  EXPECT_EQ(one.range_spread(), 0.0);
  const TimingSummary none = summarize_timings({});
  EXPECT_EQ(none.repetitions, 0);
  EXPECT_TRUE(std::isnan(none.median_ms));
  EXPECT_TRUE(std::isnan(none.iqr_spread()));
}

TEST(TimingSummary, RelativeSpreadOfUnknownValuesIsNaN) {
  EXPECT_DOUBLE_EQ(relative_spread(0.9, 1.1, 1.0), 0.2);
  EXPECT_TRUE(std::isnan(relative_spread(-1, -1, 1.0)));  // a worker that did not report them
  EXPECT_TRUE(std::isnan(relative_spread(NAN, 1.0, 1.0)));
  EXPECT_TRUE(std::isnan(relative_spread(0.0, 1.0, 0.0)));
  EXPECT_EQ(relative_spread(0.0, 0.0, 0.0), 0.0);
}

}  // namespace
}  // namespace cutune
