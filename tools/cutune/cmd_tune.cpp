// `cutune tune SPEC`: tunes a kernel described by a spec file and prints the winners.
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "command.hpp"
#include "cutune/spec.hpp"
#include "cutune/store.hpp"
#include "cutune/tune.hpp"
#include "evaluators.hpp"
#include "progress.hpp"

namespace cutune::cli {
namespace {

struct TuneArgs {
  std::string spec;
  std::string problem;
  std::string strategy = "default";
  std::string effort = "full";
  std::size_t budget = 60;
  double seconds = 0;
  std::uint64_t seed = 0;
  std::string db;
  bool no_store = false;
  bool json = false;
  std::size_t show = 5;
};

nlohmann::json report_json(const TuneReport& report, const TuningKey& key, const Store* store) {
  nlohmann::json out;
  out["key"] = {{"family", key.family},
                {"family_version", key.family_version},
                {"problem", key.problem},
                {"device", key.device},
                {"toolchain", key.toolchain}};
  if (store != nullptr) out["store"] = store->path().string();
  out["evaluated"] = report.evaluated.size();
  out["resumed"] = report.resumed;
  out["duplicates_skipped"] = report.duplicates_skipped;
  out["dropped_by_normalizer"] = report.dropped_by_normalizer;
  out["seconds"] = report.seconds;
  out["seconds_to_best"] = report.seconds_to_best;
  nlohmann::json outcomes = nlohmann::json::object();
  for (const auto& [outcome, count] : report.outcomes)
    outcomes[std::string(to_string(outcome))] = count;
  out["outcomes"] = outcomes;
  if (report.baseline) {
    out["default"] = {{"config", report.baseline->config.to_json()},
                      {"outcome", to_string(report.baseline->measurement.outcome)},
                      {"time_ms", report.baseline->measurement.time_ms}};
  }
  if (report.best) {
    out["best"] = {{"config", report.best->config.to_json()},
                   {"time_ms", report.best->measurement.time_ms},
                   {"spread", report.best->measurement.spread}};
  }
  if (auto s = report.speedup()) out["speedup_over_default"] = *s;
  return out;
}

void print_report(const TuneReport& report, const TuningKey& key, std::size_t show) {
  std::vector<const Evaluated*> ok;
  for (const Evaluated& e : report.evaluated) {
    if (e.measurement.ok()) ok.push_back(&e);
  }
  std::sort(ok.begin(), ok.end(), [](const Evaluated* a, const Evaluated* b) {
    return a->measurement.time_ms < b->measurement.time_ms;
  });
  fmt::print("\n{} on {} ({}), problem {}\n", key.family, key.device, key.toolchain, key.problem);
  fmt::print("{:>4}  {:>12}  {:>8}  {}\n", "rank", "time (ms)", "spread", "config");
  for (std::size_t i = 0; i < ok.size() && i < show; ++i) {
    fmt::print("{:>4}  {:>12.5g}  {:>7.1f}%  {}\n", i + 1, ok[i]->measurement.time_ms,
               100.0 * ok[i]->measurement.spread, ok[i]->config.to_string());
  }
  fmt::print(
      "\nevaluated {} configs in {:.1f} s ({} from the store, {} duplicates skipped, {} "
      "dropped by the normalizer)\n",
      report.evaluated.size(), report.seconds, report.resumed, report.duplicates_skipped,
      report.dropped_by_normalizer);
  std::string outcomes;
  for (const auto& [outcome, count] : report.outcomes) {
    outcomes += fmt::format("{}{} {}", outcomes.empty() ? "" : ", ", count, to_string(outcome));
  }
  fmt::print("outcomes: {}\n", outcomes);
  if (report.baseline) {
    const Measurement& m = report.baseline->measurement;
    fmt::print("default config: {}\n",
               m.ok() ? fmt::format("{:.5g} ms", m.time_ms)
                      : fmt::format("{} ({})", to_string(m.outcome), m.detail));
  }
  if (!report.best) {
    fmt::print("no config passed the check\n");
    return;
  }
  fmt::print("best after re-timing: {:.5g} ms (spread {:.1f}%), found at {:.1f} s",
             report.best->measurement.time_ms, 100.0 * report.best->measurement.spread,
             report.seconds_to_best);
  if (auto s = report.speedup()) fmt::print(", {:.2f}x the default config", *s);
  fmt::print("\nwinning config:\n{}\n", report.best->config.to_json().dump(2));
}

int run_tune(const TuneArgs& args) {
  const KernelSpec spec = load_spec(args.spec);
  const Problem problem = spec.resolve(Problem::parse(args.problem));
  TunedTarget target = make_spec_target(spec, problem);
  const TuningKey key{spec.name, spec.version, problem.canonical(), target.evaluator->device_name(),
                      target.evaluator->toolchain()};
  std::optional<Store> store;
  if (!args.no_store) store = Store::open(args.db.empty() ? Store::default_path() : std::filesystem::path(args.db));

  TuneOptions options;
  options.strategy = args.strategy;
  options.effort = args.effort == "quick" ? Effort::quick : Effort::full;
  options.max_evaluations = args.budget;
  options.max_seconds = args.seconds;
  options.seed = args.seed;

  ProgressDisplay progress(stderr);
  TuneCallbacks callbacks;
  callbacks.on_progress = [&](const TuneProgress& p) { progress.update(p); };
  callbacks.on_result = [&](const Evaluated& e) {
    if (!e.measurement.ok() && !e.from_store) {
      std::string detail = e.measurement.detail.substr(0, e.measurement.detail.find('\n'));
      progress.note(fmt::format("  {} {}: {}", to_string(e.measurement.outcome),
                                e.config.to_string(), detail));
    }
  };
  const TuneReport report = tune(*spec.tuning, problem, target.device, *target.evaluator,
                                 store ? &*store : nullptr, key, options, callbacks);
  if (args.json) {
    fmt::print("{}\n", report_json(report, key, store ? &*store : nullptr).dump(2));
  } else {
    print_report(report, key, args.show);
  }
  return report.best ? 0 : 2;
}

const RegisterCommand registration{[](CLI::App& app) {
  auto args = std::make_shared<TuneArgs>();
  CLI::App* sub = app.add_subcommand("tune", "Tune a kernel described by a spec file");
  sub->add_option("spec", args->spec, "Kernel spec file (JSON)")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--problem", args->problem, "Problem arguments, e.g. m=512,n=512");
  sub->add_option("--strategy", args->strategy, "Search strategy")->capture_default_str();
  sub->add_option("--effort", args->effort, "Effort profile")
      ->check(CLI::IsMember({"quick", "full"}))
      ->capture_default_str();
  sub->add_option("--budget", args->budget, "Configs to evaluate")->capture_default_str();
  sub->add_option("--time", args->seconds, "Wall-time budget in seconds (0: none)");
  sub->add_option("--seed", args->seed, "Random seed")->capture_default_str();
  sub->add_option("--db", args->db, "Results store (default: $CUTUNE_DB or the user cache)");
  sub->add_flag("--no-store", args->no_store, "Keep no results");
  sub->add_flag("--json", args->json, "Print the report as JSON");
  sub->add_option("--show", args->show, "How many of the best to list")->capture_default_str();
  sub->callback([args] {
    const int status = run_tune(*args);
    if (status != 0) throw CLI::RuntimeError(status);
  });
}};

}  // namespace
}  // namespace cutune::cli
