// Heuristic seeds: named rules that, when eligible for a (problem, device), propose a partial
// config. Eligible seeds join the first population of every strategy; the best eligible seed,
// completed with defaults, is default_config().
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cutune/config.hpp"
#include "cutune/problem.hpp"
#include "cutune/space.hpp"

namespace cutune {

struct HeuristicSeed {
  std::string name;
  int priority = 0;                                             // higher wins among eligible seeds
  std::function<bool(const Problem&, const Device&)> eligible;  // empty: always eligible
  std::function<PartialConfig(const Problem&, const Device&)> propose;
};

// A space with its seeds: everything the search needs to know about one kernel family.
struct TuningSpace {
  Space space;
  std::vector<HeuristicSeed> seeds;
  // Why the family cannot run a problem at all (a dtype it lacks, a misaligned dimension), each
  // reason naming the argument; empty when it can. Checked once per tune, not per candidate: no
  // config of the space would help. An empty function accepts every problem.
  std::function<std::vector<std::string>(const Problem&, const Device&)> problem_errors = {};
};

// ts.problem_errors(problem, device), or nothing when the space accepts every problem.
std::vector<std::string> problem_errors(const TuningSpace& ts, const Problem& problem,
                                        const Device& device);

// Eligible seeds, highest priority first (ties keep declaration order).
std::vector<const HeuristicSeed*> eligible_seeds(const TuningSpace& ts, const Problem& problem,
                                                 const Device& device);
// Eligible seeds completed with defaults and normalized; a seed that is illegal is skipped and
// reported through `errors` when given.
std::vector<Config> seed_configs(const TuningSpace& ts, const Problem& problem,
                                 const Device& device, std::vector<std::string>* errors = nullptr);
// The first eligible seed that completes and normalizes, else the space default (normalized).
// Throws ConfigError when even the default cannot be repaired for this problem.
Config default_config(const TuningSpace& ts, const Problem& problem, const Device& device);

}  // namespace cutune
