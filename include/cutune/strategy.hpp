// Search strategies share one ask/tell interface. The tune driver asks for candidates, evaluates
// them, and tells the strategy what came back; a strategy never sees the evaluator.
//
// Rules every strategy keeps (tests/search checks them for each):
//   - ask() returns normalized configs, never one proposed before in the same tune;
//   - failures (compile, launch, wrong result, timeout) are told like any result and count
//     against the candidate and its region, they never vanish;
//   - the same context (rng_seed included) and the same results give the same proposals.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/config.hpp"
#include "cutune/evaluator.hpp"
#include "cutune/heuristics.hpp"
#include "cutune/measurement.hpp"
#include "cutune/problem.hpp"

namespace cutune {

struct SearchContext {
  const TuningSpace* space = nullptr;
  Problem problem;
  Device device;
  std::vector<Config> seeds;  // eligible heuristic seeds and warm-start configs, best first
  std::uint64_t rng_seed = 0;
  std::size_t max_evaluations = 0;  // the budget the driver will enforce, as a hint for schedules
  // The first round's configs beyond the seeds are the seeds' neighbours rather than random draws
  // (TuneOptions::start_near_seeds; the walker strategies, pattern and lfbo, honour it).
  bool start_near_seeds = false;
  // A walker moves to a neighbour only when it is at least this much faster than the centre
  // (TuneOptions::min_move_gain; the walker strategies honour it).
  double min_move_gain = 0.0;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string_view name() const = 0;
  virtual void start(const SearchContext& context) = 0;
  // Up to max_count normalized candidates never proposed before in this tune. Empty: finished.
  // All candidates of the previous ask() must have been told before the next ask().
  virtual std::vector<Config> ask(std::size_t max_count) = 0;
  // Results for configs from ask() (failures included), same order.
  virtual void tell(std::span<const Config> configs, std::span<const Measurement> results) = 0;
};

// Effort profiles change population sizes, radii and restarts (documented in docs/strategies.md).
enum class Effort { quick, full };

// Names: "random", "exhaustive", "pattern", "de", "lfbo", "hybrid", and "default" (the strategy
// that wins `cutune bench-strategies`, see docs/perf.md).
// Throws std::invalid_argument naming the unknown strategy and the known ones.
std::unique_ptr<Strategy> make_strategy(std::string_view name, Effort effort = Effort::full);
std::vector<std::string> strategy_names();  // the names above except "default"
std::string_view default_strategy_name();
Effort effort_from_string(std::string_view name);  // "quick" | "full"; throws std::invalid_argument

// Limits of one search; zero means unlimited. A search also ends when the strategy runs dry.
struct SearchBudget {
  std::size_t max_evaluations = 0;
  double max_seconds = 0.0;
  std::size_t batch_size = 1;  // candidates asked and evaluated together
};

struct SearchStep {
  Config config;
  Measurement measurement;
};

struct SearchOutcome {
  std::vector<SearchStep> steps;    // every evaluation, in order
  std::optional<std::size_t> best;  // index into steps of the fastest correct result
  std::string stop_reason;          // "evaluation budget", "time budget", "strategy finished"
};

// The simplest driver: ask, evaluate, tell, until a budget or the strategy ends. on_step (if set)
// sees each result as it arrives. Throws std::logic_error if the strategy breaks its contract
// (proposes a config twice, or one that is not normalized).
SearchOutcome run_search(Strategy& strategy, Evaluator& evaluator, const SearchContext& context,
                         const SearchBudget& budget,
                         const std::function<void(const SearchStep&)>& on_step = {});

}  // namespace cutune
