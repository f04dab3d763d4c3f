// The kernel's persistent schedule (gemm_schedule.hpp, the code the kernel runs), walked on the
// host: every (tile, k-block) is computed exactly once, every tile is written once, and every
// stream-K tile's owner finds its one contributor where the kernel looks for it (cluster + 1).
#include "gemm/gemm_schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace cutune::gemm::schedule {
namespace {

struct Case {
  int m, n, k, tile_m, tile_n, tile_k, cluster_m, split_k, clusters;
  bool stream_k;
  std::string name() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " on " +
           std::to_string(clusters) + (stream_k ? " clusters, stream-K" : " clusters") +
           (split_k > 1 ? ", split " + std::to_string(split_k) : "");
  }
  Plan plan() const {
    return Plan(m, n, k, cluster_m * tile_m, tile_n, tile_k, split_k, stream_k, 8, false, clusters);
  }
};

// Walks every cluster's items and checks the invariants the kernel relies on.
void check_covers_exactly_once(const Case& c) {
  SCOPED_TRACE(c.name());
  const Plan plan = c.plan();
  std::vector<int> computed(static_cast<std::size_t>(plan.tiles) * plan.k_blocks, 0);
  std::vector<int> written(static_cast<std::size_t>(plan.tiles) * c.split_k, 0);
  std::set<std::pair<int, int>> cells;
  std::map<int, WorkItem> first_items;            // cluster -> its first item
  std::map<int, std::pair<int, WorkItem>> owned;  // tile -> (owner cluster, owner's item)
  std::vector<long long> ranged_blocks(c.clusters, 0);
  for (int cluster = 0; cluster < c.clusters; ++cluster) {
    bool dealt = false;
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
      if (index == 0) first_items[cluster] = work;
      const bool ranged = index < plan.stream_k_items(cluster);
      if (ranged) {
        EXPECT_FALSE(dealt) << "a stream-K item after a data-parallel one";
        ranged_blocks[cluster] += work.k_blocks;
      } else {
        dealt = true;
      }
      switch (work.role) {
        case kWhole:
          EXPECT_EQ(work.k_blocks, plan.k_blocks);
          ++written[work.tile];
          break;
        case kSlice:
          EXPECT_GT(c.split_k, 1);
          ++written[static_cast<std::size_t>(work.split) * plan.tiles + work.tile];
          break;
        case kContribute:
          EXPECT_TRUE(c.stream_k);
          EXPECT_EQ(index, 0) << "a contribution must be its cluster's first item";
          EXPECT_GT(work.k_block_begin, 0);
          break;
        case kOwn:
          EXPECT_TRUE(c.stream_k);
          EXPECT_EQ(index, plan.stream_k_items(cluster) - 1) << "an owner's tile ends its range";
          EXPECT_EQ(work.k_block_begin, 0);
          EXPECT_LT(work.k_blocks, plan.k_blocks);
          ++written[work.tile];
          owned[work.tile] = {cluster, work};
          break;
        default:
          ADD_FAILURE() << "role " << work.role;
      }
    }
  }
  for (std::size_t i = 0; i < computed.size(); ++i) {
    ASSERT_EQ(computed[i], 1) << "tile/k-block " << i;
  }
  for (std::size_t i = 0; i < written.size(); ++i) ASSERT_EQ(written[i], 1) << "unit " << i;
  EXPECT_EQ(cells.size(), static_cast<std::size_t>(plan.tiles)) << "the raster is one-to-one";
  // Each owner's contributor is the next cluster, whose first item is the rest of the tile.
  int contributions = 0;
  for (const auto& [cluster, work] : first_items) {
    if (work.role == kContribute) ++contributions;
  }
  EXPECT_EQ(contributions, static_cast<int>(owned.size()));
  for (const auto& [tile, owner] : owned) {
    ASSERT_TRUE(first_items.count(owner.first + 1)) << "tile " << tile;
    const WorkItem& contribution = first_items[owner.first + 1];
    EXPECT_EQ(contribution.role, kContribute);
    EXPECT_EQ(contribution.tile, tile);
    EXPECT_EQ(contribution.k_block_begin, owner.second.k_blocks);
    EXPECT_EQ(contribution.k_block_begin + contribution.k_blocks, plan.k_blocks);
  }
  // The ranges are even: no cluster does more than one k-block more than another.
  const auto [least, most] = std::minmax_element(ranged_blocks.begin(), ranged_blocks.end());
  EXPECT_LE(*most - *least, 1);
}

TEST(GemmSchedule, EveryDecompositionCoversEachTileAndKBlockOnce) {
  std::vector<Case> cases;
  for (bool stream_k : {false, true}) {
    for (int clusters : {66, 132, 7, 1, 3}) {
      for (auto [m, n, k] : {std::array<int, 3>{2048, 4096, 4096},
                             {1024, 8192, 8192},
                             {4096, 4096, 4096},
                             {1000, 2056, 1064},
                             {128, 8192, 8192},
                             {8192, 8192, 1024},
                             {256, 256, 64},
                             {4096, 14336, 4096}}) {
        cases.push_back({m, n, k, 128, 256, 64, 2, 1, clusters, stream_k});
        cases.push_back({m, n, k, 128, 128, 32, 1, 1, clusters, stream_k});
      }
    }
  }
  for (int split : {2, 3, 8})
    cases.push_back({1000, 2056, 1064, 128, 128, 64, 1, split, 66, false});
  for (const Case& c : cases) check_covers_exactly_once(c);
}

// S3 (2048x4096x4096, 128x256 tiles in 2x1 clusters, 66 clusters on the H200): 128 cluster tiles,
// 1.94 waves, so all 128 are stream-K tiles: 8192 k-blocks over 66 clusters, 124 or 125 each.
TEST(GemmSchedule, TheSeedShapeIsAllStreamKOnTheH200) {
  const Plan plan(2048, 4096, 4096, 256, 256, 64, 1, true, 8, false, 66);
  EXPECT_EQ(plan.tiles, 128);
  EXPECT_EQ(plan.stream_k_tiles, 128);
  EXPECT_EQ(plan.range_begin(1), 125);
  EXPECT_EQ(plan.range_begin(8), 8 * 125);
  EXPECT_EQ(plan.range_begin(9) - plan.range_begin(8), 124);
  EXPECT_EQ(plan.range_begin(66), 128 * 64);
  // Cluster 1 finishes tile 1 (k-blocks 61..63), then computes tile 2 whole and starts tile 3.
  EXPECT_EQ(plan.items(1), 3);
  EXPECT_EQ(plan.item(1, 0).role, kContribute);
  EXPECT_EQ(plan.item(1, 0).k_block_begin, 61);
  EXPECT_EQ(plan.item(1, 1).role, kWhole);
  EXPECT_EQ(plan.item(1, 2).role, kOwn);
  EXPECT_EQ(plan.item(1, 2).k_blocks, 250 - 192);
}

// Stream-K changes nothing where there is nothing to balance: whole waves, or less than one.
TEST(GemmSchedule, StreamKIsDataParallelWithoutAPartialLaterWave) {
  for (auto [m, n, clusters] :
       {std::array<int, 3>{4096, 4096, 64}, {128, 8192, 66}, {256, 256, 66}}) {
    const Plan streamed(m, n, 4096, 256, 256, 64, 1, true, 8, false, clusters);
    const Plan plain(m, n, 4096, 256, 256, 64, 1, false, 8, false, clusters);
    EXPECT_EQ(streamed.stream_k_tiles, 0) << m << "x" << n;
    for (int cluster = 0; cluster < clusters; ++cluster) {
      ASSERT_EQ(streamed.items(cluster), plain.items(cluster));
      for (int i = 0; i < plain.items(cluster); ++i) {
        EXPECT_EQ(streamed.item(cluster, i).tile, plain.item(cluster, i).tile);
      }
    }
  }
}

}  // namespace
}  // namespace cutune::gemm::schedule
