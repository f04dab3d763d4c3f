// How cutune-nvrtc reports the lowered (mangled) names of name expressions: its last line of
// output is this prefix followed by a JSON object {expression: symbol}.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace cutune::cuda::nvrtc_helper {

inline constexpr std::string_view names_prefix = "cutune-nvrtc lowered names: ";

inline std::map<std::string, std::string> lowered_names(const std::string& output) {
  auto at = output.rfind(names_prefix);
  if (at == std::string::npos) return {};
  auto line = output.substr(at + names_prefix.size());
  line = line.substr(0, line.find('\n'));
  auto parsed = nlohmann::json::parse(line, nullptr, false);
  if (!parsed.is_object()) return {};
  return parsed.get<std::map<std::string, std::string>>();
}

}  // namespace cutune::cuda::nvrtc_helper
