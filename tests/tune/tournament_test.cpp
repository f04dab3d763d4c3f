// The final tournament against a stand-in for a noisy device: the order-statistic interval of the
// paired ratios, and a tune whose measurements drift and carry outliers still crowning the truly
// fastest config, where re-timing the top few one after another (the rule before the tournament)
// does not.
#include "cutune/tournament.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "cutune/tune.hpp"
#include "toy_family.hpp"

namespace cutune {
namespace {

TEST(PairedRatio, IsTheMedianWithTheOrderStatisticInterval) {
  // Reference 1 ms; the candidate's times give ratios 1.01, 1.02, ..., 1.15 (shuffled).
  std::vector<TimedRound> rounds;
  for (int i : {7, 3, 12, 1, 15, 9, 4, 11, 2, 14, 6, 10, 5, 13, 8}) {
    rounds.push_back({.times_ms = {1.0, 1.0 / (1.0 + 0.01 * i)}});
  }
  const RatioInterval r = paired_ratio(rounds, 0, 1);
  EXPECT_EQ(r.rounds, 15);
  EXPECT_NEAR(r.median, 1.08, 1e-12);
  // n = 15 at 95 %: P(Binomial(15, 1/2) <= 3) = 0.018 <= 0.025 < P(<= 4), so [x(4), x(12)].
  EXPECT_NEAR(r.low, 1.04, 1e-12);
  EXPECT_NEAR(r.high, 1.12, 1e-12);
}

TEST(PairedRatio, SkipsRoundsWhereEitherFailedAndWidensBelowSixRounds) {
  std::vector<TimedRound> rounds{{.times_ms = {2.0, 1.0}},
                                 {.times_ms = {NAN, 1.0}},
                                 {.times_ms = {3.0, 1.0}},
                                 {.times_ms = {4.0, NAN}}};
  const RatioInterval r = paired_ratio(rounds, 0, 1);
  EXPECT_EQ(r.rounds, 2);
  EXPECT_DOUBLE_EQ(r.median, 2.5);
  EXPECT_DOUBLE_EQ(r.low, 2.0);  // too few rounds for any order statistic: [min, max]
  EXPECT_DOUBLE_EQ(r.high, 3.0);
}

// A stand-in for a device (there is none here, and a real one does not drift on demand). Each
// config has a true time; every timed run is scaled by the device's state, a slow random walk
// (an AR(1) of the log, about 5 % standard deviation, moving about 1 % a run) like a clock that
// follows temperature and power, and 5 % of runs are outliers 2 to 6 times slower (a preemption).
// An evaluation reports the median of its runs, as the backends do; retime() runs five times
// more.
class DriftingDevice : public Evaluator {
 public:
  DriftingDevice(std::vector<double> true_ms, std::uint64_t seed)
      : true_ms_(std::move(true_ms)), random_(seed) {}

  std::vector<Measurement> evaluate(std::span<const Config> batch) override {
    return measure(batch, 5);
  }
  std::vector<Measurement> retime(std::span<const Config> batch) override {
    return measure(batch, 25);
  }
  std::string device_name() const override { return "drifting stand-in"; }
  std::string toolchain() const override { return "none"; }

 private:
  std::vector<Measurement> measure(std::span<const Config> batch, int runs) {
    std::vector<Measurement> out;
    for (const Config& config : batch) {
      std::vector<double> times;
      for (int i = 0; i < runs; ++i) times.push_back(run(config.get_int("v")));
      std::sort(times.begin(), times.end());
      Measurement m;
      m.time_ms = times[times.size() / 2];
      m.repetitions = runs;
      out.push_back(m);
    }
    return out;
  }

  double run(std::int64_t v) {
    log_drift_ = 0.98 * log_drift_ + 0.01 * normal_(random_);
    const double outlier = uniform_(random_) < 0.05 ? 2.0 + 4.0 * uniform_(random_) : 1.0;
    return true_ms_.at(static_cast<std::size_t>(v)) * std::exp(log_drift_) * outlier;
  }

  std::vector<double> true_ms_;
  std::mt19937_64 random_;
  std::normal_distribution<double> normal_{0.0, 1.0};
  std::uniform_real_distribution<double> uniform_{0.0, 1.0};
  double log_drift_ = 0.0;
};

// v = 0 is the default (slow); v = 1 is truly fastest, v = 2 and 3 within 5 % and 8 % of it.
const std::vector<double> kTrueMs{1.5, 1.00, 1.05, 1.08, 1.4, 1.6, 1.7, 1.8, 1.9, 2.0};

using testing::TestEvaluator;
using testing::toy_family;

TEST(Tournament, CrownsTheTrulyFastestThroughDriftAndOutliersWhereSequentialRetimingDoesNot) {
  TuningSpace ts;
  ts.space.add("v", enum_fragment({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {}, 0));
  const Problem problem = Problem::parse("n=1");
  TuneOptions options;
  options.strategy = "exhaustive";
  options.max_evaluations = kTrueMs.size();
  options.retime_top = 3;
  int tournament_right = 0;
  int sequential_right = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    TestEvaluator<DriftingDevice> device(kTrueMs, seed);
    options.seed = seed;
    const TuneReport report = tune(toy_family(ts), problem, device.bundle, nullptr, options);
    ASSERT_TRUE(report.best && report.tournament);
    tournament_right += report.best->config.get_int("v") == 1;
    // The rule before the tournament, on the same search results: the top three by search time
    // re-timed one after another, the fastest re-time wins.
    std::vector<Evaluated> ranked = report.evaluated;
    std::sort(ranked.begin(), ranked.end(), [](const Evaluated& a, const Evaluated& b) {
      return a.measurement.time_ms < b.measurement.time_ms;
    });
    std::vector<Config> top;
    for (std::size_t i = 0; i < 3; ++i) top.push_back(ranked[i].config);
    const std::vector<Measurement> retimed = device->retime(top);
    const auto fastest = std::min_element(
        retimed.begin(), retimed.end(),
        [](const Measurement& a, const Measurement& b) { return a.time_ms < b.time_ms; });
    sequential_right += top[static_cast<std::size_t>(fastest - retimed.begin())].get_int("v") == 1;
  }
  EXPECT_GE(tournament_right, 95);
  EXPECT_LT(sequential_right, 95);
}

// A stand-in device without noise: time = 1 ms, halved when fast = 1; the knob `extra` costs
// nothing either way.
class QuietDevice : public Evaluator {
 public:
  std::vector<Measurement> evaluate(std::span<const Config> batch) override {
    std::vector<Measurement> out;
    for (const Config& config : batch) {
      Measurement m;
      m.time_ms = config.get_int("fast") == 1 ? 0.5 : 1.0;
      out.push_back(m);
    }
    return out;
  }
  std::string device_name() const override { return "quiet stand-in"; }
  std::string toolchain() const override { return "none"; }
};

TEST(Tournament, TheFinishingPassResetsTheKnobsThatDoNotPayToTheDefault) {
  TuningSpace ts;
  ts.space.add("fast", enum_fragment({0, 1}, {}, 0));
  ts.space.add("extra", enum_fragment({0, 1, 2}, {}, 0));
  const Problem problem = Problem::parse("n=1");
  TuneOptions options;
  options.strategy = "exhaustive";
  options.max_evaluations = 2;  // the default, then the warm start: fast, with extra = 2
  options.warm_start = {ts.space.complete({{"fast", Value(1)}, {"extra", Value(2)}})};
  options.finishing_share = 1e6;  // the in-process search takes microseconds
  TestEvaluator<QuietDevice> device;
  const TuneReport report = tune(toy_family(ts), problem, device.bundle, nullptr, options);
  ASSERT_TRUE(report.best && report.tournament);
  EXPECT_EQ(report.best->config.get_int("fast"), 1);
  EXPECT_EQ(report.best->config.get_int("extra"), 0);  // reset: as fast, and the default's
  EXPECT_EQ(report.tournament->winning().role, FinalistRole::finishing);
  EXPECT_DOUBLE_EQ(*report.speedup(), 2.0);

  options.finishing = false;
  const TuneReport unfinished = tune(toy_family(ts), problem, device.bundle, nullptr, options);
  EXPECT_EQ(unfinished.best->config.get_int("extra"), 2);
}

}  // namespace
}  // namespace cutune
