// How much of a space random search actually reaches. A population is built as a search builds
// its first one: draw from the search view, normalize, redraw a config already in the population,
// give up after 64 draws per member. The report says how many distinct configs it holds, which
// knobs vary, how often each constraint fires, and how many of the first draws were distinct
// before any redraw. A normalizer that projects draws onto one config (the seed's bug: 300 draws,
// 1 distinct) shows as a population of 1 however many draws are made.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "cutune/heuristics.hpp"

namespace cutune {

struct DiversityReport {
  std::size_t population = 0;      // configs asked for
  std::size_t draws = 0;           // draws made to fill the population
  std::size_t distinct = 0;        // distinct normalized configs in the population
  std::size_t first_distinct = 0;  // distinct normalized configs among the first `population`
                                   // draws, without redraws (birthday collisions included)
  std::size_t duplicates = 0;      // draws whose normalized config was already in the population
  std::size_t dropped = 0;         // draws still illegal after repair
  std::vector<std::string> searchable_knobs;  // knobs whose search view has more than one value
  std::vector<std::string> varying_knobs;     // knobs taking more than one value after repair
  // Per constraint, in the space's order: on how many of the draws its repair ran.
  std::vector<std::string> constraint_names;
  std::vector<std::size_t> constraint_trips;
  // Per preference, in the space's order: how many of the distinct configs it holds for (a
  // search's first round keeps to those, docs/space.md).
  std::vector<std::string> preference_names;
  std::vector<std::size_t> preference_holds;
  std::vector<std::string> problem_errors;  // why the family cannot run the problem at all
  std::vector<std::string> eligible_seeds;  // highest priority first
  std::vector<std::string> seed_errors;     // eligible seeds that cannot be used, and why
  std::vector<std::string> drop_reasons;    // the first few, for the reader
  std::string default_config;               // default_config(problem, device) as JSON text
  std::vector<std::string> seed_configs;    // the usable seeds' configs (seed_configs) as JSON
  std::string default_error;                // why there is none, when there is none

  // Constraint i's repairs as a fraction of the draws; preference i's distinct configs as a
  // fraction of the distinct ones (0 when there were none).
  double constraint_rate(std::size_t i) const;
  double preference_share(std::size_t i) const;
  nlohmann::json to_json() const;
};

// Throws nothing of its own: a default config the space cannot make is reported in default_error.
DiversityReport measure_diversity(const TuningSpace& ts, const Problem& problem,
                                  const Device& device, std::size_t population, std::uint64_t seed);

}  // namespace cutune
