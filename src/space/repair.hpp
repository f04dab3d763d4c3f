// A stored or dispatched config (JSON) made legal for one problem by its space's repairs: what the
// runtime loads, what a dispatch rule hands out, and what a dispatch fit scores and cross-measures
// on each shape, so that all of them judge a config alike. Internal to cutune_space, used by the
// runtime and dispatch.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cutune/space.hpp"

namespace cutune {

struct Repaired {
  std::optional<Config> config;  // legal for the problem; empty when there is none
  std::string why;               // why there is none
  // Whether the space could read the JSON at all: one it cannot (another version of the space)
  // says nothing of the config's legality.
  bool readable = false;
};

// `config` read by `space` and repaired for `problem` on `device`.
Repaired repaired(const Space& space, const nlohmann::json& config, const Problem& problem,
                  const Device& device);

}  // namespace cutune
