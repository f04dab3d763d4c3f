// bench_strategies (cutune/strategy_bench.hpp): every (space, strategy, repeat) search on a pool
// of threads, then the cells summarized into tables and files.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "bench_data.hpp"
#include "cutune/strategy.hpp"

namespace cutune {
namespace {

using namespace strategy_bench;

std::vector<std::string> strategy_names(const StrategyBenchOptions& options, Effort effort) {
  std::vector<std::string> names = options.strategies;
  if (names.empty()) names = {"random", "pattern", "de", "lfbo", "hybrid"};
  for (const std::string& name : names) make_strategy(name, effort);  // rejects unknowns
  if (options.transfer > 0) {
    const std::size_t cold = names.size();
    for (std::size_t k = 0; k < cold; ++k) names.push_back(names[k] + std::string(kTransferSuffix));
  }
  return names;
}

// Runs every search, `jobs` at once; rethrows the first exception any of them threw.
Cells run_all(const std::vector<BenchSpace>& spaces, const std::vector<std::string>& names,
              Effort effort, const StrategyBenchOptions& options, unsigned jobs) {
  Cells cells(spaces.size(), std::vector<Cell>(names.size()));
  for (auto& row : cells) {
    for (Cell& cell : row) {
      cell.curves.resize(options.repeats);
      cell.at_seconds.resize(options.repeats);
      cell.seconds_to_99.resize(options.repeats);
    }
  }
  const std::size_t task_count = spaces.size() * names.size() * options.repeats;
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::exception_ptr failure;
  const auto worker = [&] {
    for (std::size_t t = next++; t < task_count; t = next++) {
      const std::size_t r = t % options.repeats;
      const std::size_t k = t / options.repeats % names.size();
      const std::size_t s = t / options.repeats / names.size();
      try {
        const auto t0 = std::chrono::steady_clock::now();
        Run run = run_one(spaces[s], names[k], effort, options.seed + r, options);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const std::lock_guard lock(mutex);
        Cell& cell = cells[s][k];
        cell.curves[r] = std::move(run.curve);
        cell.at_seconds[r] = std::move(run.at_seconds);
        cell.seconds_to_99[r] = run.seconds_to_99;
        cell.seconds += seconds;
        cell.calls += run.calls;
        cell.configs += run.configs;
        cell.regret.push_back(run.regret);
        for (const PriorWeight& p : run.priors) cell.prior_weight[p.name] += p.weight;
      } catch (...) {
        const std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned j = 0; j < std::min<std::size_t>(jobs, task_count); ++j)
    threads.emplace_back(worker);
  for (std::thread& thread : threads) thread.join();
  if (failure) std::rethrow_exception(failure);
  return cells;
}

}  // namespace

StrategyBenchResult bench_strategies(const StrategyBenchOptions& options,
                                     const std::function<void(const std::string&)>& note) {
  if (options.budget == 0 || options.repeats == 0 || options.batch == 0 ||
      options.compile_slots == 0) {
    throw std::invalid_argument(
        "bench-strategies: --budget, --repeats, --batch and --compile-slots must be at least 1");
  }
  const Effort effort = effort_from_string(options.effort);
  const std::vector<std::string> names = strategy_names(options, effort);
  std::vector<BenchSpace> spaces = load_spaces(collect_files(options.inputs), options.budget, note);
  if (spaces.empty()) throw std::invalid_argument("bench-strategies: no usable recorded space");
  if (options.transfer > 0) add_priors(spaces, note);

  StrategyBenchResult result;
  result.spaces = spaces.size();
  result.strategies = names.size();
  result.jobs =
      options.jobs != 0 ? options.jobs : std::max(1U, std::thread::hardware_concurrency());
  Cells cells = run_all(spaces, names, effort, options, result.jobs);
  for (std::size_t s = 0; s < spaces.size(); ++s) {
    for (Cell& cell : cells[s]) summarize(cell, spaces[s]);
  }
  result.tables = tables_text(spaces, names, cells, options);
  result.files = {{"strategy_seconds.csv", seconds_csv(spaces, names, cells)},
                  {"strategy_summary.csv", summary_csv(spaces, names, cells)},
                  {"strategy_curves.csv", curves_csv(spaces, names, cells)},
                  {"strategy_curves.svg", curves_svg(spaces, names, cells)}};
  return result;
}

}  // namespace cutune
