// The Hopper GEMM family's heuristic seeds (docs/space.md): configs proposed by shape, each with
// its eligibility rule and the H200 measurement it comes from (docs/perf.md), highest priority
// first into default_config(); where no measurement covers a class of shapes, the tile that puts
// most of the grid's work inside D (gemm_tile_rule.hpp). Called once by make_gemm_space(); throws
// nothing.
#pragma once

#include "cutune/heuristics.hpp"

namespace cutune {

// Appends the family's seeds to `space` (whose knobs they name) in a stable order: tests index it.
void add_gemm_seeds(TuningSpace& space);

}  // namespace cutune
