// Properties every space must have, checked over randomly generated spaces: every draw is legal,
// genes and features round-trip, normalization is idempotent, defaults are legal in both views.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cutune/space.hpp"
#include "printers.hpp"

namespace cutune {
namespace {

constexpr int kSpaces = 150;
constexpr int kDrawsPerSpace = 40;

// A random subset (possibly all) of `values`, never empty.
std::vector<Value> random_subset(const std::vector<Value>& values, Rng& rng) {
  std::vector<Value> subset;
  for (const Value& v : values) {
    if (rng() % 3 != 0) subset.push_back(v);
  }
  if (subset.empty()) subset.push_back(values[rng() % values.size()]);
  return subset;
}

FragmentPtr random_fragment(Rng& rng, int depth = 0) {
  switch (rng() % (depth == 0 ? 6 : 4)) {
    case 0: {
      std::vector<Value> choices = {1, 3, "x", true, 2.5, Value(Value::List{1, 2})};
      choices.resize(1 + rng() % choices.size());
      const std::vector<Value> search = random_subset(choices, rng);
      return enum_fragment(choices, search, search[rng() % search.size()]);
    }
    case 1: {
      const bool both = rng() % 2 == 0;
      const bool only = rng() % 2 == 0;
      return boolean_fragment(only, both ? std::vector<bool>{} : std::vector<bool>{only});
    }
    case 2: {
      const std::int64_t lo = std::int64_t{1} << (rng() % 4);
      const std::int64_t hi = lo << (rng() % 5);
      const std::int64_t search_hi = std::max(lo, hi >> (rng() % 2));
      return power_of_two_fragment(lo, hi, lo, lo, search_hi);
    }
    case 3: {
      const std::int64_t lo = static_cast<std::int64_t>(rng() % 10) - 5;
      const std::int64_t step = 1 + static_cast<std::int64_t>(rng() % 3);
      const std::int64_t hi = lo + step * static_cast<std::int64_t>(rng() % 6);
      const std::int64_t search_lo = lo + step * static_cast<std::int64_t>(rng() % 2);
      return integer_fragment(lo, hi, step, std::nullopt, std::min(search_lo, hi), hi);
    }
    case 4:
      return permutation_fragment(1 + static_cast<int>(rng() % 4));
    default:
      return list_fragment(random_fragment(rng, depth + 1), 1 + static_cast<int>(rng() % 3));
  }
}

std::int64_t integer_sum(const Config& c) {
  std::int64_t sum = 0;
  for (const Value& v : c.values()) {
    if (v.is_int()) sum += v.as_int();
  }
  return sum;
}

// Knobs, plus a budget over the integer knobs whose repair lowers one knob a step at a time, and
// a gate that moves each seed-only value back to the search view when a coin knob asks.
void build_random_space(Space& space, Rng& rng) {
  const int knobs = 1 + static_cast<int>(rng() % 6);
  for (int k = 0; k < knobs; ++k) space.add(fmt::format("k{}", k), random_fragment(rng));
  const std::int64_t budget = static_cast<std::int64_t>(rng() % 40);
  space.constrain({
      .name = "integer_budget",
      .holds = [budget](const Config& c, const Problem&,
                        const Device&) { return integer_sum(c) <= budget; },
      .repair =
          [&space, budget](Config& c, const Problem&, const Device&) {
            for (std::size_t k = 0; k < c.size() && integer_sum(c) > budget; ++k) {
              for (const Value& lower : space.fragment(k).neighbours(c.at(k), 1)) {
                if (lower.is_int() && c.at(k).is_int() && lower.as_int() < c.at(k).as_int()) {
                  c.set(k, lower);
                  break;
                }
              }
            }
          },
  });
  space.constrain({
      .name = "seed_only_gate",
      .holds =
          [&space](const Config& c, const Problem&, const Device&) {
            for (std::size_t k = 0; k < c.size(); ++k) {
              if (!space.fragment(k).contains(c.at(k), View::search)) return false;
            }
            return true;
          },
      .repair =
          [&space](Config& c, const Problem&, const Device&) {
            for (std::size_t k = 0; k < c.size(); ++k)
              c.set(k, space.fragment(k).nearest_search(c.at(k)));
          },
      .is_gate = true,
  });
}

TEST(SpaceProperties, HoldOverRandomSpaces) {
  Rng rng(2026);
  const Problem problem;
  const Device device;
  int normalized = 0;
  for (int s = 0; s < kSpaces; ++s) {
    Space space;
    build_random_space(space, rng);
    // (Built with fmt: GCC 12 at -O3 reports a false -Wrestrict on chained std::string +.)
    SCOPED_TRACE(fmt::format("space {}: {}", s, space.default_config().to_string()));

    const Config defaults = space.default_config();
    for (std::size_t k = 0; k < space.knob_count(); ++k) {
      EXPECT_TRUE(space.fragment(k).contains(defaults.at(k), View::search));
      EXPECT_TRUE(space.fragment(k).contains(defaults.at(k), View::full));
    }
    for (int d = 0; d < kDrawsPerSpace; ++d) {
      const Config c = space.draw(rng);
      for (std::size_t k = 0; k < space.knob_count(); ++k) {
        ASSERT_TRUE(space.fragment(k).contains(c.at(k), View::search)) << c.to_string();
      }
      for (View view : {View::search, View::full}) {
        const std::vector<std::int64_t> genes = space.encode(c, view);
        const std::vector<std::int64_t> bounds = space.gene_bounds(view);
        ASSERT_EQ(genes.size(), bounds.size());
        for (std::size_t g = 0; g < genes.size(); ++g) {
          ASSERT_TRUE(genes[g] >= 0 && genes[g] < bounds[g]);
        }
        ASSERT_EQ(space.decode(genes, view), c);
      }
      const std::vector<double> features = space.features(c);
      ASSERT_EQ(features.size(), space.feature_count());
      for (std::size_t k = 0; k < space.knob_count(); ++k) {
        std::vector<double> own(space.fragment(k).feature_count());
        space.fragment(k).encode_features(c.at(k), own);
        ASSERT_EQ(space.fragment(k).decode_features(own), c.at(k));
      }
      ASSERT_EQ(space.from_json(c.to_json()), c);

      const Normalized once = space.normalize(c, problem, device);
      if (once.config) {
        ++normalized;
        ASSERT_TRUE(space.legal(*once.config, problem, device));
        const Normalized twice = space.normalize(*once.config, problem, device);
        ASSERT_EQ(twice.config, once.config);
        ASSERT_TRUE(twice.fired.empty());
      } else {
        ASSERT_FALSE(once.failure.empty());
      }

      for (const Config& n : space.neighbours(c, 2)) {
        for (std::size_t k = 0; k < space.knob_count(); ++k) {
          ASSERT_TRUE(space.fragment(k).contains(n.at(k), View::search)) << n.to_string();
        }
      }
      const Config mutated = space.mutate(c, rng, 0.3);
      const Config child = space.crossover(c, space.draw(rng), rng);
      for (std::size_t k = 0; k < space.knob_count(); ++k) {
        ASSERT_TRUE(space.fragment(k).contains(mutated.at(k), View::search));
        ASSERT_TRUE(space.fragment(k).contains(child.at(k), View::search));
      }
    }
    // A full-view config (seed-only values included) round-trips through the full view.
    if (space.size(View::full) <= 4096u) {
      for (const Config& c : space.enumerate(View::full, 4096)) {
        ASSERT_EQ(space.decode(space.encode(c, View::full), View::full), c);
        const Normalized n = space.normalize(c, problem, device);
        if (n.config) {
          ASSERT_EQ(space.normalize(*n.config, problem, device).config, n.config);
        }
      }
    }
  }
  EXPECT_GT(normalized, kSpaces * kDrawsPerSpace / 4);  // the budget leaves room for most
}

}  // namespace
}  // namespace cutune
