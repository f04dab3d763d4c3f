#include "gemm/gemm_seeds.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "gemm/gemm_problem.hpp"
#include "gemm/gemm_tile_rule.hpp"

namespace cutune {
namespace {

namespace rules = gemm::rules;
using gemm::ceil_div;

constexpr const char* kCooperative = "cooperative";
constexpr const char* kPingpong = "pingpong";
// The shortest k at which partial_wave's tiles take their 2x1 cluster (see half_tiles).
constexpr std::int64_t kLongKLoop = 4096;

// tile_m x tile_n tiles without a cluster or split-K, in `stages` k-blocks of tile_k, grouped
// raster of 8 along N: every seed's config but the half-tile ones.
PartialConfig plain_tile(int tile_m, int tile_n, int tile_k, int stages, bool pingpong) {
  return PartialConfig{{"tile_m", tile_m},
                       {"tile_n", tile_n},
                       {"tile_k", tile_k},
                       {"stages", stages},
                       {"cluster_m", 1},
                       {"cluster_n", 1},
                       {"schedule", pingpong ? kPingpong : kCooperative},
                       {"raster", "along_n"},
                       {"swizzle", 8},
                       {"split_k", 1}};
}

// 128x256 cooperative tiles without a cluster: 0.4-2.8 % above the same tiles in 2x1 clusters on
// seven of eight shapes, 0.4 % below on the eighth on the H200.
PartialConfig large_tile(bool fast_launch) {
  PartialConfig seed = plain_tile(128, 256, 64, 4, false);
  // The plain seed leaves fast_launch out: a partial seed must complete from the default.
  if (fast_launch) seed.emplace("fast_launch", true);
  return seed;
}

// M or N not a multiple of 128: the edge tiles are partly outside D.
constexpr bool ragged(std::int64_t m, std::int64_t n) { return m % 128 != 0 || n % 128 != 0; }

// 128x192 ping-pong tiles without a cluster, `stages` k-blocks of 64: small_k's and wave_fit's.
PartialConfig pingpong_128x192(int stages) { return plain_tile(128, 192, 64, stages, true); }

}  // namespace

// Seeds from the H200's measurements (docs/perf.md: the peer table and "Every shape a program may
// pass"). Declaration order is kept stable (tests index it); priority decides default_config().
void add_gemm_seeds(TuningSpace& ts) {
  auto dims = [](const Problem& p) {
    return std::array<std::int64_t, 3>{p.get_int("m"), p.get_int("n"), p.get_int("k")};
  };
  ts.seeds.push_back({
      .name = "fast_launch",
      .priority = 100,
      // Not at k <= 1024: there it measured 0.81x cuBLAS at 8192x8192x1024, where small_k's
      // config reaches 1.04-1.07x.
      .eligible =
          [dims](const Problem& p, const Device& d) {
            const auto [m, n, k] = dims(p);
            return d.cc_major == 9 && m % 256 == 0 && n % 256 == 0 && k >= 2048;
          },
      .propose = [](const Problem&, const Device&) { return large_tile(true); },
  });
  // Too few output tiles to fill the SMs: when 128x128 tiles would not make one full wave, tiles
  // half as tall (or half as wide) make twice as many CTAs. At 128x8192x8192 (64 tiles of 128x128
  // on 132 SMs) 64x128 ping-pong tiles with B multicast over a 2x1 cluster measured 1.057x
  // cuBLASLt and 128x64 cooperative tiles 1.023x, where 128x128 tiles with split_k = 2 (the seed
  // before) read 0.94x. K is split only while the grid stays within one
  // wave (split_k_depth lowers it when K is too shallow). Each seed: tile_m x tile_n tiles,
  // `stages` stages of tile_k. The 64x128 tiles take k-steps of 128 in 4 stages: against 8 stages
  // of 64 they measured +3.7 % geomean over six such shapes with L2 flushed (+3 % at
  // 128x8192x8192, +20 % at 256x8192x8192, within 2 % where K is split) and +12 % launched back to
  // back without a flush, as a decoding model calls them. The 2x1 cluster (B multicast) pays
  // only where the k-loop is long: on the H100 at 128x8192x8192 the clustered tiles read 1.040 of
  // cuBLASLt and the same tiles without a cluster 0.993, while at k <= 2048 the cluster cost
  // 11-15 % (512x2048x2048 0.838 against 0.947, 1024^3 0.809 against 0.919, 256x4096x2048 0.879
  // against 1.008; on the H200 0.862 against 0.920 at 512x2048x2048).
  const auto half_tiles = [dims](std::string name, int priority, int tile_m, int tile_n, int tile_k,
                                 int stages, int cluster_m, const char* schedule) {
    return HeuristicSeed{
        .name = std::move(name),
        .priority = priority,
        .eligible =
            [dims](const Problem& p, const Device& d) {
              const auto [m, n, k] = dims(p);
              return d.sm_count > 0 &&
                     (gemm::skinny(m) || ceil_div(m, 128) * ceil_div(n, 128) < d.sm_count);
            },
        .propose =
            [=](const Problem& p, const Device& d) {
              const auto [m, n, k] = dims(p);
              const std::int64_t ctas = ceil_div(m, tile_m) * ceil_div(n, tile_n);
              const auto split = std::clamp<std::int64_t>(d.sm_count / ctas, 1, rules::kMaxSplitK);
              return PartialConfig{{"tile_m", tile_m},
                                   {"tile_n", tile_n},
                                   {"tile_k", tile_k},
                                   {"stages", stages},
                                   {"cluster_m", k >= kLongKLoop ? cluster_m : 1},
                                   {"cluster_n", 1},
                                   {"schedule", schedule},
                                   {"raster", "along_n"},
                                   {"swizzle", 8},
                                   {"split_k", split}};
            },
    };
  };
  // Above fast_launch and small_k, which a short or shallow problem may meet as well.
  ts.seeds.push_back(half_tiles("partial_wave", 120, 64, 128, 128, 4, 2, kPingpong));
  ts.seeds.push_back({
      .name = "large_square",
      .priority = 50,
      .eligible =
          [dims](const Problem& p, const Device&) {
            const auto [m, n, k] = dims(p);
            return m >= 1024 && n >= 1024 && k >= 1024;
          },
      .propose = [](const Problem&, const Device&) { return large_tile(false); },
  });
  ts.seeds.push_back({
      .name = "small_k",
      // Above large_square, which is eligible at k = 1024 too.
      .priority = 110,
      .eligible = [dims](const Problem& p, const Device&) { return dims(p)[2] <= 1024; },
      // 1.04-1.07x cuBLAS at 8192x8192x1024 in both B layouts, where 128x192 tiles fill the grid
      // better than 128x256 ones; where they fill it worse, the large tile (as wave_fit).
      .propose =
          [dims](const Problem& p, const Device& d) {
            const auto [m, n, k] = dims(p);
            return d.sm_count <= 0 || gemm::finer_tiles_fit_better(m, n, d.sm_count)
                       ? pingpong_128x192(5)
                       : large_tile(false);
          },
  });
  // partial_wave's alternative, in the population but not the default.
  ts.seeds.push_back(half_tiles("partial_wave_narrow", 115, 128, 64, 64, 8, 1, kCooperative));
  // The large tile's grid (128x256, sm_count of them at once) leaves part of its last wave idle;
  // 128x192 ping-pong tiles cut the grid finer. Where the finer grid fills its waves at least as
  // well (wave_efficiency, which also counts the part of edge tiles outside D), it measured faster
  // than the large tile in 2x1 clusters: 8192^3 1.048 vs 0.988 of cuBLASLt, 5120x5120x4096 0.955 vs
  // 0.897, 3072x3072x4096 0.976 vs 0.758, 6144x6144x4096 (a tie in waves) 1.021 vs 1.001; where it
  // fills them worse it was slower: 4096^3 0.891 vs 0.989. Above
  // fast_launch, below small_k, which keeps k <= 1024.
  ts.seeds.push_back({
      .name = "wave_fit",
      .priority = 105,
      .eligible =
          [dims](const Problem& p, const Device& d) {
            const auto [m, n, k] = dims(p);
            if (d.cc_major != 9 || d.sm_count < 2 || m < 1024 || n < 1024 || k <= 1024) {
              return false;
            }
            return gemm::finer_tiles_fit_better(m, n, d.sm_count);
          },
      .propose = [](const Problem&, const Device&) { return pingpong_128x192(4); },
  });
  // Shapes no measured seed covers (one side under 1024, at least a wave of 128x128 tiles, such
  // as 1000x2056x1064): gemm::residue_tile's choice, without split-K; on ragged sides in 2x1
  // clusters (B multicast), which a tune of 1000x2056x1064 found on the H100: 0.870 of cuBLASLt
  // where the same tiles without a cluster read 0.761 (on the H200 0.855 against 0.831;
  // docs/perf.md). Above wave_fit and fast_launch, which an aligned 768x4096x4096 also meets (96
  // large tiles: 0.73 of one wave, where 132 tiles of 128x192 make 0.97).
  ts.seeds.push_back({
      .name = "residue_fit",
      .priority = 106,
      .eligible =
          [dims](const Problem& p, const Device& d) {
            const auto [m, n, k] = dims(p);
            return d.cc_major == 9 && gemm::needs_residue_tile(m, n, d.sm_count);
          },
      .propose =
          [dims](const Problem& p, const Device& d) {
            const auto [m, n, k] = dims(p);
            const gemm::ResidueTile t = gemm::residue_tile(m, n, d.sm_count);
            PartialConfig seed = plain_tile(t.tile_m, t.tile_n, t.tile_k, t.stages, t.pingpong);
            if (ragged(m, n)) seed["cluster_m"] = 2;
            return seed;
          },
  });
  // Ragged sides (M or N not a multiple of 128) at least 1024 long: the large tile in 2x2
  // clusters, which multicast each A tile to the two CTAs of a cluster row and each B tile to the
  // two of a column. On the H200 the 2x1 cluster read 0.955 of cuBLASLt at 3000x5000x2000 and 0.900
  // at 2500x3000x1000, where wave_fit's 128x192 tiles read 0.761 and small_k's 0.687, the large
  // tile without a cluster 0.784 and 0.690; tunes on the H100 found the 2x2 cluster at 0.972 and
  // 0.946 where the 2x1 one read 0.930 and 0.869 in the same process (on the H200 0.962 and 0.913
  // against 0.961 and 0.897); on aligned sides the 2x1 cluster costs 1-2 % (2048x4096x4040: 0.978
  // against 0.997) (docs/perf.md). Above small_k, wave_fit and residue_fit; below the half-tile
  // seeds, which take the shapes short of a wave.
  ts.seeds.push_back({
      .name = "ragged_cluster",
      .priority = 112,
      .eligible =
          [dims](const Problem& p, const Device& d) {
            const auto [m, n, k] = dims(p);
            return d.cc_major == 9 && m >= 1024 && n >= 1024 && ragged(m, n);
          },
      .propose =
          [](const Problem&, const Device&) {
            PartialConfig seed = large_tile(false);
            seed["cluster_m"] = 2;
            seed["cluster_n"] = 2;
            return seed;
          },
  });
}

}  // namespace cutune
