// Preferences (Space::prefer; a Space keeps them beside its constraints): where a search's random
// first round looks before it knows anything of the device. A constraint says where a config is
// illegal; a preference says only where fast configs usually are, so it never drops a candidate and
// a search that finds it wrong moves on.
#include <cmath>

#include "cutune/space.hpp"

namespace cutune {

bool Space::preferred(const Config& config, const Problem& problem, const Device& device) const {
  for (const Preference& preference : preferences_) {
    if (!preference.holds(config, problem, device)) return false;
  }
  return true;
}

Preference whole_warps(
    std::string name, std::function<double(const Config&, const Problem&, const Device&)> block_x) {
  constexpr double kWarpSize = 32;
  return Preference{
      .name = std::move(name),
      .holds = [block_x = std::move(block_x)](const Config& config, const Problem& problem,
                                              const Device& device) {
        const double threads = block_x(config, problem, device);
        return threads >= kWarpSize && std::fmod(threads, kWarpSize) == 0.0;
      }};
}

}  // namespace cutune
