// Chooses the evaluator for what is tuned: a spec's backend, or a built-in kernel family.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cutune/evaluator.hpp"
#include "cutune/problem.hpp"
#include "cutune/spec.hpp"

namespace cutune::cli {

struct TunedTarget {
  std::unique_ptr<Evaluator> evaluator;
  Device device;  // what constraints and seeds see
  // Built-in families: the source hash for the store's key, the work of one run (for rates) and
  // the vendor library timed on the same problem by the same evaluator, for comparison.
  std::string family_version;
  double flop_count = 0;  // 0: unknown
  std::string reference_name;
  std::function<Measurement()> time_reference;  // empty: none
};

// Throws std::invalid_argument for a backend this build cannot serve. devices: the CUDA ordinals
// to measure on (one worker each, candidates spread over them); the CPU backend starts that many
// worker processes as its devices.
TunedTarget make_spec_target(const KernelSpec& spec, const Problem& problem,
                             const std::vector<int>& devices = {0});

// The evaluator of built-in family `family` (a name of tuning_space_names()) on `problem`, with
// the device the evaluator measures on. Throws std::invalid_argument when this build has none.
TunedTarget make_builtin_target(const std::string& family, const Problem& problem,
                                const std::vector<int>& devices = {0});

}  // namespace cutune::cli
