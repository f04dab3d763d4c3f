#include "cutune/heuristics.hpp"

#include <algorithm>

namespace cutune {

std::vector<const HeuristicSeed*> eligible_seeds(const TuningSpace& ts, const Problem& problem,
                                                 const Device& device) {
  std::vector<const HeuristicSeed*> seeds;
  for (const HeuristicSeed& seed : ts.seeds) {
    if (!seed.eligible || seed.eligible(problem, device)) seeds.push_back(&seed);
  }
  std::stable_sort(seeds.begin(), seeds.end(), [](const HeuristicSeed* a, const HeuristicSeed* b) {
    return a->priority > b->priority;
  });
  return seeds;
}

std::vector<std::string> problem_errors(const TuningSpace& ts, const Problem& problem,
                                        const Device& device) {
  if (!ts.problem_errors) return {};
  return ts.problem_errors(problem, device);
}

namespace {

// A seed completed and normalized, or the reason it cannot be used.
std::optional<Config> seed_config(const TuningSpace& ts, const HeuristicSeed& seed,
                                  const Problem& problem, const Device& device,
                                  std::string& error) {
  try {
    Normalized normalized =
        ts.space.normalize(ts.space.complete(seed.propose(problem, device)), problem, device);
    if (!normalized.config) error = "seed '" + seed.name + "' violates " + normalized.failure;
    return std::move(normalized.config);
  } catch (const std::exception& e) {
    error = "seed '" + seed.name + "': " + e.what();
    return std::nullopt;
  }
}

}  // namespace

std::vector<Config> seed_configs(const TuningSpace& ts, const Problem& problem,
                                 const Device& device, std::vector<std::string>* errors) {
  std::vector<Config> configs;
  for (const HeuristicSeed* seed : eligible_seeds(ts, problem, device)) {
    std::string error;
    if (auto config = seed_config(ts, *seed, problem, device, error)) {
      configs.push_back(*std::move(config));
    } else if (errors) {
      errors->push_back(std::move(error));
    }
  }
  return configs;
}

Config default_config(const TuningSpace& ts, const Problem& problem, const Device& device) {
  for (const HeuristicSeed* seed : eligible_seeds(ts, problem, device)) {
    std::string ignored;  // a broken seed falls through to the next one
    if (auto config = seed_config(ts, *seed, problem, device, ignored)) return *std::move(config);
  }
  Normalized normalized = ts.space.normalize(ts.space.default_config(), problem, device);
  if (!normalized.config) {
    throw ConfigError("the space default is illegal for problem '" + problem.canonical() +
                      "' and no eligible seed is legal: it violates " + normalized.failure);
  }
  return *std::move(normalized.config);
}

}  // namespace cutune
