// How well a search did on a space whose optimum is known (a recorded space): the measures that
// `cutune bench-strategies` reports. A curve holds, after each evaluation, the fraction of the
// optimum reached: optimum time / best time found so far (0 before the first correct result).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "cutune/measurement.hpp"

namespace cutune {

// The curve of one search, `length` points long; a search that ended early keeps its last value.
std::vector<double> optimum_fraction_curve(std::span<const Measurement> steps, double optimum_ms,
                                           std::size_t length);

// The same on a clock: steps[i]'s result became known at known_s[i] (any order). Returns the
// fraction reached by each of `marks` seconds, and sets *to_reach_s to when `fraction` was first
// reached (infinity if never). Throws std::invalid_argument when the spans differ in length.
std::vector<double> optimum_fraction_at(std::span<const Measurement> steps,
                                        std::span<const double> known_s, double optimum_ms,
                                        std::span<const double> marks, double fraction,
                                        double* to_reach_s);

// The expected curve of uniform random sampling without replacement from a space of
// ok_times.size() correct configs and failed_count failing ones (exact, not simulated).
std::vector<double> random_search_curve(std::span<const double> ok_times, std::size_t failed_count,
                                        std::size_t length);

// The median number of evaluations uniform random sampling needs to reach `fraction` of the
// optimum (nullopt if that takes more than max_evaluations).
std::optional<std::size_t> random_search_median_evaluations(std::span<const double> ok_times,
                                                            std::size_t failed_count,
                                                            double fraction,
                                                            std::size_t max_evaluations);

// The first evaluation (1-based) at which the curve reaches `fraction`; nullopt if it never does.
std::optional<std::size_t> evaluations_to_reach(std::span<const double> curve, double fraction);

// The area under a curve, normalised to [0, 1]: its mean value.
double curve_area(std::span<const double> curve);

// 0 for random search's area, 1 for the optimum from the first evaluation; negative when worse
// than random.
double normalized_score(double area, double random_area);

// Median of values where a missing value (never reached) counts as larger than any other; nullopt
// when the median itself is missing.
std::optional<double> median_of_reached(std::span<const std::optional<std::size_t>> values);

}  // namespace cutune
