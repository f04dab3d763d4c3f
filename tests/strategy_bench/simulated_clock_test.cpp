// The simulated clock of bench-strategies: compiles share P slots, benchmarks share one device,
// and a call ends when its last benchmark does.
#include "simulated_clock.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace cutune::strategy_bench {
namespace {

TEST(SimulatedClock, CompilesShareTheSlotsAndBenchmarksTheDevice) {
  SimulatedClock clock(2);
  // Two slots: configs 0 and 1 compile at once (done at 7 and 3), config 2 takes the slot that
  // freed first (3 + 7 = 10). The device then runs 1 (3..4), 0 (7..8), 2 (10..11).
  const std::vector<ConfigCost> batch{{7, 1}, {3, 1}, {7, 1}};
  const std::vector<double> done = clock.charge(batch);
  EXPECT_EQ(done, (std::vector<double>{8, 4, 11}));
  EXPECT_DOUBLE_EQ(clock.now(), 11);
  // The next call starts at 11, when the last benchmark ended.
  const std::vector<ConfigCost> next{{1, 0.5}};
  EXPECT_EQ(clock.charge(next), (std::vector<double>{12.5}));
}

TEST(SimulatedClock, ABusyDeviceQueuesBenchmarksAndAFailedCompileSkipsIt) {
  SimulatedClock clock(16);
  // Every compile ends at 1; the benchmarks queue on the one device. Config 1 failed to compile
  // (no benchmark): it is known at 1 and holds nothing up.
  const std::vector<ConfigCost> batch{{1, 2}, {1, 0}, {1, 2}};
  EXPECT_EQ(clock.charge(batch), (std::vector<double>{3, 1, 5}));
  EXPECT_THROW(SimulatedClock(0), std::invalid_argument);
}

}  // namespace
}  // namespace cutune::strategy_bench
