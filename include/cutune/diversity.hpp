// How much of a space random search actually reaches: of N draws, how many distinct configs
// survive normalization, which knobs vary, how often each constraint fires. A space whose repairs
// project most draws onto one config (the seed's bug: 300 draws, 1 distinct) shows it here.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "cutune/heuristics.hpp"

namespace cutune {

struct DiversityReport {
  std::size_t draws = 0;
  std::size_t distinct = 0;  // distinct normalized configs among the survivors
  std::size_t dropped = 0;   // still illegal after repair
  std::vector<std::string> searchable_knobs;  // knobs whose search view has more than one value
  std::vector<std::string> varying_knobs;     // knobs taking more than one value after repair
  // Per constraint, in the space's order: how many draws its repair ran on.
  std::vector<std::string> constraint_names;
  std::vector<std::size_t> constraint_trips;
  std::vector<std::string> eligible_seeds;  // highest priority first
  std::vector<std::string> seed_errors;     // eligible seeds that cannot be used, and why
  std::vector<std::string> drop_reasons;    // the first few, for the reader
  std::string default_config;               // default_config(problem, device) as JSON text
  std::string default_error;                // why there is none, when there is none

  nlohmann::json to_json() const;
};

DiversityReport measure_diversity(const TuningSpace& ts, const Problem& problem,
                                  const Device& device, std::size_t draws, std::uint64_t seed);

}  // namespace cutune
