// The wall clock a tune would have taken, simulated for `cutune bench-strategies`: the compiles of
// an evaluator call run on P parallel slots (each taking the next config in order when it frees),
// and the benchmarks one at a time on the device, each as soon as its config's compile is done and
// the device is free. The next call starts when the last benchmark of this one ends: strategies
// tell a batch's results before asking again, as the tune driver does (no overlap across calls).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace cutune::strategy_bench {

struct ConfigCost {
  double compile_s = 0.0;
  double benchmark_s = 0.0;  // 0 for a config whose compile failed: it never reaches the device
};

class SimulatedClock {
 public:
  // Throws std::invalid_argument for zero slots.
  explicit SimulatedClock(std::size_t compile_slots);
  // Charges one evaluator call; returns when each config's result is known (seconds since the
  // first call), in the order given.
  std::vector<double> charge(std::span<const ConfigCost> batch);
  double now() const { return now_; }

 private:
  std::size_t slots_;
  double now_ = 0.0;
};

}  // namespace cutune::strategy_bench
