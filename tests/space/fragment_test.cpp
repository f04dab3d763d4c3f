#include "cutune/fragment.hpp"

#include <gtest/gtest.h>

#include <set>

#include "printers.hpp"

namespace cutune {
namespace {

std::vector<std::int64_t> encode(const Fragment& f, const Value& v, View view) {
  std::vector<std::int64_t> genes(f.gene_bounds(view).size());
  f.encode_genes(v, view, genes);
  return genes;
}

std::vector<double> features(const Fragment& f, const Value& v) {
  std::vector<double> out(f.feature_count());
  f.encode_features(v, out);
  return out;
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(EnumFragment, SeedOnlyValueIsLegalButNeverDrawn) {
  const FragmentPtr f = enum_fragment({64, 128, 256}, {64, 128});
  EXPECT_TRUE(f->contains(256, View::full));
  EXPECT_FALSE(f->contains(256, View::search));
  EXPECT_FALSE(f->contains(96, View::full));
  EXPECT_EQ(f->default_value(), Value(64));
  Rng rng(1);
  std::set<Value> drawn;
  for (int i = 0; i < 200; ++i) drawn.insert(f->draw(rng));
  EXPECT_EQ(drawn, (std::set<Value>{64, 128}));
  // Mutating or crossing a seed-only value lands back in the search view.
  EXPECT_TRUE(f->contains(f->mutate(256, rng), View::search));
  EXPECT_EQ(f->crossover(256, 256, rng), Value(128));
  EXPECT_EQ(f->nearest_search(256), Value(128));
  EXPECT_EQ(f->neighbours(256, 1), (std::vector<Value>{128}));
}

TEST(EnumFragment, GenesPerViewAndOneHotFeaturesOverAllChoices) {
  const FragmentPtr f = enum_fragment({"a", "b", "c"}, {"c", "a"}, "c");
  EXPECT_EQ(f->gene_bounds(View::full), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(f->gene_bounds(View::search), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(encode(*f, "c", View::search), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(f->decode_genes(encode(*f, "c", View::search), View::search), Value("c"));
  EXPECT_EQ(error_of([&] { encode(*f, "b", View::search); }), R"(value "b" is not in {"a", "c"})");
  EXPECT_EQ(features(*f, "b"), (std::vector<double>{0, 1, 0}));  // seed-only values encode too
  EXPECT_EQ(f->decode_features(std::vector<double>{0.1, 0.7, 0.2}), Value("b"));
  // Unordered values: every other search value is a neighbour.
  EXPECT_EQ(f->neighbours("a", 1), (std::vector<Value>{"c"}));
  EXPECT_THROW(f->decode_genes(std::vector<std::int64_t>{2}, View::search), std::invalid_argument);
}

TEST(EnumFragment, NumericNeighboursFollowDeclarationOrderWithinRadius) {
  const FragmentPtr f = enum_fragment({1, 2, 3, 4, 5});
  EXPECT_EQ(f->neighbours(3, 1), (std::vector<Value>{2, 4}));
  EXPECT_EQ(f->neighbours(1, 2), (std::vector<Value>{2, 3}));
  EXPECT_EQ(f->values(View::full).size(), 5u);
}

TEST(EnumFragment, InconsistentDeclarationsAreRejectedWithTheirValues) {
  EXPECT_EQ(error_of([] { enum_fragment({}); }), "an enum needs at least one choice");
  EXPECT_EQ(error_of([] {
              enum_fragment({1, 2}, {3});
            }),
            "search choice 3 is not one of the choices {1, 2}");
  EXPECT_EQ(error_of([] {
              enum_fragment({1, 2}, {1}, 2);
            }),
            "default 2 is not in the search view {1}");
  EXPECT_EQ(error_of([] { enum_fragment({1, 1}); }), "enum choice 1 is repeated");
}

TEST(BooleanFragment, SeedOnlyTrueAndADefaultOutsideTheSearchViewIsRefused) {
  const FragmentPtr f = boolean_fragment(false, {false});
  Rng rng(2);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(f->draw(rng), Value(false));
  EXPECT_TRUE(f->contains(true, View::full));
  EXPECT_EQ(f->mutate(true, rng), Value(false));
  EXPECT_EQ(f->nearest_search(true), Value(false));
  EXPECT_EQ(features(*f, true), (std::vector<double>{1.0}));
  EXPECT_EQ(f->decode_features(std::vector<double>{0.8}), Value(true));
  // The seed's encoder crash: a (True,)-only slot holding a default False. Refused when declared.
  EXPECT_EQ(error_of([] { boolean_fragment(false, {true}); }),
            "default false is not in the search view {true}");
}

TEST(PowerOfTwoFragment, RangesGenesAndLog2Features) {
  const FragmentPtr f = power_of_two_fragment(1, 64, 4, 2, 16);
  EXPECT_EQ(f->values(View::search), (std::vector<Value>{2, 4, 8, 16}));
  EXPECT_EQ(f->cardinality(View::full), 7u);
  EXPECT_FALSE(f->contains(3, View::full));
  EXPECT_TRUE(f->contains(64, View::full));
  EXPECT_EQ(f->describe(View::search), "powers of two in [2, 16]");
  EXPECT_EQ(features(*f, 64), (std::vector<double>{6.0}));
  EXPECT_EQ(f->decode_features(std::vector<double>{4.6}), Value(32));
  EXPECT_EQ(f->decode_features(std::vector<double>{99.0}), Value(64));  // nearest legal
  EXPECT_EQ(f->neighbours(64, 1), (std::vector<Value>{16}));
  EXPECT_EQ(f->nearest_search(1), Value(2));
  EXPECT_EQ(error_of([] { power_of_two_fragment(3, 8); }), "lower bound 3 is not a power of two");
}

TEST(IntegerFragment, GridSearchRangeAndNeighbours) {
  const FragmentPtr f = integer_fragment(0, 20, 4, 8, 4, 16);  // 0,4,...,20; search 4..16
  EXPECT_EQ(f->describe(View::full), "[0, 20] step 4");
  EXPECT_EQ(f->values(View::search), (std::vector<Value>{4, 8, 12, 16}));
  EXPECT_FALSE(f->contains(6, View::full));
  EXPECT_EQ(f->neighbours(8, 2), (std::vector<Value>{4, 12, 16}));
  EXPECT_EQ(f->neighbours(20, 1), (std::vector<Value>{16}));
  EXPECT_EQ(f->decode_features(std::vector<double>{9.0}), Value(8));
  EXPECT_EQ(f->decode_genes(encode(*f, 0, View::full), View::full), Value(0));
  EXPECT_EQ(error_of([] { integer_fragment(0, 10, 0); }), "integer step 0 is not positive");
  EXPECT_EQ(error_of([] { integer_fragment(0, 10, 2, 3); }), "default 3 is not in [0, 10] step 2");
}

TEST(PermutationFragment, LehmerGenesAndPositionFeaturesRoundTripEveryOrder) {
  const FragmentPtr f = permutation_fragment(4);
  const std::vector<Value> all = f->values(View::full);
  ASSERT_EQ(all.size(), 24u);
  std::set<std::vector<std::int64_t>> codes;
  for (const Value& v : all) {
    const auto genes = encode(*f, v, View::search);
    codes.insert(genes);
    EXPECT_EQ(f->decode_genes(genes, View::search), v);
    EXPECT_EQ(f->decode_features(features(*f, v)), v);
  }
  EXPECT_EQ(codes.size(), 24u);
  EXPECT_EQ(f->neighbours(f->default_value(), 1).size(), 3u);  // adjacent swaps
  EXPECT_EQ(f->neighbours(f->default_value(), 3).size(), 6u);  // every swap
  Rng rng(3);
  for (int i = 0; i < 20; ++i) {
    EXPECT_TRUE(f->contains(f->crossover(f->draw(rng), f->draw(rng), rng), View::full));
    EXPECT_NE(f->mutate(f->default_value(), rng), f->default_value());
  }
  EXPECT_FALSE(f->contains(Value(Value::List{0, 0, 1, 2}), View::full));
  EXPECT_EQ(permutation_fragment(21)->cardinality(View::full), std::nullopt);  // 21! > 2^64
}

TEST(ListFragment, ElementViewsGenesAndFeatures) {
  const FragmentPtr f = list_fragment(enum_fragment({1, 2, 4}, {1, 2}), 3);
  EXPECT_EQ(f->default_value(), Value(Value::List{1, 1, 1}));
  EXPECT_EQ(f->cardinality(View::search), 8u);
  EXPECT_EQ(f->cardinality(View::full), 27u);
  const Value seeded(Value::List{4, 1, 2});
  EXPECT_TRUE(f->contains(seeded, View::full));
  EXPECT_FALSE(f->contains(seeded, View::search));
  EXPECT_EQ(f->decode_genes(encode(*f, seeded, View::full), View::full), seeded);
  EXPECT_EQ(f->decode_features(features(*f, seeded)), seeded);
  EXPECT_EQ(f->nearest_search(seeded), Value(Value::List{2, 1, 2}));
  for (const Value& n : f->neighbours(seeded, 1)) EXPECT_TRUE(f->contains(n, View::search));
  EXPECT_EQ(f->values(View::search).size(), 8u);
}

}  // namespace
}  // namespace cutune
