// The Hopper GEMM family's heuristic seeds (docs/space.md): configs proposed by shape, each with
// its eligibility rule and the H200 measurement it comes from (docs/perf.md), highest priority
// first into default_config(). Called once by make_gemm_space(); throws nothing.
#pragma once

#include <cstdint>

#include "cutune/heuristics.hpp"

namespace cutune {

namespace gemm {

// The share of a persistent grid's tile slots that compute D: m x n output elements over the
// waves of tile_m x tile_n tiles dealt to `slots` CTAs at once, times slots, times the tile's area.
// Both ways a grid wastes time count: idle slots in the last wave and the part of edge tiles that
// lies outside D (a 3000-row side in 128-row tiles computes 72 rows for nothing). 0 without slots.
double wave_efficiency(std::int64_t m, std::int64_t n, int tile_m, int tile_n, int slots);

// Whether wave_fit's 128x192 tiles cover m x n at least as efficiently as the large 128x256 tile
// (wave_efficiency on `sm_count` slots): the rule that picks between the two default tiles.
bool finer_tiles_fit_better(std::int64_t m, std::int64_t n, int sm_count);

}  // namespace gemm

// Appends the family's seeds to `space` (whose knobs they name) in a stable order: tests index it.
void add_gemm_seeds(TuningSpace& space);

}  // namespace cutune
