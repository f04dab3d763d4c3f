#include "polish.hpp"

#include <unordered_set>

namespace cutune::polish {

std::vector<Config> neighbourhood(const Space& space, const Problem& problem, const Device& device,
                                  const Config& centre,
                                  const std::function<bool(const Config&)>& unmeasured) {
  std::vector<Config> out;
  std::unordered_set<std::uint64_t> seen{centre.hash()};
  for (Config& neighbour : space.neighbours(centre, 1)) {
    Normalized n = space.normalize(std::move(neighbour), problem, device);
    if (!n.config || !seen.insert(n.config->hash()).second || !unmeasured(*n.config)) continue;
    out.push_back(std::move(*n.config));
  }
  return out;
}

}  // namespace cutune::polish
