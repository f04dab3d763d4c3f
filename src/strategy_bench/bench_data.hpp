// The strategy benchmark's own data (cutune/strategy_bench.hpp): the spaces it replays, one
// search's run and one strategy's cell on one space, and the steps between them.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/replay.hpp"
#include "cutune/strategy_bench.hpp"
#include "cutune/transfer.hpp"
#include "cutune/tune.hpp"

namespace cutune::strategy_bench {

using Note = std::function<void(const std::string&)>;

// Simulated seconds at which the fraction of the optimum is reported.
constexpr double kSecondMarks[] = {15, 30, 60, 120, 300};

// A strategy run with priors ("lfbo+transfer") and the strategy it runs.
constexpr std::string_view kTransferSuffix = "+transfer";

struct BenchSpace {
  std::shared_ptr<const RecordedSpace> recorded;
  std::string label;  // file name without extensions, with its folder: "convolution_milo/A100"
  std::vector<double> random_curve;
  std::vector<double> ok_times;
  std::size_t failed = 0;
  // Charged where a config's recording has no cost: the space's median recorded cost, or, in a
  // file with none, a GEMM-like 7 s compile and 0.2 s benchmark (an H200 GEMM config's costs).
  double fallback_compile_s = 7.0, fallback_bench_s = 0.2;
  std::vector<PriorSource> priors;  // --transfer: every other space with the same knobs
};

struct Run {  // one search
  std::vector<double> curve;
  std::vector<double> at_seconds;  // the fraction of the optimum at each kSecondMarks
  double seconds_to_99 = INFINITY;
  std::size_t calls = 0;
  std::size_t configs = 0;
  double regret = 1.0;  // what the tune deploys against the optimum (1: nothing ran)
  std::vector<PriorWeight> priors;
};

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

// cells[space][strategy]
using Cells = std::vector<std::vector<Cell>>;

double median(std::vector<double> values);

// spaces.cpp: the recordings named by the inputs, each distinct one once, and their priors.
std::vector<std::filesystem::path> collect_files(const std::vector<std::string>& inputs);
std::vector<BenchSpace> load_spaces(const std::vector<std::filesystem::path>& files,
                                    std::size_t budget, const Note& note);
void add_priors(std::vector<BenchSpace>& spaces, const Note& note);

// run.cpp: one search through tune(), and a cell's summary over its repeats.
Run run_one(const BenchSpace& space, const std::string& strategy_name, Effort effort,
            std::uint64_t seed, const StrategyBenchOptions& bench);
void summarize(Cell& cell, const BenchSpace& space);

// tables.cpp: the text tables, every cell summarized.
std::string tables_text(const std::vector<BenchSpace>& spaces,
                        const std::vector<std::string>& names, const Cells& cells,
                        const StrategyBenchOptions& options);

// files.cpp: the CSV files and the SVG plot.
std::string summary_csv(const std::vector<BenchSpace>& spaces,
                        const std::vector<std::string>& names, const Cells& cells);
std::string seconds_csv(const std::vector<BenchSpace>& spaces,
                        const std::vector<std::string>& names, const Cells& cells);
std::string curves_csv(const std::vector<BenchSpace>& spaces, const std::vector<std::string>& names,
                       const Cells& cells);
std::string curves_svg(const std::vector<BenchSpace>& spaces, const std::vector<std::string>& names,
                       const Cells& cells);

}  // namespace cutune::strategy_bench
