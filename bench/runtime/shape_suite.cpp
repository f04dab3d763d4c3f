// Tunes a family over a suite of shapes the way the runtime does (each tune warm-started from
// the winners of the shapes tuned before it), cross-measures every candidate config (each shape's
// best --candidates) as repaired for every shape, fits a dispatch rule over the tuned shapes
// (reported leave-one-shape-out, with the curve of held-out geomean against the number of
// configs), then compares warm and cold tunes of held-out shapes (--compare, never tuned here).
// A kernel spec, or a built-in family (the GEMM, in a build with the CUDA backend, on an H200):
//
//   bench_runtime_shapes --spec examples/cpu/matmul/matmul.json
//       --shapes "m=64,n=64,k=64;m=256,n=256,k=256" --compare "m=192,n=192,k=96" --budget 12
//   bench_runtime_shapes --family gemm --shapes "m=2048,n=4096,k=4096,dtype=bf16;..." ...
//
// It tunes through the family's own record (cutune/family.hpp: resolution, version, evaluator,
// key), the one the runtime's family extends, so every winner it records is what Runtime::get
// finds. Everything it writes (the store, compiled kernels) goes to --db's folder: compiled
// kernels to --cache-dir (as $XDG_CACHE_HOME), default <db folder>/kernel-cache. Prints, in
// order: the tunes, the summary (per tuned shape its own best, the final rule's pick and the
// held-out pick), the curve, and warm versus cold evaluations and seconds to within --tolerance
// of each held-out shape's best, with their medians.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include "cutune/dispatch.hpp"
#include "cutune/family.hpp"
#include "cutune/runtime.hpp"
#include "cutune/spec.hpp"

namespace {

std::vector<cutune::Problem> parse_shapes(const std::string& text) {
  std::vector<cutune::Problem> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ';');) {
    if (!item.empty()) out.push_back(cutune::Problem::parse(item));
  }
  return out;
}

struct Args {
  std::string spec;
  std::string family;
  std::string shapes;
  std::string compare;
  std::string db;
  std::string cache_dir;
  std::size_t budget = 12;
  double seconds = 0;
  double suite_seconds = 0;
  std::size_t retime_top = 3;
  std::size_t neighbours = 4;
  std::size_t max_configs = 8;
  std::size_t candidates = 3;
  double tolerance = 0.02;
  std::string strategy = "default";
  bool cross = true;
  bool remeasure = true;
};

double median(std::vector<double> values) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

double geomean(const std::vector<double>& ratios) {
  if (ratios.empty()) return NAN;
  double sum = 0;
  for (double r : ratios) sum += std::log(r);
  return std::exp(sum / static_cast<double>(ratios.size()));
}

int run(const Args& args) {
  std::filesystem::path db = args.db;
  if (db.empty()) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "cutune-shapes-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    db = std::filesystem::path(pattern) / "results.db";
  }
  const std::filesystem::path cache_dir =
      args.cache_dir.empty() ? std::filesystem::absolute(db).parent_path() / "kernel-cache"
                             : std::filesystem::path(args.cache_dir);
  // Every family's default cache folder is under $XDG_CACHE_HOME: this process's kernels go to
  // --cache-dir, before any family is made.
  setenv("XDG_CACHE_HOME", std::filesystem::absolute(cache_dir).c_str(), 1);
  std::optional<cutune::KernelSpec> spec;
  cutune::Family target;
  if (!args.spec.empty()) {
    spec = cutune::load_spec(args.spec);
    target = cutune::spec_family(*spec);
  } else if (const cutune::Family* builtin = cutune::find_family(args.family)) {
    target = *builtin;
  } else {
    throw std::invalid_argument(
        fmt::format("give --spec FILE or --family NAME (this build has: {})",
                    fmt::join(cutune::family_names(), ", ")));
  }
  const auto make_evaluator = [&target](const cutune::Problem& problem) {
    return target.make_evaluator(problem, {}).evaluator;
  };
  auto store = cutune::Store::open(db);
  cutune::TuneOptions options;
  options.max_evaluations = args.budget;
  options.max_seconds = args.seconds;
  options.retime_top = args.retime_top;
  options.strategy = args.strategy;
  cutune::Device device;
  const auto suite_start = std::chrono::steady_clock::now();

  fmt::print("| shape | default ms | best ms | speedup | warm starts | evaluations | seconds |\n");
  fmt::print("|---|---|---|---|---|---|---|\n");
  // Past --suite-seconds, no more suite tunes (the held-out comparisons still run): what was
  // tuned is cross-measured and fitted.
  const auto out_of_time = [&](const cutune::Problem& problem) {
    const double spent =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - suite_start).count();
    if (args.suite_seconds <= 0 || spent < args.suite_seconds) return false;
    fmt::print("| {} | skipped: {:.0f} s of tunes spent (--suite-seconds) |\n", problem.canonical(),
               spent);
    return true;
  };
  for (const cutune::Problem& given : parse_shapes(args.shapes)) {
    const cutune::Problem problem = target.resolved(given);
    if (out_of_time(problem)) continue;
    cutune::FamilyEvaluator made = target.make_evaluator(problem, {});
    device = made.device;
    const cutune::TuningKey key =
        target.key(problem, made.evaluator->device_name(), made.evaluator->toolchain());
    cutune::TuneOptions warm = options;
    cutune::add_warm_start(warm, store, target, problem, key.device, args.neighbours);
    const auto report = cutune::tune(target, problem, made, &store, warm);
    const double base = report.baseline && report.baseline->measurement.ok()
                            ? report.baseline->measurement.time_ms
                            : NAN;
    const double best = report.best ? report.best->measurement.time_ms : NAN;
    fmt::print("| {} | {:.4g} | {:.4g} | {:.2f}x | {} | {} | {:.1f} |\n", problem.canonical(), base,
               best, base / best, warm.warm_start.size(), report.evaluated.size(), report.seconds);
  }

  // Warm start where it should pay: shapes never tuned above, between tuned ones.
  const auto held_out_shapes = parse_shapes(args.compare);
  if (!held_out_shapes.empty()) {
    fmt::print(
        "\n=== warm vs cold on held-out shapes: evaluations (seconds) to within {:.0f}% of the "
        "shape's best (the better of both runs)\n",
        args.tolerance * 100);
    fmt::print("| shape | neighbours | best ms | cold evals | warm evals | cold s | warm s |\n");
    fmt::print("|---|---|---|---|---|---|---|\n");
  }
  std::vector<double> cold_counts, warm_counts, cold_times, warm_times;
  for (const cutune::Problem& given : held_out_shapes) {
    const cutune::Problem problem = target.resolved(given);
    cutune::FamilyEvaluator made = target.make_evaluator(problem, {});
    const auto c =
        cutune::compare_warm_start(target, problem, made, store, options, args.neighbours,
                                   {.tolerance = args.tolerance, .record_warm = true});
    // A run that never got there counts one evaluation past its budget.
    auto count = [](std::size_t n, bool reached) {
      return reached ? fmt::format("{}", n) : fmt::format(">{}", n);
    };
    cold_counts.push_back(static_cast<double>(c.cold_evaluations + (c.cold_reached ? 0 : 1)));
    warm_counts.push_back(static_cast<double>(c.warm_evaluations + (c.warm_reached ? 0 : 1)));
    cold_times.push_back(c.cold_seconds);
    warm_times.push_back(c.warm_seconds);
    fmt::print("| {} | {} | {:.5g} | {} | {} | {:.1f} | {:.1f} |\n", problem.canonical(),
               c.neighbours.size(), c.target_ms / (1 + args.tolerance),
               count(c.cold_evaluations, c.cold_reached), count(c.warm_evaluations, c.warm_reached),
               c.cold_seconds, c.warm_seconds);
  }
  if (!held_out_shapes.empty()) {
    fmt::print(
        "median evaluations: cold {:.1f}, warm {:.1f} (warm/cold {:.2f}); median seconds: cold "
        "{:.1f}, warm {:.1f}\n",
        median(cold_counts), median(warm_counts), median(warm_counts) / median(cold_counts),
        median(cold_times), median(warm_times));
  }
  const cutune::DispatchOptions fit{.family = target.name,
                                    .max_configs = args.max_configs,
                                    .repair_space = &target.tuning->space,
                                    .repair_device = device,
                                    .candidates_per_shape = args.candidates,
                                    .remeasure = args.remeasure};
  if (args.cross) {
    const auto start = std::chrono::steady_clock::now();
    const std::size_t pairs =
        cutune::cross_measure(store, fit, target.tuning->space, device, make_evaluator);
    fmt::print(
        "\ncross-measured {} (shape, config) pairs in {:.1f} s ({} best configs of each shape, "
        "each repaired for every shape{})\n",
        pairs, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
        args.candidates, args.remeasure ? "; every pair measured again" : "");
  }
  const auto dispatcher = cutune::Dispatcher::fit(store, fit);
  const auto& r = dispatcher.report();
  fmt::print(
      "\ndispatch: {}; held-out geomean best/picked {:.4f} over {} shapes ({} failed or never "
      "measured); fitted {:.4f}\n",
      r.rule, r.held_out_geomean, r.shapes.size() - r.held_out_unknown, r.held_out_unknown,
      r.training_geomean);
  for (const auto& line : r.candidates_tried) fmt::print("  {}\n", line);

  // The final rule's pick on each tuned shape, repaired for it as the runtime loads it, timed as
  // the store has it under the shape's key.
  std::map<std::string, cutune::TuningKey> keys;
  for (const auto& key : store.keys({.family = target.name, .device = dispatcher.device()})) {
    if (key.family_version == dispatcher.version()) keys.emplace(key.problem, key);
  }
  fmt::print("\n=== summary ({}, rule over {} shapes, {} distinct configs)\n", target.name,
             r.shapes.size(), dispatcher.config_count());
  fmt::print(
      "| shape | own best ms | rule pick ms | best/rule | held-out pick ms | best/held-out |\n");
  fmt::print("|---|---|---|---|---|---|\n");
  std::vector<double> rule_ratios, held_out_ratios;
  std::size_t rule_unknown = 0;
  for (const auto& shape : r.shapes) {
    std::optional<double> rule_ms;
    try {
      const auto config = dispatcher.config_for(shape.problem, target.tuning->space, device);
      const auto key = keys.find(shape.problem.canonical());
      if (config && key != keys.end()) {
        if (auto m = store.find(key->second, config->hash_hex()); m && m->ok()) {
          rule_ms = m->time_ms;
        }
      }
    } catch (const std::exception& error) {
      fmt::print(stderr, "{}: {}\n", shape.problem.canonical(), error.what());
    }
    if (rule_ms) {
      rule_ratios.push_back(shape.best_ms / *rule_ms);
    } else {
      ++rule_unknown;
    }
    if (shape.picked_ms) held_out_ratios.push_back(shape.best_ms / *shape.picked_ms);
    auto ms = [](const std::optional<double>& v) {
      return v ? fmt::format("{:.5g}", *v) : std::string("failed");
    };
    auto ratio = [&](const std::optional<double>& v) {
      return v ? fmt::format("{:.3f}", shape.best_ms / *v) : std::string("-");
    };
    fmt::print("| {} | {:.5g} | {} | {} | {} | {} |\n", shape.problem.canonical(), shape.best_ms,
               ms(rule_ms), ratio(rule_ms), ms(shape.picked_ms), ratio(shape.picked_ms));
  }
  fmt::print(
      "geomean best/rule pick: {:.4f} over {} shapes ({} failed); held out: {:.4f} over {} "
      "shapes ({} failed)\n",
      geomean(rule_ratios), rule_ratios.size(), rule_unknown, geomean(held_out_ratios),
      held_out_ratios.size(), r.held_out_unknown);
  fmt::print("rule: {}, {} distinct configs (at most {})\n", r.rule, dispatcher.config_count(),
             args.max_configs);
  fmt::print("\n=== held-out geomean against the number of configs (leave-one-shape-out)\n");
  fmt::print("| configs | best rule | held-out geomean best/picked | failed picks |\n");
  fmt::print("|---|---|---|---|\n");
  for (const auto& point : r.curve) {
    fmt::print("| {} | {} | {:.4f} | {} |\n", point.configs, point.rule, point.held_out_geomean,
               point.failed);
  }

  fmt::print("suite wall time: {:.1f} s; store: {}; compiled kernels: {}\n",
             std::chrono::duration<double>(std::chrono::steady_clock::now() - suite_start).count(),
             db.string(), cache_dir.string());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Tune a CPU spec over shapes with warm start, then fit a dispatch rule"};
  Args args;
  app.add_option("--spec", args.spec, "Kernel spec");
  app.add_option("--family", args.family, "A built-in family instead of a spec (gemm)");
  app.add_option("--shapes", args.shapes, "Shapes to tune, ';'-separated")->required();
  app.add_option("--compare", args.compare,
                 "Held-out shapes (not tuned above) for a warm-versus-cold comparison");
  app.add_option("--db", args.db, "Results store (default: a fresh temporary one)");
  app.add_option("--cache-dir", args.cache_dir,
                 "Compiled kernels (default: kernel-cache beside the store)");
  app.add_option("--time", args.seconds, "Wall-time budget per tune in seconds (0: none)");
  app.add_option("--suite-seconds", args.suite_seconds,
                 "No suite tune starts after this many seconds (0: none)");
  app.add_option("--retime-top", args.retime_top, "Best configs re-timed at the end of a tune");
  app.add_option("--budget", args.budget, "Evaluations per tune");
  app.add_option("--neighbours", args.neighbours, "Winners of nearest shapes to start from");
  app.add_option("--max-configs", args.max_configs, "Most configs in the dispatch rule");
  app.add_option("--strategy", args.strategy, "Search strategy");
  app.add_option("--cross", args.cross,
                 "Measure every candidate on every shape before fitting (true/false)");
  app.add_option("--candidates", args.candidates,
                 "Best configs of each tuned shape that become dispatch candidates");
  app.add_option("--remeasure", args.remeasure,
                 "Cross-measure every pair again, in one batch per shape (true/false)");
  app.add_option("--tolerance", args.tolerance,
                 "Warm vs cold: evaluations to within this fraction of the shape's best");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(args);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_runtime_shapes: {}\n", e.what());
    return 1;
  }
}
