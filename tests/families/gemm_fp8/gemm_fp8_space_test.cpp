// The fp8 GEMM space on an H200: every config it draws and repairs satisfies the kernel's own
// rules in each scaling, the seeds propose by shape and scaling, and the family's problems
// resolve as the store keys them.
#include "gemm_fp8/gemm_fp8_space.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "cutune/diversity.hpp"
#include "cutune/family.hpp"
#include "gemm_fp8/gemm_fp8_compiler.hpp"

namespace cutune {
namespace {

class Fp8SpaceTest : public ::testing::Test {
 protected:
  std::unique_ptr<TuningSpace> ts = make_gemm_fp8_space();
  const Space& space = ts->space;
  Device device = Device::h200();

  std::string default_name(const Problem& p) {
    return gemm_fp8::to_string(to_fp8_config(default_config(*ts, p, device)));
  }
  // `count` configs drawn with `seed` and normalized for `p`.
  std::vector<gemm_fp8::Fp8Config> drawn(const Problem& p, std::uint64_t seed, int count) {
    Rng rng(seed);
    std::vector<gemm_fp8::Fp8Config> out;
    for (int i = 0; i < count; ++i) {
      out.push_back(to_fp8_config(*space.normalize(space.draw(rng), p, device).config));
    }
    return out;
  }
  std::vector<std::string> seeds(const Problem& p) {
    std::vector<std::string> out;
    for (const HeuristicSeed* s : eligible_seeds(*ts, p, device)) out.push_back(s->name);
    return out;
  }
};

TEST_F(Fp8SpaceTest, EveryNormalizedConfigSatisfiesTheKernelsOwnRules) {
  for (const char* scaling : {"tensor", "row_col", "block"}) {
    for (const Problem& p :
         {gemm_fp8_problem(4096, 4096, 4096, scaling), gemm_fp8_problem(128, 7168, 2048, scaling),
          gemm_fp8_problem(64, 256, 512, scaling)}) {
      Rng rng(7);
      std::set<std::uint64_t> distinct;
      for (int i = 0; i < 400; ++i) {
        const Normalized n = space.normalize(space.draw(rng), p, device);
        ASSERT_TRUE(n.config) << p.canonical() << ": " << n.failure;
        ASSERT_EQ(gemm::joined(gemm_fp8::violations(to_fp8_config(*n.config), to_fp8_problem(p))),
                  "")
            << p.canonical() << " " << n.config->to_string();
        distinct.insert(n.config->hash());
      }
      // Block scaling leaves two tiles (128x128 cooperative, 64x128 ping-pong) and two schedules:
      // about 320 configs in all, fewer where M is one tile; the others several thousand.
      EXPECT_GE(distinct.size(), std::string(scaling) == "block" ? 100u : 290u) << p.canonical();
      for (const Config& seed : seed_configs(*ts, p, device)) {
        EXPECT_TRUE(gemm_fp8::violations(to_fp8_config(seed), to_fp8_problem(p)).empty())
            << seed.to_string();
      }
    }
  }
}

TEST_F(Fp8SpaceTest, BlockScalingNeverDrawsAFastAccumulationScheduleOrANarrowTile) {
  for (const gemm_fp8::Fp8Config& c : drawn(gemm_fp8_problem(4096, 7168, 2048, "block"), 3, 300)) {
    EXPECT_FALSE(gemm_fp8::rules::is_fast_accum(static_cast<int>(c.schedule)));
    EXPECT_EQ(c.tile_n % 128, 0);
    EXPECT_EQ(c.promotion, 1);  // every k-block is scaled apart
    EXPECT_FALSE(c.swap_ab);
    EXPECT_GE(c.tile_m, 64);
  }
}

// Tiles of D shorter than 64 rows are drawn with swapped operands (the repair's way to an MMA M
// side of 64 or more), and swapped tiles keep tile_n on that side.
TEST_F(Fp8SpaceTest, ShortTilesAreDrawnWithSwappedOperands) {
  std::set<int> short_rows;
  for (const gemm_fp8::Fp8Config& c : drawn(gemm_fp8_problem(8, 4096, 14336, "tensor"), 9, 300)) {
    if (c.tile_m < 64) {
      EXPECT_TRUE(c.swap_ab) << gemm_fp8::to_string(c);
      short_rows.insert(c.tile_m);
    }
    if (c.swap_ab) {
      EXPECT_TRUE(gemm_fp8::rules::one_of(c.tile_n, gemm_fp8::rules::kMmaM));
    }
    if (c.stream_k) {
      EXPECT_FALSE(gemm_fp8::rules::is_pingpong(static_cast<int>(c.schedule)));
    }
  }
  EXPECT_EQ(short_rows, (std::set<int>{8, 16, 32}));
}

TEST_F(Fp8SpaceTest, RarePromotionIsDrawnOnlyWithAScheduleThatPromotes) {
  std::set<int> accurate_intervals;
  for (const gemm_fp8::Fp8Config& c :
       drawn(gemm_fp8_problem(4096, 7168, 2048, "row_col"), 5, 300)) {
    if (gemm_fp8::rules::is_fast_accum(static_cast<int>(c.schedule))) {
      EXPECT_EQ(c.promotion, 1);
    } else {
      accurate_intervals.insert(c.promotion);
    }
  }
  EXPECT_EQ(accurate_intervals, (std::set<int>{1, 2, 4}));
}

TEST_F(Fp8SpaceTest, DefaultRuleBySizeAndScaling) {
  // Past one wave, 128x128 tiles swizzled in stripes of eight where that pads the grid by at most
  // 5 %: 4096^2 (32 x 32 tiles) and 8192^2, the deepest pipeline that fits each scaling; under
  // tensor and row x column scales a promotion every second k-block (block scaling scales each).
  EXPECT_EQ(default_name(gemm_fp8_problem(4096, 4096, 4096)), "128x128x128_s6_c1x1_coop_rn8_p2");
  EXPECT_EQ(default_name(gemm_fp8_problem(8192, 8192, 8192, "row_col")),
            "128x128x128_s6_c1x1_coop_rn8_p2");
  EXPECT_EQ(default_name(gemm_fp8_problem(8192, 8192, 8192, "block")),
            "128x128x128_s5_c1x1_coop_rn8");
  // Where stripes of eight pad the 128x128 grid by more than 5 %, the tile of the best wave
  // efficiency in the widest stripes that pad its own grid little: 36 columns of 128 pad to 40
  // (11 %), 24 of 192 (16 x 24 tiles) not at all; 28 columns pad to 32 in eights, not in fours,
  // and 128x192 tiles fill the last wave worse there; 17 columns pad to 24 and 20: unswizzled.
  EXPECT_EQ(default_name(gemm_fp8_problem(2048, 4608, 3584)), "128x192x128_s4_c1x1_coop_rn8_p2");
  EXPECT_EQ(default_name(gemm_fp8_problem(2048, 3584, 18944, "row_col")),
            "128x128x128_s6_c1x1_coop_rn4_p2");
  EXPECT_EQ(default_name(gemm_fp8_problem(4096, 2112, 7168, "block")),
            "128x128x128_s5_c1x1_coop_rn1");
  // A grid just past one wave at deep K (136 tiles on 132 SMs, 56 k-blocks): the stream-K
  // scheduler; at 12 k-blocks (192 tiles), and on 544 tiles (the last of five waves 12 % full),
  // the persistent one.
  EXPECT_EQ(default_name(gemm_fp8_problem(1024, 2112, 7168, "block")),
            "128x128x128_s5_c1x1_coop_rn1_sk");
  EXPECT_EQ(default_name(gemm_fp8_problem(1024, 2112, 7168)), "128x128x128_s6_c1x1_coop_rn1_p2_sk");
  EXPECT_EQ(default_name(gemm_fp8_problem(128, 24576, 1536, "block")),
            "128x128x128_s5_c1x1_coop_rn1");
  // At most half a wave of 128x128 tiles past decoding M: 128x64 cooperative tiles (not under
  // block scaling, whose tiles are whole 128-column scale blocks).
  EXPECT_EQ(default_name(gemm_fp8_problem(512, 2048, 2048)), "128x64x128_s8_c1x1_coop_rn1_p2");
  EXPECT_EQ(default_name(gemm_fp8_problem(128, 8192, 8192, "row_col")),
            "128x64x128_s8_c1x1_coop_rn1_p2");
  EXPECT_EQ(default_name(gemm_fp8_problem(512, 2048, 2048, "block")),
            "64x128x128_s7_c1x1_ping_rn1");
  // Up to 32 rows under tensor and row x column scales: the swapped decoding tile of 8, 16 or 32
  // rows of D against 64 columns, 16 stages.
  EXPECT_EQ(default_name(gemm_fp8_problem(8, 4096, 14336)), "8x64x128_s16_c1x1_ping_rn1_p2_swap");
  EXPECT_EQ(default_name(gemm_fp8_problem(1, 4096, 4096, "row_col")),
            "8x64x128_s16_c1x1_ping_rn1_p2_swap");
  EXPECT_EQ(default_name(gemm_fp8_problem(16, 7168, 2048)), "16x64x128_s16_c1x1_ping_rn1_p2_swap");
  EXPECT_EQ(default_name(gemm_fp8_problem(32, 6144, 4096)), "32x64x128_s16_c1x1_ping_rn1_p2_swap");
  // Past 32 rows, and under block scaling: 64-row ping-pong tiles for decoding M and grids short
  // of a wave, 64x64 where those occupy at most half the SMs (4096 columns: 64 tiles of 132),
  // else 64x128.
  EXPECT_EQ(default_name(gemm_fp8_problem(64, 4096, 4096)), "64x64x128_s12_c1x1_ping_rn1_p2");
  EXPECT_EQ(default_name(gemm_fp8_problem(64, 6144, 4096)), "64x128x128_s8_c1x1_ping_rn1_p2");
  EXPECT_EQ(default_name(gemm_fp8_problem(128, 2112, 7168, "block")),
            "64x128x128_s7_c1x1_ping_rn1");
  EXPECT_EQ(default_name(gemm_fp8_problem(8, 4096, 7168, "block")), "64x128x128_s7_c1x1_ping_rn1");
}

TEST_F(Fp8SpaceTest, FastAccumulationIsSeededButNeverTheDefault) {
  EXPECT_EQ(seeds(gemm_fp8_problem(4096, 4096, 4096)),
            (std::vector<std::string>{"wave_tile", "fast_accum"}));
  EXPECT_EQ(seeds(gemm_fp8_problem(64, 8192, 4096, "row_col")),
            (std::vector<std::string>{"short_tile", "wave_tile", "fast_accum"}));
  EXPECT_EQ(seeds(gemm_fp8_problem(64, 4096, 4096, "row_col")),
            (std::vector<std::string>{"decode_tile", "short_tile", "wave_tile", "fast_accum"}));
  // Up to 32 rows the swapped decoding tile leads, and the 64-row tiles stay in the population.
  EXPECT_EQ(seeds(gemm_fp8_problem(16, 4096, 4096)),
            (std::vector<std::string>{"swapped_decode", "decode_tile", "short_tile", "wave_tile",
                                      "fast_accum"}));
  EXPECT_EQ(seeds(gemm_fp8_problem(4096, 4096, 4096, "block")),
            (std::vector<std::string>{"wave_tile"}));
  const auto configs = seed_configs(*ts, gemm_fp8_problem(4096, 4096, 4096), device);
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(gemm_fp8::to_string(to_fp8_config(configs[1])), "128x256x128_s4_c1x1_coopfa_rn1");
}

// Past kFastAccumMaxK fast accumulation leaves the tuner's reach (its error passes the family's
// tolerance there), as a seed and as a draw; at that depth and below it stays in both.
TEST_F(Fp8SpaceTest, DeepKDrawsAndSeedsOnlyAccurateAccumulation) {
  const int deepest = gemm_fp8::rules::kFastAccumMaxK;
  for (const gemm_fp8::Fp8Config& c : drawn(gemm_fp8_problem(2048, 3584, deepest + 128), 11, 300)) {
    EXPECT_FALSE(gemm_fp8::rules::is_fast_accum(static_cast<int>(c.schedule)))
        << gemm_fp8::to_string(c);
  }
  EXPECT_EQ(seeds(gemm_fp8_problem(2048, 3584, 18944)), (std::vector<std::string>{"wave_tile"}));
  int fast = 0;
  for (const gemm_fp8::Fp8Config& c : drawn(gemm_fp8_problem(2048, 3584, deepest), 11, 300)) {
    fast += gemm_fp8::rules::is_fast_accum(static_cast<int>(c.schedule)) ? 1 : 0;
  }
  EXPECT_GT(fast, 30);
  EXPECT_EQ(seeds(gemm_fp8_problem(2048, 3584, deepest)),
            (std::vector<std::string>{"wave_tile", "fast_accum"}));
}

TEST_F(Fp8SpaceTest, ProblemsResolveAsTheStoreKeysThem) {
  EXPECT_EQ(
      resolve_gemm_fp8_problem(Problem::parse("m=16,n=7168,k=2048,timing=flushed")).canonical(),
      "k=2048,m=16,n=7168,scaling=tensor");
  EXPECT_EQ(resolve_gemm_fp8_problem(Problem::parse("m=16,n=7168,k=2048,scaling=block,"
                                                    "timing=back_to_back"))
                .canonical(),
            "k=2048,m=16,n=7168,scaling=block,timing=back_to_back");
  EXPECT_THROW(resolve_gemm_fp8_problem(Problem::parse("m=16,n=7168,k=2000,scaling=block")),
               std::invalid_argument);
  EXPECT_THROW(resolve_gemm_fp8_problem(Problem::parse("m=16,n=7168,k=2048,scaling=mx")),
               std::invalid_argument);
  // e4m3 operands stay unnamed, as tunes before e5m2 keyed them; e5m2 is named per side.
  EXPECT_EQ(resolve_gemm_fp8_problem(Problem::parse("m=16,n=7168,k=2048,a_format=e4m3,"
                                                    "b_format=e5m2"))
                .canonical(),
            "b_format=e5m2,k=2048,m=16,n=7168,scaling=tensor");
  EXPECT_EQ(to_fp8_problem(Problem::parse("m=16,n=7168,k=2048,a_format=e5m2")).a_format,
            gemm_fp8::Format::e5m2);
  try {
    resolve_gemm_fp8_problem(Problem::parse("m=16,n=7168,k=2048,a_format=e4m3fn"));
    ADD_FAILURE() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("a_format 'e4m3fn' is not e4m3 or e5m2"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(problem_errors(*ts, Problem::parse("m=64,n=64"), device).size(), 1u);
}

TEST(Fp8FamilyTable, TheFamilyIsBuiltInWithItsSourceVersion) {
  const Family* fp8 = find_family("gemm_fp8");
  ASSERT_NE(fp8, nullptr);
  EXPECT_EQ(fp8->version, gemm_fp8_source_version());
  EXPECT_EQ(fp8->example_problem.canonical(), "k=4096,m=2048,n=4096,scaling=tensor");
  EXPECT_EQ(fp8->reference_name, "cuBLASLt fp8");
  EXPECT_EQ(fp8->flop_count(fp8->example_problem), 2.0 * 2048 * 4096 * 4096);
}

}  // namespace
}  // namespace cutune
