// How the GEMM's default picks its tile: by how much of the persistent grid's work lands inside D.
// Pure arithmetic on the shape and the SM count, read by the seeds (gemm_seeds.cpp), so that
// default_config, the runtime's answer for an untuned shape and `cutune space` agree. Nothing here
// throws.
#pragma once

#include <cstdint>

namespace cutune::gemm {

// The share of a persistent grid's tile slots that compute D: m x n output elements over the
// waves of tile_m x tile_n tiles dealt to `slots` CTAs at once, times slots, times the tile's area.
// Both ways a grid wastes time count: idle slots in the last wave and the part of edge tiles that
// lies outside D (a 3000-row side in 128-row tiles computes 72 rows for nothing). 0 without slots.
double wave_efficiency(std::int64_t m, std::int64_t n, int tile_m, int tile_n, int slots);

// Whether 128x192 tiles cover m x n at least as efficiently as the large 128x256 tile
// (wave_efficiency on `sm_count` slots): wave_fit's and small_k's choice between the two.
bool finer_tiles_fit_better(std::int64_t m, std::int64_t n, int sm_count);

// One of the tiles residue_tile() chooses from, with the schedule and depth its seed proposes.
struct ResidueTile {
  int tile_m, tile_n, tile_k, stages;
  bool pingpong;
};

// A shape with m > 64 whose 128x128 tiles make at least a wave but whose sides are too short for
// the large-tile seeds (m or n under 1024): of the two wide tiles (128x256, 128x192) the one with
// the higher wave_efficiency, the larger on a tie. Narrower tiles fill such a grid better and
// still lose: at 1000x2056x1064 on the H200, 128x64 tiles (exactly two waves, 0.95 of the grid in
// D) read 0.58 of cuBLASLt, 128x128 ones 0.61, 128x192 ones (0.63 of one wave) 0.81 and 128x256
// ones 0.80 (docs/perf.md).
ResidueTile residue_tile(std::int64_t m, std::int64_t n, int sm_count);

// Whether residue_tile() decides the default for this shape (see above).
bool needs_residue_tile(std::int64_t m, std::int64_t n, int sm_count);

// Whether a decoding-sized M (at most 64 rows) takes partial_wave's 64-row tiles whatever N is:
// 128-row tiles would compute at least as much padding as D, and such a product streams B once
// (at 16x28672x4096, 224 tiles of 128x128 would otherwise fall to the space's plain default).
constexpr bool skinny(std::int64_t m) { return m <= 64; }

}  // namespace cutune::gemm
