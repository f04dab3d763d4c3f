// Problems as points in log-shape space: every numeric argument x becomes log2(1 + x) (mirrored
// for negative x), so that 1024 and 2048 are as far apart as 2048 and 4096. Shared by the warm
// start (distance to tuned shapes) and dispatch (tree features, nearest neighbour).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cutune/problem.hpp"

namespace cutune::shape {

// log_feature(x): log2(1 + x) for x >= 0, mirrored below 0; log2 by exponent extraction and the
// atanh series, in plain arithmetic so that it is constexpr and gives bit-identical results
// wherever it is compiled. log_feature.inl is the one definition: included here, and copied as
// text into every generated dispatch header (kLogFeatureSource, made from it by CMake), which must
// pick exactly what Dispatcher::pick picks.
#include "space/log_feature.inl"

inline bool is_numeric(const Value& v) { return v.is_int() || v.is_double(); }

// The numeric argument names of a problem, sorted; and its other arguments.
std::vector<std::string> numeric_names(const Problem& problem);
std::map<std::string, Value, std::less<>> fixed_args(const Problem& problem);

// log_feature of each named argument; nullopt when one is missing or not numeric.
std::optional<std::vector<double>> log_point(const Problem& problem,
                                             const std::vector<std::string>& names);

double distance(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace cutune::shape
