#include <array>
#include <utility>

#include "cutune/measurement.hpp"

namespace cutune {
namespace {

constexpr std::array<std::pair<Outcome, std::string_view>, 9> kOutcomeNames{{
    {Outcome::ok, "ok"},
    {Outcome::invalid_config, "invalid_config"},
    {Outcome::compile_error, "compile_error"},
    {Outcome::compile_timeout, "compile_timeout"},
    {Outcome::crash, "crash"},
    {Outcome::hang, "hang"},
    {Outcome::wrong_result, "wrong_result"},
    {Outcome::launch_error, "launch_error"},
    {Outcome::transient, "transient"},
}};

}  // namespace

std::string_view to_string(Outcome outcome) {
  for (const auto& [value, name] : kOutcomeNames) {
    if (value == outcome) return name;
  }
  return "unknown";
}

std::optional<Outcome> outcome_from_string(std::string_view name) {
  for (const auto& [value, known] : kOutcomeNames) {
    if (known == name) return value;
  }
  return std::nullopt;
}

}  // namespace cutune
