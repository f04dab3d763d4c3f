// Warm start: a new shape's tune begins with the winners of the nearest tuned shapes.
#include "cutune/warm_start.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "space/log_shape.hpp"

namespace cutune {

std::vector<NearestWinner> nearest_winners(Store& store, std::string_view family,
                                           std::string_view device, const Problem& problem,
                                           const Space& space, std::size_t k) {
  const std::vector<std::string> names = shape::numeric_names(problem);
  const auto fixed = shape::fixed_args(problem);
  const std::vector<double> here = *shape::log_point(problem, names);

  std::vector<NearestWinner> candidates;
  for (const StoredResult& best :
       store.best_per_key({.family = std::string(family), .device = std::string(device)})) {
    Problem shape;
    try {
      shape = Problem::parse(best.key.problem);
    } catch (const std::invalid_argument&) {
      continue;  // not a problem this version of cutune wrote
    }
    // The shape itself is no neighbour: a tune of it resumes from the store instead, and its own
    // winner would take the place of a neighbour's with the same config.
    if (shape == problem || shape.args().size() != problem.args().size() ||
        shape::fixed_args(shape) != fixed) {
      continue;
    }
    auto there = shape::log_point(shape, names);
    if (!there) continue;
    try {
      candidates.push_back({space.from_json(nlohmann::json::parse(best.config_json)),
                            std::move(shape), shape::distance(here, *there),
                            best.measurement.time_ms});
    } catch (const std::exception&) {
      continue;  // a config of another version of the family's space
    }
  }
  // Nearest first; among equally near shapes the faster winner, then the problem text, so that
  // the order is the same in every run.
  std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
    if (a.distance != b.distance) return a.distance < b.distance;
    if (a.time_ms != b.time_ms) return a.time_ms < b.time_ms;
    return a.problem.canonical() < b.problem.canonical();
  });
  std::vector<NearestWinner> out;
  std::set<std::uint64_t> seen;
  for (auto& candidate : candidates) {
    if (out.size() == k) break;
    if (seen.insert(candidate.config.hash()).second) out.push_back(std::move(candidate));
  }
  return out;
}

std::vector<NearestWinner> add_warm_start(TuneOptions& options, Store& store, const Family& family,
                                          const Problem& problem, std::string_view device,
                                          std::size_t neighbours) {
  std::vector<NearestWinner> winners =
      nearest_winners(store, family.name, device, problem, family.tuning->space, neighbours);
  for (const NearestWinner& winner : winners) options.warm_start.push_back(winner.config);
  return winners;
}

namespace {

// The first evaluation (1-based) that measured target_ms or better, when it arrived, and whether
// one did.
std::tuple<std::size_t, double, bool> first_reaching(const TuneReport& report, double target_ms) {
  for (std::size_t i = 0; i < report.evaluated.size(); ++i) {
    const Measurement& m = report.evaluated[i].measurement;
    if (m.ok() && m.time_ms <= target_ms) return {i + 1, report.evaluated[i].at_seconds, true};
  }
  return {report.evaluated.size(), report.seconds, false};
}

double best_search_time(const TuneReport& report) {
  double best = std::numeric_limits<double>::infinity();
  for (const Evaluated& e : report.evaluated) {
    if (e.measurement.ok()) best = std::min(best, e.measurement.time_ms);
  }
  return best;
}

}  // namespace

WarmStartComparison compare_warm_start(const Family& family, const Problem& problem,
                                       FamilyEvaluator& evaluator, Store& store,
                                       const TuneOptions& options, std::size_t neighbours,
                                       const WarmStartTarget& target) {
  WarmStartComparison out;
  TuneOptions cold = options;
  cold.warm_start.clear();
  TuneOptions warm = cold;
  const std::string on = evaluator.evaluator->device_name();
  out.neighbours = add_warm_start(warm, store, family, problem, on, neighbours);
  if (out.neighbours.empty()) {
    throw std::invalid_argument(fmt::format(
        "warm start of {} for {}: the store holds no other tuned shape of this family on {}",
        family.name, problem.canonical(), on));
  }
  out.cold = tune(family, problem, evaluator, nullptr, cold);
  out.warm = tune(family, problem, evaluator, target.record_warm ? &store : nullptr, warm);

  // Search times, not re-timed ones: the question is when each search first found that level.
  const double cold_best = best_search_time(out.cold), warm_best = best_search_time(out.warm);
  if (target.tolerance < 0) {
    out.target_ms = std::max(cold_best, warm_best);
  } else {
    double known = std::min(cold_best, warm_best);
    if (target.own_best_ms > 0) known = std::min(known, target.own_best_ms);
    out.target_ms = known * (1 + target.tolerance);
  }
  std::tie(out.cold_evaluations, out.cold_seconds, out.cold_reached) =
      first_reaching(out.cold, out.target_ms);
  std::tie(out.warm_evaluations, out.warm_seconds, out.warm_reached) =
      first_reaching(out.warm, out.target_ms);
  return out;
}

}  // namespace cutune
