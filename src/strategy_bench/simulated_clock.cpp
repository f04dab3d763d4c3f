#include "simulated_clock.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <stdexcept>

namespace cutune::strategy_bench {

SimulatedClock::SimulatedClock(std::size_t compile_slots) : slots_(compile_slots) {
  if (slots_ == 0) throw std::invalid_argument("the simulated clock needs at least one slot");
}

std::vector<double> SimulatedClock::charge(std::span<const ConfigCost> batch) {
  // Compiles: each config takes the slot that frees first.
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (std::size_t s = 0; s < slots_; ++s) free_at.push(now_);
  std::vector<double> compiled(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const double start = free_at.top();
    free_at.pop();
    compiled[i] = start + batch[i].compile_s;
    free_at.push(compiled[i]);
  }
  // Benchmarks: one device, in the order the compiles finish.
  std::vector<std::size_t> order(batch.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return compiled[a] < compiled[b]; });
  std::vector<double> done(batch.size());
  double device_free = now_;
  for (std::size_t i : order) {
    if (batch[i].benchmark_s <= 0) {  // never reaches the device
      done[i] = compiled[i];
      continue;
    }
    done[i] = std::max(device_free, compiled[i]) + batch[i].benchmark_s;
    device_free = done[i];
  }
  for (double t : done) now_ = std::max(now_, t);
  return done;
}

}  // namespace cutune::strategy_bench
