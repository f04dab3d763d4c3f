// The strategy benchmark (`cutune bench-strategies`): every strategy on every recorded space
// (measured elsewhere, replayed here), over several seeds. It reports how fast each reaches the
// space's optimum: the mean curve of the fraction of the optimum reached after each evaluation,
// the evaluations to reach 0.95 and 0.99 of it, and a score per strategy (the area under the
// curve, 0 for random search's expected curve and 1 for the optimum from the first evaluation),
// and how many candidates each evaluator call carried. Every search runs through tune(), the
// driver of `cutune tune`, in batches of `batch`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace cutune {

struct StrategyBenchOptions {
  std::vector<std::string> inputs;  // recorded space files (*.json, *.json.gz) or folders of them
  std::size_t budget = 200;
  std::size_t repeats = 10;
  std::vector<std::string> strategies;  // empty: random, pattern, de, lfbo, hybrid
  std::string effort = "full";
  std::uint64_t seed = 0;  // repeat r uses seed + r
  unsigned jobs = 0;       // searches run at once; 0: one per hardware thread
  // What `cutune tune` asks per round on the machine tunes run on: twice the hardware threads of
  // the 16-core H200 host. A fixed default keeps the table the same on every machine.
  std::size_t batch = 32;
  // The simulated clock: compiles on this many slots (the H200 host's 16 cores), each config
  // charged its recorded compile and benchmark times unless these are set.
  std::size_t compile_slots = 16;
  double compile_s = 0.0;  // > 0: every config compiles in this long (a cost model)
  double bench_s = 0.0;    // > 0: every config benchmarks in this long
  // > 0: every strategy also runs as "<name>+transfer", whose tune takes every other recorded
  // space with the same knobs as a prior (leave-one-device-out), this many of each one's fastest
  // configs in the first round, as `cutune tune` takes the store's results of other devices.
  std::size_t transfer = 0;
};

// What one benchmark found, as text to print and files to write.
struct StrategyBenchResult {
  std::string tables;  // the tables: per space, mean over spaces, simulated clock, marks
  // The output folder's files in the order they are written: strategy_seconds.csv,
  // strategy_summary.csv, strategy_curves.csv, strategy_curves.svg (name, contents).
  std::vector<std::pair<std::string, std::string>> files;
  std::size_t spaces = 0;
  std::size_t strategies = 0;  // with the "+transfer" runs
  unsigned jobs = 0;           // searches that ran at once
};

// Runs the benchmark. `note` receives one line as it happens (a space skipped as a duplicate or
// for want of a successful config, the priors each space found).
// Throws std::invalid_argument when the budget, repeats, batch or compile slots are 0, the effort
// or a strategy is unknown, an input is neither a file nor a folder, or no usable recorded space
// is found; what load_recorded_space throws for a file it cannot read; and the first exception
// any search throws.
StrategyBenchResult bench_strategies(const StrategyBenchOptions& options,
                                     const std::function<void(const std::string&)>& note);

}  // namespace cutune
