// Every strategy on small synthetic spaces whose optimum is known, through the real space library
// and the real surrogate. The evaluator is synthetic (a formula with failing regions) because the
// point is the search, not the measuring.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>
#include <unordered_set>

#include "cutune/space.hpp"
#include "cutune/strategy.hpp"
#include "search/search_state.hpp"

namespace cutune {
namespace {

const std::vector<std::string> kAll{"random", "exhaustive", "pattern", "de", "lfbo", "hybrid"};
const std::vector<std::string> kGuided{"pattern", "de", "lfbo", "hybrid", "default"};

using CostFunction = std::function<std::optional<double>(const Config&)>;  // nullopt: fails

class FormulaEvaluator : public Evaluator {
 public:
  explicit FormulaEvaluator(CostFunction cost, std::chrono::milliseconds delay = {})
      : cost_(std::move(cost)), delay_(delay) {}
  std::vector<Measurement> evaluate(std::span<const Config> batch) override {
    std::vector<Measurement> out;
    for (const Config& c : batch) {
      if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
      Measurement m;
      if (const auto cost = cost_(c)) {
        m.time_ms = *cost;
      } else {
        m.outcome = Outcome::compile_error;
      }
      out.push_back(m);
    }
    return out;
  }
  std::string device_name() const override { return "formula"; }
  std::string toolchain() const override { return "none"; }

 private:
  CostFunction cost_;
  std::chrono::milliseconds delay_;
};

// 16 x 7 x 3 x 2 = 672 configs; a constraint with no repair drops the 42 with a * b > 512.
void build_space(TuningSpace& ts, std::int64_t b_search_hi = 0) {
  ts.space.add("a", integer_fragment(0, 15))
      .add("b", power_of_two_fragment(1, 64, std::nullopt, 1, b_search_hi))
      .add("c", enum_fragment({"x", "y", "z"}))
      .add("d", boolean_fragment());
  ts.space.constrain({.name = "a_times_b",
                      .holds = [](const Config& c, const Problem&,
                                  const Device&) { return c.get_int("a") * c.get_int("b") <= 512; },
                      .repair = nullptr});
}
constexpr std::size_t kLegal = 672 - 42;

double log2_of(const Config& c) { return std::log2(static_cast<double>(c.get_int("b"))); }
double sq(double x) { return x * x; }

// Failing regions: a == 0 never compiles, b == 64 with c == "z" never launches.
bool fails(const Config& c) {
  return c.get_int("a") == 0 || (c.get_int("b") == 64 && c.get_string("c") == "z");
}
double extras(const Config& c) {
  return (c.get_string("c") == "y" ? 0.0 : 0.5) + (c.get_bool("d") ? 0.0 : 0.2);
}

// One basin: the optimum is a=11, b=8, c=y, d=true.
std::optional<double> separable(const Config& c) {
  if (fails(c)) return std::nullopt;
  return 1.0 + 0.1 * sq(c.get_int("a") - 11) + 0.3 * sq(log2_of(c) - 3) + extras(c);
}

// A wide basin around a=3, b=2 (1.5 at best) and a narrow, better one at a=13, b=32.
std::optional<double> two_basins(const Config& c) {
  if (fails(c)) return std::nullopt;
  const double a = static_cast<double>(c.get_int("a")), lb = log2_of(c);
  const double wide = 0.5 + 0.05 * (sq(a - 3) + sq(lb - 1));
  const double narrow = 0.3 * (sq(a - 13) + sq(lb - 5));
  return 1.0 + std::min(wide, narrow) + extras(c);
}

SearchOutcome search(const std::string& name, const TuningSpace& ts, const CostFunction& cost,
                     std::uint64_t seed, SearchBudget budget, Effort effort = Effort::full,
                     std::vector<Config> seeds = {}) {
  auto strategy = make_strategy(name, effort);
  FormulaEvaluator evaluator(cost);
  SearchContext context{.space = &ts,
                        .problem = {},
                        .device = {},
                        .seeds = std::move(seeds),
                        .rng_seed = seed,
                        .max_evaluations = budget.max_evaluations};
  return run_search(*strategy, evaluator, context, budget);  // throws on a duplicate
}

std::vector<std::uint64_t> hashes(const SearchOutcome& outcome) {
  std::vector<std::uint64_t> h;
  for (const auto& step : outcome.steps) h.push_back(step.config.hash());
  return h;
}

// The pattern searches climb to the optimum within a third of the space; evolution, which has no
// local polish, is given two thirds (docs/strategies.md says why it is not the default).
std::size_t budget_to_find(const std::string& name) {
  return name == "de" || name == "hybrid" ? 420 : 210;
}

TEST(Strategies, GuidedOnesFindTheOptimumOfASingleAndATwoBasinSpace) {
  TuningSpace ts;
  build_space(ts);
  const PartialConfig optimum1{{"a", 11}, {"b", 8}, {"c", "y"}, {"d", true}};
  const PartialConfig optimum2{{"a", 13}, {"b", 32}, {"c", "y"}, {"d", true}};
  for (const auto effort : {Effort::quick, Effort::full}) {
    for (const std::string& name : kGuided) {
      for (std::uint64_t seed : {1, 2, 3}) {
        for (const auto& [cost, optimum] : {std::pair{CostFunction(separable), optimum1},
                                            std::pair{CostFunction(two_basins), optimum2}}) {
          const SearchOutcome outcome =
              search(name, ts, cost, seed, {.max_evaluations = budget_to_find(name)}, effort);
          ASSERT_TRUE(outcome.best.has_value()) << name;
          EXPECT_EQ(outcome.steps[*outcome.best].config, ts.space.complete(optimum))
              << name << " seed " << seed << (effort == Effort::quick ? " quick" : " full")
              << " found " << outcome.steps[*outcome.best].config.to_string();
        }
      }
    }
  }
}

TEST(Strategies, EveryStrategyProposesEachLegalConfigOnceThenStops) {
  TuningSpace ts;
  build_space(ts);
  for (const std::string& name : kAll) {
    const SearchOutcome outcome = search(name, ts, two_basins, 4, {.batch_size = 5});
    EXPECT_EQ(outcome.stop_reason, "strategy finished") << name;
    EXPECT_EQ(outcome.steps.size(), kLegal) << name;
    const auto h = hashes(outcome);
    EXPECT_EQ(std::set(h.begin(), h.end()).size(), kLegal) << name;
    for (const auto& step : outcome.steps) {
      ASSERT_LE(step.config.get_int("a") * step.config.get_int("b"), 512) << name;
    }
  }
}

TEST(Strategies, SameSeedSameSearchOtherSeedOtherSearch) {
  TuningSpace ts;
  build_space(ts);
  for (const std::string& name : kAll) {
    const auto first = hashes(search(name, ts, two_basins, 9, {.max_evaluations = 80}));
    const auto again = hashes(search(name, ts, two_basins, 9, {.max_evaluations = 80}));
    EXPECT_EQ(first, again) << name;
    if (name != "exhaustive") {
      EXPECT_NE(first, hashes(search(name, ts, two_basins, 10, {.max_evaluations = 80}))) << name;
    }
  }
}

TEST(Strategies, EvaluationBudgetIsExactForAnyBatchSize) {
  TuningSpace ts;
  build_space(ts);
  for (const std::string& name : kAll) {
    for (std::size_t batch : {1, 7, 64}) {
      const SearchOutcome outcome =
          search(name, ts, separable, 1, {.max_evaluations = 50, .batch_size = batch});
      EXPECT_EQ(outcome.steps.size(), 50u) << name << " batch " << batch;
      EXPECT_EQ(outcome.stop_reason, "evaluation budget") << name;
    }
  }
}

TEST(Strategies, TimeBudgetStopsTheSearch) {
  TuningSpace ts;
  build_space(ts);
  auto strategy = make_strategy("lfbo");
  FormulaEvaluator slow(separable, std::chrono::milliseconds(10));
  SearchContext context;
  context.space = &ts;
  context.rng_seed = 1;
  const auto started = std::chrono::steady_clock::now();
  const SearchOutcome outcome = run_search(*strategy, slow, context, {.max_seconds = 0.2});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(outcome.stop_reason, "time budget");
  EXPECT_GE(outcome.steps.size(), 5u);
  EXPECT_LE(outcome.steps.size(), 21u);
  EXPECT_LT(seconds, 1.0);
}

TEST(Strategies, SeedsComeFirstEvenWithSeedOnlyValues) {
  TuningSpace ts;
  build_space(ts, /*b_search_hi=*/32);  // b = 64 is seed-only
  const Config seed = ts.space.complete({{"a", 5}, {"b", 64}, {"c", "x"}});
  ASSERT_FALSE(ts.space.fragment(1).contains(Value(64), View::search));
  for (const std::string& name : kAll) {
    const SearchOutcome outcome =
        search(name, ts, separable, 2, {.max_evaluations = 40}, Effort::full, {seed});
    ASSERT_FALSE(outcome.steps.empty()) << name;
    EXPECT_EQ(outcome.steps.front().config, seed) << name;
  }
}

// A host kernel's tune (every config a framework's compile) starts from the seeds' neighbourhood:
// each config of the first round after the seed is one step from it, none a random draw while
// the neighbourhood lasts, and the round is as large as the tune asks (its slots cost nothing).
TEST(Strategies, StartNearSeedsFillsTheFirstRoundWithTheSeedsNeighbours) {
  TuningSpace ts;
  build_space(ts);
  const Config seed = ts.space.complete({{"a", 5}, {"b", 4}, {"c", "x"}});
  std::unordered_set<std::uint64_t> near;
  for (const Config& n : ts.space.neighbours(seed, 1)) near.insert(n.hash());
  ASSERT_GE(near.size(), 5u);
  for (const std::string name : {"pattern", "lfbo"}) {
    for (const auto effort : {Effort::quick, Effort::full}) {
      auto strategy = make_strategy(name, effort);
      FormulaEvaluator evaluator(separable);
      SearchContext context;
      context.space = &ts;
      context.seeds = {seed};
      context.rng_seed = 3;
      context.max_evaluations = 40;
      context.start_near_seeds = true;
      strategy->start(context);
      const std::vector<Config> first = strategy->ask(24);
      ASSERT_EQ(first.size(), 24u) << name;
      EXPECT_EQ(first.front(), seed) << name;
      // The neighbours first, then (a neighbourhood smaller than the round) random draws.
      for (std::size_t i = 1; i <= std::min(first.size() - 1, near.size()); ++i) {
        EXPECT_TRUE(near.contains(first[i].hash()))
            << name << ": " << first[i].to_string() << " is not one step from the seed";
      }
    }
  }
}

// The first climb starts from the fastest seed, not the first listed: a seed's rank is a guess
// made before anything ran (a framework's default comes first), its time a measurement.
TEST(Strategies, TheFirstWalkerStartsFromTheFastestSeed) {
  TuningSpace ts;
  build_space(ts);
  const Config slow = ts.space.complete({{"a", 2}, {"b", 1}, {"c", "x"}});
  const Config fast = ts.space.complete({{"a", 10}, {"b", 16}, {"c", "y"}});
  for (const std::string name : {"pattern", "lfbo"}) {
    auto strategy = make_strategy(name, Effort::quick);
    FormulaEvaluator evaluator(separable);
    SearchContext context;
    context.space = &ts;
    context.seeds = {slow, fast};
    context.rng_seed = 5;
    context.max_evaluations = 100;
    context.start_near_seeds = true;
    strategy->start(context);
    for (int round = 0; round < 2; ++round) {
      const std::vector<Config> batch = strategy->ask(round == 0 ? 64 : 8);
      ASSERT_FALSE(batch.empty()) << name;
      if (round == 1) {
        // The climb from the fast seed (a = 10) stays near it: a walker from the slow one (a = 2)
        // would try a = 1..3 (or move there from the first round's neighbours).
        for (const Config& c : batch) {
          EXPECT_GE(c.get_int("a"), 7)
              << name << ": " << c.to_string() << " climbs from the slow seed";
        }
      }
      strategy->tell(batch, evaluator.evaluate(batch));
    }
  }
}

// A host kernel's lfbo search (effort quick) from `seed`'s neighbourhood, moving on gains of at
// least `min_move_gain`, run to `budget` evaluations in rounds of `batch`.
SearchOutcome near_seed_search(const TuningSpace& ts, const Config& seed, const CostFunction& cost,
                               std::uint64_t rng_seed, double min_move_gain, std::size_t budget,
                               std::size_t batch) {
  auto strategy = make_strategy("lfbo", Effort::quick);
  FormulaEvaluator evaluator(cost);
  SearchContext context;
  context.space = &ts;
  context.seeds = {seed};
  context.rng_seed = rng_seed;
  context.max_evaluations = budget;
  context.start_near_seeds = true;
  context.min_move_gain = min_move_gain;
  return run_search(*strategy, evaluator, context,
                    {.max_evaluations = budget, .batch_size = batch});
}

// A gain under min_move_gain is noise to a walker: it measures the rest of its centre's
// neighbourhood rather than recentre on a config that differs in a knob that does nothing, and
// measure that config's neighbourhood, the same one shifted by that knob.
TEST(Strategies, AWalkerFollowsNoGainUnderMinMoveGain) {
  TuningSpace ts;
  ts.space.add("a", integer_fragment(0, 15));
  for (int k = 0; k < 12; ++k) ts.space.add("flag" + std::to_string(k), boolean_fragment());
  const Config seed = ts.space.complete({{"a", 5}});
  // 0.1 % faster per step of a, and a noise of up to 0.05 % that a config keeps: every gain in
  // this space is noise-sized.
  const CostFunction cost = [](const Config& c) -> std::optional<double> {
    return 1.0 - 0.001 * static_cast<double>(c.get_int("a")) +
           0.0005 * static_cast<double>(c.hash() % 1000) / 1000.0;
  };
  std::unordered_set<std::uint64_t> near{seed.hash()};
  for (const Config& n : ts.space.neighbours(seed, 1)) near.insert(n.hash());
  ASSERT_EQ(near.size(), 15u);
  for (const double gain : {0.0, 0.01}) {
    for (const std::uint64_t rng_seed : {1, 2, 3}) {
      const SearchOutcome outcome = near_seed_search(ts, seed, cost, rng_seed, gain, 15, 1);
      const auto left =
          std::count_if(outcome.steps.begin(), outcome.steps.end(),
                        [&](const SearchStep& step) { return !near.contains(step.config.hash()); });
      if (gain > 0) {
        EXPECT_EQ(left, 0) << "rng seed " << rng_seed << ": left the neighbourhood on noise";
      } else {
        EXPECT_GT(left, 0) << "rng seed " << rng_seed << ": a walker without the threshold moves";
      }
    }
  }
}

// A walker that keeps finding gains along its first knob still tries the space's last knobs: the
// neighbours that change knobs the classifier cannot tell apart are not taken in the space's order
// around every new centre.
TEST(Strategies, AMovingWalkerStillTriesTheLastKnobs) {
  TuningSpace ts;
  ts.space.add("a", integer_fragment(0, 31));
  for (int k = 0; k < 12; ++k) ts.space.add("flag" + std::to_string(k), boolean_fragment());
  const Config seed = ts.space.complete({{"a", 0}});
  // Each step of a is 2 % faster; flag11 alone, last in the space, is 30 % faster.
  const CostFunction cost = [](const Config& c) -> std::optional<double> {
    return (1.0 - 0.02 * static_cast<double>(c.get_int("a"))) * (c.get_bool("flag11") ? 0.7 : 1.0);
  };
  for (const std::uint64_t rng_seed : {1, 2, 3, 4, 5}) {
    const SearchOutcome outcome = near_seed_search(ts, seed, cost, rng_seed, 0.01, 40, 4);
    ASSERT_TRUE(outcome.best.has_value());
    const Config& best = outcome.steps[*outcome.best].config;
    EXPECT_TRUE(best.get_bool("flag11"))
        << "rng seed " << rng_seed << ": best " << best.to_string();
  }
}

// A tile's two sides that pay only as a pair: from a 256x32 tile, each one-knob step is slower or
// does not compile, and 128x64, two steps away, is the best tile. A wide round (a framework's
// parallel compile) holds the space's paired moves and gets there; the knobs around the tile
// (flags that do nothing) keep a random restart from landing on it by chance.
TEST(Strategies, AWideRoundMovesTwoKnobsThatPayOnlyTogether) {
  TuningSpace ts;
  ts.space.add("height", power_of_two_fragment(16, 512))
      .add("width", power_of_two_fragment(16, 512));
  for (int k = 0; k < 10; ++k) ts.space.add("flag" + std::to_string(k), boolean_fragment());
  ts.space.pair_moves({"height", "width"});
  const Config seed = ts.space.complete({{"height", 256}, {"width", 32}});
  const CostFunction cost = [](const Config& c) -> std::optional<double> {
    const std::int64_t h = c.get_int("height"), w = c.get_int("width");
    if (h * w > 8192) return std::nullopt;  // over the shared memory: no compile
    if (h * w < 8192) return 1.2 + 0.1 * std::log2(8192.0 / static_cast<double>(h * w));
    return h == 128 ? 0.6 : 1.0 + 0.05 * std::abs(std::log2(static_cast<double>(h) / 256.0));
  };
  for (const std::uint64_t rng_seed : {1, 2, 3, 4, 5}) {
    const SearchOutcome outcome = near_seed_search(ts, seed, cost, rng_seed, 0.01, 32, 8);
    ASSERT_TRUE(outcome.best.has_value());
    const Config& best = outcome.steps[*outcome.best].config;
    EXPECT_EQ(best.get_int("height"), 128) << "rng seed " << rng_seed << ": " << best.to_string();
    EXPECT_EQ(best.get_int("width"), 64) << "rng seed " << rng_seed;
  }
}

// A long slope along one knob: a round carries a walker one move, so rounds of single steps climb
// one step a round. A wide round also holds the config two steps beyond the walker's last move
// (Space::onward), and the climb covers two steps a round. Only the seed's mode compiles, so no
// random draw lands on the slope's far end by chance.
TEST(Strategies, AWideRoundCarriesAClimbOnward) {
  TuningSpace ts;
  ts.space.add("tile", power_of_two_fragment(1, 1 << 20)).add("mode", integer_fragment(0, 1000000));
  // Knobs that do nothing fill a round with single steps, as a Helion kernel's twenty knobs do.
  for (int k = 0; k < 12; ++k) ts.space.add("flag" + std::to_string(k), boolean_fragment());
  const Config seed = ts.space.complete({{"tile", 1}, {"mode", 0}});
  const CostFunction cost = [](const Config& c) -> std::optional<double> {
    if (c.get_int("mode") != 0) return std::nullopt;
    return 1.0 + std::abs(std::log2(static_cast<double>(c.get_int("tile"))) - 14.0);
  };
  for (const std::uint64_t rng_seed : {1, 2, 3, 4, 5}) {
    const SearchOutcome outcome = near_seed_search(ts, seed, cost, rng_seed, 0.01, 48, 8);
    ASSERT_TRUE(outcome.best.has_value());
    const Config& best = outcome.steps[*outcome.best].config;
    std::cout << "rng seed " << rng_seed << ": " << best.to_string() << "\n";
    EXPECT_GE(best.get_int("tile"), 1024) << "rng seed " << rng_seed;
  }
}

// The walker strategies' random first round keeps to the space's preferences where draws find
// such configs, and fills the round with any config where they do not.
TEST(Strategies, TheFirstRoundKeepsToTheSpacesPreferences) {
  for (const std::string name : {"pattern", "lfbo"}) {
    TuningSpace ts;
    build_space(ts);
    ts.space.prefer({.name = "a is a multiple of 4",
                     .holds = [](const Config& c, const Problem&, const Device&) {
                       return c.get_int("a") % 4 == 0;
                     }});
    const SearchOutcome outcome =
        search(name, ts, separable, 5, {.max_evaluations = 16, .batch_size = 32});
    ASSERT_EQ(outcome.steps.size(), 16u) << name;
    for (const auto& step : outcome.steps) EXPECT_EQ(step.config.get_int("a") % 4, 0) << name;

    TuningSpace nowhere;
    build_space(nowhere);
    nowhere.space.prefer(
        {.name = "a above 100", .holds = [](const Config& c, const Problem&, const Device&) {
           return c.get_int("a") > 100;
         }});
    EXPECT_EQ(
        search(name, nowhere, separable, 5, {.max_evaluations = 16, .batch_size = 32}).steps.size(),
        16u)
        << name;
  }
}

// A preference stands while the fastest correct config measured keeps it; lfbo's restarts keep
// to it only then.
TEST(Strategies, APreferenceStandsUntilTheFastestConfigBreaksIt) {
  TuningSpace ts;
  build_space(ts);
  search::SearchState state;
  SearchContext context;
  context.space = &ts;
  state.start(context);
  EXPECT_FALSE(state.preferences_stand());  // no preferences
  ts.space.prefer(
      {.name = "d is false",
       .holds = [](const Config& c, const Problem&, const Device&) { return !c.get_bool("d"); }});
  EXPECT_FALSE(state.preferences_stand());  // nothing measured
  const Config kept = ts.space.complete({{"a", 2}, {"d", false}});
  const Config broken = ts.space.complete({{"a", 3}, {"d", true}});
  Measurement fast, slow, failed;
  fast.time_ms = 1;
  slow.time_ms = 2;
  failed.outcome = Outcome::compile_error;
  state.record(std::vector{kept, broken}, std::vector{fast, slow});
  EXPECT_TRUE(state.preferences_stand());
  state.record(std::vector{ts.space.complete({{"a", 4}, {"d", true}})}, std::vector{failed});
  EXPECT_TRUE(state.preferences_stand());  // a failure is never the fastest
  fast.time_ms = 0.5;
  state.record(std::vector{ts.space.complete({{"a", 5}, {"d", true}})}, std::vector{fast});
  EXPECT_FALSE(state.preferences_stand());
}

TEST(Strategies, AllFailingSpaceRunsToTheBudget) {
  TuningSpace ts;
  build_space(ts);
  for (const std::string& name : kAll) {
    const SearchOutcome outcome =
        search(name, ts, [](const Config&) { return std::optional<double>(); }, 3,
               {.max_evaluations = 60});
    EXPECT_EQ(outcome.steps.size(), 60u) << name;
    EXPECT_FALSE(outcome.best.has_value());
    for (const auto& step : outcome.steps)
      EXPECT_EQ(step.measurement.outcome, Outcome::compile_error);
  }
}

TEST(Strategies, NamesAndMisuse) {
  EXPECT_EQ(strategy_names(), kAll);
  for (const std::string& name : kAll) EXPECT_EQ(make_strategy(name)->name(), name);
  EXPECT_EQ(make_strategy("default")->name(), default_strategy_name());
  try {
    make_strategy("simulated_annealing");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("simulated_annealing"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("lfbo"), std::string::npos);
  }
  EXPECT_EQ(effort_from_string("quick"), Effort::quick);
  EXPECT_THROW(effort_from_string("medium"), std::invalid_argument);

  TuningSpace huge;
  for (int i = 0; i < 8; ++i) huge.space.add("k" + std::to_string(i), integer_fragment(0, 99));
  auto exhaustive = make_strategy("exhaustive");
  SearchContext context;
  context.space = &huge;
  EXPECT_THROW(exhaustive->start(context), std::invalid_argument);
  EXPECT_THROW(make_strategy("random")->start(SearchContext{}), std::invalid_argument);
}

}  // namespace
}  // namespace cutune
