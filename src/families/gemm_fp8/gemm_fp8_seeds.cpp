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
  bool swap_ab = false;
};

// The tiles a full-height default chooses from, largest first (a tie in wave efficiency keeps the
// larger): 128 rows split over two cooperative warpgroups, as wide as the register budget allows
// (a schedule that promotes holds a second accumulator set, and block scaling's tile_n is a
// multiple of the 128-column scale block).
constexpr std::array<Tile, 3> kWideTiles{{{128, 256, false}, {128, 192, false}, {128, 128, false}}};
// Decoding-sized M, or too few 128x128 tiles for one wave: 64-row ping-pong tiles.
constexpr Tile kShortTile{64, 128, true};
// Rows past decoding and at most half a wave of 128x128 tiles: 128x64 cooperative tiles, twice
// the CTAs with both warpgroups busy (block scaling's tiles are whole 128-column scale blocks).
constexpr Tile kNarrowTile{128, 64, false};
// Decoding M on so few columns that even 64x64 tiles occupy at most half the SMs: the most CTAs
// streaming B (the 64-row ping-pong tile above leaves three quarters of them idle there).
constexpr Tile kDecodeTile{64, 64, true};

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
  c.swap_ab = t.swap_ab;
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

// The widest swizzle of CUTLASS's scheduler, which rasters the grid in stripes of that many tiles
// (so that the CTAs of a wave share rows of A and columns of B in L2) and pads both tile counts to
// multiples of it, that pads `tile`'s grid by at most 5 %; 1 where none does. A padded grid runs
// idle tiles: 2112 columns of 128 (17 tiles to 24) lost a third swizzled in eights, and at
// 2048x3584x18944 (28 columns) stripes of four ran 1.14-1.17x unswizzled where eights padded.
constexpr std::array<int, 2> kWideSwizzles{8, 4};
int widest_swizzle(std::int64_t m, std::int64_t n, const Tile& tile) {
  const std::int64_t tiles_m = gemm::ceil_div(m, tile.tile_m);
  const std::int64_t tiles_n = gemm::ceil_div(n, tile.tile_n);
  for (const int swizzle : kWideSwizzles) {
    const auto padded = [swizzle](std::int64_t tiles) {
      return gemm::ceil_div(tiles, swizzle) * swizzle;
    };
    if (100 * padded(tiles_m) * padded(tiles_n) <= 105 * tiles_m * tiles_n) return swizzle;
  }
  return 1;
}

// Accurate schedules under tensor and row x column scales promote every second k-block: on every
// tile and shape measured that ran faster than promoting every k-block (up to a fifth on the large
// grids), with the same error against the fp32 product (bf16 rounding dominates it).
constexpr int kDefaultPromotion = 2;

// `tile` as deep as shared memory allows (fp8 tiles are half the bytes of bf16 ones, so the
// pipeline runs deeper), no cluster, the schedule's accurate accumulation unless `fast_accum`.
PartialConfig proposal(const Tile& tile, Scaling scaling, bool fast_accum, int swizzle = 1,
                       bool stream_k = false) {
  const int stages = rules::deepest_stages(tile.tile_m, tile.tile_n, 128, static_cast<int>(scaling),
                                           rules::kSharedMemoryPerBlock);
  const gemm_fp8::Schedule chosen = schedule_of(tile, fast_accum);
  const std::string schedule = gemm_fp8::to_string(chosen);
  const int promotion = gemm_fp8::promotion_is_a_knob(chosen, scaling) ? kDefaultPromotion : 1;
  return PartialConfig{{"tile_m", tile.tile_m},
                       {"tile_n", tile.tile_n},
                       {"tile_k", 128},
                       {"stages", stages},
                       {"cluster_m", 1},
                       {"cluster_n", 1},
                       {"schedule", schedule},
                       {"raster", "along_n"},
                       {"swizzle", swizzle},
                       {"promotion", promotion},
                       {"swap_ab", tile.swap_ab ? 1 : 0},
                       {"stream_k", stream_k ? 1 : 0}};
}

// The problem's output tiles of 128x128: the grid the wave rules below measure.
std::int64_t square_tiles(const Problem& p) {
  return gemm::ceil_div(p.get_int("m"), 128) * gemm::ceil_div(p.get_int("n"), 128);
}

// A grid of 128x128 tiles past one wave whose last wave leaves over a quarter of the SMs' tile
// slots idle, at a depth of 32 k-blocks or more: the stream-K scheduler shares the leftover tiles'
// k-blocks among all CTAs (1024x2112x7168, 136 tiles on 132 SMs: 1.25x the persistent grid). At
// shallow K there are too few k-blocks to share (128x24576x1536: 0.9x), and past several waves
// the idle slots cost less than the shared tiles' workspace traffic.
bool streams_k(const Problem& p, const Device& d) {
  const std::int64_t m = p.get_int("m");
  const std::int64_t n = p.get_int("n");
  return square_tiles(p) > d.sm_count && p.get_int("k") >= 32 * 128 &&
         gemm::wave_efficiency(m, n, 128, 128, d.sm_count) < 0.75;
}

// Past one wave of 128x128 tiles: those tiles under the stream-K scheduler where the last wave is
// mostly idle (above), swizzled in eights where that pads little (on the large shapes this beat
// the wider 128x192 tile as well as 128x128 unswizzled), else the tile of the best wave
// efficiency, swizzled as widely as its own grid allows (2048x4608x3584: 128x192 in eights, 1.05x
// the same tile unswizzled); within one wave, that tile unswizzled.
PartialConfig wide_proposal(const Problem& p, const Device& d) {
  const Scaling scaling = scaling_of(p);
  const std::int64_t m = p.get_int("m");
  const std::int64_t n = p.get_int("n");
  const Tile& square = kWideTiles.back();
  if (streams_k(p, d)) return proposal(square, scaling, false, 1, true);
  const bool past_a_wave = square_tiles(p) > d.sm_count;
  if (past_a_wave && widest_swizzle(m, n, square) == kWideSwizzles.front()) {
    return proposal(square, scaling, false, kWideSwizzles.front());
  }
  const Tile tile = wave_tile(m, n, d.sm_count, scaling, false);
  return proposal(tile, scaling, false, past_a_wave ? widest_swizzle(m, n, tile) : 1);
}

// A seed's propose for `tile` with accurate accumulation under the problem's scaling.
auto propose_accurate(const Tile& tile) {
  return [tile](const Problem& p, const Device&) { return proposal(tile, scaling_of(p), false); };
}

// Decoding rows with swapped operands: the fewest of 8, 16 or 32 rows of D that hold the batch on
// the MMA's N side, against 64 columns of weights on its M side (the CTAs of the 64x64 tile).
constexpr int kSwappedDecodeRows = 32;  // the most rows the swapped decoding seed takes
Tile swapped_decode_tile(std::int64_t m) {
  int rows = 8;
  while (rows < m && rows < kSwappedDecodeRows) rows *= 2;
  return {rows, 64, true, true};
}

bool short_of_a_wave(const Problem& p, const Device& d) {
  return gemm::skinny(p.get_int("m")) || square_tiles(p) < d.sm_count;
}

// A device the wave rules can read (its SM count known) and tensor or row x column scales: the
// seeds whose tiles are not whole scale blocks.
bool unblocked(const Problem& p, const Device& d) {
  return d.sm_count > 0 && scaling_of(p) != Scaling::block;
}

}  // namespace

void add_gemm_fp8_seeds(TuningSpace& ts) {
  ts.seeds.push_back({
      .name = "wave_tile",
      .priority = 100,
      .eligible = [](const Problem&, const Device& d) { return d.sm_count > 0; },
      .propose = wide_proposal,
  });
  // Above wave_tile: a grid short of one wave of 128x128 tiles fills more SMs with 64-row tiles.
  ts.seeds.push_back({
      .name = "short_tile",
      .priority = 110,
      .eligible = [](const Problem& p,
                     const Device& d) { return d.sm_count > 0 && short_of_a_wave(p, d); },
      .propose = propose_accurate(kShortTile),
  });
  // Above short_tile where rows are past decoding: a grid that half a wave of 128x128 tiles
  // covers fills the SMs better with 128x64 tiles than with 64-row ping-pong ones; at M <= 64
  // the 64-row tile keeps the lead.
  ts.seeds.push_back({
      .name = "narrow_tile",
      .priority = 120,
      .eligible =
          [](const Problem& p, const Device& d) {
            return unblocked(p, d) && !gemm::skinny(p.get_int("m")) &&
                   2 * square_tiles(p) <= d.sm_count;
          },
      .propose = propose_accurate(kNarrowTile),
  });
  // Above narrow_tile (which decoding M never takes): decoding rows on a grid of at most half a
  // wave of 64x64 tiles (not under block scaling, whose tiles are whole scale blocks).
  ts.seeds.push_back({
      .name = "decode_tile",
      .priority = 130,
      .eligible =
          [](const Problem& p, const Device& d) {
            return unblocked(p, d) && gemm::skinny(p.get_int("m")) &&
                   2 * gemm::ceil_div(p.get_int("n"), kDecodeTile.tile_n) <= d.sm_count;
          },
      .propose = propose_accurate(kDecodeTile),
  });
  // Above decode_tile, up to 32 rows (not under block scaling): the swapped decoding tile, the
  // schedule cuBLASLt's decoding kernels run. On every decoding shape of the table it beat the
  // 64-row tiles (8x4096x14336: 1.18x, 1x4096x4096: 1.14x; 16 to 32 rows 1.02-1.04x).
  ts.seeds.push_back({
      .name = "swapped_decode",
      .priority = 140,
      .eligible =
          [](const Problem& p, const Device& d) {
            return unblocked(p, d) && p.get_int("m") <= kSwappedDecodeRows;
          },
      .propose =
          [](const Problem& p, const Device&) {
            return proposal(swapped_decode_tile(p.get_int("m")), scaling_of(p), false);
          },
  });
  // The fast-accumulation alternative of the default's tile, in the population but never the
  // default: it skips the promotion to full fp32 that keeps deep K accurate (none past
  // kFastAccumMaxK, where the space repairs it away).
  ts.seeds.push_back({
      .name = "fast_accum",
      .priority = 50,
      .eligible =
          [](const Problem& p, const Device& d) {
            return unblocked(p, d) && p.get_int("k") <= rules::kFastAccumMaxK;
          },
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
