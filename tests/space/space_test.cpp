#include "cutune/space.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cutune/heuristics.hpp"
#include "printers.hpp"

namespace cutune {
namespace {

std::string message_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no ConfigError";
}

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A small space: tiles, a depth, a mode that is seed-only, and a gate over it.
class SpaceTest : public ::testing::Test {
 protected:
  SpaceTest() {
    space.add("tile", enum_fragment({16, 32, 64, 128}, {16, 32, 64}, 32))
        .add("depth", integer_fragment(1, 8, 1, 2))
        .add("order", enum_fragment({"row", "col"}))
        .add("turbo", boolean_fragment(false, {false}));
    space.constrain({
        .name = "budget",
        .holds = [](const Config& c, const Problem&,
                    const Device&) { return c.get_int("tile") * c.get_int("depth") <= 256; },
        .repair =
            [](Config& c, const Problem&, const Device&) {
              c.set("depth", std::max<std::int64_t>(1, 256 / c.get_int("tile")));
            },
    });
    space.constrain({
        .name = "turbo_needs_row",
        .holds =
            [](const Config& c, const Problem&, const Device&) {
              return !c.get_bool("turbo") || c.get_string("order") == "row";
            },
        .repair =
            [this](Config& c, const Problem&, const Device&) {
              c.set("turbo", space.fragment(space.index_of("turbo")).nearest_search(c["turbo"]));
            },
        .is_gate = true,
    });
  }

  Space space;
  Problem problem;
  Device device = Device::host_cpu();
};

TEST_F(SpaceTest, DeclarationErrorsNameTheKnob) {
  EXPECT_THROW(space.add("tile", integer_fragment(1, 2)), std::invalid_argument);
  EXPECT_THROW(space.add("", integer_fragment(1, 2)), std::invalid_argument);
  EXPECT_THROW(space.add("none", nullptr), std::invalid_argument);
}

TEST_F(SpaceTest, UnknownKnobNamesTheClosestKnownOne) {
  EXPECT_EQ(message_of([&] {
              space.complete({{"tiles", 32}});
            }),
            "unknown knob 'tiles' (did you mean 'tile'?)");
  EXPECT_EQ(message_of([&] { space.default_config()["dept"]; }),
            "unknown knob 'dept' (did you mean 'depth'?)");
}

TEST_F(SpaceTest, IllegalValueNamesKnobValueAndLegalSet) {
  EXPECT_EQ(message_of([&] {
              space.complete({{"tile", 48}});
            }),
            "knob 'tile' cannot be 48: legal values are {16, 32, 64, 128}");
  EXPECT_EQ(message_of([&] {
              space.from_json(nlohmann::json{{"order", "diagonal"}});
            }),
            R"(knob 'order' cannot be "diagonal": legal values are {"row", "col"})");
  EXPECT_EQ(message_of([&] {
              space.from_json(nlohmann::json{{"depth", nullptr}});
            }),
            "knob 'depth': a knob value must be a boolean, number, string or array, got null");
  EXPECT_TRUE(mentions(message_of([&] { Config(space, {16, 2}); }), "needs 4 values"));
}

TEST_F(SpaceTest, PartialConfigsCompleteFromDefaultsAndRoundTripThroughJson) {
  const Config c = space.complete({{"tile", 128}, {"turbo", true}});  // seed-only values
  EXPECT_EQ(c.get_int("depth"), 2);
  EXPECT_EQ(c.get_string("order"), "row");
  EXPECT_EQ(c.to_string(), R"({"tile":128,"depth":2,"order":"row","turbo":true})");
  EXPECT_EQ(space.from_json(c.to_json()), c);
  EXPECT_EQ(space.from_json(nlohmann::json::parse(c.to_string())), c);
  EXPECT_EQ(space.complete(c.to_partial()), c);
  EXPECT_THROW(space.from_json(nlohmann::json::array()), ConfigError);
}

// A preference judges configs and never makes one illegal; whole_warps wants a positive multiple
// of 32 threads.
TEST_F(SpaceTest, APreferenceJudgesButNeverDropsAConfig) {
  const Config small = space.complete({{"tile", 16}});
  EXPECT_TRUE(space.preferred(small, {}, {}));  // no preferences yet
  space.prefer(whole_warps("tile is whole warps", [](const Config& c, const Problem&,
                                                     const Device&) { return c.get_int("tile"); }));
  EXPECT_FALSE(space.preferred(small, {}, {}));
  EXPECT_TRUE(space.preferred(space.complete({{"tile", 64}}), {}, {}));
  EXPECT_TRUE(space.normalize(small, {}, {}).config.has_value());
  const auto warps = [&small](double threads) {
    return whole_warps("",
                       [threads](const Config&, const Problem&, const Device&) { return threads; })
        .holds(small, {}, {});
  };
  EXPECT_TRUE(warps(32));
  EXPECT_TRUE(warps(96));
  EXPECT_FALSE(warps(0));
  EXPECT_FALSE(warps(48));
  EXPECT_FALSE(warps(32.5));
  EXPECT_THROW(space.prefer({.name = "", .holds = [](auto&&...) { return true; }}),
               std::invalid_argument);
  EXPECT_THROW(space.prefer({.name = "empty"}), std::invalid_argument);
}

TEST_F(SpaceTest, HashIsCanonicalAndDependsOnTheKnobNames) {
  const Config a = space.complete({{"tile", 64}});
  const Config b = space.from_json(nlohmann::json::parse(R"({"tile": 64, "depth": 2})"));
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a.hash_hex().size(), 16u);
  EXPECT_NE(a.hash(), space.complete({{"tile", 16}}).hash());
  Space renamed;
  renamed.add("tile_size", enum_fragment({16, 32, 64, 128}, {16, 32, 64}, 32))
      .add("depth", integer_fragment(1, 8, 1, 2))
      .add("order", enum_fragment({"row", "col"}))
      .add("turbo", boolean_fragment(false, {false}));
  EXPECT_NE(renamed.complete({{"tile_size", 64}}).hash(), a.hash());
  // Stored results are keyed by this hash: a change here orphans every stored row.
  EXPECT_EQ(a.hash_hex(), "86d3da320b3bd485");
}

TEST_F(SpaceTest, NormalizeRepairsInOrderAndIsIdempotent) {
  const Normalized n =
      space.normalize(space.complete({{"tile", 64}, {"depth", 8}}), problem, device);
  ASSERT_TRUE(n.config);
  EXPECT_EQ(n.config->get_int("depth"), 4);
  EXPECT_EQ(n.fired, (std::vector<std::size_t>{0}));
  const Normalized again = space.normalize(*n.config, problem, device);
  EXPECT_EQ(again.config, n.config);
  EXPECT_TRUE(again.fired.empty());
  EXPECT_TRUE(space.legal(*n.config, problem, device));
}

TEST_F(SpaceTest, GateMovesAwayFromTheModeAndKeepsTheOtherKnobs) {
  const Config asked =
      space.complete({{"tile", 16}, {"depth", 7}, {"order", "col"}, {"turbo", true}});
  const Normalized n = space.normalize(asked, problem, device);
  ASSERT_TRUE(n.config);
  EXPECT_EQ(n.config->to_string(), R"({"tile":16,"depth":7,"order":"col","turbo":false})");
  EXPECT_EQ(n.fired, (std::vector<std::size_t>{1}));
  // Inside the envelope the seed-only mode survives.
  const Config inside = space.complete({{"order", "row"}, {"turbo", true}});
  EXPECT_EQ(space.normalize(inside, problem, device).config, inside);
}

TEST_F(SpaceTest, UnrepairableAndOscillatingCandidatesAreDroppedWithTheConstraintNamed) {
  space.constrain(
      {.name = "never_col", .holds = [](const Config& c, const Problem&, const Device&) {
         return c.get_string("order") != "col";
       }});
  Normalized n = space.normalize(space.complete({{"order", "col"}}), problem, device);
  EXPECT_FALSE(n.config);
  EXPECT_EQ(n.failure, "never_col");

  Space fighting;
  fighting.add("x", integer_fragment(0, 1));
  for (int want : {0, 1}) {
    fighting.constrain({
        .name = "x_is_" + std::to_string(want),
        .holds = [want](const Config& c, const Problem&,
                        const Device&) { return c.get_int("x") == want; },
        .repair = [want](Config& c, const Problem&, const Device&) { c.set("x", want); },
    });
  }
  n = fighting.normalize(fighting.default_config(), problem, device);
  EXPECT_FALSE(n.config);
  EXPECT_EQ(n.failure, "x_is_0 (still violated after 8 repair passes)");

  Space throwing;
  throwing.add("x", integer_fragment(0, 1));
  throwing.constrain({
      .name = "bad_repair",
      .holds = [](const Config& c, const Problem&, const Device&) { return c.get_int("x") == 1; },
      .repair = [](Config& c, const Problem&, const Device&) { c.set("x", 5); },
  });
  n = throwing.normalize(throwing.default_config(), problem, device);
  EXPECT_FALSE(n.config);
  EXPECT_EQ(n.failure, "bad_repair (knob 'x' cannot be 5: legal values are [0, 1] step 1)");
}

TEST_F(SpaceTest, GenesRoundTripInBothViewsAndSeedOnlyValuesStayOutOfTheSearchView) {
  const Config seeded = space.complete({{"tile", 128}, {"turbo", true}});
  EXPECT_EQ(space.gene_bounds(View::full), (std::vector<std::int64_t>{4, 8, 2, 2}));
  EXPECT_EQ(space.gene_bounds(View::search), (std::vector<std::int64_t>{3, 8, 2, 1}));
  EXPECT_EQ(space.decode(space.encode(seeded, View::full), View::full), seeded);
  EXPECT_EQ(message_of([&] { space.encode(seeded, View::search); }),
            "knob 'tile': value 128 is not in {16, 32, 64}");
  EXPECT_TRUE(mentions(message_of([&] {
                         space.decode(std::vector<std::int64_t>{0, 0, 0}, View::full);
                       }),
                       "expected 4 genes, got 3"));
  EXPECT_EQ(message_of([&] {
              space.decode(std::vector<std::int64_t>{0, 0, 0, 1}, View::search);
            }),
            "knob 'turbo': gene 1 is outside [0, 1)");
  EXPECT_EQ(space.feature_count(), 4u + 1 + 2 + 1);
  EXPECT_EQ(space.features(seeded), (std::vector<double>{0, 0, 0, 1, 2, 1, 0, 1}));
}

TEST_F(SpaceTest, EnumerationCoversTheSearchViewInGeneOrder) {
  EXPECT_EQ(space.size(View::search), 3u * 8 * 2 * 1);
  EXPECT_EQ(space.size(View::full), 4u * 8 * 2 * 2);
  const std::vector<Config> all = space.enumerate(View::search, 100);
  ASSERT_EQ(all.size(), 48u);
  EXPECT_EQ(all.front().to_string(), R"({"tile":16,"depth":1,"order":"row","turbo":false})");
  EXPECT_EQ(all[1].get_string("order"), "col");
  EXPECT_EQ(all.back().to_string(), R"({"tile":64,"depth":8,"order":"col","turbo":false})");
  EXPECT_THROW(space.enumerate(View::full, 100), std::length_error);
}

TEST_F(SpaceTest, SearchOperatorsStayInTheSearchView) {
  Rng rng(5);
  const Config seeded = space.complete({{"tile", 128}, {"turbo", true}});
  for (const Config& n : space.neighbours(seeded)) {
    EXPECT_NE(n, seeded);
  }
  EXPECT_EQ(space.neighbours(space.default_config()).size(), 2u + 2 + 1);
  for (int i = 0; i < 50; ++i) {
    const Config a = space.draw(rng);
    const Config b = space.draw(rng);
    EXPECT_NE(space.mutate(a, rng, 0.0), a);  // a mutation always changes something
    const Config child = space.crossover(a, b, rng);
    for (std::size_t k = 0; k < space.knob_count(); ++k) {
      EXPECT_TRUE(child.at(k) == a.at(k) || child.at(k) == b.at(k));
    }
  }
}

TEST_F(SpaceTest, PairedMovesStepTwoKnobsOfAGroupAndNameAnUnknownKnob) {
  EXPECT_TRUE(space.paired_neighbours(space.default_config()).empty());
  space.pair_moves({"tile", "depth", "tile"});
  // tile 32 -> 16 or 64 (128 is seed-only), depth 2 -> 1 or 3: four pairs, none twice.
  const std::vector<Config> paired = space.paired_neighbours(space.default_config());
  ASSERT_EQ(paired.size(), 4u);
  for (const Config& n : paired) {
    EXPECT_NE(n.get_int("tile"), 32);
    EXPECT_NE(n.get_int("depth"), 2);
    EXPECT_EQ(n.get_string("order"), "row");
  }
  EXPECT_EQ(message_of([&] {
              space.pair_moves({"tile", "dpth"});
            }),
            "unknown knob 'dpth' (did you mean 'depth'?)");
  EXPECT_THROW(space.pair_moves({"tile", "tile"}), std::invalid_argument);
  EXPECT_EQ(space.move_pairs().size(), 1u);
}

// Onward moves extend the last move two steps along knobs of ordered values only, in the search
// view only; a move of other knobs, or one with no room for two more steps, has none.
TEST(SpaceOnward, TwoStepsFurtherAlongOrderedKnobs) {
  Space space;
  space.add("width", power_of_two_fragment(16, 1024))
      .add("stages", integer_fragment(0, 4, 1, 2))
      .add("order", enum_fragment({"row", "col"}));
  const Config start = space.complete({{"width", 32}, {"stages", 3}});
  const std::optional<Config> far =
      space.onward(start, space.complete({{"width", 64}, {"stages", 2}}));
  ASSERT_TRUE(far.has_value());
  EXPECT_EQ(far->get_int("width"), 256);
  EXPECT_EQ(far->get_int("stages"), 0);
  EXPECT_EQ(far->get_string("order"), "row");
  // No room for two more steps below 16.
  EXPECT_EQ(space.onward(start, space.complete({{"width", 16}, {"stages", 3}})), std::nullopt);
  const std::optional<Config> wider =
      space.onward(start, space.complete({{"width", 128}, {"stages", 3}}));
  ASSERT_TRUE(wider.has_value());
  EXPECT_EQ(wider->get_int("width"), 512);  // two steps, however long the move was
  EXPECT_EQ(space.onward(start, space.complete({{"width", 32}, {"stages", 3}, {"order", "col"}})),
            std::nullopt);
  EXPECT_EQ(space.onward(start, space.complete({{"width", 512}, {"stages", 3}})), std::nullopt);
  // An enum of integers is not extended (its lines are short: docs/strategies.md).
  Space imported;
  imported.add("block", enum_fragment({32, 64, 96, 128, 256}));
  EXPECT_EQ(imported.onward(imported.complete({{"block", 32}}), imported.complete({{"block", 64}})),
            std::nullopt);
}

TEST_F(SpaceTest, SeedsRankByPriorityAndTheDefaultFallsBack) {
  TuningSpace ts;
  ts.space.add("tile", enum_fragment({16, 32, 64, 128}, {16, 32, 64}, 32))
      .add("turbo", boolean_fragment(false, {false}));
  auto seed = [](std::string name, int priority, bool eligible, PartialConfig proposal) {
    return HeuristicSeed{std::move(name), priority,
                         [eligible](const Problem&, const Device&) { return eligible; },
                         [proposal](const Problem&, const Device&) { return proposal; }};
  };
  ts.seeds.push_back(seed("low", 1, true, {{"tile", 16}}));
  ts.seeds.push_back(seed("broken", 9, true, {{"tile", 48}}));
  ts.seeds.push_back(seed("high", 5, true, {{"tile", 128}, {"turbo", true}}));
  ts.seeds.push_back(seed("ineligible", 99, false, {{"tile", 64}}));

  std::vector<std::string> names;
  for (const HeuristicSeed* s : eligible_seeds(ts, problem, device)) names.push_back(s->name);
  EXPECT_EQ(names, (std::vector<std::string>{"broken", "high", "low"}));
  std::vector<std::string> errors;
  const std::vector<Config> seeds = seed_configs(ts, problem, device, &errors);
  ASSERT_EQ(seeds.size(), 2u);
  EXPECT_TRUE(seeds[0].get_bool("turbo"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0],
            "seed 'broken': knob 'tile' cannot be 48: legal values are {16, 32, 64, 128}");
  EXPECT_EQ(default_config(ts, problem, device), seeds[0]);

  ts.seeds.clear();
  EXPECT_EQ(default_config(ts, problem, device), ts.space.default_config());
}

}  // namespace
}  // namespace cutune
