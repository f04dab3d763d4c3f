#include "cutune/tune.hpp"

#include <fmt/format.h>

#include "tune_run.hpp"

namespace cutune {

std::optional<double> TuneReport::speedup() const {
  if (tournament && tournament->finalists.front().role == FinalistRole::default_config &&
      tournament->finalists.front().measurement.ok() && tournament->winning().measurement.ok()) {
    return tournament->speedup().median;
  }
  if (!best || !baseline || !baseline->measurement.ok()) return std::nullopt;
  return baseline->measurement.time_ms / best->measurement.time_ms;
}

namespace {

std::string unsupported_message(const Problem& problem, const std::vector<std::string>& errors) {
  std::string text = "the space cannot run problem " + problem.canonical() + ":";
  for (const std::string& error : errors) text += "\n  " + error;
  return text;
}

}  // namespace

UnsupportedProblem::UnsupportedProblem(const Problem& problem, std::vector<std::string> errors)
    : std::invalid_argument(unsupported_message(problem, errors)), errors_(std::move(errors)) {}

TuneReport tune(const Family& family, const Problem& problem, FamilyEvaluator& target, Store* store,
                const TuneOptions& options, const TuneCallbacks& callbacks) {
  if (family.tuning == nullptr) {
    throw std::invalid_argument(fmt::format("tune: family '{}' has no tuning space", family.name));
  }
  if (!target.evaluator) {
    throw std::invalid_argument(
        fmt::format("tune: family '{}' was given no evaluator", family.name));
  }
  Evaluator& evaluator = *target.evaluator;
  const Device& device = target.device;
  const TuningSpace& space = *family.tuning;
  // Once per tune, before the default config is even built: no candidate could run it.
  if (std::vector<std::string> errors = problem_errors(space, problem, device); !errors.empty()) {
    throw UnsupportedProblem(problem, std::move(errors));
  }
  const TuningKey key = family.key(problem, evaluator.device_name(), evaluator.toolchain());
  return tuning::TuneRun(space, problem, device, evaluator, store, key, options, callbacks).run();
}

}  // namespace cutune
