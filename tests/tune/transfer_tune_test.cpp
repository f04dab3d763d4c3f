// Transfer through the tune driver, on recorded spaces of one kernel on two devices (data/spaces):
// another device's results lead the first round where the devices agree, and the report names the
// prior and the weight it ended with.
#include <gtest/gtest.h>

#include <algorithm>

#include "cutune/replay.hpp"
#include "cutune/tune.hpp"

namespace cutune {
namespace {

std::shared_ptr<const RecordedSpace> load(const char* device) {
  return load_recorded_space(std::string(CUTUNE_TEST_SPACES) + "/convolution_milo/" + device +
                             ".json.gz");
}

// Every recorded result of `source`, as configs of `target`'s space.
PriorSource prior_from(const RecordedSpace& source, const RecordedSpace& target) {
  PriorSource prior{.name = source.recording().device_name};
  for (const RecordedEntry& entry : source.recording().entries) {
    prior.configs.push_back(target.config_of(entry));
    prior.results.push_back(entry.measurement);
  }
  return prior;
}

// The fraction of the target's optimum that the first `count` evaluations reached.
double reached(const TuneReport& report, const RecordedSpace& target, std::size_t count) {
  double best = INFINITY;
  for (std::size_t i = 0; i < count && i < report.evaluated.size(); ++i) {
    const Measurement& m = report.evaluated[i].measurement;
    if (m.ok()) best = std::min(best, m.time_ms);
  }
  return target.optimum_ms() / best;
}

TuneReport tune_on(const RecordedSpace& target, std::vector<PriorSource> priors,
                   std::size_t budget = 25) {
  FamilyEvaluator evaluator{std::make_unique<ReplayEvaluator>(
                                std::shared_ptr<const RecordedSpace>(&target, [](auto*) {})),
                            {}};
  TuneOptions options;
  options.strategy = "lfbo";
  options.max_evaluations = budget;
  options.batch_size = 32;
  options.finishing = false;
  options.tune_id = "transfer-test";
  options.priors = std::move(priors);
  // Built here, not by toy_family: GCC 12 inlines its string literal assignment into a false
  // -Wrestrict warning at this call site.
  Family family;
  family.name = std::string("recorded");
  family.version = std::string("1");
  family.tuning = &target.tuning_space();
  return tune(family, {}, evaluator, nullptr, options);
}

TEST(TransferTune, AnAgreeingDevicesResultsRaiseTheFirstRound) {
  const auto a4000 = load("A4000"), mi250x = load("MI250X");
  const TuneReport cold = tune_on(*a4000, {});
  const TuneReport warm = tune_on(*a4000, {prior_from(*mi250x, *a4000)});
  // MI250X's fastest configs include two within 2 % of A4000's optimum; a blind round of 25
  // reaches less (A4000 has 9 configs within 3 % of 4,201).
  EXPECT_GE(reached(warm, *a4000, 25), 0.97);
  EXPECT_GT(reached(warm, *a4000, 25), reached(cold, *a4000, 25));
  ASSERT_EQ(warm.priors.size(), 1u);
  EXPECT_EQ(warm.priors[0].name, mi250x->recording().device_name);
  EXPECT_EQ(warm.priors[0].seeds, 3u);  // prior_seeds_first
  EXPECT_GT(warm.priors[0].observed, 8u);
  EXPECT_TRUE(cold.priors.empty());
}

// A100's optimum lies where neither other device's does (their seeds reach at most 0.67 of it):
// the tune with their priors measures the default, their seeds, and then exactly what the cold
// tune measures, in the same order, as far as the budget reaches.
TEST(TransferTune, ThePriorsSeedsAreAddedToTheColdSearchNotMixedIntoIt) {
  const auto a100 = load("A100"), a4000 = load("A4000"), mi250x = load("MI250X");
  constexpr std::size_t kBudget = 120;
  const TuneReport cold = tune_on(*a100, {}, kBudget);
  const TuneReport warm =
      tune_on(*a100, {prior_from(*a4000, *a100), prior_from(*mi250x, *a100)}, kBudget);
  std::size_t seeds = 0;
  for (const PriorWeight& w : warm.priors) seeds += w.seeds;
  ASSERT_GE(seeds, 4u);  // 3 each, one in both lists
  ASSERT_EQ(cold.evaluated.size(), kBudget);
  ASSERT_EQ(warm.evaluated.size(), kBudget);
  EXPECT_EQ(warm.evaluated[0].config, cold.evaluated[0].config);  // the default
  for (std::size_t i = 1 + seeds; i < kBudget; ++i) {
    ASSERT_EQ(warm.evaluated[i].config, cold.evaluated[i - seeds].config)
        << "evaluation " << i << " of the tune with priors";
  }
  // And the priors rank A100 badly: the report says so.
  for (const PriorWeight& w : warm.priors) EXPECT_LT(w.weight, 0.5) << w.name;
}

}  // namespace
}  // namespace cutune
