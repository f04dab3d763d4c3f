#include "lookup/problem_text.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "space/log_shape.hpp"

namespace cutune::lookup {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Integers, then reals, then true/false; anything else stays text.
nlohmann::json scalar_of(std::string_view text) {
  const char* const last = text.data() + text.size();
  std::int64_t integer = 0;
  if (const auto [end, ec] = std::from_chars(text.data(), last, integer);
      ec == std::errc() && end == last) {
    return integer;
  }
  double real = 0;
  if (const auto [end, ec] = std::from_chars(text.data(), last, real);
      ec == std::errc() && end == last) {
    return real;
  }
  if (text == "true" || text == "false") return text == "true";
  return std::string(text);
}

}  // namespace

ProblemArgs parse_problem(std::string_view text) {
  ProblemArgs args;
  if (trim(text).empty()) return args;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = trim(text.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) {
      throw std::invalid_argument("problem '" + std::string(text) + "' has an empty item");
    }
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      throw std::invalid_argument("problem item '" + std::string(item) + "' is not name=value");
    }
    const std::string name(trim(item.substr(0, eq)));
    const std::string_view value = trim(item.substr(eq + 1));
    if (name.empty() || value.empty()) {
      throw std::invalid_argument("problem item '" + std::string(item) +
                                  "' needs both a name and a value");
    }
    if (!args.emplace(name, scalar_of(value)).second) {
      throw std::invalid_argument("problem item '" + std::string(item) + "' repeats '" + name +
                                  "'");
    }
  }
  return args;
}

std::string canonical_problem(const ProblemArgs& args) {
  std::string text;
  for (const auto& [name, value] : args) {
    if (!text.empty()) text += ',';
    text += name + '=' + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return text;
}

std::optional<std::vector<double>> log_point(const ProblemArgs& args,
                                             const std::vector<std::string>& names) {
  std::vector<double> point;
  point.reserve(names.size());
  for (const auto& name : names) {
    const auto it = args.find(name);
    if (it == args.end() || !it->second.is_number()) return std::nullopt;
    point.push_back(shape::log_feature(it->second.get<double>()));
  }
  return point;
}

std::vector<std::string> numeric_names(const ProblemArgs& args) {
  std::vector<std::string> names;
  for (const auto& [name, value] : args) {
    if (value.is_number()) names.push_back(name);
  }
  return names;
}

bool same_kind(const ProblemArgs& a, const ProblemArgs& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
    if (i->first != j->first || i->second.is_number() != j->second.is_number()) return false;
    if (!i->second.is_number() && i->second != j->second) return false;
  }
  return true;
}

}  // namespace cutune::lookup
