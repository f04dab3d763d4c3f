// The final climb (TuneOptions::final_climb): after the search, the fastest config's one-knob
// neighbours and paired moves that nobody measured, a round at a time, from whichever config is
// fastest when the round is asked. A search ended by its patience or its budget may have left its
// walker short of its basin's best; the climb finishes that walk for any strategy, before the
// tournament. Its order: each slot's best move (a knob, or one element of a list knob, as the
// search's kind of model rates it: cutune/surrogate.hpp, fitted on every result, failures as not
// good) before any slot's second. By the model alone, a round spends itself on the few slots it
// rates highest and two tunes whose searches ended a little apart climb different slots; a
// kernel's gain can sit in a flip the model rates low (how a tensor is addressed, a loop's
// buffering), and every slot's best move finds it. The model still orders the slots and each
// slot's moves, so a neighbourhood at the edge of what compiles (a tile and stages that fill
// shared memory) is climbed through its likely configs first.
#include <algorithm>
#include <map>
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

// The slot a move changes: (knob, element) for one element of a list knob, (knob, -1) for any
// other knob. Paired moves (two slots or more) share one slot: there are many (every two sides of
// a tile, a side and the warps), most of them ask more of a tile at the edge of shared memory, and
// they are there to cross a ridge that no one-knob move crosses, which the model's best one does.
using Slot = std::pair<std::size_t, std::ptrdiff_t>;
constexpr Slot kPaired{static_cast<std::size_t>(-1), -1};

Slot slot_moved(const Config& from, const Config& to) {
  std::vector<Slot> moved;
  for (std::size_t knob = 0; knob < from.size(); ++knob) {
    const Value& a = from.at(knob);
    const Value& b = to.at(knob);
    if (a == b) continue;
    if (a.is_list() && b.is_list() && a.as_list().size() == b.as_list().size()) {
      for (std::size_t i = 0; i < a.as_list().size(); ++i) {
        if (a.as_list()[i] != b.as_list()[i]) moved.emplace_back(knob, std::ptrdiff_t(i));
      }
    } else {
      moved.emplace_back(knob, -1);
    }
  }
  return moved.size() == 1 ? moved.front() : kPaired;
}

}  // namespace

void TuneRun::final_climb(std::size_t configs, std::size_t batch) {
  while (configs > 0 && !budget_full_ && !stop_asked() && !out_of_time()) {
    const std::vector<Config> round = untried_neighbours(std::min(configs, batch));
    if (round.empty()) return;  // the fastest config's neighbourhood is measured: a summit
    configs -= round.size();
    measure_and_observe(round);
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
  std::vector<Slot> moved;       // per legal config, the slot its move changed (before repair)
  std::map<Slot, int> measured;  // per slot, the moves from this centre measured already
  std::unordered_set<std::uint64_t> taken;
  for (Config& neighbour : neighbours) {
    const Slot slot = slot_moved(centre->config, neighbour);
    std::optional<Config> normalized;
    try {
      normalized = space_.space.normalize(std::move(neighbour), problem_, device_).config;
    } catch (const ConfigError&) {
      continue;  // as the search's own candidates: a drop, never fatal
    }
    if (!normalized) continue;
    if (index_by_hash_.contains(normalized->hash())) {
      ++measured[slot];
    } else if (taken.insert(normalized->hash()).second) {
      legal.push_back(std::move(*normalized));
      moved.push_back(slot);
    }
  }
  // Random among equal scores (and without a model): a climb cut short by its budget would
  // otherwise only ever try the space's first knobs.
  std::vector<std::size_t> order(legal.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(options_.seed + report_.evaluated.size());
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<Config> results_configs;
  std::vector<Measurement> results;
  for (const Evaluated& e : report_.evaluated) {
    results_configs.push_back(e.config);
    results.push_back(e.measurement);
  }
  GoodConfigModel model(ClassifierOptions{.trees = kTrees, .seed = rng()}, kGoodFraction);
  if (!legal.empty() && model.fit(results_configs, results)) {
    const std::vector<double> scores = model.score(legal);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  }
  // Each slot's best untried move before any slot's next: a move's turn is how many moves of its
  // slot come before it, from this centre, measured or in this order.
  std::vector<int> turn(legal.size());
  for (std::size_t i : order) turn[i] = measured[moved[i]]++;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return turn[a] < turn[b]; });
  std::vector<Config> picked;
  for (std::size_t i : order) {
    if (picked.size() == count) break;
    picked.push_back(std::move(legal[i]));
  }
  return picked;
}

}  // namespace cutune::tuning
