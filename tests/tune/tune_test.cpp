// The tune driver on a small in-process space: a problem the space cannot run is refused before
// anything is measured, with every reason named; a problem it can run is tuned as usual.
#include "cutune/tune.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "toy_family.hpp"
#include "tune/plateau.hpp"

namespace cutune {
namespace {

// A fake standing in for a device: it "measures" a config in-process, as 1 ms per unit of
// `width`, and counts every config it was asked for, so that a test can tell whether the tune
// measured anything.
class FakeDevice : public Evaluator {
 public:
  std::vector<Measurement> evaluate(std::span<const Config> batch) override {
    std::vector<Measurement> out;
    for (const Config& config : batch) {
      ++measured;
      Measurement m;
      m.time_ms = static_cast<double>(config.get_int("width"));
      m.spread = 0.0;
      m.repetitions = 1;
      m.times_ms = {m.time_ms};
      m.compile_s = 0.5;
      out.push_back(m);
    }
    return out;
  }
  std::string device_name() const override { return "fake device"; }
  std::string toolchain() const override { return "none"; }

  int measured = 0;
};

// One knob; problems must have an even n and dtype f32, each rule reported on its own.
std::unique_ptr<TuningSpace> make_space() {
  auto ts = std::make_unique<TuningSpace>();
  ts->space.add("width", enum_fragment({1, 2, 4, 8}, {}, 8));
  ts->problem_errors = [](const Problem& p, const Device&) {
    std::vector<std::string> errors;
    if (p.get_int("n") % 2 != 0)
      errors.push_back("n = " + std::to_string(p.get_int("n")) + " is odd");
    if (p.at("dtype").as_string() != "f32") {
      errors.push_back("dtype '" + p.at("dtype").as_string() + "' is not f32");
    }
    return errors;
  };
  return ts;
}

using testing::TestEvaluator;
using testing::toy_family;

TuneOptions options() {
  TuneOptions o;
  o.strategy = "exhaustive";
  o.max_evaluations = 10;
  o.retime_top = 1;
  o.tune_id = "tune-test";
  return o;
}

TEST(Tune, RefusesAProblemTheSpaceCannotRunBeforeMeasuring) {
  const auto ts = make_space();
  const Problem problem = Problem::parse("n=7,dtype=f16");
  TestEvaluator<FakeDevice> device;
  try {
    tune(toy_family(*ts), problem, device.bundle, nullptr, options());
    FAIL() << "the tune ran a problem its space rejects";
  } catch (const UnsupportedProblem& e) {
    EXPECT_EQ(e.errors(), (std::vector<std::string>{"n = 7 is odd", "dtype 'f16' is not f32"}));
    const std::string what = e.what();
    EXPECT_NE(what.find(problem.canonical()), std::string::npos) << what;
    EXPECT_NE(what.find("n = 7 is odd"), std::string::npos) << what;
    EXPECT_NE(what.find("dtype 'f16' is not f32"), std::string::npos) << what;
  }
  EXPECT_EQ(device->measured, 0);  // not even the default config
}

TEST(Tune, TunesAProblemTheSpaceAccepts) {
  const auto ts = make_space();
  const Problem problem = Problem::parse("n=8,dtype=f32");
  TestEvaluator<FakeDevice> device;
  const TuneReport report = tune(toy_family(*ts), problem, device.bundle, nullptr, options());
  EXPECT_GE(device->measured, 4);
  ASSERT_TRUE(report.best);
  EXPECT_EQ(report.best->config.get_int("width"), 1);
}

TEST(Tune, StoresUnderTheFamilysKeyOfTheEvaluatorsDeviceAndToolchain) {
  const auto ts = make_space();
  const Problem problem = Problem::parse("n=8,dtype=f32");
  TestEvaluator<FakeDevice> device;
  Store store = Store::in_memory();
  const TuneReport report = tune(toy_family(*ts), problem, device.bundle, &store, options());
  ASSERT_TRUE(report.best);
  const std::vector<TuningKey> keys = store.keys({});
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys.front().canonical(),
            (TuningKey{"toy", "1", problem.canonical(), "fake device", "none"}).canonical());
}

// Issue 32: a finalist's tournament row (its latest, what an export writes) said compile time 0,
// since the rounds run what the search compiled; it keeps the search's compile time, and its
// times are the rounds' (one per round).
TEST(Tune, TournamentRowsKeepTheCompileTimeAndEveryRoundsTime) {
  const auto ts = make_space();
  TestEvaluator<FakeDevice> device;
  Store store = Store::in_memory();
  const TuneReport report =
      tune(toy_family(*ts), Problem::parse("n=8,dtype=f32"), device.bundle, &store, options());
  ASSERT_TRUE(report.tournament);
  const std::vector<StoredResult> latest = store.latest_results(store.keys({}).at(0));
  const auto winner = std::find_if(latest.begin(), latest.end(), [&](const StoredResult& r) {
    return r.config_hash == report.best->config.hash_hex();
  });
  ASSERT_NE(winner, latest.end());
  EXPECT_EQ(winner->measurement.detail, "median of paired rounds");  // the tournament's row
  EXPECT_DOUBLE_EQ(winner->measurement.compile_s, 0.5);
  EXPECT_EQ(winner->measurement.times_ms.size(), report.tournament->rounds.size());
}

// A device on which every config takes the same time: the search cannot improve on its first round.
class FlatDevice : public FakeDevice {
 public:
  std::vector<Measurement> evaluate(std::span<const Config> batch) override {
    std::vector<Measurement> out = FakeDevice::evaluate(batch);
    for (Measurement& m : out) m.time_ms = m.times_ms.front() = 5.0;
    return out;
  }
};

// Widths 1 to 40, and the options of a search in rounds of two, up to 30 configs.
std::unique_ptr<TuningSpace> forty_widths(std::int64_t default_width) {
  auto ts = std::make_unique<TuningSpace>();
  std::vector<Value> widths;
  for (std::int64_t w = 1; w <= 40; ++w) widths.push_back(Value(w));
  ts->space.add("width", enum_fragment(widths, {}, default_width));
  return ts;
}

TuneOptions rounds_of_two() {
  TuneOptions o = options();
  o.max_evaluations = 30;
  o.batch_size = 2;
  o.finishing = false;  // its resets are new configs too
  return o;
}

TEST(Tune, PatienceEndsASearchThatStoppedImproving) {
  auto ts = forty_widths(1);
  TuneOptions o = rounds_of_two();
  TestEvaluator<FlatDevice> without;
  tune(toy_family(*ts), Problem::parse("n=8,dtype=f32"), without.bundle, nullptr, o);
  const int searched_without = without->measured;
  EXPECT_GE(searched_without, 30);  // the whole budget, then the tournament's rounds

  o.patience = 2;
  o.min_evaluations = 6;
  TestEvaluator<FlatDevice> with;
  const TuneReport report =
      tune(toy_family(*ts), Problem::parse("n=8,dtype=f32"), with.bundle, nullptr, o);
  // The first round sets the mark; once 6 configs are measured, two flat rounds end the search
  // (rounds of 2: at most 8).
  EXPECT_GE(report.evaluated.size(), 6u);
  EXPECT_LE(report.evaluated.size(), 8u);
  EXPECT_LT(with->measured, searched_without);
  EXPECT_TRUE(report.best);  // the tournament still chooses a winner
}

// A device on which the default (the widest config) takes twice as long as every other config.
class SlowDefaultDevice : public FakeDevice {
 public:
  std::vector<Measurement> evaluate(std::span<const Config> batch) override {
    std::vector<Measurement> out = FakeDevice::evaluate(batch);
    for (Measurement& m : out) m.time_ms = m.times_ms.front() = m.time_ms == 40.0 ? 10.0 : 5.0;
    return out;
  }
};

// The first round counts from the default's time: a first round that found a config 3 % faster
// than the default earns one more flat round, as any steep round does; one whose default was
// already as fast as what it found does not.
TEST(Tune, AFirstRoundFarBelowTheDefaultEarnsOneMoreRound) {
  auto ts = forty_widths(40);
  TuneOptions o = rounds_of_two();
  o.patience = 1;
  o.min_evaluations = 2;
  const Problem problem = Problem::parse("n=8,dtype=f32");
  TestEvaluator<FlatDevice> flat;
  const TuneReport near = tune(toy_family(*ts), problem, flat.bundle, nullptr, o);
  TestEvaluator<SlowDefaultDevice> slow;
  const TuneReport far = tune(toy_family(*ts), problem, slow.bundle, nullptr, o);
  // Rounds of 2: the first, then one flat round; the earned round adds one more.
  EXPECT_EQ(near.evaluated.size(), 4u);
  EXPECT_EQ(far.evaluated.size(), 6u);
  Plateau failed_default(o, 2, std::numeric_limits<double>::infinity(), 5.0);
  failed_default.round_ended(5.0, 2);
  EXPECT_FALSE(failed_default.reached(100));  // a first round that ran anything at all is steep
  EXPECT_DOUBLE_EQ(far.best->measurement.time_ms, 5.0);
}

// A round 3 % faster earns one more flat round before patience ends the search; a round only 1.5 %
// faster does not.
TEST(Tune, ASteepRoundEarnsOneMoreFlatRound) {
  TuneOptions o;
  o.patience = 1;
  Plateau gentle(o, 2, 10.0, 10.0);
  gentle.round_ended(9.85, 2);  // 1.5 % faster
  EXPECT_FALSE(gentle.reached(100));
  gentle.round_ended(9.85, 2);
  EXPECT_TRUE(gentle.reached(100));

  Plateau four(o, 2, 10.0, 10.0);
  four.round_ended(9.6, 2);  // 4 % faster: steep
  four.round_ended(9.6, 2);
  EXPECT_FALSE(four.reached(100));

  Plateau steep(o, 2, 10.0, 10.0);
  steep.round_ended(9.0, 2);  // 10 % faster
  steep.round_ended(9.0, 2);
  EXPECT_FALSE(steep.reached(100));
  steep.round_ended(8.99, 2);  // under 1 %: flat
  EXPECT_TRUE(steep.reached(100));
  o.min_evaluations = 200;
  Plateau early(o, 2, 1.0, 1.0);
  early.round_ended(1.0, 2);
  EXPECT_FALSE(early.reached(100));
  EXPECT_TRUE(early.reached(200));
}

// A flat round counts once it holds half a batch: a strategy handing back the one config left of
// its first refill has not searched a round's worth, and short rounds add up.
TEST(Tune, AShortFlatRoundCountsOnlyWithTheNext) {
  TuneOptions o;
  o.patience = 1;
  Plateau plateau(o, 16, 10.0, 10.0);
  plateau.round_ended(10.0, 1);
  EXPECT_FALSE(plateau.reached(100));
  plateau.round_ended(10.0, 6);
  EXPECT_FALSE(plateau.reached(100));
  plateau.round_ended(10.0, 1);  // 8 of 16 configs in flat rounds: one round
  EXPECT_TRUE(plateau.reached(100));

  Plateau gained(o, 16, 10.0, 10.0);
  gained.round_ended(10.0, 7);
  gained.round_ended(9.8, 16);  // a gain: the short flat round before it is forgotten
  gained.round_ended(9.8, 1);
  EXPECT_FALSE(gained.reached(100));
  gained.round_ended(9.8, 16);
  EXPECT_TRUE(gained.reached(100));
}

// A device whose fastest width is `bottom`, each step away 1 ms slower.
class ValleyDevice : public FakeDevice {
 public:
  explicit ValleyDevice(std::int64_t bottom) : bottom_(bottom) {}
  std::vector<Measurement> evaluate(std::span<const Config> batch) override {
    std::vector<Measurement> out = FakeDevice::evaluate(batch);
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i].time_ms = out[i].times_ms.front() =
          1.0 + static_cast<double>(std::abs(batch[i].get_int("width") - bottom_));
    }
    return out;
  }

 private:
  std::int64_t bottom_;
};

// The final climb takes its configs from the budget and walks on from the search's fastest config
// (the default, width 40, while the search went through widths 1 to 13; the valley's bottom at
// 30): a search of the whole budget ends at the default; with a climb of 6 the tune reaches width
// 34, or, with the bottom at 37, stops early there once its neighbours are measured.
TEST(Tune, AFinalClimbWalksOnFromTheSearchsFastestConfig) {
  auto ts = std::make_unique<TuningSpace>();
  ts->space.add("width", integer_fragment(1, 40, 1, 40));
  TuneOptions o = rounds_of_two();
  o.max_evaluations = 20;
  const Problem problem = Problem::parse("n=8,dtype=f32");
  const auto fastest_width = [](const TuneReport& report) {
    return report.best->config.get_int("width");
  };
  TestEvaluator<ValleyDevice> plain(30);
  const TuneReport searched = tune(toy_family(*ts), problem, plain.bundle, nullptr, o);
  EXPECT_EQ(searched.evaluated.size(), 20u);
  EXPECT_EQ(fastest_width(searched), 40);

  o.final_climb = 6;
  TestEvaluator<ValleyDevice> far(30);
  const TuneReport climbed = tune(toy_family(*ts), problem, far.bundle, nullptr, o);
  EXPECT_EQ(climbed.evaluated.size(), 20u);
  EXPECT_EQ(fastest_width(climbed), 34);

  TestEvaluator<ValleyDevice> near(37);
  const TuneReport summit = tune(toy_family(*ts), problem, near.bundle, nullptr, o);
  EXPECT_EQ(summit.evaluated.size(), 18u);  // 14 searched, then 39, 38, 37 and 36
  EXPECT_EQ(fastest_width(summit), 37);

  // A knob the device ignores gives each centre 23 untried neighbours as fast as it is, and the
  // walk one or two: each round of two takes one of each (each knob's best move before any knob's
  // second), so the walk goes on down the valley, a step a round.
  std::vector<Value> pads(24);
  std::iota(pads.begin(), pads.end(), 0);
  ts->space.add("pad", enum_fragment(pads, {}, 0));
  o.final_climb = 8;
  TestEvaluator<ValleyDevice> padded(30);
  const TuneReport spread = tune(toy_family(*ts), problem, padded.bundle, nullptr, o);
  ASSERT_EQ(spread.evaluated.size(), 20u);
  for (std::size_t round = 12; round < 20; round += 2) {
    const Config& first = spread.evaluated[round].config;
    const Config& second = spread.evaluated[round + 1].config;
    EXPECT_NE(first.get_int("width"), second.get_int("width")) << "round " << round;
    EXPECT_NE(first.get_int("pad"), second.get_int("pad")) << "round " << round;
  }
  EXPECT_EQ(fastest_width(spread), 36);
}

TEST(Tune, RefusesAFamilyWithoutASpace) {
  Family empty;
  empty.name = "empty";
  TestEvaluator<FakeDevice> device;
  EXPECT_THROW(tune(empty, Problem::parse("n=8,dtype=f32"), device.bundle, nullptr, options()),
               std::invalid_argument);
  EXPECT_EQ(device->measured, 0);
}

// A recorded space that lacks each knob's first value: the default is one failed evaluation (never
// handed to the evaluator, nor to the tournament), and the tune goes on (bench-strategies aborted
// here on public recordings).
TEST(Tune, AnIllegalDefaultIsOneFailedEvaluationNotAnAbort) {
  const auto ts = make_space();
  const std::int64_t first = ts->space.default_config().get_int("width");
  ts->space.constrain(Constraint{.name = "recorded",
                                 .holds = [first](const Config& c, const Problem&, const Device&) {
                                   return c.get_int("width") != first;
                                 }});
  TestEvaluator<FakeDevice> device;
  const TuneReport report =
      tune(toy_family(*ts), Problem::parse("n=8,dtype=f32"), device.bundle, nullptr, options());
  ASSERT_EQ(report.evaluated.size(), 4u);  // the illegal default and the three legal widths
  EXPECT_EQ(report.evaluated.front().measurement.outcome, Outcome::invalid_config);
  EXPECT_NE(report.evaluated.front().measurement.detail.find("recorded"), std::string::npos)
      << report.evaluated.front().measurement.detail;
  EXPECT_EQ(report.outcomes.at(Outcome::invalid_config), 1u);
  ASSERT_TRUE(report.best);
  EXPECT_NE(report.best->config.get_int("width"), first);
  EXPECT_FALSE(report.speedup());  // no default to compare with
  // The evaluator saw only legal configs: the search's three and the tournament's rounds of them.
  ASSERT_TRUE(report.tournament);
  for (const Finalist& f : report.tournament->finalists)
    EXPECT_NE(f.config.get_int("width"), first);
}

}  // namespace
}  // namespace cutune
