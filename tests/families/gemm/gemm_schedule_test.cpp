// The kernel's persistent schedule (gemm_schedule.hpp, the code the kernel runs), walked on the
// host: every (tile, k-block) is computed exactly once, every tile (or split-K slice of it) is
// written once, and the grouped raster places the tiles one-to-one.
#include "gemm/gemm_schedule.hpp"

#include <gtest/gtest.h>

#include <array>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cutune::gemm::schedule {
namespace {

struct Case {
  int m, n, k, tile_m, tile_n, tile_k, cluster_m, split_k, clusters;
  std::string name() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " on " +
           std::to_string(clusters) + " clusters" +
           (split_k > 1 ? ", split " + std::to_string(split_k) : "");
  }
  Plan plan() const {
    return Plan(m, n, k, cluster_m * tile_m, tile_n, tile_k, split_k, 8, false, clusters);
  }
};

// Walks every cluster's items and checks the invariants the kernel relies on.
void check_covers_exactly_once(const Case& c) {
  SCOPED_TRACE(c.name());
  const Plan plan = c.plan();
  std::vector<int> computed(static_cast<std::size_t>(plan.tiles) * plan.k_blocks, 0);
  std::vector<int> written(static_cast<std::size_t>(plan.tiles) * c.split_k, 0);
  std::set<std::pair<int, int>> cells;
  for (int cluster = 0; cluster < c.clusters; ++cluster) {
    for (int index = 0; index < plan.items(cluster); ++index) {
      const WorkItem work = plan.item(cluster, index);
      ASSERT_GE(work.tile, 0);
      ASSERT_LT(work.tile, plan.tiles);
      ASSERT_GE(work.k_block_begin, 0);
      // (A split-K slice past the last k-block is empty: it writes zeros for the reduction.)
      ASSERT_TRUE(work.k_blocks == 0 || work.k_block_begin + work.k_blocks <= plan.k_blocks);
      cells.insert({work.tile_m, work.tile_n});
      EXPECT_LT(work.tile_m, plan.tiles_m);
      EXPECT_LT(work.tile_n, plan.tiles_n);
      for (int kb = work.k_block_begin; kb < work.k_block_begin + work.k_blocks; ++kb) {
        ++computed[static_cast<std::size_t>(work.tile) * plan.k_blocks + kb];
      }
      if (c.split_k == 1) {  // whole tiles: the epilogue writes D
        EXPECT_EQ(work.split, 0);
        EXPECT_EQ(work.k_blocks, plan.k_blocks);
      }
      ++written[static_cast<std::size_t>(work.split) * plan.tiles + work.tile];
    }
  }
  for (std::size_t i = 0; i < computed.size(); ++i) {
    ASSERT_EQ(computed[i], 1) << "tile/k-block " << i;
  }
  for (std::size_t i = 0; i < written.size(); ++i) ASSERT_EQ(written[i], 1) << "unit " << i;
  EXPECT_EQ(cells.size(), static_cast<std::size_t>(plan.tiles)) << "the raster is one-to-one";
}

TEST(GemmSchedule, EveryDecompositionCoversEachTileAndKBlockOnce) {
  std::vector<Case> cases;
  for (int clusters : {66, 132, 7, 1, 3}) {
    for (auto [m, n, k] : {std::array<int, 3>{2048, 4096, 4096},
                           {1024, 8192, 8192},
                           {4096, 4096, 4096},
                           {1000, 2056, 1064},
                           {128, 8192, 8192},
                           {8192, 8192, 1024},
                           {256, 256, 64},
                           {4096, 14336, 4096}}) {
      cases.push_back({m, n, k, 128, 256, 64, 2, 1, clusters});
      cases.push_back({m, n, k, 128, 128, 32, 1, 1, clusters});
    }
  }
  for (int split : {2, 3, 8}) cases.push_back({1000, 2056, 1064, 128, 128, 64, 1, split, 66});
  for (const Case& c : cases) check_covers_exactly_once(c);
}

// Data-parallel: cluster c computes tiles c, c + C, c + 2C, ... in raster order; split-K slices
// are the slowest index, so co-resident clusters work on the same slice and share A and B in L2.
TEST(GemmSchedule, TilesAreDealtRoundRobinWithSlicesSlowest) {
  const Plan plain(2048, 4096, 4096, 256, 256, 64, 1, 8, false, 66);  // S3 on the H200
  EXPECT_EQ(plain.tiles, 128);
  EXPECT_EQ(plain.items(1), 2);
  EXPECT_EQ(plain.items(65), 1);
  EXPECT_EQ(plain.item(1, 1).tile, 67);
  const Plan split(1000, 2056, 1064, 128, 128, 64, 3, 8, false, 66);
  EXPECT_EQ(split.tiles, 8 * 17);
  EXPECT_EQ(split.item(0, 0).split, 0);
  EXPECT_EQ(split.item(0, 3).split, 1);  // unit 198 = tile 62 of slice 1
  EXPECT_EQ(split.item(0, 3).tile, 62);
  EXPECT_EQ(split.item(0, 3).k_block_begin, 6);  // 17 k-blocks in slices of 6
}

}  // namespace
}  // namespace cutune::gemm::schedule
