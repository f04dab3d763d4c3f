// Builds cutune::Expression objects (muparser) for a spec, with the names a spec may use.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cutune/space.hpp"
#include "cutune/spec.hpp"

namespace cutune::spec {

// The names an expression may use besides the device's.
struct Scope {
  const Space* space = nullptr;  // its knobs; null: problem arguments and device only
  std::vector<std::pair<std::string, double>> problem;  // numeric arguments with their defaults
};

// Throws std::invalid_argument with muparser's message and the names in scope.
Expression compile_expression(const std::string& text, const Scope& scope);

}  // namespace cutune::spec
