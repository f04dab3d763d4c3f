// The surrogate with the real XGBoost library: it must learn simple rules from few rows, be
// deterministic for a seed, treat failures as "not good", and encode configs through the space.
#include "cutune/surrogate.hpp"

#include <gtest/gtest.h>

#include <random>

#include "cutune/space.hpp"
#include "support/measurement_testing.hpp"

namespace cutune {
namespace {

using testing::failed;
using testing::ok;

// Rows of 3 features in [0, 1); label 1 when x0 + x1 > 1.2 (a corner, as "good" configs are).
void corner_data(std::size_t rows, std::uint64_t seed, std::vector<double>& x,
                 std::vector<int>& y) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::size_t i = 0; i < rows; ++i) {
    const double a = unit(rng), b = unit(rng), c = unit(rng);
    x.insert(x.end(), {a, b, c});
    y.push_back(a + b > 1.2 ? 1 : 0);
  }
}

double accuracy(const Classifier& classifier, std::uint64_t seed) {
  std::vector<double> x;
  std::vector<int> y;
  corner_data(400, seed, x, y);
  const std::vector<double> p = classifier.predict(x);
  int right = 0;
  for (std::size_t i = 0; i < y.size(); ++i) right += (p[i] > 0.5) == (y[i] == 1) ? 1 : 0;
  return static_cast<double>(right) / static_cast<double>(y.size());
}

TEST(Classifier, LearnsARuleFromAFewRowsInBothModes) {
  for (const auto mode : {ClassifierOptions::Mode::forest, ClassifierOptions::Mode::boosted}) {
    std::vector<double> x;
    std::vector<int> y;
    corner_data(120, 1, x, y);
    Classifier classifier({.mode = mode});
    EXPECT_FALSE(classifier.fitted());
    classifier.fit(x, 3, y);
    EXPECT_TRUE(classifier.fitted());
    EXPECT_GT(accuracy(classifier, 2), 0.85) << (mode == ClassifierOptions::Mode::forest);
  }
}

TEST(Classifier, SameSeedSameModel) {
  std::vector<double> x;
  std::vector<int> y;
  corner_data(80, 3, x, y);
  Classifier a({.seed = 7}), b({.seed = 7});
  a.fit(x, 3, y);
  b.fit(x, 3, y);
  EXPECT_EQ(a.predict(x), b.predict(x));
}

TEST(Classifier, RejectsBadInput) {
  Classifier classifier;
  const std::vector<double> x{0.1, 0.2, 0.3, 0.4};
  EXPECT_THROW(classifier.predict(x), std::logic_error);
  EXPECT_THROW(classifier.fit(x, 3, std::vector<int>{0, 1}), std::invalid_argument);
  EXPECT_THROW(classifier.fit(x, 2, std::vector<int>{0, 2}), std::invalid_argument);
  EXPECT_THROW(classifier.fit({}, 2, std::vector<int>{}), std::invalid_argument);
  EXPECT_THROW(Classifier({.trees = 0}), std::invalid_argument);
  classifier.fit(x, 2, std::vector<int>{0, 1});
  EXPECT_THROW(classifier.predict(std::vector<double>{1, 2, 3}), std::invalid_argument);
}

TEST(BestFractionLabels, FastestFractionIsGoodAndFailuresNeverAre) {
  const std::vector<Measurement> results{ok(5), failed(Outcome::compile_error), ok(1), ok(3),
                                         ok(2), failed(Outcome::wrong_result)};
  // 4 correct results: ceil(0.5 * 4) = 2 good ones.
  EXPECT_EQ(best_fraction_labels(results, 0.5), (std::vector<int>{0, 0, 1, 0, 1, 0}));
  // At least one good result whenever one is correct.
  EXPECT_EQ(best_fraction_labels(results, 0.01), (std::vector<int>{0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(best_fraction_labels(std::vector<Measurement>{failed(Outcome::crash)}, 0.5),
            (std::vector<int>{0}));
}

TEST(GoodConfigModel, LearnsWhereGoodConfigsAreFromSpaceFeatures) {
  Space space;
  space.add("tile", power_of_two_fragment(16, 256))
      .add("layout", enum_fragment({"row", "col", "tiled"}))
      .add("unroll", integer_fragment(1, 8));
  // Fast when tile is 64 and layout is "tiled"; launches fail with tile 256.
  std::vector<Config> configs;
  std::vector<Measurement> results;
  for (const Config& c : space.enumerate(View::search, 1000)) {
    configs.push_back(c);
    if (c.get_int("tile") == 256) {
      results.push_back(failed(Outcome::launch_error));
    } else {
      const bool good = c.get_int("tile") == 64 && c.get_string("layout") == "tiled";
      results.push_back(ok((good ? 1.0 : 4.0) + 0.01 * static_cast<double>(c.get_int("unroll"))));
    }
  }
  // 96 correct results, 8 of them good: the fraction that labels exactly those.
  GoodConfigModel model({.seed = 1}, 8.0 / 96.0);
  ASSERT_TRUE(model.fit(configs, results));
  const std::vector<Config> probes{
      space.complete({{"tile", 64}, {"layout", "tiled"}, {"unroll", 3}}),
      space.complete({{"tile", 32}, {"layout", "row"}, {"unroll", 3}}),
      space.complete({{"tile", 256}, {"layout", "tiled"}, {"unroll", 3}})};
  const std::vector<double> p = model.score(probes);
  EXPECT_GT(p[0], 0.5);
  EXPECT_LT(p[1], 0.5);
  EXPECT_LT(p[2], 0.5);  // a failing region is not good, even with the good layout
  EXPECT_GT(p[0], p[1] + 0.2);
  EXPECT_GT(p[0], p[2] + 0.2);
}

TEST(GoodConfigModel, NoContrastNoModel) {
  Space space;
  space.add("x", integer_fragment(0, 3));
  const std::vector<Config> configs{space.complete({{"x", 0}}), space.complete({{"x", 1}})};
  GoodConfigModel model;
  EXPECT_FALSE(
      model.fit(configs, std::vector<Measurement>{failed(Outcome::crash), failed(Outcome::hang)}));
  EXPECT_FALSE(model.fitted());
  EXPECT_TRUE(model.fit(configs, std::vector<Measurement>{ok(1), failed(Outcome::hang)}));
  EXPECT_THROW(GoodConfigModel({}, 1.5), std::invalid_argument);
}

}  // namespace
}  // namespace cutune
