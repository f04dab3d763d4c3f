// One search of the strategy benchmark through the driver of `cutune tune`, with the recorded
// space as its evaluator and its results charged to a simulated clock, and the summary of one
// strategy's searches on one space.
#include <span>
#include <unordered_map>

#include "bench_data.hpp"
#include "cutune/evaluator.hpp"
#include "cutune/store.hpp"
#include "cutune/strategy_metrics.hpp"
#include "simulated_clock.hpp"

namespace cutune::strategy_bench {
namespace {

// The replayed space, counting what the search hands it per call: a strategy plans rounds of its
// own size, so `--batch` is only the most a call can carry.
class CountingEvaluator : public Evaluator {
 public:
  CountingEvaluator(const BenchSpace& space, const StrategyBenchOptions& options)
      : space_(space), options_(options), replay_(space.recorded), clock_(options.compile_slots) {}
  std::vector<Measurement> evaluate(std::span<const Config> batch) override {
    ++calls;
    configs += batch.size();
    std::vector<Measurement> results = replay_.evaluate(batch);
    std::vector<ConfigCost> costs;
    for (std::size_t i = 0; i < batch.size(); ++i) costs.push_back(cost(batch[i], results[i]));
    const std::vector<double> finished = clock_.charge(costs);
    for (std::size_t i = 0; i < batch.size(); ++i) finished_s[batch[i].hash()] = finished[i];
    return results;
  }
  // Re-timing and the tournament come after the search: not search rounds.
  std::vector<Measurement> retime(std::span<const Config> batch) override {
    return replay_.retime(batch);
  }
  PairedRounds time_rounds(std::span<const Config> configs, int rounds) override {
    return replay_.time_rounds(configs, rounds);
  }
  std::string device_name() const override { return replay_.device_name(); }
  std::string toolchain() const override { return replay_.toolchain(); }

  std::size_t calls = 0;
  std::size_t configs = 0;
  // When each config it measured was known. A step the driver answers without the evaluator (a
  // default the recording lacks) is not among them.
  std::unordered_map<std::uint64_t, double> finished_s;

 private:
  // A config absent from the recording costs nothing (no tuner would have run it); a failed
  // compile never reaches the device.
  ConfigCost cost(const Config& config, const Measurement& m) const {
    const RecordedEntry* entry = space_.recorded->find(config);
    if (entry == nullptr) return {};
    const auto pick = [](double forced, double recorded, double fallback) {
      return forced > 0 ? forced : !std::isnan(recorded) ? recorded : fallback;
    };
    ConfigCost c;
    c.compile_s = pick(options_.compile_s, entry->compile_s, space_.fallback_compile_s);
    const bool compiled =
        m.outcome != Outcome::compile_error && m.outcome != Outcome::compile_timeout;
    c.benchmark_s =
        compiled ? pick(options_.bench_s, entry->benchmark_s, space_.fallback_bench_s) : 0.0;
    return c;
  }

  const BenchSpace& space_;
  const StrategyBenchOptions& options_;
  ReplayEvaluator replay_;
  SimulatedClock clock_;
};

}  // namespace

// One search through the driver of `cutune tune` (default config first, duplicates skipped,
// batches of `batch`, every result stored), with the recorded space as its evaluator and a store
// of its own in memory: what is benchmarked is what real tunes run.
Run run_one(const BenchSpace& space, const std::string& strategy_name, Effort effort,
            std::uint64_t seed, const StrategyBenchOptions& bench) {
  const std::size_t budget = bench.budget;
  FamilyEvaluator target{.evaluator = std::make_unique<CountingEvaluator>(space, bench),
                         .device = {}};
  const auto& evaluator = static_cast<const CountingEvaluator&>(*target.evaluator);
  Store store = Store::in_memory();
  // The recorded space as a family of its own (the key's device and toolchain: the recording's).
  Family family;
  family.name = "bench-strategies";
  family.version = space.label;
  family.tuning = &space.recorded->tuning_space();
  TuneOptions options;
  options.strategy = strategy_name;
  if (strategy_name.ends_with(kTransferSuffix)) {
    options.strategy = strategy_name.substr(0, strategy_name.size() - kTransferSuffix.size());
    options.priors = space.priors;
    options.prior_seeds_per_source = bench.transfer;
  }
  options.effort = effort;
  options.max_evaluations = budget;
  options.seed = seed;
  options.batch_size = bench.batch;
  options.tune_id = "bench-strategies";
  // The curve is the search's; the finishing pass would measure configs past the budget. The
  // tournament stays (replayed times cost nothing) so the driver is the one tunes run.
  options.finishing = false;
  const TuneReport report = tune(family, {}, target, &store, options);
  std::vector<Measurement> measurements;
  std::vector<double> known_s;  // per step: a step the evaluator never saw cost nothing
  for (const Evaluated& e : report.evaluated) {
    measurements.push_back(e.measurement);
    const auto it = evaluator.finished_s.find(e.config.hash());
    known_s.push_back(it != evaluator.finished_s.end() ? it->second
                      : known_s.empty()                ? 0.0
                                                       : known_s.back());
  }
  Run run;
  run.curve = optimum_fraction_curve(measurements, space.recorded->optimum_ms(), budget);
  run.at_seconds = optimum_fraction_at(measurements, known_s, space.recorded->optimum_ms(),
                                       kSecondMarks, 0.99, &run.seconds_to_99);
  run.calls = evaluator.calls;
  run.configs = evaluator.configs;
  run.priors = report.priors;
  // The deployed config's recorded time, not the tournament's: replayed rounds repeat it.
  if (report.best) {
    if (const RecordedEntry* entry = space.recorded->find(report.best->config);
        entry != nullptr && entry->measurement.ok()) {
      run.regret = 1.0 - space.recorded->optimum_ms() / entry->measurement.time_ms;
    }
  }
  return run;
}

void summarize(Cell& cell, const BenchSpace& space) {
  const std::size_t length = space.random_curve.size();
  cell.mean_curve.assign(length, 0.0);
  std::vector<std::optional<std::size_t>> to_95, to_99;
  for (const auto& curve : cell.curves) {
    for (std::size_t i = 0; i < length; ++i) cell.mean_curve[i] += curve[i] / cell.curves.size();
    to_95.push_back(evaluations_to_reach(curve, 0.95));
    to_99.push_back(evaluations_to_reach(curve, 0.99));
    cell.to_98.push_back(evaluations_to_reach(curve, 0.98));
  }
  cell.score = normalized_score(curve_area(cell.mean_curve), curve_area(space.random_curve));
  cell.to_95 = median_of_reached(to_95);
  cell.to_99 = median_of_reached(to_99);
  cell.mean_at_seconds.assign(std::size(kSecondMarks), 0.0);
  for (const auto& at : cell.at_seconds) {
    for (std::size_t m = 0; m < at.size(); ++m)
      cell.mean_at_seconds[m] += at[m] / cell.at_seconds.size();
  }
  cell.median_seconds_to_99 = median(cell.seconds_to_99);
}

}  // namespace cutune::strategy_bench
