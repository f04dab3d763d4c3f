#include "space/log_shape.hpp"

#include <cmath>

#include "lookup/problem_text.hpp"

namespace cutune::shape {
namespace {

// The problem as the lookup runtime holds one: its points and names are the lookup's, so that a
// shape is where the tune, dispatch and the lookup-only runtime all put it.
lookup::ProblemArgs args_of(const Problem& problem) {
  lookup::ProblemArgs args;
  for (const auto& [name, value] : problem.args()) args.emplace(name, value.to_json());
  return args;
}

}  // namespace

std::vector<std::string> numeric_names(const Problem& problem) {
  return lookup::numeric_names(args_of(problem));
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
  return lookup::log_point(args_of(problem), names);
}

double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum);
}

}  // namespace cutune::shape
