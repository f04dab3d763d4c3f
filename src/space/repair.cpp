#include "space/repair.hpp"

namespace cutune {

Repaired repaired(const Space& space, const nlohmann::json& config, const Problem& problem,
                  const Device& device) {
  Repaired out;
  try {
    Config read = space.from_json(config);
    out.readable = true;
    Normalized n = space.normalize(std::move(read), problem, device);
    if (!n.config) out.why = "violates " + n.failure + " after repair";
    out.config = std::move(n.config);
  } catch (const std::exception& error) {
    out.why = error.what();
  }
  return out;
}

}  // namespace cutune
