#include "gemm/gemm_problem.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace cutune::gemm {
namespace {

const GemmProblem kSquare{4096, 4096, 4096, DType::bf16, BLayout::k_by_n};

bool mentions(const std::vector<std::string>& reasons, const std::string& text) {
  return std::any_of(reasons.begin(), reasons.end(), [&](const std::string& reason) {
    return reason.find(text) != std::string::npos;
  });
}

TEST(GemmProblem, DefaultConfigFitsTheSuiteShapes) {
  for (const GemmProblem& problem :
       {kSquare, GemmProblem{2048, 4096, 4096}, GemmProblem{128, 8192, 8192},
        GemmProblem{4096, 14336, 4096, DType::fp16, BLayout::n_by_k}}) {
    EXPECT_TRUE(violations(GemmConfig{}, problem).empty()) << problem.m;
  }
}

TEST(GemmProblem, SharedMemoryCountsStagesBarriersAlignmentAndEpilogue) {
  // 128x256x64 bf16: 48 KiB of A and B per stage, two 8-byte barriers, 1 KiB alignment slack, and
  // two 2 KiB epilogue staging boxes for each of the 8 consumer warps.
  EXPECT_EQ(epilogue_buffers(GemmConfig{}), 2);
  EXPECT_EQ(shared_memory_bytes(GemmConfig{}), 1024 + 4 * (49152 + 16) + 2 * 8 * 2048);
  // Split-K writes fp32 slices from registers: no staging.
  GemmConfig split;
  split.split_k = 2;
  EXPECT_EQ(epilogue_buffers(split), 0);
  EXPECT_EQ(shared_memory_bytes(split), 1024 + 4 * (49152 + 16));
  // 128x128x32 stages are 16400 bytes: 13 leave room for one box per warp but not two, and 14
  // fit on their own (230624 bytes) but not with the epilogue's one box per warp, so 14 is illegal.
  GemmConfig tight;
  tight.tile_n = 128;
  tight.tile_k = 32;
  tight.stages = 13;
  EXPECT_EQ(epilogue_buffers(tight), 1);
  EXPECT_TRUE(violations(tight, kSquare).empty());
  tight.stages = 14;
  EXPECT_TRUE(mentions(violations(tight, kSquare), "stages = 14 needs"));
  GemmConfig five_stages;
  five_stages.stages = 5;
  EXPECT_GT(shared_memory_bytes(five_stages), kSm90SharedMemoryPerBlock);
  EXPECT_TRUE(mentions(violations(five_stages, kSquare), "stages = 5 needs"));
  EXPECT_TRUE(violations(five_stages, kSquare, 300000).empty());
}

TEST(GemmProblem, AccumulatorsDependOnSchedule) {
  GemmConfig config;  // 128x256 cooperative: each warpgroup holds 64x256
  EXPECT_EQ(accumulators_per_thread(config), 128);
  config.schedule = Schedule::pingpong;  // one warpgroup holds all 128x256
  EXPECT_EQ(accumulators_per_thread(config), 256);
  EXPECT_TRUE(mentions(violations(config, kSquare), "fp32 accumulators per consumer thread"));
}

TEST(GemmProblem, IllegalKnobsAreNamedWithTheirLegalSets) {
  GemmConfig config;
  config.tile_n = 96;
  config.split_k = 9;
  config.swizzle = 32;
  const auto reasons = violations(config, kSquare);
  EXPECT_TRUE(mentions(reasons, "tile_n = 96 is not in {64, 128, 192, 256}"));
  EXPECT_TRUE(mentions(reasons, "split_k = 9 is not in 1..8"));
  EXPECT_TRUE(mentions(reasons, "swizzle = 32 is not in 1..16"));
  // Any slice count and group width in range is the kernel's own (it divides by both).
  GemmConfig odd;
  odd.split_k = 3;
  odd.swizzle = 5;
  odd.tile_n = 64;
  odd.tile_k = 32;
  odd.stages = 16;
  EXPECT_TRUE(violations(odd, kSquare).empty());
}

TEST(GemmProblem, CooperativeNeedsTwoWarpgroupsOfRows) {
  GemmConfig config;
  config.tile_m = 64;
  config.stages = 5;
  EXPECT_TRUE(mentions(violations(config, kSquare), "cooperative needs tile_m >= 128"));
  config.schedule = Schedule::pingpong;
  EXPECT_TRUE(violations(config, kSquare).empty());
}

TEST(GemmProblem, FastLaunchIsGatedToItsEnvelope) {
  GemmConfig config;
  config.fast_launch = true;
  EXPECT_TRUE(fits(config, kSquare));
  config.split_k = 2;
  EXPECT_TRUE(mentions(violations(config, kSquare), "fast_launch needs"));
  config.split_k = 1;
  config.cluster_m = 1;  // the large-tile seed's cluster
  EXPECT_TRUE(fits(config, kSquare));
  config.cluster_n = 2;
  EXPECT_TRUE(mentions(violations(config, kSquare), "fast_launch needs"));
  config.cluster_n = 1;
  config.schedule = Schedule::pingpong;
  EXPECT_TRUE(mentions(violations(config, kSquare), "fast_launch needs"));
}

TEST(GemmProblem, ProblemShapeRules) {
  EXPECT_TRUE(mentions(violations(GemmConfig{}, GemmProblem{64, 64, 100}), "k = 100"));
  EXPECT_TRUE(mentions(violations(GemmConfig{}, GemmProblem{64, 36, 64}), "n = 36"));
  EXPECT_TRUE(mentions(violations(GemmConfig{}, GemmProblem{0, 64, 64}), "non-positive"));
  EXPECT_TRUE(fits(GemmConfig{}, GemmProblem{1000, 2056, 1064}));  // ragged M is fine
}

TEST(GemmProblem, DtypeAndLayoutNamesRoundTripAndUnknownOnesAreNamed) {
  for (DType dtype : {DType::bf16, DType::fp16}) EXPECT_EQ(parse_dtype(to_string(dtype)), dtype);
  for (BLayout layout : {BLayout::k_by_n, BLayout::n_by_k}) {
    EXPECT_EQ(parse_b_layout(to_string(layout)), layout);
  }
  EXPECT_EQ(to_string(DType::fp16), "fp16");
  EXPECT_EQ(to_string(BLayout::n_by_k), "n_by_k");
  try {
    parse_dtype("fp8");
    ADD_FAILURE() << "fp8 parsed";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "gemm problem dtype 'fp8' is not bf16 or fp16");
  }
  try {
    parse_b_layout("k_by_k");
    ADD_FAILURE() << "k_by_k parsed";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "gemm problem b_layout 'k_by_k' is not k_by_n or n_by_k");
  }
}

TEST(GemmProblem, WorkUnitsAndWorkspace) {
  GemmConfig config;  // 2x1 cluster of 128x256 tiles: a 256x256 cluster tile
  EXPECT_EQ(work_units(config, kSquare), 16 * 16);
  EXPECT_EQ(work_units(config, GemmProblem{1000, 2056, 1064}), 4 * 9);
  EXPECT_EQ(workspace_bytes(config, kSquare), 0u);
  config.split_k = 4;
  EXPECT_EQ(work_units(config, kSquare), 16 * 16 * 4);
  EXPECT_EQ(workspace_bytes(config, kSquare), 4u * 4096 * 4096 * sizeof(float));
}

TEST(GemmProblem, CompileDefinesNameEveryKnob) {
  GemmConfig config;
  config.schedule = Schedule::pingpong;
  config.raster = Raster::along_m;
  const auto defines = compile_defines(config, DType::fp16, BLayout::n_by_k);
  const std::vector<std::string> expected = {
      "CUTUNE_TILE_M=128",  "CUTUNE_TILE_N=256",  "CUTUNE_TILE_K=64",     "CUTUNE_STAGES=4",
      "CUTUNE_CLUSTER_M=2", "CUTUNE_CLUSTER_N=1", "CUTUNE_SCHEDULE=1",    "CUTUNE_RASTER=0",
      "CUTUNE_SWIZZLE=8",   "CUTUNE_SPLIT_K=1",   "CUTUNE_FAST_LAUNCH=0", "CUTUNE_DTYPE=1",
      "CUTUNE_B_LAYOUT=1"};
  EXPECT_EQ(defines, expected);
}

TEST(GemmProblem, NamesRoundTrip) {
  EXPECT_EQ(to_string(GemmConfig{}), "128x256x64_s4_c2x1_coop_rn8_k1");
  for (const char* name :
       {"128x256x64_s4_c2x1_coop_rn8_k1", "64x256x64_s5_c1x2_ping_rm2_k4",
        "128x256x64_s4_c2x1_coop_rn8_k1_pdl", "256x192x128_s3_c2x2_coop_rm1_k2"}) {
    EXPECT_EQ(to_string(parse_config(name)), name);
  }
  const GemmConfig parsed = parse_config("64x128x32_s8_c1x2_ping_rm4_k2");
  EXPECT_EQ(parsed.tile_m, 64);
  EXPECT_EQ(parsed.tile_k, 32);
  EXPECT_EQ(parsed.stages, 8);
  EXPECT_EQ(parsed.cluster_n, 2);
  EXPECT_EQ(parsed.schedule, Schedule::pingpong);
  EXPECT_EQ(parsed.raster, Raster::along_m);
  EXPECT_EQ(parsed.swizzle, 4);
  EXPECT_EQ(parsed.split_k, 2);
  EXPECT_FALSE(parsed.fast_launch);
}

TEST(GemmProblem, MalformedNamesSayWhatIsWrong) {
  auto message = [](const std::string& name) {
    try {
      parse_config(name);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("parsed");
  };
  EXPECT_NE(message("128x256").find("does not match"), std::string::npos);
  EXPECT_NE(message("128x256x64_s4_c2x1_fast_rn8_k1").find("schedule 'fast'"), std::string::npos);
  EXPECT_NE(message("128x256x64_s4_c2x1_coop_rx8_k1").find("raster 'x'"), std::string::npos);
  EXPECT_NE(message("128x256x64_s4_c2x1_coop_rn8_k1_fast").find("suffix '_fast'"),
            std::string::npos);
}

}  // namespace
}  // namespace cutune::gemm
