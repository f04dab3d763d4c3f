// Problems as points in log-shape space: every numeric argument x becomes log2(1 + x) (mirrored
// for negative x), so that 1024 and 2048 are as far apart as 2048 and 4096. Shared by the warm
// start (distance to tuned shapes) and dispatch (tree features, nearest neighbour).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cutune/problem.hpp"

namespace cutune::runtime {

// log2 by exponent extraction and the atanh series, in plain arithmetic so that it is constexpr
// and gives bit-identical results wherever it is compiled: the dispatch header carries the same
// algorithm (dispatch.cpp, kLogFeatureSource) and must pick exactly what Dispatcher::pick picks.
constexpr double log2_positive(double x) {
  int exponent = 0;
  while (x >= 2.0) {
    x /= 2.0;
    ++exponent;
  }
  while (x < 1.0) {
    x *= 2.0;
    --exponent;
  }
  const double z = (x - 1.0) / (x + 1.0);
  const double z2 = z * z;
  double term = z;
  double sum = 0.0;
  for (int i = 1; i < 60; i += 2) {
    sum += term / i;
    term *= z2;
  }
  return exponent + 2.0 * sum * 1.4426950408889634;  // 1 / ln 2
}

constexpr double log_feature(double x) {
  return x >= 0 ? log2_positive(1.0 + x) : -log2_positive(1.0 - x);
}

inline bool is_numeric(const Value& v) { return v.is_int() || v.is_double(); }

// The numeric argument names of a problem, sorted; and its other arguments.
std::vector<std::string> numeric_names(const Problem& problem);
std::map<std::string, Value, std::less<>> fixed_args(const Problem& problem);

// log_feature of each named argument; nullopt when one is missing or not numeric.
std::optional<std::vector<double>> log_point(const Problem& problem,
                                             const std::vector<std::string>& names);

double distance(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace cutune::runtime
