// Checks for numeric command-line options, applied to the text before CLI11 converts it: an
// unsigned option given "-1" would otherwise wrap to 2^64-1 (a budget without end), and a double
// given "nan" compares false with every bound (a time limit that never fires). A failed check
// throws CLI::ValidationError, which names the option and the value ("--budget: ...").
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace cutune::cli {

// A whole number in [min, max], written in decimal digits only (no sign, no exponent).
inline CLI::Validator whole_number(std::uint64_t min,
                                   std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  return CLI::Validator(
      [min, max](const std::string& text) -> std::string {
        std::uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (text.empty() || error != std::errc() || stop != end) {
          return fmt::format("'{}' is not a whole number from {} to {}", text, min, max);
        }
        if (value < min || value > max) {
          return fmt::format("{} is outside {} to {}", text, min, max);
        }
        return {};
      },
      fmt::format("INT in [{} - {}]", min, max));
}

// A finite number of seconds, zero or more (zero: the option's "none").
inline CLI::Validator finite_seconds() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        double value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (text.empty() || error != std::errc() || stop != end || !std::isfinite(value) ||
            value < 0) {
          return fmt::format("'{}' is not a finite number of seconds, 0 or more", text);
        }
        return {};
      },
      "SECONDS >= 0");
}

}  // namespace cutune::cli
