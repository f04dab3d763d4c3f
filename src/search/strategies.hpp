// Factories of the built-in strategies (one file each); registry.cpp maps names to them.
#pragma once

#include <memory>

#include "cutune/strategy.hpp"
#include "search_state.hpp"

namespace cutune::search {

std::unique_ptr<Strategy> make_random(Effort effort);
std::unique_ptr<Strategy> make_exhaustive(Effort effort);
std::unique_ptr<Strategy> make_pattern(Effort effort);
std::unique_ptr<Strategy> make_differential_evolution(Effort effort);
std::unique_ptr<Strategy> make_lfbo_pattern(Effort effort);
std::unique_ptr<Strategy> make_hybrid(Effort effort);

}  // namespace cutune::search
