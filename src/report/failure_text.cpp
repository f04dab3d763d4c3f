#include "cutune/failure_text.hpp"

#include <vector>

namespace cutune::report {
namespace {

constexpr std::string_view kLogMarker = "(full log: ";

std::string_view trim(std::string_view line) {
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    lines.push_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return lines;
}

// GCC and Clang write "file:line:col: error: ...", NVRTC "file(line): error: ..." and nvcc's
// driver "error : ...": all carry "error" followed by optional spaces and a colon.
bool reports_error(std::string_view line) {
  for (auto at = line.find("error"); at != std::string_view::npos;
       at = line.find("error", at + 1)) {
    auto after = line.find_first_not_of(' ', at + 5);
    if (after != std::string_view::npos && line[after] == ':') return true;
  }
  return false;
}

}  // namespace

std::string first_error_line(std::string_view detail) {
  const std::vector<std::string_view> lines = lines_of(detail);
  for (std::string_view line : lines) {
    if (reports_error(line)) return std::string(trim(line));
  }
  for (std::string_view line : lines) {
    if (!trim(line).empty()) return std::string(trim(line));
  }
  return {};
}

std::string full_log_path(std::string_view detail) {
  const auto at = detail.rfind(kLogMarker);
  if (at == std::string_view::npos) return {};
  const auto start = at + kLogMarker.size();
  // Up to the line's last ')': a path may itself hold parentheses.
  const std::string_view line = detail.substr(start, detail.find('\n', start) - start);
  const auto end = line.rfind(')');
  return std::string(end == std::string_view::npos ? line : line.substr(0, end));
}

}  // namespace cutune::report
