#include "evaluators.hpp"

#include <fmt/core.h>

#include <stdexcept>

#include "cutune/cpu.hpp"

namespace cutune::cli {

TunedTarget make_spec_target(const KernelSpec& spec, const Problem& problem) {
  if (spec.backend == "cpu") {
    return {std::make_unique<CpuEvaluator>(spec, problem), Device::host_cpu()};
  }
  throw std::invalid_argument(fmt::format("{}: backend '{}' is not available in this build",
                                          spec.path.string(), spec.backend));
}

}  // namespace cutune::cli
