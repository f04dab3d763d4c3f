// Small pieces every compiling backend (CPU, CUDA) needs alike: where its on-disk cache lives and
// how much of a compiler log a measurement keeps.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

namespace cutune::eval {

// $XDG_CACHE_HOME/cutune/<backend> (when absolute), else ~/.cache/cutune/<backend> (/tmp when
// HOME is unset).
inline std::filesystem::path default_cache_dir(std::string_view backend) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::filesystem::path(xdg) / "cutune" / backend;
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr ? home : "/tmp") / ".cache" / "cutune" / backend;
}

// The first 4000 characters of a compiler log, with a note of how many more there were.
inline std::string log_excerpt(const std::string& log) {
  constexpr std::size_t kept = 4000;
  if (log.size() <= kept) return log;
  return log.substr(0, kept) + "\n[... " + std::to_string(log.size() - kept) + " more characters]";
}

}  // namespace cutune::eval
