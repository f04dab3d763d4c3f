// cutune.space(): the diversity report, as `cutune space --json` prints it.
#include <nlohmann/json.hpp>

#include "cutune/diversity.hpp"
#include "cutune/family.hpp"
#include "cutune_python.hpp"

namespace cutune::python {

std::string space_json(const std::string& spec_or_family, const std::string& problem_text,
                       std::size_t draws, std::uint64_t seed) {
  const FamilySource source = family_source(spec_or_family);
  const Family& family = source.family;
  const Problem problem = problem_for(source, problem_text);
  nlohmann::json out =
      measure_diversity(*family.tuning, problem, family.device, draws, seed).to_json();
  out["space"] = family.name;
  out["problem"] = problem.canonical();
  out["device"] = family.device.canonical();
  // A GPU's figures come from its description, not from a device on this machine.
  out["device_is_description"] = family.device.cc_major > 0;
  out["seed"] = seed;
  return out.dump();
}

}  // namespace cutune::python
