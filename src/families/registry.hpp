// The kernel families' spaces that ship with cutune, by name (used by `cutune space NAME`).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/heuristics.hpp"

namespace cutune {

struct BuiltinSpace {
  std::string name;
  std::string summary;
  Problem example_problem;  // what a command shows when given no problem
  Device device;            // the device description the space is tuned against by default
  // Fills the family's defaults into a problem (the key a tune and the runtime share); throws
  // std::invalid_argument for a problem the family cannot run.
  std::function<Problem(const Problem&)> resolve;
  std::function<std::unique_ptr<TuningSpace>()> make;
};

const std::vector<BuiltinSpace>& builtin_spaces();
const BuiltinSpace* find_builtin_space(std::string_view name);  // nullptr when unknown
// The space called `name`, built on first use and kept for the life of the program (configs
// point at their space); nullptr when unknown.
const TuningSpace* find_tuning_space(std::string_view name);
std::vector<std::string> tuning_space_names();

}  // namespace cutune
