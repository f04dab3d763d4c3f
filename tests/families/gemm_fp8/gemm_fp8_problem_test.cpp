// The fp8 family's rules, names and defines (gemm_fp8_problem.hpp): what the space's constraints,
// the compiler and the worker read.
#include "gemm_fp8/gemm_fp8_problem.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

namespace cutune::gemm_fp8 {
namespace {

Fp8Problem shape(std::int64_t m, std::int64_t n, std::int64_t k, Scaling s = Scaling::tensor) {
  return {m, n, k, s};
}

TEST(Fp8Rules, TheDefaultConfigRunsEveryScaling) {
  for (Scaling s : {Scaling::tensor, Scaling::row_col, Scaling::block}) {
    EXPECT_TRUE(violations(Fp8Config{}, shape(4096, 4096, 4096, s)).empty()) << to_string(s);
  }
}

TEST(Fp8Rules, EachRuleNamesItsKnobAndLegalValues) {
  Fp8Config c;
  c.tile_k = 64;
  c.swizzle = 3;
  const auto illegal = violations(c, shape(128, 128, 128));
  ASSERT_EQ(illegal.size(), 2u);
  EXPECT_EQ(illegal[0], "tile_k = 64 is not in {128}");
  EXPECT_EQ(illegal[1], "swizzle = 3 is not in {1, 2, 4, 8}");

  Fp8Config cooperative_short;
  cooperative_short.tile_m = 64;
  EXPECT_NE(gemm::joined(violations(cooperative_short, shape(128, 128, 128))).find("tile_m >= 128"),
            std::string::npos);

  Fp8Config fast;
  fast.schedule = Schedule::cooperative_fast_accum;
  EXPECT_TRUE(violations(fast, shape(128, 128, 128)).empty());
  EXPECT_NE(gemm::joined(violations(fast, shape(128, 128, 128, Scaling::block))).find("promote"),
            std::string::npos);

  Fp8Config rare;  // promotes every 2 or 4 k-blocks, where a schedule promotes per k-block
  rare.promotion = 2;
  EXPECT_TRUE(violations(rare, shape(128, 128, 128, Scaling::row_col)).empty());
  EXPECT_NE(gemm::joined(violations(rare, shape(128, 128, 128, Scaling::block))).find("promotion"),
            std::string::npos);
  rare.schedule = Schedule::pingpong_fast_accum;
  rare.tile_m = 64;
  EXPECT_NE(gemm::joined(violations(rare, shape(128, 128, 128))).find("promotion = 2 needs"),
            std::string::npos);
  rare.promotion = 3;
  EXPECT_EQ(violations(rare, shape(128, 128, 128))[0], "promotion = 3 is not in {1, 2, 4}");

  Fp8Config odd_n;
  odd_n.tile_n = 192;
  EXPECT_TRUE(violations(odd_n, shape(128, 192, 128)).empty());
  EXPECT_NE(
      gemm::joined(violations(odd_n, shape(128, 192, 128, Scaling::block))).find("tile_n = 192"),
      std::string::npos);
}

// With swapped operands the MMA's M side is tile_n: a tile of D as short as 8 rows runs, a 64-row
// MMA side runs one warpgroup (ping-pong), and block scaling keeps its operands in their roles.
TEST(Fp8Rules, SwappedOperandsPutTileNOnTheMmasMSide) {
  Fp8Config decode;
  decode.tile_m = 8;
  decode.tile_n = 64;
  decode.schedule = Schedule::pingpong;
  EXPECT_EQ(violations(decode, shape(8, 4096, 4096))[0],
            "tile_m = 8 is the MMA's M side: it takes 64, 128 or 256 (tile_m < 64 needs swap_ab)");
  decode.swap_ab = true;
  EXPECT_TRUE(violations(decode, shape(8, 4096, 4096)).empty());
  EXPECT_TRUE(violations(decode, shape(1, 4096, 4096, Scaling::row_col)).empty());
  EXPECT_EQ(accumulators_per_thread(decode, Scaling::tensor), 8);  // 8x64 over 128 threads, twice
  EXPECT_NE(gemm::joined(violations(decode, shape(8, 4096, 4096, Scaling::block)))
                .find("swap_ab = 1 is not taken by scaling = block"),
            std::string::npos);
  decode.schedule = Schedule::cooperative;
  EXPECT_NE(gemm::joined(violations(decode, shape(8, 4096, 4096))).find("needs tile_n >= 128"),
            std::string::npos);
  decode.tile_n = 128;
  EXPECT_TRUE(violations(decode, shape(8, 4096, 4096)).empty());
  decode.tile_n = 192;  // a legal tile_n, but not an MMA M side
  EXPECT_NE(gemm::joined(violations(decode, shape(8, 4096, 4096)))
                .find("tile_n = 192 is the MMA's M side with swap_ab"),
            std::string::npos);
  Fp8Config streamed;  // the stream-K scheduler runs cooperative kernels only
  streamed.stream_k = true;
  EXPECT_TRUE(violations(streamed, shape(1024, 2112, 7168, Scaling::block)).empty());
  streamed.tile_m = 64;
  streamed.schedule = Schedule::pingpong;
  EXPECT_NE(gemm::joined(violations(streamed, shape(1024, 2112, 7168)))
                .find("stream_k = 1 needs a cooperative schedule, got schedule = pingpong"),
            std::string::npos);
}

TEST(Fp8Rules, RegistersAndSharedMemoryBound) {
  Fp8Config wide;
  wide.tile_n = 256;
  wide.schedule = Schedule::cooperative_fast_accum;  // 128x256: 128 accumulators, the limit
  EXPECT_EQ(accumulators_per_thread(wide, Scaling::tensor), 128);
  EXPECT_TRUE(violations(wide, shape(256, 256, 256)).empty());
  // The accurate schedule promotes, as block scaling does: a second set, 256 over their limit.
  wide.schedule = Schedule::cooperative;
  EXPECT_EQ(accumulators_per_thread(wide, Scaling::tensor), 256);
  EXPECT_NE(gemm::joined(violations(wide, shape(256, 256, 256))).find("needs 256 fp32"),
            std::string::npos);
  EXPECT_EQ(accumulators_per_thread(wide, Scaling::block), 256);
  EXPECT_FALSE(violations(wide, shape(256, 256, 256, Scaling::block)).empty());
  Fp8Config promoted = wide;
  promoted.tile_n = 192;  // two sets of 96: within the limit of two
  EXPECT_TRUE(violations(promoted, shape(256, 256, 256)).empty());
  // 4 stages of 48 KiB and the epilogue fit in 227 KiB; 5 do not.
  wide.stages = 4;
  EXPECT_LE(shared_memory_bytes(wide, Scaling::tensor), rules::kSharedMemoryPerBlock);
  wide.stages = 5;
  EXPECT_NE(gemm::joined(violations(wide, shape(256, 256, 256))).find("stages = 5 needs"),
            std::string::npos);
  EXPECT_EQ(
      rules::deepest_stages(128, 256, 128, rules::kScalingTensor, rules::kSharedMemoryPerBlock), 4);
}

TEST(Fp8Rules, ProblemsThatTmaCannotAddressAreRefused) {
  EXPECT_NE(gemm::joined(violations(Fp8Config{}, shape(7, 100, 128))).find("n = 100"),
            std::string::npos);
  EXPECT_NE(gemm::joined(violations(Fp8Config{}, shape(7, 128, 40))).find("k = 40"),
            std::string::npos);
  EXPECT_TRUE(violations(Fp8Config{}, shape(7, 128, 144)).empty());  // any m; k in 16s
  EXPECT_NE(
      gemm::joined(violations(Fp8Config{}, shape(7, 128, 144, Scaling::block))).find("k = 144"),
      std::string::npos);
}

TEST(Fp8Names, ConfigNamesRoundTrip) {
  Fp8Config c;
  c.tile_m = 64;
  c.tile_n = 256;
  c.stages = 7;
  c.cluster_m = 2;
  c.schedule = Schedule::pingpong_fast_accum;
  c.raster = gemm::Raster::along_m;
  c.swizzle = 4;
  EXPECT_EQ(to_string(c), "64x256x128_s7_c2x1_pingfa_rm4");
  const Fp8Config back = parse_config(to_string(c));
  EXPECT_EQ(to_string(back), to_string(c));
  EXPECT_EQ(back.schedule, Schedule::pingpong_fast_accum);
  EXPECT_EQ(parse_config("128x128x128_s4_c1x1_coop_rn1").schedule, Schedule::cooperative);
  EXPECT_THROW(parse_config("128x128x128_s4_c1x1_fast_rn1"), std::invalid_argument);
  EXPECT_THROW(parse_config("128x128x128_s4_c1x1_coop_rn1_k1"), std::invalid_argument);
  EXPECT_THROW(parse_config("128x128x128_s4_c1x1_coop_rx1"), std::invalid_argument);
  // The promotion interval is named only where it is not one k-block.
  EXPECT_EQ(parse_config("128x128x128_s6_c1x1_coop_rn8_p2").promotion, 2);
  EXPECT_EQ(parse_config("128x128x128_s6_c1x1_coop_rn8").promotion, 1);
  Fp8Config promoted;
  promoted.promotion = 4;
  EXPECT_EQ(to_string(promoted), "128x128x128_s4_c1x1_coop_rn1_p4");
  EXPECT_THROW(parse_config("128x128x128_s4_c1x1_coop_rn1_p"), std::invalid_argument);
  EXPECT_THROW(parse_config("128x128x128_s4_c1x1_coop_rn1_p2x"), std::invalid_argument);
  // Swapped operands are named last.
  EXPECT_TRUE(parse_config("8x64x128_s12_c1x1_ping_rn1_p2_swap").swap_ab);
  EXPECT_EQ(parse_config("8x64x128_s12_c1x1_ping_rn1_p2_swap").promotion, 2);
  EXPECT_TRUE(parse_config("8x64x128_s12_c1x1_pingfa_rn1_swap").swap_ab);
  EXPECT_FALSE(parse_config("64x64x128_s12_c1x1_ping_rn1_p2").swap_ab);
  Fp8Config swapped;
  swapped.tile_m = 16;
  swapped.swap_ab = true;
  EXPECT_EQ(to_string(swapped), "16x128x128_s4_c1x1_coop_rn1_swap");
  EXPECT_THROW(parse_config("8x64x128_s12_c1x1_ping_rn1_swap_p2"), std::invalid_argument);
  // The stream-K scheduler after them.
  const Fp8Config shared = parse_config("128x128x128_s6_c1x1_coop_rn8_p2_sk");
  EXPECT_TRUE(shared.stream_k);
  EXPECT_FALSE(shared.swap_ab);
  EXPECT_TRUE(parse_config("16x128x128_s6_c1x1_coop_rn8_swap_sk").swap_ab);
  EXPECT_EQ(to_string(parse_config("16x128x128_s6_c1x1_coop_rn8_swap_sk")),
            "16x128x128_s6_c1x1_coop_rn8_swap_sk");
  EXPECT_THROW(parse_config("128x128x128_s6_c1x1_coop_rn8_sk_swap"), std::invalid_argument);
}

TEST(Fp8Names, ScalingsAndSchedulesParseAndNameTheLegalOnes) {
  EXPECT_EQ(parse_scaling("row_col"), Scaling::row_col);
  EXPECT_EQ(to_string(Scaling::block), "block");
  try {
    parse_scaling("per_token");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "gemm_fp8 problem scaling 'per_token' is not tensor, row_col or block");
  }
  EXPECT_EQ(parse_schedule("cooperative_fast_accum"), Schedule::cooperative_fast_accum);
  EXPECT_THROW(parse_schedule("warp_specialized"), std::invalid_argument);
}

TEST(Fp8Defines, EveryKnobTheScalingAndTheFormatsReachTheKernel) {
  Fp8Config c;
  c.schedule = Schedule::pingpong;
  c.tile_m = 64;
  c.promotion = 4;
  LibraryKind kind;
  kind.scaling = Scaling::row_col;
  kind.b_format = Format::e5m2;
  const auto defines = compile_defines(c, kind);
  const std::vector<std::string> want{
      "CUTUNE_TILE_M=64",   "CUTUNE_TILE_N=128",  "CUTUNE_TILE_K=128", "CUTUNE_STAGES=4",
      "CUTUNE_CLUSTER_M=1", "CUTUNE_CLUSTER_N=1", "CUTUNE_SCHEDULE=1", "CUTUNE_RASTER=1",
      "CUTUNE_SWIZZLE=1",   "CUTUNE_SCALING=1",   "CUTUNE_A_FORMAT=0", "CUTUNE_B_FORMAT=1",
      "CUTUNE_PROMOTION=4", "CUTUNE_SWAP_AB=0",   "CUTUNE_STREAM_K=0"};
  EXPECT_EQ(defines, want);
}

TEST(Fp8Problem, FormatsParseByName) {
  EXPECT_EQ(parse_format("e5m2", "a_format"), Format::e5m2);
  EXPECT_EQ(to_string(Format::e4m3), "e4m3");
  try {
    parse_format("e4m3fnuz", "b_format");
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "gemm_fp8 problem b_format 'e4m3fnuz' is not e4m3 or e5m2");
  }
  // Libraries differ by scaling and by each format.
  Fp8Problem p;
  LibraryKind plain(p);
  p.a_format = Format::e5m2;
  EXPECT_TRUE(plain < LibraryKind(p) || LibraryKind(p) < plain);
}

// bench/gpu/gemm_fp8_candidates.txt (name, scaling, config name a line): each config is named
// canonically and legal under its scaling, and each name appears once per scaling, so that a
// typo costs no GPU time (the table compiles and times every line).
TEST(Fp8Candidates, EveryCandidateIsACanonicalLegalConfigOfItsScaling) {
  std::ifstream file(CUTUNE_GEMM_FP8_CANDIDATES);
  ASSERT_TRUE(file) << CUTUNE_GEMM_FP8_CANDIDATES;
  std::set<std::string> seen;
  std::string line;
  int candidates = 0;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name, scaling, config;
    ASSERT_TRUE(fields >> name >> scaling >> config) << line;
    EXPECT_TRUE(seen.insert(name + "/" + scaling).second) << "twice: " << line;
    const Fp8Config parsed = parse_config(config);
    EXPECT_EQ(to_string(parsed), config) << line;
    EXPECT_EQ(gemm::joined(violations(parsed, shape(4096, 4096, 4096, parse_scaling(scaling)))), "")
        << line;
    ++candidates;
  }
  EXPECT_GE(candidates, 10);
}

}  // namespace
}  // namespace cutune::gemm_fp8
