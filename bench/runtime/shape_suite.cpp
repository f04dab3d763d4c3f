// Tunes a CPU spec over a suite of shapes the way the runtime does (each tune warm-started from
// the winners of the shapes tuned before it), compares a warm and a cold tune of one more shape,
// then fits a dispatch rule over the tuned shapes and reports it on held-out shapes.
//
//   bench_runtime_shapes --spec examples/cpu/matmul/matmul.json
//       --shapes "m=64,n=64,k=64;m=256,n=256,k=256" --compare "m=192,n=192,k=96" --budget 12
#include <fmt/format.h>
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <sstream>

#include "cutune/cpu.hpp"
#include "cutune/dispatch.hpp"
#include "cutune/runtime.hpp"
#include "cutune/spec.hpp"

namespace {

std::vector<cutune::Problem> parse_shapes(const std::string& text, const cutune::KernelSpec& spec) {
  std::vector<cutune::Problem> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ';');) {
    if (!item.empty()) out.push_back(spec.resolve(cutune::Problem::parse(item)));
  }
  return out;
}

struct Args {
  std::string spec;
  std::string shapes;
  std::string compare;
  std::string db;
  std::size_t budget = 12;
  std::size_t neighbours = 4;
  std::size_t max_configs = 8;
  std::string strategy = "default";
};

int run(const Args& args) {
  const cutune::KernelSpec spec = cutune::load_spec(args.spec);
  std::filesystem::path db = args.db;
  if (db.empty()) {
    std::string pattern = (std::filesystem::temp_directory_path() / "cutune-shapes-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    db = std::filesystem::path(pattern) / "results.db";
  }
  auto store = cutune::Store::open(db);
  cutune::TuneOptions options;
  options.max_evaluations = args.budget;
  options.strategy = args.strategy;

  fmt::print("| shape | default ms | best ms | speedup | warm starts | evaluations | seconds |\n");
  fmt::print("|---|---|---|---|---|---|---|\n");
  for (const cutune::Problem& problem : parse_shapes(args.shapes, spec)) {
    cutune::CpuEvaluator evaluator(spec, problem);
    const cutune::TuningKey key{spec.name, spec.version, problem.canonical(),
                                evaluator.device_name(), evaluator.toolchain()};
    cutune::TuneOptions warm = options;
    for (auto& n : cutune::nearest_winners(store, spec.name, key.device, problem,
                                           spec.tuning->space, args.neighbours)) {
      warm.warm_start.push_back(std::move(n.config));
    }
    const auto report = cutune::tune(*spec.tuning, problem, cutune::Device::host_cpu(), evaluator,
                                     &store, key, warm);
    const double base = report.baseline && report.baseline->measurement.ok()
                            ? report.baseline->measurement.time_ms
                            : NAN;
    const double best = report.best ? report.best->measurement.time_ms : NAN;
    fmt::print("| {} | {:.4g} | {:.4g} | {:.2f}x | {} | {} | {:.1f} |\n", problem.canonical(), base,
               best, base / best, warm.warm_start.size(), report.evaluated.size(), report.seconds);
  }

  for (const cutune::Problem& problem : parse_shapes(args.compare, spec)) {
    cutune::CpuEvaluator evaluator(spec, problem);
    const cutune::TuningKey key{spec.name, spec.version, problem.canonical(),
                                evaluator.device_name(), evaluator.toolchain()};
    const auto c = cutune::compare_warm_start(*spec.tuning, problem, cutune::Device::host_cpu(),
                                              evaluator, store, key, options, args.neighbours);
    fmt::print("\nwarm start on {} from {} neighbour winner(s):\n", problem.canonical(),
               c.neighbours.size());
    fmt::print("  cold: best {:.4g} ms; reached {:.4g} ms at evaluation {} ({:.1f} s)\n",
               c.cold.best ? c.cold.best->measurement.time_ms : NAN, c.target_ms,
               c.cold_evaluations, c.cold_seconds);
    fmt::print("  warm: best {:.4g} ms; reached {:.4g} ms at evaluation {} ({:.1f} s)\n",
               c.warm.best ? c.warm.best->measurement.time_ms : NAN, c.target_ms,
               c.warm_evaluations, c.warm_seconds);
    fmt::print("  evaluations to that level: {:.2f}x fewer warm\n",
               static_cast<double>(c.cold_evaluations) / static_cast<double>(c.warm_evaluations));
  }

  const auto dispatcher = cutune::Dispatcher::fit(
      store, {.family = spec.name, .max_configs = args.max_configs});
  const auto& r = dispatcher.report();
  fmt::print("\ndispatch: {}; held-out geomean best/picked {:.4f} over {} shapes ({} unknown); "
             "fitted {:.4f}\n",
             r.rule, r.held_out_geomean, r.shapes.size() - r.held_out_unknown, r.held_out_unknown,
             r.training_geomean);
  for (const auto& line : r.candidates_tried) fmt::print("  {}\n", line);
  fmt::print("store: {}\n", db.string());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Tune a CPU spec over shapes with warm start, then fit a dispatch rule"};
  Args args;
  app.add_option("--spec", args.spec, "Kernel spec (backend cpu)")->required();
  app.add_option("--shapes", args.shapes, "Shapes to tune, ';'-separated")->required();
  app.add_option("--compare", args.compare, "Shapes for a warm-versus-cold comparison");
  app.add_option("--db", args.db, "Results store (default: a fresh temporary one)");
  app.add_option("--budget", args.budget, "Evaluations per tune");
  app.add_option("--neighbours", args.neighbours, "Winners of nearest shapes to start from");
  app.add_option("--max-configs", args.max_configs, "Most configs in the dispatch rule");
  app.add_option("--strategy", args.strategy, "Search strategy");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(args);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_runtime_shapes: {}\n", e.what());
    return 1;
  }
}
