// `cutune bench-strategies`: every strategy on every recorded space (measured elsewhere, replayed
// here), over several seeds. Reports how fast each reaches the space's optimum: the mean curve of
// the fraction of the optimum reached after each evaluation, the evaluations to reach 0.95 and
// 0.99 of it, and a score per strategy (the area under the curve, 0 for random search's expected
// curve and 1 for the optimum from the first evaluation), and how many candidates each evaluator
// call carried. Every search runs through tune(), the driver of `cutune tune`, in batches of
// --batch. Writes CSV files and an SVG plot.
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "command.hpp"
#include "cutune/evaluator.hpp"
#include "cutune/replay.hpp"
#include "cutune/store.hpp"
#include "cutune/strategy.hpp"
#include "cutune/strategy_metrics.hpp"
#include "cutune/tune.hpp"
#include "hash/content_hash.hpp"
#include "search/simulated_clock.hpp"
#include "write_file.hpp"

namespace {

namespace fs = std::filesystem;

struct BenchOptions {
  std::vector<std::string> inputs;
  std::size_t budget = 200;
  std::size_t repeats = 10;
  std::vector<std::string> strategies;
  std::string effort = "full";
  std::uint64_t seed = 0;
  std::string out = "bench-strategies";
  unsigned jobs = 0;
  // What `cutune tune` asks per round on the machine tunes run on: twice the hardware threads of
  // the 16-core H200 host. A fixed default keeps the table the same on every machine.
  std::size_t batch = 32;
  // The simulated clock (simulated_clock.hpp): compiles on this many slots (the H200 host's 16
  // cores), each config charged its recorded compile and benchmark times unless these are set.
  std::size_t compile_slots = 16;
  double compile_s = 0.0;  // > 0: every config compiles in this long (a cost model)
  double bench_s = 0.0;    // > 0: every config benchmarks in this long
  // > 0: every strategy also runs as "<name>+transfer", whose tune takes every other recorded
  // space with the same knobs as a prior (leave-one-device-out), this many of each one's fastest
  // configs in the first round, as `cutune tune` takes the store's results of other devices.
  std::size_t transfer = 0;
};

// Simulated seconds at which the fraction of the optimum is reported.
constexpr double kSecondMarks[] = {15, 30, 60, 120, 300};

struct BenchSpace {
  std::shared_ptr<const cutune::RecordedSpace> recorded;
  std::string label;  // file name without extensions, with its folder: "convolution_milo/A100"
  std::vector<double> random_curve;
  std::vector<double> ok_times;
  std::size_t failed = 0;
  // Charged where a config's recording has no cost: the space's median recorded cost, or, in a
  // file with none, a GEMM-like 7 s compile and 0.2 s benchmark (issue 13's H200 cost model).
  double fallback_compile_s = 7.0, fallback_bench_s = 0.2;
  std::vector<cutune::PriorSource> priors;  // --transfer: every other space with the same knobs
};

// A strategy run with priors ("lfbo+transfer") and the strategy it runs.
constexpr std::string_view kTransferSuffix = "+transfer";

struct Cell {  // one strategy on one space, over every repeat
  std::vector<std::vector<double>> curves;
  double seconds = 0.0;
  std::size_t calls = 0, configs = 0;  // evaluator calls of the searches, and what they carried
  std::vector<double> mean_curve;
  double score = 0.0;
  std::optional<double> to_95, to_99;           // median evaluations over repeats
  std::vector<std::vector<double>> at_seconds;  // per repeat, the fraction at each kSecondMarks
  std::vector<double> seconds_to_99;            // per repeat, simulated; infinity: never
  std::vector<double> mean_at_seconds;
  double median_seconds_to_99 = INFINITY;
  std::vector<std::optional<std::size_t>> to_98;  // per repeat; none: censored at the budget
  std::vector<double> regret;  // per repeat, 1 - optimum / recorded time of what it deploys
  std::map<std::string, double> prior_weight;  // prior -> its final weight summed over repeats
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

bool is_recording(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.ends_with(".json") || name.ends_with(".json.gz");
}

std::vector<fs::path> collect_files(const std::vector<std::string>& inputs) {
  std::vector<fs::path> files;
  for (const std::string& input : inputs) {
    const fs::path path(input);
    if (fs::is_directory(path)) {
      std::vector<fs::path> found;
      for (const auto& entry : fs::recursive_directory_iterator(path)) {
        if (entry.is_regular_file() && is_recording(entry.path())) found.push_back(entry.path());
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(path)) {
      files.push_back(path);
    } else {
      throw std::invalid_argument(
          fmt::format("bench-strategies: {} is neither a recorded space "
                      "nor a folder of them",
                      input));
    }
  }
  if (files.empty()) {
    throw std::invalid_argument("bench-strategies: no recorded spaces (*.json, *.json.gz) found");
  }
  return files;
}

std::string label_of(const fs::path& file) {
  std::string stem = file.filename().string();
  for (const char* suffix : {".gz", ".json"}) {
    if (stem.ends_with(suffix)) stem.resize(stem.size() - std::string_view(suffix).size());
  }
  const std::string folder = file.parent_path().filename().string();
  return folder.empty() ? stem : folder + "/" + stem;
}

// Equal for two files that record the same measurements (one space in two formats).
cutune::hash::Digest128 fingerprint(const cutune::Recording& recording) {
  std::vector<std::string> rows;
  rows.reserve(recording.entries.size());
  for (const auto& entry : recording.entries) {
    std::string row;
    for (const auto& v : entry.values) row += v.to_string() + ",";
    row += entry.measurement.ok() ? fmt::format("{}", entry.measurement.time_ms)
                                  : std::string(cutune::to_string(entry.measurement.outcome));
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end());
  cutune::hash::ContentHash hash;
  for (const std::string& row : rows) hash.field(row);
  return hash.digest();
}

std::vector<BenchSpace> load_spaces(const std::vector<fs::path>& files, std::size_t budget) {
  std::vector<BenchSpace> spaces;
  std::map<cutune::hash::Digest128, std::string> seen;
  for (const fs::path& file : files) {
    auto recorded = cutune::load_recorded_space(file);
    const std::string label = label_of(file);
    const auto [it, fresh] = seen.emplace(fingerprint(recorded->recording()), label);
    if (!fresh) {
      fmt::print("skipping {}: the same recording as {}\n", label, it->second);
      continue;
    }
    BenchSpace space;
    space.recorded = recorded;
    space.label = label;
    for (const auto& entry : recorded->recording().entries) {
      if (entry.measurement.ok()) {
        space.ok_times.push_back(entry.measurement.time_ms);
      } else {
        ++space.failed;
      }
    }
    if (space.ok_times.empty()) {
      fmt::print("skipping {}: no configuration succeeded\n", label);
      continue;
    }
    space.random_curve = cutune::random_search_curve(space.ok_times, space.failed, budget);
    std::vector<double> compiles, benches;
    for (const auto& entry : recorded->recording().entries) {
      if (!std::isnan(entry.compile_s)) compiles.push_back(entry.compile_s);
      if (!std::isnan(entry.benchmark_s)) benches.push_back(entry.benchmark_s);
    }
    if (!compiles.empty()) space.fallback_compile_s = median(compiles);
    if (!benches.empty()) space.fallback_bench_s = median(benches);
    spaces.push_back(std::move(space));
  }
  return spaces;
}

bool same_knobs(const cutune::Recording& a, const cutune::Recording& b) {
  if (a.knobs.size() != b.knobs.size()) return false;
  for (std::size_t k = 0; k < a.knobs.size(); ++k) {
    if (a.knobs[k].name != b.knobs[k].name || a.knobs[k].values != b.knobs[k].values) return false;
  }
  return true;
}

// Leave-one-device-out priors: for each space, every other space with the same knobs, all of its
// recorded results as configs of this space.
void add_priors(std::vector<BenchSpace>& spaces) {
  for (BenchSpace& target : spaces) {
    for (const BenchSpace& source : spaces) {
      if (&source == &target ||
          !same_knobs(source.recorded->recording(), target.recorded->recording())) {
        continue;
      }
      cutune::PriorSource prior{.name = source.label};
      for (const auto& entry : source.recorded->recording().entries) {
        prior.configs.push_back(target.recorded->config_of(entry));
        prior.results.push_back(entry.measurement);
      }
      target.priors.push_back(std::move(prior));
    }
    fmt::print("{}: priors from {} other spaces\n", target.label, target.priors.size());
  }
}

// The replayed space, counting what the search hands it per call: a strategy plans rounds of its
// own size, so `--batch` is only the most a call can carry.
class CountingEvaluator : public cutune::Evaluator {
 public:
  CountingEvaluator(const BenchSpace& space, const BenchOptions& options)
      : space_(space), options_(options), replay_(space.recorded), clock_(options.compile_slots) {}
  std::vector<cutune::Measurement> evaluate(std::span<const cutune::Config> batch) override {
    ++calls;
    configs += batch.size();
    std::vector<cutune::Measurement> results = replay_.evaluate(batch);
    std::vector<cutune::search::ConfigCost> costs;
    for (std::size_t i = 0; i < batch.size(); ++i) costs.push_back(cost(batch[i], results[i]));
    for (double t : clock_.charge(costs)) finished_s.push_back(t);
    return results;
  }
  // Re-timing and the tournament come after the search: not search rounds.
  std::vector<cutune::Measurement> retime(std::span<const cutune::Config> batch) override {
    return replay_.retime(batch);
  }
  cutune::PairedRounds time_rounds(std::span<const cutune::Config> configs, int rounds) override {
    return replay_.time_rounds(configs, rounds);
  }
  std::string device_name() const override { return replay_.device_name(); }
  std::string toolchain() const override { return replay_.toolchain(); }

  std::size_t calls = 0;
  std::size_t configs = 0;
  std::vector<double> finished_s;  // per evaluated config, in order: when its result was known

 private:
  // A config absent from the recording costs nothing (no tuner would have run it); a failed
  // compile never reaches the device.
  cutune::search::ConfigCost cost(const cutune::Config& config,
                                  const cutune::Measurement& m) const {
    const cutune::RecordedEntry* entry = space_.recorded->find(config);
    if (entry == nullptr) return {};
    const auto pick = [](double forced, double recorded, double fallback) {
      return forced > 0 ? forced : !std::isnan(recorded) ? recorded : fallback;
    };
    cutune::search::ConfigCost c;
    c.compile_s = pick(options_.compile_s, entry->compile_s, space_.fallback_compile_s);
    const bool compiled = m.outcome != cutune::Outcome::compile_error &&
                          m.outcome != cutune::Outcome::compile_timeout;
    c.benchmark_s =
        compiled ? pick(options_.bench_s, entry->benchmark_s, space_.fallback_bench_s) : 0.0;
    return c;
  }

  const BenchSpace& space_;
  const BenchOptions& options_;
  cutune::ReplayEvaluator replay_;
  cutune::search::SimulatedClock clock_;
};

struct Run {
  std::vector<double> curve;
  std::vector<double> at_seconds;  // the fraction of the optimum at each kSecondMarks
  double seconds_to_99 = INFINITY;
  std::size_t calls = 0;
  std::size_t configs = 0;
  double regret = 1.0;  // what the tune deploys against the optimum (1: nothing ran)
  std::vector<cutune::PriorWeight> priors;
};

// One search through the driver of `cutune tune` (default config first, duplicates skipped,
// batches of `batch`, every result stored), with the recorded space as its evaluator and a store
// of its own in memory: what is benchmarked is what real tunes run.
Run run_one(const BenchSpace& space, const std::string& strategy_name, cutune::Effort effort,
            std::uint64_t seed, const BenchOptions& bench) {
  const std::size_t budget = bench.budget;
  CountingEvaluator evaluator(space, bench);
  cutune::Store store = cutune::Store::in_memory();
  // The recorded space as a family of its own (the key's device and toolchain: the recording's).
  cutune::Family family;
  family.name = "bench-strategies";
  family.version = space.label;
  family.tuning = &space.recorded->tuning_space();
  cutune::TuneOptions options;
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
  const cutune::TuneReport report = cutune::tune(family, {}, evaluator, {}, &store, options);
  std::vector<cutune::Measurement> measurements;
  for (const cutune::Evaluated& e : report.evaluated) measurements.push_back(e.measurement);
  Run run;
  run.curve = cutune::optimum_fraction_curve(measurements, space.recorded->optimum_ms(), budget);
  run.at_seconds =
      cutune::optimum_fraction_at(measurements, evaluator.finished_s, space.recorded->optimum_ms(),
                                  kSecondMarks, 0.99, &run.seconds_to_99);
  run.calls = evaluator.calls;
  run.configs = evaluator.configs;
  run.priors = report.priors;
  // The deployed config's recorded time, not the tournament's: replayed rounds repeat it.
  if (report.best) {
    if (const cutune::RecordedEntry* entry = space.recorded->find(report.best->config);
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
    to_95.push_back(cutune::evaluations_to_reach(curve, 0.95));
    to_99.push_back(cutune::evaluations_to_reach(curve, 0.99));
    cell.to_98.push_back(cutune::evaluations_to_reach(curve, 0.98));
  }
  cell.score = cutune::normalized_score(cutune::curve_area(cell.mean_curve),
                                        cutune::curve_area(space.random_curve));
  cell.to_95 = cutune::median_of_reached(to_95);
  cell.to_99 = cutune::median_of_reached(to_99);
  cell.mean_at_seconds.assign(std::size(kSecondMarks), 0.0);
  for (const auto& at : cell.at_seconds) {
    for (std::size_t m = 0; m < at.size(); ++m)
      cell.mean_at_seconds[m] += at[m] / cell.at_seconds.size();
  }
  cell.median_seconds_to_99 = median(cell.seconds_to_99);
}

std::string evaluations_text(std::optional<double> v, std::size_t budget) {
  return v ? fmt::format("{:g}", *v) : fmt::format(">{}", budget);
}

std::string curves_csv(const std::vector<BenchSpace>& spaces, const std::vector<std::string>& names,
                       const std::vector<std::vector<Cell>>& cells) {
  std::string csv = "space,strategy,evaluation,mean_fraction_of_optimum\n";
  for (std::size_t s = 0; s < spaces.size(); ++s) {
    for (std::size_t i = 0; i < spaces[s].random_curve.size(); ++i) {
      csv += fmt::format("{},random-expected,{},{:.6f}\n", spaces[s].label, i + 1,
                         spaces[s].random_curve[i]);
    }
    for (std::size_t k = 0; k < names.size(); ++k) {
      const auto& curve = cells[s][k].mean_curve;
      for (std::size_t i = 0; i < curve.size(); ++i) {
        csv += fmt::format("{},{},{},{:.6f}\n", spaces[s].label, names[k], i + 1, curve[i]);
      }
    }
  }
  return csv;
}

// A round step for about `count` ticks over [0, span]: 1, 2 or 5 times a power of ten.
double tick_step(double span, int count) {
  const double raw = span / count;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * power >= raw) return m * power;
  return 10 * power;
}

// One panel per space: x is the evaluation, y the mean fraction of the optimum, from a floor
// below the lowest curve (a tenth), with round ticks on both axes and both axes titled.
std::string curves_svg(const std::vector<BenchSpace>& spaces, const std::vector<std::string>& names,
                       const std::vector<std::vector<Cell>>& cells) {
  static const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                  "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
  constexpr double kWidth = 380, kHeight = 280, kLeft = 70, kTop = 30, kGap = 30;
  const double panel_w = kWidth - kLeft - 10, panel_h = kHeight - kTop - 50;
  const double total_w = kGap + spaces.size() * kWidth;
  const double total_h = kHeight + 30 + 18 * (names.size() + 1);
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"{0}\" height=\"{1}\" "
      "fill=\"white\"/>\n",
      total_w, total_h);
  for (std::size_t s = 0; s < spaces.size(); ++s) {
    const double x0 = kGap + s * kWidth + kLeft, y0 = kTop;
    const std::size_t length = spaces[s].random_curve.size();
    double lowest = 1.0;
    for (double f : spaces[s].random_curve) lowest = std::min(lowest, f);
    for (const Cell& cell : cells[s])
      for (double f : cell.mean_curve) lowest = std::min(lowest, f);
    const double bottom = std::clamp(std::floor(lowest * 10) / 10, 0.0, 0.9);
    const auto px = [&](double i) { return x0 + panel_w * i / std::max<double>(1, length); };
    const auto py = [&](double f) {
      return y0 + panel_h * (1.0 - (std::max(f, bottom) - bottom) / (1.0 - bottom));
    };
    svg += fmt::format("<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text>\n", x0, y0 - 10,
                       spaces[s].label);
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>\n", x0,
        y0, panel_w, panel_h);
    // Ticks at least 18 px apart, so that no two labels overlap.
    const double y_step = tick_step(1.0 - bottom, static_cast<int>(panel_h / 18));
    for (double f = bottom; f <= 1.0 + 1e-9; f += y_step) {
      svg += fmt::format(
          "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>"
          "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:.{6}f}</text>\n",
          x0, x0 + panel_w, py(f), x0 - 4, py(f) + 4, f, y_step < 0.1 ? 2 : 1);
    }
    const double x_step = std::max(1.0, tick_step(static_cast<double>(length), 5));
    for (double i = 0; i <= static_cast<double>(length) + 1e-9; i += x_step) {
      svg += fmt::format(
          "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#888\"/>"
          "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
          px(i), y0 + panel_h, y0 + panel_h + 4, y0 + panel_h + 16, i);
    }
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">evaluations</text>\n",
                       x0 + panel_w / 2, y0 + panel_h + 34);
    svg += fmt::format(
        "<text transform=\"translate({},{}) rotate(-90)\" text-anchor=\"middle\">mean fraction of "
        "the optimum</text>\n",
        x0 - 44, y0 + panel_h / 2);
    const auto polyline = [&](const std::vector<double>& curve, const char* colour,
                              const char* dash) {
      std::string points;
      for (std::size_t i = 0; i < curve.size(); ++i) {
        points += fmt::format("{:.1f},{:.1f} ", px(static_cast<double>(i + 1)), py(curve[i]));
      }
      return fmt::format(
          "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" stroke-dasharray=\"{}\" "
          "points=\"{}\"/>\n",
          colour, dash, points);
    };
    svg += polyline(spaces[s].random_curve, "#000", "4,3");
    for (std::size_t k = 0; k < names.size(); ++k) {
      svg += polyline(cells[s][k].mean_curve, colours[k % std::size(colours)], "none");
    }
  }
  double legend_y = kHeight + 20;
  svg += fmt::format("<text x=\"{}\" y=\"{}\">- - - random search (expected)</text>\n", kGap,
                     legend_y);
  for (std::size_t k = 0; k < names.size(); ++k) {
    legend_y += 18;
    svg += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">━━ {}</text>\n", kGap, legend_y,
                       colours[k % std::size(colours)], names[k]);
  }
  return svg + "</svg>\n";
}

// Per space and strategy: the mean fraction of the optimum at 25/50/100/200 evaluations, the
// median evaluations to within 2 % of the optimum with the runs that never got there counted as
// censored (the median is ">budget" once half are), and the mean selection regret of what the
// tune deploys; with priors, each one's mean final weight.
void print_marks(const std::vector<BenchSpace>& spaces, const std::vector<std::string>& names,
                 const std::vector<std::vector<Cell>>& cells, std::size_t budget) {
  fmt::print("\n{:<28} {:<20} {:>7} {:>7} {:>7} {:>7} {:>13} {:>9}\n", "space", "strategy", "@25",
             "@50", "@100", "@200", "to 2% (cens)", "regret");
  for (std::size_t s = 0; s < spaces.size(); ++s) {
    for (std::size_t k = 0; k < names.size(); ++k) {
      const Cell& cell = cells[s][k];
      std::string row;
      for (std::size_t m : {25, 50, 100, 200}) {
        row += m <= budget ? fmt::format(" {:>7.4f}", cell.mean_curve[m - 1]) : "       -";
      }
      std::vector<double> to_98;
      std::size_t censored = 0;
      for (const auto& v : cell.to_98) {
        to_98.push_back(v ? static_cast<double>(*v) : INFINITY);
        censored += v ? 0 : 1;
      }
      const double median_98 = median(to_98);
      const double regret =
          std::accumulate(cell.regret.begin(), cell.regret.end(), 0.0) / cell.regret.size();
      std::string weights;
      for (const auto& [name, sum] : cell.prior_weight)
        weights += fmt::format("  {} {:.2f}", name, sum / cell.regret.size());
      fmt::print("{:<28} {:<20}{} {:>13} {:>9.4f}{}\n", spaces[s].label, names[k], row,
                 fmt::format("{} ({})",
                             std::isfinite(median_98) ? fmt::format("{:g}", median_98)
                                                      : fmt::format(">{}", budget),
                             censored),
                 regret, weights);
    }
  }
}

void bench_strategies(const BenchOptions& options) {
  if (options.budget == 0 || options.repeats == 0 || options.batch == 0 ||
      options.compile_slots == 0) {
    throw std::invalid_argument(
        "bench-strategies: --budget, --repeats, --batch and --compile-slots must be at least 1");
  }
  const cutune::Effort effort = cutune::effort_from_string(options.effort);
  std::vector<std::string> names = options.strategies;
  if (names.empty()) names = {"random", "pattern", "de", "lfbo", "hybrid"};
  for (const std::string& name : names) cutune::make_strategy(name, effort);  // rejects unknowns
  if (options.transfer > 0) {
    const std::size_t cold = names.size();
    for (std::size_t k = 0; k < cold; ++k) names.push_back(names[k] + std::string(kTransferSuffix));
  }

  const auto started = std::chrono::steady_clock::now();
  std::vector<BenchSpace> spaces = load_spaces(collect_files(options.inputs), options.budget);
  if (spaces.empty()) throw std::invalid_argument("bench-strategies: no usable recorded space");
  if (options.transfer > 0) add_priors(spaces);

  std::vector<std::vector<Cell>> cells(spaces.size(), std::vector<Cell>(names.size()));
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
        cells[s][k].curves[r] = std::move(run.curve);
        cells[s][k].at_seconds[r] = std::move(run.at_seconds);
        cells[s][k].seconds_to_99[r] = run.seconds_to_99;
        cells[s][k].seconds += seconds;
        cells[s][k].calls += run.calls;
        cells[s][k].configs += run.configs;
        cells[s][k].regret.push_back(run.regret);
        for (const cutune::PriorWeight& p : run.priors)
          cells[s][k].prior_weight[p.name] += p.weight;
      } catch (...) {
        const std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  const unsigned jobs =
      options.jobs != 0 ? options.jobs : std::max(1U, std::thread::hardware_concurrency());
  std::vector<std::thread> threads;
  for (unsigned j = 0; j < std::min<std::size_t>(jobs, task_count); ++j)
    threads.emplace_back(worker);
  for (std::thread& thread : threads) thread.join();
  if (failure) std::rethrow_exception(failure);

  fmt::print("\n{:<28} {:<16} {:>7} {:>8} {:>8} {:>10} {:>8} {:>9}\n", "space", "strategy", "score",
             "to 0.95", "to 0.99", "final", "seconds", "per call");
  std::vector<double> random_99_per_space;
  for (std::size_t s = 0; s < spaces.size(); ++s) {
    const BenchSpace& space = spaces[s];
    // Random search's medians are exact, so they are given past the budget too: the yardstick
    // for "how many times fewer evaluations than random".
    const std::size_t all = space.ok_times.size() + space.failed;
    const auto random_95 =
        cutune::random_search_median_evaluations(space.ok_times, space.failed, 0.95, all);
    const auto random_99 =
        cutune::random_search_median_evaluations(space.ok_times, space.failed, 0.99, all);
    random_99_per_space.push_back(random_99 ? static_cast<double>(*random_99) : INFINITY);
    fmt::print("{:<28} {:<16} {:>7.3f} {:>8} {:>8} {:>10.4f} {:>8}\n", space.label,
               "random-expected", 0.0,
               evaluations_text(random_95 ? std::optional<double>(*random_95) : std::nullopt,
                                options.budget),
               evaluations_text(random_99 ? std::optional<double>(*random_99) : std::nullopt,
                                options.budget),
               space.random_curve.back(), "-");
    for (std::size_t k = 0; k < names.size(); ++k) {
      Cell& cell = cells[s][k];
      summarize(cell, space);
      fmt::print("{:<28} {:<16} {:>7.3f} {:>8} {:>8} {:>10.4f} {:>8.2f} {:>9.1f}\n", space.label,
                 names[k], cell.score, evaluations_text(cell.to_95, options.budget),
                 evaluations_text(cell.to_99, options.budget), cell.mean_curve.back(), cell.seconds,
                 static_cast<double>(cell.configs) / std::max<std::size_t>(1, cell.calls));
    }
  }

  std::string summary =
      "space,strategy,score,median_evaluations_to_0.95,median_evaluations_to_0.99,"
      "mean_final_fraction,seconds,median_simulated_seconds_to_0.99\n";
  // The mean fraction of the optimum over spaces at fixed evaluation counts (those in budget).
  std::vector<std::size_t> marks;
  for (std::size_t m : {25, 50, 100, 200}) {
    if (m <= options.budget) marks.push_back(m);
  }
  const auto at_marks = [&](const auto& curve_of) {
    std::string text;
    for (std::size_t m : marks) {
      double sum = 0.0;
      for (std::size_t s = 0; s < spaces.size(); ++s) sum += curve_of(s)[m - 1];
      text += fmt::format(" {:>7.4f}", sum / spaces.size());
    }
    return text;
  };
  std::string marks_head;
  for (std::size_t m : marks) marks_head += fmt::format(" {:>7}", fmt::format("@{}", m));
  fmt::print("\n{:<16} {:>10} {:>22}{}\n", "strategy", "mean score", "median-space to 0.99",
             marks_head);
  fmt::print("{:<16} {:>10.3f} {:>22g}{}\n", "random-expected", 0.0, median(random_99_per_space),
             at_marks([&](std::size_t s) -> const std::vector<double>& {
               return spaces[s].random_curve;
             }));
  for (std::size_t k = 0; k < names.size(); ++k) {
    std::vector<double> scores, to_99;
    for (std::size_t s = 0; s < spaces.size(); ++s) {
      const Cell& cell = cells[s][k];
      scores.push_back(cell.score);
      to_99.push_back(cell.to_99.value_or(INFINITY));
      summary += fmt::format("{},{},{:.6f},{},{},{:.6f},{:.3f},{}\n", spaces[s].label, names[k],
                             cell.score, cell.to_95 ? fmt::format("{:g}", *cell.to_95) : "",
                             cell.to_99 ? fmt::format("{:g}", *cell.to_99) : "",
                             cell.mean_curve.back(), cell.seconds,
                             std::isfinite(cell.median_seconds_to_99)
                                 ? fmt::format("{:.1f}", cell.median_seconds_to_99)
                                 : "");
    }
    const double mean_score = std::accumulate(scores.begin(), scores.end(), 0.0) / scores.size();
    const double median_99 = median(to_99);
    fmt::print("{:<16} {:>10.3f} {:>22}{}\n", names[k], mean_score,
               std::isfinite(median_99) ? fmt::format("{:g}", median_99)
                                        : fmt::format(">{}", options.budget),
               at_marks([&](std::size_t s) -> const std::vector<double>& {
                 return cells[s][k].mean_curve;
               }));
  }

  // The same on the simulated clock: the mean fraction over spaces at fixed simulated seconds,
  // and the median over spaces of each space's median seconds to 0.99 of the optimum.
  fmt::print("\nsimulated clock: {} compile slots, one device; costs {}\n", options.compile_slots,
             options.compile_s > 0 || options.bench_s > 0
                 ? fmt::format("compile {} s, benchmark {} s per config (recorded where 0)",
                               options.compile_s, options.bench_s)
                 : std::string("as recorded"));
  std::string seconds_head;
  for (double m : kSecondMarks) seconds_head += fmt::format(" {:>7}", fmt::format("@{:g}s", m));
  fmt::print("{:<16}{} {:>22}\n", "strategy", seconds_head, "median-space s to 0.99");
  std::string seconds_csv = "space,strategy,simulated_seconds,mean_fraction_of_optimum\n";
  for (std::size_t k = 0; k < names.size(); ++k) {
    std::string row;
    for (std::size_t m = 0; m < std::size(kSecondMarks); ++m) {
      double sum = 0.0;
      for (std::size_t s = 0; s < spaces.size(); ++s) {
        sum += cells[s][k].mean_at_seconds[m];
        seconds_csv += fmt::format("{},{},{:g},{:.6f}\n", spaces[s].label, names[k],
                                   kSecondMarks[m], cells[s][k].mean_at_seconds[m]);
      }
      row += fmt::format(" {:>7.4f}", sum / spaces.size());
    }
    std::vector<double> to_99;
    for (std::size_t s = 0; s < spaces.size(); ++s)
      to_99.push_back(cells[s][k].median_seconds_to_99);
    const double median_99 = median(to_99);
    fmt::print("{:<16}{} {:>22}\n", names[k], row,
               std::isfinite(median_99) ? fmt::format("{:.1f}", median_99) : "never");
  }

  print_marks(spaces, names, cells, options.budget);

  const fs::path out(options.out);
  fs::create_directories(out);
  cutune::cli::write_file(out / "strategy_seconds.csv", seconds_csv);
  cutune::cli::write_file(out / "strategy_summary.csv", summary);
  cutune::cli::write_file(out / "strategy_curves.csv", curves_csv(spaces, names, cells));
  cutune::cli::write_file(out / "strategy_curves.svg", curves_svg(spaces, names, cells));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  fmt::print(
      "\n{} spaces x {} strategies x {} repeats, budget {}, batch {}, effort {}, {} jobs: {:.1f} "
      "s\n",
      spaces.size(), names.size(), options.repeats, options.budget, options.batch, options.effort,
      jobs, seconds);
  fmt::print("wrote {}, {} and {}\n", (out / "strategy_summary.csv").string(),
             (out / "strategy_curves.csv").string(), (out / "strategy_curves.svg").string());
}

}  // namespace

void cutune::cli::add_bench_strategies_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "bench-strategies",
      "Compare search strategies on recorded spaces (Kernel Tuner cache or T4 files)");
  auto options = std::make_shared<BenchOptions>();
  command->add_option("spaces", options->inputs, "Recorded space files or folders of them")
      ->required();
  command->add_option("--budget", options->budget, "Evaluations per search")->capture_default_str();
  command->add_option("--repeats", options->repeats, "Seeds per strategy and space")
      ->capture_default_str();
  command
      ->add_option("--strategies", options->strategies,
                   "Comma-separated strategy names (default: random,pattern,de,lfbo,hybrid)")
      ->delimiter(',');
  command->add_option("--effort", options->effort, "Effort profile: quick or full")
      ->capture_default_str();
  command->add_option("--seed", options->seed, "First seed; repeat r uses seed + r")
      ->capture_default_str();
  command->add_option("--out", options->out, "Folder for the CSV files and the SVG plot")
      ->capture_default_str();
  command->add_option("--jobs", options->jobs, "Searches run at once (default: one per core)");
  command
      ->add_option("--batch", options->batch,
                   "Candidates per round, as cutune tune asks them (32: tune on the H200's 16 "
                   "cores; 1: one at a time)")
      ->capture_default_str();
  command
      ->add_option("--compile-slots", options->compile_slots,
                   "Simulated clock: compiles run on this many parallel slots")
      ->capture_default_str();
  command->add_option("--compile-s", options->compile_s,
                      "Simulated clock: every config compiles in this many seconds (default: "
                      "its recorded time)");
  command->add_option("--bench-s", options->bench_s,
                      "Simulated clock: every config benchmarks in this many seconds (default: "
                      "its recorded time)");
  command
      ->add_option("--transfer", options->transfer,
                   "Also run each strategy as <name>+transfer: every other recorded space with the "
                   "same knobs is a prior (leave-one-device-out), its N fastest configs in the "
                   "first round")
      ->capture_default_str();
  command->callback([options] { bench_strategies(*options); });
}
