#include "spec_family.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace cutune::families {

Family spec_common(const KernelSpec& spec, std::string_view backend) {
  if (spec.backend != backend) {
    throw std::invalid_argument(fmt::format("{}: spec '{}' targets backend '{}', not {}",
                                            spec.path.string(), spec.name, spec.backend, backend));
  }
  Family f;
  f.name = spec.name;
  f.version = spec.version;
  f.summary = fmt::format("{} kernel of {}", backend, spec.path.string());
  f.tuning = spec.tuning.get();
  f.example_problem = spec.problem;
  f.resolve = [&spec](const Problem& problem) { return spec.resolve(problem); };
  f.checked_against = checked_against(spec);
  return f;
}

}  // namespace cutune::families
