// Search strategies share one ask/tell interface. The tune driver asks for candidates, evaluates
// them, and tells the strategy what came back; a strategy never sees the evaluator.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/config.hpp"
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
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string_view name() const = 0;
  virtual void start(const SearchContext& context) = 0;
  // Up to max_count normalized candidates never proposed before in this tune. Empty: finished.
  virtual std::vector<Config> ask(std::size_t max_count) = 0;
  // Results for configs from ask() (failures included), same order.
  virtual void tell(std::span<const Config> configs, std::span<const Measurement> results) = 0;
};

// Effort profiles change population sizes, radii and restarts (documented in docs/strategies.md).
enum class Effort { quick, full };

// Names: "random", "exhaustive", "pattern", "de", "lfbo", "hybrid", and "default".
// Throws std::invalid_argument naming the unknown strategy and the known ones.
std::unique_ptr<Strategy> make_strategy(std::string_view name, Effort effort = Effort::full);
std::vector<std::string> strategy_names();

}  // namespace cutune
