// The fp8 GEMM family's heuristic seeds (docs/space.md): configs proposed by shape and scaling,
// highest priority first into default_config(). None is measured on the H200 yet: each picks,
// among the tiles its scaling can run, the one that puts most of the persistent grid's work
// inside D (the bf16 family's wave_efficiency, gemm/gemm_tile_rule.hpp). Called once by
// make_gemm_fp8_space(); throws nothing.
#pragma once

#include "cutune/heuristics.hpp"

namespace cutune {

// Appends the family's seeds to `space` (whose knobs they name) in a stable order: tests index it.
void add_gemm_fp8_seeds(TuningSpace& space);

}  // namespace cutune
