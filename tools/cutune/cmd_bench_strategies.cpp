// `cutune bench-strategies`: the strategy benchmark (cutune/strategy_bench.hpp) from the command
// line; prints its tables and writes its CSV files and SVG plot into --out.
#include <fmt/core.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "command.hpp"
#include "cutune/strategy_bench.hpp"
#include "write_file.hpp"

namespace {

namespace fs = std::filesystem;

struct BenchCommand {
  cutune::StrategyBenchOptions bench;
  std::string out = "bench-strategies";
};

void run_bench_strategies(const BenchCommand& command) {
  const cutune::StrategyBenchOptions& options = command.bench;
  const auto started = std::chrono::steady_clock::now();
  const cutune::StrategyBenchResult result =
      cutune::bench_strategies(options, [](const std::string& line) { fmt::print("{}\n", line); });
  fmt::print("{}", result.tables);
  const fs::path out(command.out);
  fs::create_directories(out);
  for (const auto& [name, text] : result.files) cutune::cli::write_file(out / name, text);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  fmt::print(
      "\n{} spaces x {} strategies x {} repeats, budget {}, batch {}, effort {}, {} jobs: {:.1f} "
      "s\n",
      result.spaces, result.strategies, options.repeats, options.budget, options.batch,
      options.effort, result.jobs, seconds);
  fmt::print("wrote {}, {} and {}\n", (out / "strategy_summary.csv").string(),
             (out / "strategy_curves.csv").string(), (out / "strategy_curves.svg").string());
}

}  // namespace

void cutune::cli::add_bench_strategies_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "bench-strategies",
      "Compare search strategies on recorded spaces (Kernel Tuner cache or T4 files)");
  auto cli_options = std::make_shared<BenchCommand>();
  auto* options = &cli_options->bench;
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
  command->add_option("--out", cli_options->out, "Folder for the CSV files and the SVG plot")
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
  command->callback([cli_options] { run_bench_strategies(*cli_options); });
}
