// The radius-1 polish after the search (the idea of Helion's #3524): the legal neighbours at
// distance 1 of the search's best, in the search view, measured in one batch before the
// tournament, so a neighbour that is faster enters the tournament and wins only in paired rounds.
// Internal to the tune driver.
#pragma once

#include <functional>
#include <vector>

#include "cutune/problem.hpp"
#include "cutune/space.hpp"

namespace cutune::polish {

// The normalized radius-1 neighbours of `centre` for which `unmeasured` holds, without
// duplicates and without the centre. Never throws for an illegal neighbour (it is left out).
std::vector<Config> neighbourhood(const Space& space, const Problem& problem, const Device& device,
                                  const Config& centre,
                                  const std::function<bool(const Config&)>& unmeasured);

}  // namespace cutune::polish
