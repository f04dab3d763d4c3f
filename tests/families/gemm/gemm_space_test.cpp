// The GEMM space at the seed's shape (2048x4096x4096 bf16 on an H200), and a rebuild of the seed's
// bug: a normalizer that projects gated candidates onto the seed collapses a population to one.
#include "gemm/gemm_space.hpp"

#include <gtest/gtest.h>

#include <iostream>
#include <set>

#include "cutune/diversity.hpp"
#include "cutune/family.hpp"
#include "gemm/gemm_evaluator.hpp"
#include "printers.hpp"

namespace cutune {
namespace {

class GemmSpaceTest : public ::testing::Test {
 protected:
  std::unique_ptr<TuningSpace> ts = make_gemm_space();
  const Space& space = ts->space;
  Problem problem = gemm_problem(2048, 4096, 4096, "bf16");
  Device device = Device::h200();
};

TEST_F(GemmSpaceTest, PopulationOfThreeHundredStaysDistinctAndEverySearchKnobVaries) {
  const DiversityReport report = measure_diversity(*ts, problem, device, 300, 0);
  EXPECT_EQ(report.dropped, 0u);
  EXPECT_GE(report.distinct, 299u);
  // Without redraws too (the first 300 draws): see IndependentDrawsStayDistinct.
  EXPECT_GE(report.first_distinct, 299u);
  EXPECT_LE(report.draws, 320u);
  EXPECT_EQ(report.varying_knobs, report.searchable_knobs);
  EXPECT_EQ(report.searchable_knobs.size(), space.knob_count() - 1);  // all but fast_launch
  EXPECT_EQ(report.eligible_seeds, (std::vector<std::string>{"fast_launch", "large_square"}));
  EXPECT_TRUE(report.seed_errors.empty());
}

// The bar of the seed's fix: of 300 independent draws (search view, then normalize; no redraws),
// at least 299 distinct, at every seed. Before the fold repair and the wider stages / swizzle /
// split_k ranges, 298 at seed 0 and 292-298 at seeds 1..10.
TEST_F(GemmSpaceTest, IndependentDrawsStayDistinct) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Rng rng(seed);
    std::set<std::uint64_t> distinct;
    for (int i = 0; i < 300; ++i) {
      const Normalized n = space.normalize(space.draw(rng), problem, device);
      ASSERT_TRUE(n.config) << n.failure;
      distinct.insert(n.config->hash());
    }
    EXPECT_GE(distinct.size(), 299u) << "seed " << seed;
    EXPECT_EQ(measure_diversity(*ts, problem, device, 300, seed).first_distinct, distinct.size());
  }
}

// The shared-memory repair folds an overflowing (tile_k, stages) pair onto the pairs that fit,
// rather than lowering stages to the most that fit: the overflowing stage counts of one tile do
// not all land on one config, and pairs that fit stay as drawn.
TEST_F(GemmSpaceTest, SharedMemoryRepairSpreadsOverflowingDepths) {
  std::set<std::pair<std::int64_t, std::int64_t>> repaired;
  for (int stages = 2; stages <= 16; ++stages) {
    Config c =
        space.complete({{"tile_m", 128}, {"tile_n", 256}, {"tile_k", 128}, {"stages", stages}});
    const gemm::GemmConfig asked = to_gemm_config(c);
    const Normalized n = space.normalize(c, problem, device);
    ASSERT_TRUE(n.config);
    const gemm::GemmConfig got = to_gemm_config(*n.config);
    EXPECT_TRUE(gemm::violations(got, to_gemm_problem(problem)).empty());
    EXPECT_EQ(got.tile_n, 256);
    if (gemm::fits(asked, to_gemm_problem(problem))) {
      EXPECT_EQ(got.stages, stages);
      EXPECT_EQ(got.tile_k, 128);
    }
    repaired.insert({got.tile_k, got.stages});
  }
  // 128x256 fits 11 depths next to the epilogue's staging boxes: 2..8 stages of 32, 2..4 of 64,
  // 2 of 128. The 15 stage counts at tile_k = 128 reach all 11 (lowering stages alone reached
  // one: 2 stages of 128).
  EXPECT_EQ(repaired.size(), 11u);
}

// default_config per suite shape (bf16, H200), from the measurements in docs/perf.md.
TEST_F(GemmSpaceTest, DefaultConfigPerSuiteShape) {
  struct Case {
    std::int64_t m, n, k;
    std::string seed, config;
  };
  const std::string large = "128x256x64_s4_c1x1_coop_rn8_k1_pdl";
  const std::vector<Case> suite = {
      {2048, 4096, 4096, "fast_launch", large},
      {4096, 4096, 4096, "fast_launch", large},
      {8192, 8192, 8192, "wave_fit", "128x192x64_s4_c1x1_ping_rn8_k1"},
      {1024, 8192, 8192, "fast_launch", large},
      {128, 8192, 8192, "partial_wave", "64x128x128_s4_c2x1_ping_rn8_k1"},
      // Short k-loops: the same tiles without the cluster.
      {512, 2048, 2048, "partial_wave", "64x128x128_s4_c1x1_ping_rn8_k1"},
      {1024, 1024, 1024, "partial_wave", "64x128x128_s4_c1x1_ping_rn8_k1"},
      {8192, 8192, 1024, "small_k", "128x192x64_s5_c1x1_ping_rn8_k1"},
      {4096, 14336, 4096, "fast_launch", large},
  };
  for (const Case& c : suite) {
    const Problem p = gemm_problem(c.m, c.n, c.k);
    SCOPED_TRACE(p.canonical());
    const Config chosen = default_config(*ts, p, device);
    const std::string name = gemm::to_string(to_gemm_config(chosen));
    // Printed too, so that the default of each suite shape can be read off the test output.
    const std::string& seed = eligible_seeds(*ts, p, device).at(0)->name;
    std::cout << c.m << "x" << c.n << "x" << c.k << ": " << seed << " -> " << name << "\n";
    EXPECT_EQ(seed, c.seed);
    EXPECT_EQ(name, c.config);
    EXPECT_TRUE(gemm::violations(to_gemm_config(chosen), to_gemm_problem(p)).empty());
    std::vector<std::string> errors;
    seed_configs(*ts, p, device, &errors);
    EXPECT_TRUE(errors.empty());
  }
}

TEST_F(GemmSpaceTest, SeedOnlyFastLaunchComesOnlyFromItsEligibleSeed) {
  Rng rng(7);
  for (int i = 0; i < 2000; ++i) {
    const Config c = space.draw(rng);
    ASSERT_FALSE(c.get_bool("fast_launch"));
    ASSERT_FALSE(space.normalize(c, problem, device).config->get_bool("fast_launch"));
  }
  const std::vector<Config> seeds = seed_configs(*ts, problem, device);
  ASSERT_EQ(seeds.size(), 2u);
  EXPECT_TRUE(seeds[0].get_bool("fast_launch"));
  EXPECT_FALSE(seeds[1].get_bool("fast_launch"));
  const Config chosen = default_config(*ts, problem, device);
  EXPECT_TRUE(chosen.get_bool("fast_launch"));
  EXPECT_EQ(to_gemm_config(chosen).cluster_m, 1);
  // Not a multiple of 256: the fast_launch seed is not eligible and the default runs without it.
  EXPECT_FALSE(default_config(*ts, gemm_problem(2000, 4096, 4096), device).get_bool("fast_launch"));
}

TEST_F(GemmSpaceTest, PartialSeedOmittingTheSeedOnlyKnobEncodesAndDecodes) {
  const HeuristicSeed& large = ts->seeds[2];
  ASSERT_EQ(large.name, "large_square");
  const PartialConfig partial = large.propose(problem, device);
  ASSERT_FALSE(partial.contains("fast_launch"));
  const Config c = space.complete(partial);
  EXPECT_EQ(space.decode(space.encode(c, View::search), View::search), c);
  EXPECT_EQ(space.decode(space.encode(c, View::full), View::full), c);
  EXPECT_EQ(space.features(c).size(), space.feature_count());
  // And the seed that holds the seed-only value encodes in the full view and in features.
  const Config fast = space.complete(ts->seeds[0].propose(problem, device));
  EXPECT_EQ(space.decode(space.encode(fast, View::full), View::full), fast);
  EXPECT_THROW(space.encode(fast, View::search), ConfigError);
  EXPECT_EQ(space.features(fast).back(), 1.0);
}

TEST_F(GemmSpaceTest, GateRepairsAwayFromFastLaunchAndKeepsEveryOtherKnob) {
  PartialConfig outside = ts->seeds[0].propose(problem, device);
  outside["split_k"] = 2;  // leaves the envelope
  outside["stages"] = 3;
  const Config asked = space.complete(outside);
  const Normalized n = space.normalize(asked, problem, device);
  ASSERT_TRUE(n.config);
  EXPECT_FALSE(n.config->get_bool("fast_launch"));
  for (const std::string& knob : space.names()) {
    if (knob != "fast_launch") {
      EXPECT_EQ((*n.config)[knob], asked[knob]) << knob;
    }
  }
  ASSERT_EQ(n.fired.size(), 1u);
  EXPECT_TRUE(space.constraints()[n.fired[0]].is_gate);
}

TEST_F(GemmSpaceTest, EveryNormalizedConfigSatisfiesTheKernelsOwnRules) {
  for (const Problem& p : {problem, gemm_problem(128, 8192, 8192), gemm_problem(8192, 8192, 1024),
                           gemm_problem(64, 64, 128, "fp16")}) {
    Rng rng(11);
    for (int i = 0; i < 500; ++i) {
      const Normalized n = space.normalize(space.draw(rng), p, device);
      ASSERT_TRUE(n.config) << p.canonical() << ": " << n.failure;
      ASSERT_TRUE(gemm::violations(to_gemm_config(*n.config), to_gemm_problem(p)).empty());
    }
    EXPECT_NO_THROW(default_config(*ts, p, device)) << p.canonical();
  }
  EXPECT_TRUE(problem_errors(*ts, problem, device).empty());
}

TEST_F(GemmSpaceTest, ProblemsTheKernelCannotRunAreNamedOnce) {
  EXPECT_EQ(problem_errors(*ts, gemm_problem(64, 100, 128), device),
            (std::vector<std::string>{"n = 100 is not a multiple of 8"}));
  EXPECT_EQ(problem_errors(*ts, gemm_problem(64, 64, 64, "fp8"), device),
            (std::vector<std::string>{"gemm problem dtype 'fp8' is not bf16 or fp16"}));
  EXPECT_EQ(problem_errors(*ts, Problem::parse("m=64,n=64"), device).size(), 1u);
}

TEST_F(GemmSpaceTest, ShapeSeedsMatchTheirShapes) {
  auto names_on = [&](const Problem& p, const Device& d) {
    std::vector<std::string> out;
    for (const HeuristicSeed* s : eligible_seeds(*ts, p, d)) out.push_back(s->name);
    return out;
  };
  auto names = [&](const Problem& p) { return names_on(p, device); };
  // 64 tiles of 128x128 on 132 SMs, short of one wave: both half-tile seeds, the 64-row one first.
  EXPECT_EQ(names(gemm_problem(128, 8192, 8192)),
            (std::vector<std::string>{"partial_wave", "partial_wave_narrow"}));
  // fast_launch needs k >= 2048; small_k outranks large_square.
  EXPECT_EQ(names(gemm_problem(8192, 8192, 1024)),
            (std::vector<std::string>{"small_k", "large_square"}));
  EXPECT_EQ(names(gemm_problem(8192, 8192, 2048)),
            (std::vector<std::string>{"wave_fit", "fast_launch", "large_square"}));
  // wave_fit: 128x192 tiles fill their waves at least as well as 128x256 tiles (8192^2: 2752 tiles
  // in 21 waves of 132, 99.3 %, against 2048 in 16, 97.0 %; 6144^2: 97.0 % each), not at 4096^2
  // (704 in 6 waves, 88.9 %, against 512 in 4, 97.0 %).
  EXPECT_EQ(names(gemm_problem(6144, 6144, 4096)).at(0), "wave_fit");
  EXPECT_EQ(names(gemm_problem(4096, 4096, 4096)).at(0), "fast_launch");
  EXPECT_EQ(names(gemm_problem(4096, 14336, 4096)).at(0), "fast_launch");
  // m = 256: 128 tiles of 128x128, still short of 132 SMs; fast_launch joins the population.
  EXPECT_EQ(names(gemm_problem(256, 8192, 8192)),
            (std::vector<std::string>{"partial_wave", "partial_wave_narrow", "fast_launch"}));
  // 132 tiles of 128x128 make a wave: no half-tile seed (and n is no multiple of 256); 96 tiles of
  // 128x192 fill 73 % of one wave, 72 of 128x256 55 %, so wave_fit leads.
  EXPECT_EQ(names(gemm_problem(128 * 12, 128 * 11, 8192)),
            (std::vector<std::string>{"wave_fit", "large_square"}));
  // The rule reads the device's SM count: on a device with 64 SMs the 64 tiles fill a wave, so no
  // half-tile seed; the short side (m < 1024) makes it residue_fit's shape instead.
  Device small = device;
  small.sm_count = 64;
  EXPECT_EQ(names_on(gemm_problem(128, 8192, 8192), small),
            (std::vector<std::string>{"residue_fit"}));
  // Ragged sides of at least 1024: the large tile in 2x2 clusters leads, above wave_fit and small_k
  // (k = 1000); aligned sides never take it.
  const auto chosen = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    return gemm::to_string(to_gemm_config(default_config(*ts, gemm_problem(m, n, k), device)));
  };
  EXPECT_EQ(names(gemm_problem(3000, 5000, 2000)).at(0), "ragged_cluster");
  EXPECT_EQ(names(gemm_problem(2500, 3000, 1000)).at(0), "ragged_cluster");
  EXPECT_EQ(chosen(3000, 5000, 2000), "128x256x64_s4_c2x2_coop_rn8_k1");
  EXPECT_EQ(names(gemm_problem(2048, 4096, 4040)).at(0), "fast_launch");
  // 1000x2056x1064: 136 tiles of 128x128, no side of 1024 and k > 1024: only residue_fit, in 2x1
  // clusters on its ragged sides; an aligned short side keeps one CTA per cluster.
  EXPECT_EQ(names(gemm_problem(1000, 2056, 1064)), (std::vector<std::string>{"residue_fit"}));
  EXPECT_EQ(chosen(1000, 2056, 1064), "128x192x64_s4_c2x1_ping_rn8_k1");
  EXPECT_EQ(chosen(768, 4096, 4096), "128x192x64_s4_c1x1_ping_rn8_k1");
  // M <= 64 takes the half tiles whatever N: 224 tiles of 128x128 at 16x28672.
  EXPECT_EQ(names(gemm_problem(16, 28672, 4096)).at(0), "partial_wave");
  // K is split only while the grid stays within one wave: 16 CTAs of 64x128 at 128x1024 split
  // eight ways (128 units), and split_k_depth lowers that when K is too shallow for it (at
  // K = 512, slices of at least two 128-deep k-steps: two).
  const auto split = [&](std::int64_t n, std::int64_t k) {
    return default_config(*ts, gemm_problem(128, n, k), device).get_int("split_k");
  };
  EXPECT_EQ(split(8192, 8192), 1);
  EXPECT_EQ(split(1024, 8192), 8);
  EXPECT_EQ(split(2048, 8192), 4);
  EXPECT_EQ(split(1024, 512), 2);
  const Config narrow = seed_configs(*ts, gemm_problem(128, 8192, 8192), device).at(1);
  EXPECT_EQ(gemm::to_string(to_gemm_config(narrow)), "128x64x64_s8_c1x1_coop_rn8_k1");
}

// The seed's bug, rebuilt: the fast-launch flag pinned to true in the search view, and a
// promotion normalizer that overwrites every candidate asking for it with the fast_launch seed.
TEST_F(GemmSpaceTest, ProjectingGatedCandidatesOntoTheSeedCollapsesThePopulation) {
  TuningSpace broken;
  for (std::size_t k = 0; k < space.knob_count(); ++k) {
    const std::string& name = space.names()[k];
    broken.space.add(
        name, name == "fast_launch" ? boolean_fragment(true, {true}) : space.fragment_ptr(k));
  }
  const PartialConfig seed = ts->seeds[0].propose(problem, device);
  broken.space.constrain({
      .name = "promote_fast_launch",
      .holds =
          [&](const Config& c, const Problem&, const Device&) {
            return !c.get_bool("fast_launch") || c == broken.space.complete(seed);
          },
      .repair = [&](Config& c, const Problem&, const Device&) { c = broken.space.complete(seed); },
      .is_gate = true,
  });
  for (const Constraint& c : space.constraints()) broken.space.constrain(c);

  const DiversityReport collapsed = measure_diversity(broken, problem, device, 300, 0);
  EXPECT_EQ(collapsed.first_distinct, 1u);
  EXPECT_EQ(collapsed.distinct, 1u);  // 64 redraws per member cannot find a second config
  EXPECT_EQ(collapsed.draws, 300u * 64);
  EXPECT_EQ(collapsed.varying_knobs.size(), 0u);
  EXPECT_EQ(collapsed.constraint_trips[0], collapsed.draws);

  const DiversityReport ours = measure_diversity(*ts, problem, device, 300, 0);
  EXPECT_GE(ours.distinct, 299u);
}

TEST(FamilyTable, FindsTheGemmFamilyOnceAndNamesTheKnownOnes) {
  const Family* gemm = find_family("gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm, find_family("gemm"));
  EXPECT_EQ(gemm->tuning, find_family("gemm")->tuning);
  EXPECT_EQ(find_family("gemv"), nullptr);
  EXPECT_EQ(family_names(), (std::vector<std::string>{"gemm", "gemm_fp8"}));
  EXPECT_EQ(gemm->example_problem.canonical(), "dtype=bf16,k=4096,m=2048,n=4096");
  // The key's version is the hash of what nvcc compiles, as the compiler reports it.
  EXPECT_EQ(gemm->version, gemm_source_version());
  EXPECT_EQ(gemm->key(gemm->resolved(Problem::parse("m=8,n=16,k=32")), "dev", "tc").problem,
            "dtype=bf16,k=32,m=8,n=16");
}

TEST(GemmProblem, UnsupportedArgumentsAreNamed) {
  EXPECT_THROW(to_gemm_problem(gemm_problem(1, 1, 1, "fp8")), std::invalid_argument);
  EXPECT_THROW(to_gemm_problem(Problem::parse("m=1,n=1")), std::out_of_range);
  EXPECT_EQ(to_gemm_problem(Problem::parse("m=1,n=2,k=3,b_layout=n_by_k")).b_layout,
            gemm::BLayout::n_by_k);
}

}  // namespace
}  // namespace cutune
