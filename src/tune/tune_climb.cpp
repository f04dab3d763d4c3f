// The final climb (TuneOptions::final_climb): after the search, the fastest config's one-knob
// neighbours and paired moves that nobody measured, a round at a time, from whichever config is
// fastest when the round is asked. A search ended by its patience or its budget may have left its
// walker short of its basin's best; the climb finishes that walk for any strategy, before the
// tournament.
#include <algorithm>
#include <random>
#include <unordered_set>

#include "tune_run.hpp"

namespace cutune::tuning {

void TuneRun::final_climb(std::size_t configs, std::size_t batch) {
  while (configs > 0 && !budget_full_ && !stop_asked() && !out_of_time()) {
    const std::vector<Config> round = untried_neighbours(std::min(configs, batch));
    if (round.empty()) return;  // the fastest config's neighbourhood is measured: a summit
    configs -= round.size();
    measure_and_observe(round);
  }
}

std::vector<Config> TuneRun::untried_neighbours(std::size_t count) {
  const Evaluated* fastest = nullptr;
  for (const Evaluated& e : report_.evaluated) {
    if (e.measurement.ok() && (!fastest || e.measurement.time_ms < fastest->measurement.time_ms)) {
      fastest = &e;
    }
  }
  if (fastest == nullptr) return {};
  // One-knob steps and the space's paired moves (Space::pair_moves: knobs that pay only together).
  std::vector<Config> neighbours = space_.space.neighbours(fastest->config, 1);
  for (Config& paired : space_.space.paired_neighbours(fastest->config)) {
    neighbours.push_back(std::move(paired));
  }
  // A random order, not the space's: a climb cut short by its budget would otherwise only ever
  // try the first knobs.
  std::shuffle(neighbours.begin(), neighbours.end(), std::mt19937_64(options_.seed));
  std::vector<Config> out;
  std::unordered_set<std::uint64_t> taken;
  for (Config& neighbour : neighbours) {
    if (out.size() == count) break;
    std::optional<Config> legal;
    try {
      legal = space_.space.normalize(std::move(neighbour), problem_, device_).config;
    } catch (const ConfigError&) {
      continue;  // as the search's own candidates: a drop, never fatal
    }
    if (legal && !index_by_hash_.contains(legal->hash()) && taken.insert(legal->hash()).second) {
      out.push_back(std::move(*legal));
    }
  }
  return out;
}

}  // namespace cutune::tuning
