// Transfer priors (cutune/transfer.hpp): a prior is weighted by how it ranks this device's own
// results, so one that puts the optimum where this device is slowest loses its weight as soon as
// this device's results are known, and one that agrees keeps it.
#include "cutune/transfer.hpp"

#include <gtest/gtest.h>

#include <random>

#include "cutune/heuristics.hpp"
#include "cutune/space.hpp"
#include "support/measurement_testing.hpp"

namespace cutune {
namespace {

TEST(RankCorrelation, IsOneForTheSameOrderMinusOneForTheReverseZeroForAConstant) {
  const std::vector<double> a{1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(rank_correlation(a, std::vector<double>{10, 20, 30, 40, 50}), 1.0);
  EXPECT_DOUBLE_EQ(rank_correlation(a, std::vector<double>{5, 4, 3, 2, 1}), -1.0);
  EXPECT_DOUBLE_EQ(rank_correlation(a, std::vector<double>{7, 7, 7, 7, 7}), 0.0);
}

using testing::ok;

// Two knobs of 16 values; this device is fastest at (15, 15).
struct Landscape {
  Landscape() {
    std::vector<Value> values;
    for (int i = 0; i < 16; ++i) values.emplace_back(i);
    ts.space.add("x", enum_fragment(values));
    ts.space.add("y", enum_fragment(values));
    for (int x = 0; x < 16; ++x)
      for (int y = 0; y < 16; ++y) all.emplace_back(ts.space, std::vector<Value>{x, y});
  }
  static double here(const Config& c) { return 40.0 - c.get_int("x") - c.get_int("y"); }
  PriorSource source(std::string name, double (*time)(const Config&)) const {
    PriorSource s{.name = std::move(name)};
    for (const Config& c : all) {
      s.configs.push_back(c);
      s.results.push_back(ok(time(c)));
    }
    return s;
  }
  TuningSpace ts;
  std::vector<Config> all;
};

TEST(TransferPrior, AMisleadingPriorLosesItsWeightAndAnAgreeingOneKeepsIt) {
  const Landscape land;
  // Misleading: fastest at (0, 0), where this device is slowest. Agreeing: this device's order,
  // with a different scale.
  const auto misleading = [](const Config& c) { return 1.0 + c.get_int("x") + c.get_int("y"); };
  const auto agreeing = [](const Config& c) { return 3.0 * Landscape::here(c) + 5.0; };
  TransferPrior prior({land.source("misleading", misleading), land.source("agreeing", agreeing)},
                      7);
  // Before any result of this device, both are trusted as given: their seeds lead the first round.
  const std::vector<Config> seeds = prior.seeds(2);
  ASSERT_EQ(seeds.size(), 4u);
  EXPECT_EQ(seeds[0].get_int("x") + seeds[0].get_int("y"), 0);   // misleading's best
  EXPECT_EQ(seeds[1].get_int("x") + seeds[1].get_int("y"), 30);  // agreeing's best
  // One round of this device's results: 24 random configs.
  std::mt19937_64 rng(1);
  std::vector<Config> round;
  std::vector<Measurement> results;
  for (int i = 0; i < 24; ++i) {
    round.push_back(land.all[rng() % land.all.size()]);
    results.push_back(ok(Landscape::here(round.back())));
  }
  prior.observe(round, results);
  const std::vector<PriorWeight> w = prior.weights();
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].name, "misleading");
  EXPECT_EQ(w[0].weight, 0.0);
  EXPECT_GT(w[1].weight, 0.5);
  EXPECT_EQ(w[1].observed, 24u);
}

TEST(TransferPrior, NamesTheSourceWhoseConfigsAndResultsDiffer) {
  const Landscape land;
  PriorSource broken = land.source("broken", Landscape::here);
  broken.results.pop_back();
  try {
    TransferPrior prior({broken}, 0);
    FAIL() << "a source with fewer results than configs was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("broken"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cutune
