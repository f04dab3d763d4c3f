#include "gemm_fp8/gemm_fp8_seeds.hpp"

#include <array>
#include <cstdint>
#include <string>

#include "gemm/gemm_tile_rule.hpp"
#include "gemm_fp8/gemm_fp8_problem.hpp"

namespace cutune {
namespace {

namespace rules = gemm_fp8::rules;
using gemm_fp8::Scaling;

struct Tile {
  int tile_m, tile_n;
  bool pingpong;
};

// The tiles a full-height default chooses from, largest first (a tie in wave efficiency keeps the
// larger): 128 rows split over two cooperative warpgroups, as wide as the register budget allows
// (a schedule that promotes holds a second accumulator set, and block scaling's tile_n is a
// multiple of the 128-column scale block).
constexpr std::array<Tile, 3> kWideTiles{{{128, 256, false}, {128, 192, false}, {128, 128, false}}};
// Decoding-sized M, or too few 128x128 tiles for one wave: 64-row ping-pong tiles.
constexpr Tile kShortTile{64, 128, true};

Scaling scaling_of(const Problem& p) {
  return p.has("scaling") ? gemm_fp8::parse_scaling(p.at("scaling").as_string()) : Scaling::tensor;
}

gemm_fp8::Schedule schedule_of(const Tile& t, bool fast_accum) {
  using gemm_fp8::Schedule;
  if (t.pingpong) return fast_accum ? Schedule::pingpong_fast_accum : Schedule::pingpong;
  return fast_accum ? Schedule::cooperative_fast_accum : Schedule::cooperative;
}

bool legal_for(const Tile& t, Scaling scaling, bool fast_accum) {
  gemm_fp8::Fp8Config c;
  c.tile_m = t.tile_m;
  c.tile_n = t.tile_n;
  c.schedule = schedule_of(t, fast_accum);
  c.stages = rules::kMinStages;
  return gemm_fp8::violations(c, {128, 128, 128, scaling}).empty();
}

// The legal wide tile with the highest wave efficiency on `sm_count` slots.
Tile wave_tile(std::int64_t m, std::int64_t n, int sm_count, Scaling scaling, bool fast_accum) {
  Tile best = kWideTiles.back();
  double best_efficiency = -1;
  for (const Tile& tile : kWideTiles) {
    if (!legal_for(tile, scaling, fast_accum)) continue;
    const double e = gemm::wave_efficiency(m, n, tile.tile_m, tile.tile_n, sm_count);
    if (e > best_efficiency) {
      best = tile;
      best_efficiency = e;
    }
  }
  return best;
}

// `tile` as deep as shared memory allows (fp8 tiles are half the bytes of bf16 ones, so the
// pipeline runs deeper), no cluster, the schedule's accurate accumulation unless `fast_accum`.
PartialConfig proposal(const Tile& tile, Scaling scaling, bool fast_accum) {
  const int stages = rules::deepest_stages(tile.tile_m, tile.tile_n, 128, static_cast<int>(scaling),
                                           rules::kSharedMemoryPerBlock);
  const std::string schedule = gemm_fp8::to_string(schedule_of(tile, fast_accum));
  return PartialConfig{{"tile_m", tile.tile_m}, {"tile_n", tile.tile_n}, {"tile_k", 128},
                       {"stages", stages},      {"cluster_m", 1},        {"cluster_n", 1},
                       {"schedule", schedule},  {"raster", "along_n"},   {"swizzle", 1},
                       {"split_k", 1}};
}

// The split of K that brings a grid of `tiles` closest to one CTA per SM without passing it, each
// slice keeping at least four k-blocks to pipeline; 1 where no split fits.
int split_to_fill(std::int64_t tiles, std::int64_t k, int sm_count) {
  int best = 1;
  for (int split : rules::kSplitK) {
    if (tiles * split <= sm_count && gemm::ceil_div(k, 128) >= 4 * split) best = split;
  }
  return best;
}

std::int64_t square_tiles(const Problem& p) {
  return gemm::ceil_div(p.get_int("m"), 128) * gemm::ceil_div(p.get_int("n"), 128);
}

bool short_of_a_wave(const Problem& p, const Device& d) {
  const std::int64_t m = p.get_int("m");
  const std::int64_t n = p.get_int("n");
  return gemm::skinny(m) || gemm::ceil_div(m, 128) * gemm::ceil_div(n, 128) < d.sm_count;
}

}  // namespace

void add_gemm_fp8_seeds(TuningSpace& ts) {
  ts.seeds.push_back({
      .name = "wave_tile",
      .priority = 100,
      .eligible = [](const Problem&, const Device& d) { return d.sm_count > 0; },
      .propose =
          [](const Problem& p, const Device& d) {
            const Scaling s = scaling_of(p);
            return proposal(wave_tile(p.get_int("m"), p.get_int("n"), d.sm_count, s, false), s,
                            false);
          },
  });
  // Above wave_tile: a grid short of one wave of 128x128 tiles fills more SMs with 64-row tiles.
  ts.seeds.push_back({
      .name = "short_tile",
      .priority = 110,
      .eligible = [](const Problem& p,
                     const Device& d) { return d.sm_count > 0 && short_of_a_wave(p, d); },
      .propose = [](const Problem& p,
                    const Device&) { return proposal(kShortTile, scaling_of(p), false); },
  });
  // A grid of 128x128 tiles that fills at most half the SMs (a decoding step's skinny GEMM),
  // split along K to fill them: in the population, not the default, until measured above it.
  ts.seeds.push_back({
      .name = "split_k",
      .priority = 60,
      .eligible =
          [](const Problem& p, const Device& d) {
            return d.sm_count > 0 && split_to_fill(square_tiles(p), p.get_int("k"), d.sm_count) > 1;
          },
      .propose =
          [](const Problem& p, const Device& d) {
            const Scaling s = scaling_of(p);
            PartialConfig c = proposal(kWideTiles.back(), s, false);
            c["split_k"] = split_to_fill(square_tiles(p), p.get_int("k"), d.sm_count);
            return c;
          },
  });
  // The fast-accumulation alternative of the default's tile, in the population but never the
  // default: it skips the promotion to full fp32 that keeps deep K accurate.
  ts.seeds.push_back({
      .name = "fast_accum",
      .priority = 50,
      .eligible = [](const Problem& p,
                     const Device& d) { return d.sm_count > 0 && scaling_of(p) != Scaling::block; },
      .propose =
          [](const Problem& p, const Device& d) {
            const Scaling s = scaling_of(p);
            const Tile tile = short_of_a_wave(p, d)
                                  ? kShortTile
                                  : wave_tile(p.get_int("m"), p.get_int("n"), d.sm_count, s, true);
            return proposal(tile, s, true);
          },
  });
}

}  // namespace cutune
