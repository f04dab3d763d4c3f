// Moves of two knobs at once (Space::pair_moves). A search that steps one knob at a time stops
// where each single step is slower, also when a step of two knobs together is faster: halving a
// tile's height alone loses, doubling its width alone does not compile, and both together are
// the best tile. A space names the few knobs where this happens; every other knob still moves
// alone, so the neighbourhood grows by a handful of configs, not by the square of the knobs.
#include <algorithm>
#include <stdexcept>
#include <unordered_set>

#include "cutune/space.hpp"

namespace cutune {

Space& Space::pair_moves(const std::vector<std::string>& knobs) {
  std::vector<std::size_t> group;
  for (const std::string& name : knobs) {
    const std::size_t knob = index_of(name);  // throws ConfigError naming the closest knob
    if (std::find(group.begin(), group.end(), knob) == group.end()) group.push_back(knob);
  }
  if (group.size() < 2) {
    throw std::invalid_argument("a group of knobs that move together needs two distinct knobs");
  }
  move_pairs_.push_back(std::move(group));
  return *this;
}

std::vector<Config> Space::paired_neighbours(const Config& config) const {
  std::vector<Config> result;
  std::unordered_set<std::uint64_t> seen;
  for (const std::vector<std::size_t>& group : move_pairs_) {
    for (std::size_t a = 0; a < group.size(); ++a) {
      for (std::size_t b = a + 1; b < group.size(); ++b) {
        const std::size_t first = group[a], second = group[b];
        for (Value& u : fragments_[first]->neighbours(config.at(first), 1)) {
          for (Value& v : fragments_[second]->neighbours(config.at(second), 1)) {
            Config neighbour = config;
            neighbour.values_[first] = u;
            neighbour.values_[second] = std::move(v);
            if (seen.insert(neighbour.hash()).second) result.push_back(std::move(neighbour));
          }
        }
      }
    }
  }
  return result;
}

}  // namespace cutune
