// The final climb (TuneOptions::final_climb): after the search, the fastest config's one-knob
// neighbours and paired moves that nobody measured, a round at a time, from whichever config is
// fastest when the round is asked. A search ended by its patience or its budget may have left its
// walker short of its basin's best; the climb finishes that walk for any strategy, before the
// tournament. The neighbours go in the order of the search's own kind of model
// (cutune/surrogate.hpp, fitted on every result, failures as not good), so that a neighbourhood at
// the edge of what compiles (a tile and stages that fill shared memory) is climbed through its
// likely configs first; a round that found nothing faster ends the climb, leaving the rest, which
// that model rates lower still.
#include <algorithm>
#include <numeric>
#include <random>
#include <unordered_set>

#include "cutune/surrogate.hpp"
#include "tune_run.hpp"

namespace cutune::tuning {
namespace {

// The search's settings for its model (src/search/lfbo_pattern.cpp, quick effort).
constexpr int kTrees = 16;
constexpr double kGoodFraction = 0.15;

}  // namespace

void TuneRun::final_climb(std::size_t configs, std::size_t batch) {
  while (configs > 0 && !budget_full_ && !stop_asked() && !out_of_time()) {
    const double before = fastest_ok();
    const std::vector<Config> round = untried_neighbours(std::min(configs, batch));
    if (round.empty()) return;  // the fastest config's neighbourhood is measured: a summit
    configs -= round.size();
    measure_and_observe(round);
    if (!(fastest_ok() < before)) return;
  }
}

std::vector<Config> TuneRun::untried_neighbours(std::size_t count) {
  const Evaluated* centre = fastest();
  if (centre == nullptr) return {};
  // One-knob steps and the space's paired moves (Space::pair_moves: knobs that pay only together).
  std::vector<Config> neighbours = space_.space.neighbours(centre->config, 1);
  for (Config& paired : space_.space.paired_neighbours(centre->config)) {
    neighbours.push_back(std::move(paired));
  }
  std::vector<Config> legal;
  std::unordered_set<std::uint64_t> taken;
  for (Config& neighbour : neighbours) {
    std::optional<Config> normalized;
    try {
      normalized = space_.space.normalize(std::move(neighbour), problem_, device_).config;
    } catch (const ConfigError&) {
      continue;  // as the search's own candidates: a drop, never fatal
    }
    if (normalized && !index_by_hash_.contains(normalized->hash()) &&
        taken.insert(normalized->hash()).second) {
      legal.push_back(std::move(*normalized));
    }
  }
  // Random among equal scores (and without a model): a climb cut short by its budget would
  // otherwise only ever try the space's first knobs.
  std::mt19937_64 rng(options_.seed + report_.evaluated.size());
  std::shuffle(legal.begin(), legal.end(), rng);
  std::vector<Config> measured;
  std::vector<Measurement> results;
  for (const Evaluated& e : report_.evaluated) {
    measured.push_back(e.config);
    results.push_back(e.measurement);
  }
  GoodConfigModel model(ClassifierOptions{.trees = kTrees, .seed = rng()}, kGoodFraction);
  if (!legal.empty() && model.fit(measured, results)) {
    const std::vector<double> scores = model.score(legal);
    std::vector<std::size_t> order(legal.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    std::vector<Config> ranked;
    for (std::size_t i : order) ranked.push_back(std::move(legal[i]));
    legal = std::move(ranked);
  }
  if (legal.size() > count) {
    legal.erase(legal.begin() + static_cast<std::ptrdiff_t>(count), legal.end());
  }
  return legal;
}

}  // namespace cutune::tuning
