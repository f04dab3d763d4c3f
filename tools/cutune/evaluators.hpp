// Chooses the evaluator a spec's backend asks for.
#pragma once

#include <memory>

#include "cutune/evaluator.hpp"
#include "cutune/problem.hpp"
#include "cutune/spec.hpp"

namespace cutune::cli {

struct TunedTarget {
  std::unique_ptr<Evaluator> evaluator;
  Device device;  // what constraints and seeds see
};

// Throws std::invalid_argument for a backend this build cannot serve.
TunedTarget make_spec_target(const KernelSpec& spec, const Problem& problem);

}  // namespace cutune::cli
