#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "cutune/strategy_metrics.hpp"

namespace cutune {
namespace {

double fastest(std::span<const double> times) {
  if (times.empty()) throw std::invalid_argument("random search curve: no correct configuration");
  return *std::min_element(times.begin(), times.end());
}

}  // namespace

std::vector<double> optimum_fraction_at(std::span<const Measurement> steps,
                                        std::span<const double> known_s, double optimum_ms,
                                        std::span<const double> marks, double fraction,
                                        double* to_reach_s) {
  if (steps.size() != known_s.size()) {
    throw std::invalid_argument("optimum_fraction_at: one time per step is needed");
  }
  std::vector<std::size_t> order(steps.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return known_s[a] < known_s[b]; });
  std::vector<double> out(marks.size(), 0.0);
  double best = INFINITY;
  *to_reach_s = INFINITY;
  for (std::size_t i : order) {
    if (steps[i].ok()) best = std::min(best, steps[i].time_ms);
    const double reached = std::isfinite(best) ? optimum_ms / best : 0.0;
    if (reached >= fraction && std::isinf(*to_reach_s)) *to_reach_s = known_s[i];
    for (std::size_t m = 0; m < marks.size(); ++m) {
      if (known_s[i] <= marks[m]) out[m] = reached;
    }
  }
  return out;
}

std::vector<double> optimum_fraction_curve(std::span<const Measurement> steps, double optimum_ms,
                                           std::size_t length) {
  std::vector<double> curve;
  curve.reserve(length);
  double best = INFINITY;
  for (std::size_t i = 0; i < length; ++i) {
    if (i < steps.size() && steps[i].ok()) best = std::min(best, steps[i].time_ms);
    curve.push_back(std::isfinite(best) ? optimum_ms / best : 0.0);
  }
  return curve;
}

// After d draws from n configs ranked fastest first (failures last), every draw ranks j or worse
// with probability A_j(d) = C(n - j, d) / C(n, d), and the best drawn has rank j with probability
// A_j(d) - A_{j+1}(d). A_j is updated draw by draw for every rank at once.
std::vector<double> random_search_curve(std::span<const double> ok_times, std::size_t failed_count,
                                        std::size_t length) {
  std::vector<double> sorted(ok_times.begin(), ok_times.end());
  std::sort(sorted.begin(), sorted.end());
  const double optimum = fastest(sorted);
  const std::size_t ok = sorted.size();
  const auto n = static_cast<double>(ok + failed_count);
  std::vector<double> all_at_or_below(ok + 1, 1.0);  // A_j for j = 0..ok
  std::vector<double> curve;
  curve.reserve(length);
  for (std::size_t draws = 1; draws <= length; ++draws) {
    const auto before = static_cast<double>(draws - 1);
    if (before >= n) {  // every config drawn: the curve stays where it ended
      curve.push_back(curve.back());
      continue;
    }
    for (std::size_t j = 0; j <= ok; ++j) {
      all_at_or_below[j] *= std::max(0.0, n - static_cast<double>(j) - before) / (n - before);
    }
    double expected = 0.0;
    for (std::size_t j = 0; j < ok; ++j) {
      expected += (all_at_or_below[j] - all_at_or_below[j + 1]) * optimum / sorted[j];
    }
    curve.push_back(expected);
  }
  return curve;
}

std::optional<std::size_t> random_search_median_evaluations(std::span<const double> ok_times,
                                                            std::size_t failed_count,
                                                            double fraction,
                                                            std::size_t max_evaluations) {
  const double optimum = fastest(ok_times);
  const auto good = static_cast<std::size_t>(std::count_if(
      ok_times.begin(), ok_times.end(), [&](double t) { return optimum / t >= fraction; }));
  const std::size_t n = ok_times.size() + failed_count;
  double none_good = 1.0;  // P(no good config among the first i draws)
  for (std::size_t i = 0; i < std::min(max_evaluations, n); ++i) {
    none_good *= static_cast<double>(n - good - std::min(n - good, i)) / static_cast<double>(n - i);
    if (none_good <= 0.5) return i + 1;
  }
  return std::nullopt;
}

std::optional<std::size_t> evaluations_to_reach(std::span<const double> curve, double fraction) {
  for (std::size_t i = 0; i < curve.size(); ++i) {
    if (curve[i] >= fraction) return i + 1;
  }
  return std::nullopt;
}

double curve_area(std::span<const double> curve) {
  if (curve.empty()) return 0.0;
  return std::accumulate(curve.begin(), curve.end(), 0.0) / static_cast<double>(curve.size());
}

double normalized_score(double area, double random_area) {
  if (random_area >= 1.0) return 0.0;  // random search is already perfect: nothing to gain
  return (area - random_area) / (1.0 - random_area);
}

std::optional<double> median_of_reached(std::span<const std::optional<std::size_t>> values) {
  if (values.empty()) return std::nullopt;
  std::vector<double> sorted;
  for (const auto& v : values) sorted.push_back(v ? static_cast<double>(*v) : INFINITY);
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  if (!std::isfinite(median)) return std::nullopt;
  return median;
}

}  // namespace cutune
