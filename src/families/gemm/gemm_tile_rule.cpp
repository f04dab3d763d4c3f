#include "gemm/gemm_tile_rule.hpp"

#include "gemm/gemm_problem.hpp"

namespace cutune::gemm {

double wave_efficiency(std::int64_t m, std::int64_t n, int tile_m, int tile_n, int slots) {
  if (slots <= 0 || m <= 0 || n <= 0) return 0;
  const std::int64_t tiles = ceil_div(m, tile_m) * ceil_div(n, tile_n);
  const std::int64_t covered = ceil_div(tiles, slots) * slots * tile_m * tile_n;
  return static_cast<double>(m) * static_cast<double>(n) / static_cast<double>(covered);
}

bool finer_tiles_fit_better(std::int64_t m, std::int64_t n, int sm_count) {
  return wave_efficiency(m, n, 128, 192, sm_count) >= wave_efficiency(m, n, 128, 256, sm_count);
}

ResidueTile residue_tile(std::int64_t m, std::int64_t n, int sm_count) {
  // Depths as the seeds that measured each tile use them (large_square, wave_fit).
  constexpr ResidueTile kTable[] = {{128, 256, 64, 4, false}, {128, 192, 64, 4, true}};
  ResidueTile best = kTable[0];
  double best_efficiency = -1;
  for (const ResidueTile& tile : kTable) {
    const double efficiency = wave_efficiency(m, n, tile.tile_m, tile.tile_n, sm_count);
    if (efficiency > best_efficiency) {
      best = tile;
      best_efficiency = efficiency;
    }
  }
  return best;
}

bool needs_residue_tile(std::int64_t m, std::int64_t n, int sm_count) {
  return sm_count > 0 && !skinny(m) && (m < 1024 || n < 1024) &&
         ceil_div(m, 128) * ceil_div(n, 128) >= sm_count;
}

}  // namespace cutune::gemm
