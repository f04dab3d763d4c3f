#include "space/log_shape.hpp"

#include <cmath>

namespace cutune::shape {

std::vector<std::string> numeric_names(const Problem& problem) {
  std::vector<std::string> names;
  for (const auto& [name, value] : problem.args()) {
    if (is_numeric(value)) names.push_back(name);
  }
  return names;
}

std::map<std::string, Value, std::less<>> fixed_args(const Problem& problem) {
  std::map<std::string, Value, std::less<>> fixed;
  for (const auto& [name, value] : problem.args()) {
    if (!is_numeric(value)) fixed.emplace(name, value);
  }
  return fixed;
}

std::optional<std::vector<double>> log_point(const Problem& problem,
                                             const std::vector<std::string>& names) {
  std::vector<double> point;
  point.reserve(names.size());
  for (const auto& name : names) {
    if (!problem.has(name) || !is_numeric(problem.at(name))) return std::nullopt;
    point.push_back(log_feature(problem.at(name).as_double()));
  }
  return point;
}

double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum);
}

}  // namespace cutune::shape
