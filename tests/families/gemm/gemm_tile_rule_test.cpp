// The default's tile rule (gemm_tile_rule.hpp) and what it gives on every shape of the extended
// list (bench/gpu/gemm_shapes.txt): the property the peer table's default column stands on is that
// no shape's default wastes its grid, in either dtype and either B layout.
#include "gemm/gemm_tile_rule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cutune/heuristics.hpp"
#include "gemm/gemm_problem.hpp"
#include "gemm/gemm_space.hpp"

namespace cutune {
namespace {

constexpr int kH200Sms = 132;

struct Shape {
  std::int64_t m, n, k;
  std::string kind;
};

std::vector<Shape> extended_list() {
  std::ifstream file(CUTUNE_GEMM_SHAPES);
  std::vector<Shape> shapes;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Shape s;
    char x1 = 0, x2 = 0;
    fields >> s.m >> x1 >> s.n >> x2 >> s.k >> s.kind;
    shapes.push_back(s);
  }
  return shapes;
}

// The share of the default's grid that computes D, split-K slices counted as units of the grid.
double grid_efficiency(const gemm::GemmConfig& c, const Shape& s) {
  const std::int64_t units =
      gemm::ceil_div(s.m, c.tile_m) * gemm::ceil_div(s.n, c.tile_n) * c.split_k;
  const std::int64_t slots = gemm::ceil_div(units, kH200Sms) * kH200Sms;
  return static_cast<double>(s.m) * static_cast<double>(s.n) * c.split_k /
         (static_cast<double>(slots) * c.tile_m * c.tile_n);
}

TEST(GemmTileRule, WaveEfficiencyCountsIdleSlotsAndEdgeResidue) {
  EXPECT_DOUBLE_EQ(gemm::wave_efficiency(256, 256 * 66, 128, 256, kH200Sms), 1.0);
  // 3000x5000 in 128x192 tiles: 24 x 27 = 648 tiles in 5 waves of 132.
  EXPECT_DOUBLE_EQ(gemm::wave_efficiency(3000, 5000, 128, 192, kH200Sms),
                   3000.0 * 5000.0 / (5.0 * 132 * 128 * 192));
  EXPECT_EQ(gemm::wave_efficiency(3000, 5000, 128, 192, 0), 0.0);
}

// The measured pairs behind wave_fit: 128x192 ping-pong was faster than the
// large tile at these shapes and slower at 4096^3 and 2048x4096.
TEST(GemmTileRule, FinerTilesWhereTheyMeasuredFaster) {
  for (const auto& [m, n] : {std::pair{8192, 8192}, {5120, 5120}, {3072, 3072}, {6144, 6144}}) {
    EXPECT_TRUE(gemm::finer_tiles_fit_better(m, n, kH200Sms)) << m << "x" << n;
  }
  EXPECT_FALSE(gemm::finer_tiles_fit_better(4096, 4096, kH200Sms));
  EXPECT_FALSE(gemm::finer_tiles_fit_better(2048, 4096, kH200Sms));
}

TEST(GemmTileRule, ResidueTileTakesTheWideTileThatFillsTheGridBetter) {
  // 1000x2056: 88 tiles of 128x192 fill 0.63 of one wave, 72 of 128x256 0.48. (128x64 tiles
  // would make exactly two waves, and measured 0.58 of cuBLASLt against 128x192's 0.81.)
  const gemm::ResidueTile tile = gemm::residue_tile(1000, 2056, kH200Sms);
  EXPECT_EQ(tile.tile_m, 128);
  EXPECT_EQ(tile.tile_n, 192);
  EXPECT_TRUE(tile.pingpong);
  EXPECT_TRUE(gemm::needs_residue_tile(1000, 2056, kH200Sms));
  EXPECT_FALSE(gemm::needs_residue_tile(3000, 5000, kH200Sms));  // wave_fit's and large_square's
  EXPECT_FALSE(gemm::needs_residue_tile(512, 2048, kH200Sms));   // short of a wave: partial_wave's
  EXPECT_FALSE(gemm::needs_residue_tile(16, 28672, kH200Sms));   // skinny: partial_wave's
}

// The property: default_config on every shape of the list, bf16 and fp16, both B layouts, is legal,
// takes 64-row tiles where M is at most 64, a wide tile (residue_tile's) where a short side leaves
// no tile filling the grid well, and elsewhere puts at least 84 % of its grid inside D.
TEST(GemmTileRule, DefaultFillsItsGridOnEveryShapeOfTheList) {
  const std::unique_ptr<TuningSpace> ts = make_gemm_space();
  const std::vector<Shape> shapes = extended_list();
  ASSERT_GE(shapes.size(), 20u);
  for (const Shape& s : shapes) {
    for (const char* extra :
         {"", ",dtype=fp16", ",b_layout=n_by_k", ",dtype=fp16,b_layout=n_by_k"}) {
      const Problem p = resolve_gemm_problem(Problem::parse("m=" + std::to_string(s.m) +
                                                            ",n=" + std::to_string(s.n) +
                                                            ",k=" + std::to_string(s.k) + extra));
      SCOPED_TRACE(p.canonical());
      const gemm::GemmConfig c = to_gemm_config(default_config(*ts, p, Device::h200()));
      EXPECT_TRUE(gemm::violations(c, to_gemm_problem(p)).empty()) << gemm::to_string(c);
      if (gemm::skinny(s.m)) {
        EXPECT_EQ(c.tile_m, 64) << gemm::to_string(c);
        continue;
      }
      if (gemm::needs_residue_tile(s.m, s.n, kH200Sms)) {
        EXPECT_GE(c.tile_n, 192) << gemm::to_string(c);
        continue;
      }
      const double efficiency = grid_efficiency(c, s);
      EXPECT_GE(efficiency, 0.84) << gemm::to_string(c);
    }
  }
}

}  // namespace
}  // namespace cutune
