// The benchmark's measures, against hand-computed values and a Monte Carlo simulation.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "cutune/strategy_metrics.hpp"
#include "support/measurement_testing.hpp"

namespace cutune {
namespace {

using testing::failed;
using testing::ok;

TEST(Metrics, CurveIsTheBestSoFarFractionOfTheOptimum) {
  const std::vector<Measurement> steps{failed(), ok(4), ok(8), ok(2)};
  EXPECT_EQ(optimum_fraction_curve(steps, 2.0, 6),
            (std::vector<double>{0.0, 0.5, 0.5, 1.0, 1.0, 1.0}));
  EXPECT_EQ(optimum_fraction_curve(steps, 2.0, 2), (std::vector<double>{0.0, 0.5}));
}

TEST(Metrics, RandomCurveByHand) {
  // Two correct configs (1 and 2 ms): one draw finds the optimum half the time.
  const std::vector<double> two{2.0, 1.0};
  EXPECT_EQ(random_search_curve(two, 0, 3), (std::vector<double>{0.75, 1.0, 1.0}));
  // One correct config and one failure.
  const std::vector<double> one{1.0};
  EXPECT_EQ(random_search_curve(one, 1, 2), (std::vector<double>{0.5, 1.0}));
}

TEST(Metrics, RandomCurveMatchesSimulation) {
  std::mt19937_64 rng(5);
  std::vector<double> times;
  for (int i = 0; i < 60; ++i)
    times.push_back(1.0 + std::exponential_distribution<double>(2.0)(rng));
  const std::size_t failures = 25, length = 30, trials = 20000;
  const std::vector<double> expected = random_search_curve(times, failures, length);
  std::vector<double> pool = times;
  pool.insert(pool.end(), failures, INFINITY);
  const double optimum = *std::min_element(times.begin(), times.end());
  std::vector<double> mean(length, 0.0);
  for (std::size_t t = 0; t < trials; ++t) {
    std::shuffle(pool.begin(), pool.end(), rng);
    double best = INFINITY;
    for (std::size_t i = 0; i < length; ++i) {
      best = std::min(best, pool[i]);
      mean[i] += (std::isfinite(best) ? optimum / best : 0.0) / trials;
    }
  }
  for (std::size_t i = 0; i < length; ++i) EXPECT_NEAR(expected[i], mean[i], 0.01) << i;
}

TEST(Metrics, RandomMedianEvaluations) {
  // One good config among 4: P(missed after d draws) = 3/4, 2/4 -> the median is 2 draws.
  const std::vector<double> times{1.0, 2.0, 3.0, 4.0};
  EXPECT_EQ(random_search_median_evaluations(times, 0, 0.99, 10), 2u);
  EXPECT_EQ(random_search_median_evaluations(times, 0, 0.99, 1), std::nullopt);
  // Within 0.5 of the optimum: 1 and 2 ms, so one draw succeeds half the time.
  EXPECT_EQ(random_search_median_evaluations(times, 0, 0.5, 10), 1u);
}

TEST(Metrics, ReachAreaScoreMedian) {
  const std::vector<double> curve{0.2, 0.9, 0.96, 0.99, 1.0};
  EXPECT_EQ(evaluations_to_reach(curve, 0.95), 3u);
  EXPECT_EQ(evaluations_to_reach(curve, 0.99), 4u);
  EXPECT_EQ(evaluations_to_reach(curve, 1.01), std::nullopt);
  EXPECT_DOUBLE_EQ(curve_area(curve), (0.2 + 0.9 + 0.96 + 0.99 + 1.0) / 5);
  EXPECT_DOUBLE_EQ(normalized_score(0.8, 0.8), 0.0);
  EXPECT_DOUBLE_EQ(normalized_score(1.0, 0.8), 1.0);
  EXPECT_DOUBLE_EQ(normalized_score(0.9, 0.8), 0.5);
  EXPECT_LT(normalized_score(0.7, 0.8), 0.0);
  using R = std::optional<std::size_t>;
  EXPECT_EQ(median_of_reached(std::vector<R>{5, std::nullopt, 3}), 5.0);
  EXPECT_EQ(median_of_reached(std::vector<R>{5, 3, 8, 10}), 6.5);
  EXPECT_EQ(median_of_reached(std::vector<R>{5, std::nullopt, std::nullopt}), std::nullopt);
}

TEST(Metrics, FractionOnTheClockFollowsWhenResultsBecameKnown) {
  // Optimum 1 ms. Results arrive out of evaluation order: 2 ms at 5 s, 1 ms at 3 s, a failure at 1
  // s.
  std::vector<Measurement> steps(3);
  steps[0].outcome = Outcome::ok;
  steps[0].time_ms = 2.0;
  steps[1].outcome = Outcome::ok;
  steps[1].time_ms = 1.0;
  steps[2].outcome = Outcome::compile_error;
  const std::vector<double> known{5.0, 3.0, 1.0};
  const std::vector<double> marks{0.5, 2.0, 4.0, 10.0};
  double to_reach = 0;
  const std::vector<double> at = optimum_fraction_at(steps, known, 1.0, marks, 0.99, &to_reach);
  EXPECT_EQ(at, (std::vector<double>{0.0, 0.0, 1.0, 1.0}));
  EXPECT_DOUBLE_EQ(to_reach, 3.0);
  optimum_fraction_at(steps, known, 0.5, marks, 0.99, &to_reach);  // never within 1 %
  EXPECT_TRUE(std::isinf(to_reach));
  EXPECT_THROW(optimum_fraction_at(steps, marks, 1.0, marks, 0.99, &to_reach),
               std::invalid_argument);
}

}  // namespace
}  // namespace cutune
