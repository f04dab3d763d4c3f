#include <fmt/core.h>

#include <chrono>
#include <stdexcept>
#include <unordered_set>

#include "cutune/space.hpp"
#include "cutune/strategy.hpp"

namespace cutune {

SearchOutcome run_search(Strategy& strategy, Evaluator& evaluator, const SearchContext& context,
                         const SearchBudget& budget,
                         const std::function<void(const SearchStep&)>& on_step) {
  const auto started = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  strategy.start(context);
  SearchOutcome outcome;
  std::unordered_set<std::uint64_t> seen;
  const std::size_t batch_size = std::max<std::size_t>(1, budget.batch_size);
  while (true) {
    std::size_t wanted = batch_size;
    if (budget.max_evaluations != 0) {
      if (outcome.steps.size() >= budget.max_evaluations) {
        outcome.stop_reason = "evaluation budget";
        break;
      }
      wanted = std::min(wanted, budget.max_evaluations - outcome.steps.size());
    }
    if (budget.max_seconds > 0 && elapsed() >= budget.max_seconds) {
      outcome.stop_reason = "time budget";
      break;
    }
    const std::vector<Config> batch = strategy.ask(wanted);
    if (batch.empty()) {
      outcome.stop_reason = "strategy finished";
      break;
    }
    if (batch.size() > wanted) {
      throw std::logic_error(fmt::format("strategy {} returned {} candidates for {} asked",
                                         strategy.name(), batch.size(), wanted));
    }
    for (const Config& config : batch) {
      const Normalized again =
          context.space->space.normalize(config, context.problem, context.device);
      if (!again.config || !(*again.config == config)) {
        throw std::logic_error(fmt::format("strategy {} proposed {}, which is not normalized",
                                           strategy.name(), config.to_string()));
      }
      if (!seen.insert(config.hash()).second) {
        throw std::logic_error(
            fmt::format("strategy {} proposed {} twice", strategy.name(), config.to_string()));
      }
    }
    const std::vector<Measurement> results = evaluator.evaluate(batch);
    strategy.tell(batch, results);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      outcome.steps.push_back({batch[i], results[i]});
      const SearchStep& step = outcome.steps.back();
      if (step.measurement.ok() &&
          (!outcome.best ||
           step.measurement.time_ms < outcome.steps[*outcome.best].measurement.time_ms)) {
        outcome.best = outcome.steps.size() - 1;
      }
      if (on_step) on_step(step);
    }
  }
  return outcome;
}

}  // namespace cutune
