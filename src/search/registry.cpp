#include <fmt/core.h>
#include <fmt/ranges.h>

#include <functional>
#include <stdexcept>
#include <utility>

#include "strategies.hpp"

namespace cutune {
namespace {

using Factory = std::unique_ptr<Strategy> (*)(Effort);

const std::vector<std::pair<std::string, Factory>>& factories() {
  static const std::vector<std::pair<std::string, Factory>> table{
      {"random", search::make_random},     {"exhaustive", search::make_exhaustive},
      {"pattern", search::make_pattern},   {"de", search::make_differential_evolution},
      {"lfbo", search::make_lfbo_pattern}, {"hybrid", search::make_hybrid},
  };
  return table;
}

}  // namespace

std::string_view default_strategy_name() { return "lfbo"; }

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : factories()) names.push_back(name);
  return names;
}

std::unique_ptr<Strategy> make_strategy(std::string_view name, Effort effort) {
  if (name == "default") name = default_strategy_name();
  for (const auto& [known, factory] : factories()) {
    if (known == name) return factory(effort);
  }
  throw std::invalid_argument(fmt::format("unknown strategy \"{}\"; known: {}, default", name,
                                          fmt::join(strategy_names(), ", ")));
}

Effort effort_from_string(std::string_view name) {
  if (name == "quick") return Effort::quick;
  if (name == "full") return Effort::full;
  throw std::invalid_argument(fmt::format("unknown effort \"{}\"; known: quick, full", name));
}

}  // namespace cutune
