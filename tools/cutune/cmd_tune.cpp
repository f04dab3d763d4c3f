// `cutune tune SPEC|FAMILY`: tunes a kernel described by a spec file, or a built-in kernel family
// (`cutune tune gemm --problem m=2048,n=4096,k=4096,dtype=bf16` on a GPU), and prints the winners.
// The tune starts from the winners of the nearest shapes already tuned in the store (the runtime's
// warm start, cutune/runtime.hpp) unless --no-warm-start.
#include <fmt/core.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "command.hpp"
#include "cutune/family.hpp"
#include "cutune/runtime.hpp"
#include "cutune/spec.hpp"
#include "cutune/store.hpp"
#include "cutune/tune.hpp"
#include "cutune/tune_json.hpp"
#include "failure_text.hpp"
#include "interrupt.hpp"
#include "number_options.hpp"
#include "progress.hpp"
#include "store_options.hpp"
#include "text_fit.hpp"

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
  bool no_warm_start = false;
  bool no_transfer = false;
  std::size_t neighbours = RuntimeOptions{}.warm_start_neighbours;
  double lease = TuneOptions{}.lease_seconds;
  std::string devices = "0";
};

// --devices: "all" (every GPU CUDA_VISIBLE_DEVICES names, renumbered from 0 as CUDA sees them) or
// ordinals "0,2,3". Throws CLI::ValidationError.
std::vector<int> parse_devices(const std::string& text) {
  std::vector<int> devices;
  if (text == "all") {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    if (visible == nullptr || *visible == '\0') {
      throw CLI::ValidationError("--devices",
                                 "'all' counts the GPUs CUDA_VISIBLE_DEVICES names; set it, or "
                                 "list ordinals (--devices 0,1)");
    }
    const std::string names = visible;
    const int count = 1 + static_cast<int>(std::count(names.begin(), names.end(), ','));
    for (int d = 0; d < count; ++d) devices.push_back(d);
    return devices;
  }
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t end = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, end - at);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos ||
        item.size() > 4) {
      throw CLI::ValidationError("--devices", "'" + text + "': expected all or ordinals like 0,2");
    }
    const int device = std::stoi(item);
    if (std::find(devices.begin(), devices.end(), device) != devices.end()) {
      throw CLI::ValidationError("--devices", "'" + text + "' names device " + item + " twice");
    }
    devices.push_back(device);
    at = end + 1;
  }
  return devices;
}

// The configs a tune starts from: the winners of the nearest other shapes tuned in the store.
struct WarmStart {
  std::vector<NearestWinner> winners;
  std::size_t evaluated = 0;  // of those, how many the tune measured or found in the store
  bool enabled = true;
};

// How many of the warm-start configs the tune evaluated (a config the space repairs into another,
// or equal to the default config, is counted once, under whichever came first).
std::size_t count_evaluated(const TuneReport& report, const std::vector<NearestWinner>& winners) {
  std::size_t count = 0;
  for (const NearestWinner& w : winners) {
    const std::uint64_t hash = w.config.hash();
    count += std::any_of(report.evaluated.begin(), report.evaluated.end(),
                         [&](const Evaluated& e) { return e.config.hash() == hash; });
  }
  return count;
}

nlohmann::json warm_start_json(const WarmStart& warm) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const NearestWinner& w : warm.winners) {
    shapes.push_back({{"problem", w.problem.canonical()},
                      {"distance", w.distance},
                      {"time_ms", w.time_ms},
                      {"config", w.config.to_string()}});
  }
  return {{"enabled", warm.enabled},
          {"configs", warm.winners.size()},
          {"evaluated", warm.evaluated},
          {"from", shapes}};
}

void print_warm_start(const WarmStart& warm) {
  if (!warm.enabled) {
    fmt::print("warm start: off\n");
    return;
  }
  fmt::print("warm start: {} config(s) from the nearest tuned shapes, {} evaluated\n",
             warm.winners.size(), warm.evaluated);
  for (const NearestWinner& w : warm.winners) {
    fmt::print("  {}\n",
               fit(fmt::format("{} (distance {:.2f}, {:.5g} ms): {}", w.problem.canonical(),
                               w.distance, w.time_ms, w.config.to_string()),
                   kOutputColumns - 2));
  }
}

// Which priors the tune used (other devices' and shapes' results) and the weight each ended with.
void print_transfer(bool enabled, const TuneReport& report) {
  if (!enabled) {
    fmt::print("transfer: off\n");
    return;
  }
  fmt::print("transfer: {} prior(s) from other devices and shapes in the store\n",
             report.priors.size());
  for (const PriorWeight& p : report.priors) {
    fmt::print("  {}\n",
               fit(fmt::format("weight {:.2f} (judged on {} results), {} rows, {} seeds: {}",
                               p.weight, p.observed, p.rows, p.seeds, p.name),
                   kOutputColumns - 2));
  }
}

// What the report adds for a built-in family: rates and the vendor library on the same problem.
struct Comparison {
  double flop_count = 0;
  std::string reference_name;
  std::optional<Measurement> reference;
  std::size_t encoder_errors = 0;  // evaluated configs the surrogate's encoding rejected
};

double tflops(double flop_count, double ms) { return flop_count / (ms * 1e-3) / 1e12; }

// The default as the report compares it: timed in the tournament's rounds when there was one.
const Measurement* default_measurement(const TuneReport& report) {
  if (report.tournament) return &report.tournament->finalists.front().measurement;
  return report.baseline ? &report.baseline->measurement : nullptr;
}

std::size_t count_encoder_errors(const TuneReport& report, const Space& space) {
  std::size_t errors = 0;
  for (const Evaluated& e : report.evaluated) {
    try {
      space.features(e.config);
    } catch (const std::exception&) {
      ++errors;
    }
  }
  return errors;
}

nlohmann::json comparison_json(const TuneReport& report, const Comparison& c) {
  nlohmann::json out;
  out["encoder_errors"] = c.encoder_errors;
  if (c.flop_count <= 0) return out;
  auto rate = [&](const Measurement& m) {
    return m.ok() ? nlohmann::json(tflops(c.flop_count, m.time_ms)) : nlohmann::json();
  };
  if (report.best) out["best_tflops"] = rate(report.best->measurement);
  if (const Measurement* m = default_measurement(report)) out["default_tflops"] = rate(*m);
  if (c.reference) {
    out["reference"] = {{"name", c.reference_name},
                        {"outcome", to_string(c.reference->outcome)},
                        {"time_ms", c.reference->time_ms},
                        {"tflops", rate(*c.reference)}};
  }
  return out;
}

void print_comparison(const TuneReport& report, const Comparison& c) {
  fmt::print("normalizer drops: {}, encoder errors: {}\n", report.dropped_by_normalizer,
             c.encoder_errors);
  if (c.flop_count <= 0) return;
  const bool have_reference = c.reference && c.reference->ok();
  auto line = [&](const char* what, const Measurement& m) {
    if (!m.ok()) return;
    fmt::print("{:<10} {:>9.4f} ms  {:>7.1f} TFLOP/s", what, m.time_ms,
               tflops(c.flop_count, m.time_ms));
    if (have_reference)
      fmt::print("  {:.3f}x {}", c.reference->time_ms / m.time_ms, c.reference_name);
    fmt::print("\n");
  };
  if (report.best) line("best", report.best->measurement);
  if (const Measurement* m = default_measurement(report)) line("default", *m);
  if (c.reference) {
    if (c.reference->ok()) {
      line(c.reference_name.c_str(), *c.reference);
    } else {
      fmt::print("{}: {} ({})\n", c.reference_name, to_string(c.reference->outcome),
                 c.reference->detail);
    }
  }
}

// A fraction as a percentage; "-" when unknown (a store row or recording without repetitions).
std::string percent(double fraction) {
  return std::isnan(fraction) ? std::string("-") : fmt::format("{:.1f}%", 100.0 * fraction);
}

// The winner first (what the store deploys), then the rest by search time.
std::vector<const Evaluated*> ranking(const TuneReport& report) {
  std::vector<const Evaluated*> ok;
  if (report.best) ok.push_back(&*report.best);
  for (const Evaluated& e : report.evaluated) {
    if (e.measurement.ok() && !(report.best && e.config.hash() == report.best->config.hash())) {
      ok.push_back(&e);
    }
  }
  std::sort(ok.begin() + (report.best ? 1 : 0), ok.end(),
            [](const Evaluated* a, const Evaluated* b) {
              return a->measurement.time_ms < b->measurement.time_ms;
            });
  return ok;
}

void print_tournament(const TuneReport& report) {
  if (!report.tournament) return;
  const TournamentResult& t = *report.tournament;
  fmt::print(
      "\ntournament: {} finalists, {} paired rounds after {} warm-up rounds, {:.2f} s ({} of the "
      "tune)\n  {}\n",
      t.finalists.size(), t.rounds.size(), t.warmup_rounds, report.tournament_seconds,
      percent(report.seconds > 0 ? report.tournament_seconds / report.seconds : NAN),
      wrap("steady state: " + t.steady_state, kOutputColumns, "  "));
  fmt::print("{:>6}  {:<9}  {:>12}  {:>24}  {}\n", "", "role", "time (ms)", "default / it [95% CI]",
             "config");
  for (std::size_t i = 0; i < t.finalists.size(); ++i) {
    const Finalist& f = t.finalists[i];
    const bool ok = f.measurement.ok();
    fmt::print("{:>6}  {:<9}  {:>12}  {:>24}  {}\n", i == t.winner ? "winner" : "",
               to_string(f.role),
               ok ? fmt::format("{:.5g}", f.measurement.time_ms)
                  : std::string(to_string(f.measurement.outcome)),
               ok ? fmt::format("{:.3f} [{:.3f}, {:.3f}]", f.vs_default.median, f.vs_default.low,
                                f.vs_default.high)
                  : std::string("-"),
               fit(f.config.to_string(), kOutputColumns - 64));
  }
  for (const std::string& line : t.finishing) fmt::print("  finishing: {}\n", line);
  if (const RatioInterval& r = t.winning().vs_reference; r.rounds > 0) {
    fmt::print("  winner against the reference in the same rounds: {:.3f}x [{:.3f}, {:.3f}]\n",
               r.median, r.low, r.high);
  }
}

void print_report(const TuneReport& report, const TuningKey& key, std::size_t show) {
  const std::vector<const Evaluated*> ok = ranking(report);
  fmt::print("\n{}\n", fit(fmt::format("{} on {} ({}), problem {}", key.family, key.device,
                                       short_toolchain(key.toolchain), key.problem),
                           kOutputColumns));
  // spread: (p75 - p25) / median of the repetitions (the winner's: of its tournament rounds).
  fmt::print("{:>4}  {:>12}  {:>8}  {}\n", "rank", "time (ms)", "spread", "config");
  for (std::size_t i = 0; i < ok.size() && i < show; ++i) {
    // The winner's whole config follows the table; the rows keep to the line.
    fmt::print("{:>4}  {:>12.5g}  {:>8}  {}\n", i + 1, ok[i]->measurement.time_ms,
               percent(ok[i]->measurement.iqr_spread),
               fit(ok[i]->config.to_string(), kOutputColumns - 32));
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
    fmt::print("default config in the search: {}\n",
               m.ok() ? fmt::format("{:.5g} ms", m.time_ms)
                      : fmt::format("{} ({})", to_string(m.outcome), m.detail));
  }
  print_tournament(report);
  if (report.adopted_decision) {
    fmt::print("shared tune: participant {}; the decision is another participant's tournament\n",
               report.participant);
  }
  if (!report.best) {
    fmt::print("no config passed the check\n");
    return;
  }
  const Measurement& best = report.best->measurement;
  fmt::print("winner: {:.5g} ms (spread {}", best.time_ms, percent(best.iqr_spread));
  if (!std::isnan(best.min_ms) && !std::isnan(best.max_ms))
    fmt::print(", min {:.5g}, max {:.5g} ms", best.min_ms, best.max_ms);
  fmt::print("), found at {:.1f} s", report.seconds_to_best);
  if (report.speedup()) fmt::print("\n ");
  if (auto within = seconds_to_within(report, 0.02))
    fmt::print(" (within 2% at {:.1f} s)", *within);
  if (auto s = report.speedup()) {
    fmt::print(", {:.3f}x the default config", *s);
    if (report.tournament) {
      fmt::print(" [{:.3f}, {:.3f}] over {} paired rounds", report.tournament->speedup().low,
                 report.tournament->speedup().high, report.tournament->speedup().rounds);
    }
  }
  fmt::print("\nwinning config:\n{}\n", report.best->config.to_json().dump(2));
}

std::string signal_name(int signal) { return signal == SIGTERM ? "SIGTERM" : "SIGINT"; }

int run_tune(const TuneArgs& args) {
  // A built-in family (whose name is no file here), or a spec file.
  const std::vector<std::string> names = family_names();
  const bool builtin = std::find(names.begin(), names.end(), args.spec) != names.end() &&
                       !std::filesystem::exists(args.spec);
  std::optional<KernelSpec> spec;
  if (!builtin) spec = load_spec(args.spec);
  const Family family = builtin ? *find_family(args.spec) : spec_family(*spec);
  // Resolved as the family's runtime resolves it, so that both write and read the same key.
  const Problem problem = family.resolved(
      args.problem.empty() && builtin ? family.example_problem : Problem::parse(args.problem));
  const TuningSpace* space = family.tuning;
  FamilyEvaluator target = family.make_evaluator(problem, parse_devices(args.devices));
  const TuningKey key =
      family.key(problem, target.evaluator->device_name(), target.evaluator->toolchain());
  std::optional<Store> store;
  if (!args.no_store) store = Store::open(store_path(args.db));

  TuneOptions options;
  WarmStart warm;
  warm.enabled = !args.no_warm_start && args.neighbours > 0 && store.has_value();
  if (warm.enabled) {
    warm.winners = add_warm_start(options, *store, family, problem, key.device, args.neighbours);
  }
  const bool transfer = !args.no_transfer && store.has_value();
  if (transfer) add_priors(options, *store, family, key);
  options.strategy = args.strategy;
  options.effort = args.effort == "quick" ? Effort::quick : Effort::full;
  options.max_evaluations = args.budget;
  options.max_seconds = args.seconds;
  options.seed = args.seed;
  options.lease_seconds = args.lease;
  const InterruptGuard interrupt;
  options.stop = &interrupt.stop();

  ProgressDisplay progress(stderr, args.seconds);
  TuneCallbacks callbacks;
  callbacks.on_progress = [&](const TuneProgress& p) { progress.update(p); };
  callbacks.on_result = [&](const Evaluated& e) {
    if (!e.measurement.ok() && !e.from_store) {
      // Two lines, so that neither a long config nor a long error line hides the other.
      progress.note(fit(fmt::format("  {}: {}", to_string(e.measurement.outcome),
                                    first_error_line(e.measurement.detail)),
                        kOutputColumns));
      progress.note(fit("    " + e.config.to_string(), kOutputColumns));
    }
  };
  const TuneReport report = tune(family, problem, *target.evaluator, target.device,
                                 store ? &*store : nullptr, options, callbacks);
  warm.evaluated = count_evaluated(report, warm.winners);
  Comparison comparison{family.flop_count ? family.flop_count(problem) : 0, family.reference_name,
                        std::nullopt, count_encoder_errors(report, space->space)};
  if (target.time_reference) comparison.reference = target.time_reference();
  if (args.json) {
    nlohmann::json out = tune_report_json(report, key, store ? &*store : nullptr);
    out.update(comparison_json(report, comparison));
    out["warm_start"] = warm_start_json(warm);
    out["transfer"]["enabled"] = transfer;
    if (report.stopped) out["stopped_by"] = signal_name(interrupt.signal());
    fmt::print("{}\n", out.dump(2));
  } else {
    if (report.stopped) {
      fmt::print(
          "\nstopped by {} after {} configs{}; no tournament ran, so the best below is the "
          "search's fastest so far, not a decision. To resume, run the same command again: "
          "configs already measured are read from the store, not measured again.\n",
          signal_name(interrupt.signal()), report.evaluated.size(),
          store ? fmt::format(", every result stored in {}", store->path().string()) : "");
    }
    print_report(report, key, args.show);
    print_comparison(report, comparison);
    print_warm_start(warm);
    print_transfer(transfer, report);
    if (!report.stopped && interrupt.signal() != 0) {
      fmt::print(
          "\n{} arrived after the search, during the final tournament, which finished "
          "(its decision, if any, is recorded).\n",
          signal_name(interrupt.signal()));
    }
  }
  // 128 + the signal, as a shell reports a command the signal ended, however late it came.
  if (interrupt.signal() != 0) return 128 + interrupt.signal();
  return report.best ? 0 : 2;
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto args = std::make_shared<TuneArgs>();
  CLI::App* sub = app.add_subcommand(
      "tune", "Tune a kernel described by a spec file, or a built-in kernel family");
  sub->add_option("spec", args->spec, "Kernel spec file (JSON), or a built-in family: gemm")
      ->required()
      ->check(CLI::ExistingFile | CLI::IsMember(family_names()));
  sub->add_option("--problem", args->problem,
                  "Problem arguments, e.g. m=512,n=512 (a built-in family's example if none)");
  std::vector<std::string> strategies = strategy_names();
  strategies.insert(strategies.begin(), "default");
  sub->add_option("--strategy", args->strategy,
                  fmt::format("Search strategy: {} (default: {})", fmt::join(strategies, ", "),
                              default_strategy_name()))
      ->check(CLI::IsMember(strategies))
      ->capture_default_str();
  sub->add_option("--effort", args->effort, "Effort profile")
      ->check(CLI::IsMember({"quick", "full"}))
      ->capture_default_str();
  // 10^9 configs is beyond any tune; anything larger is a typo or a wrapped negative number.
  sub->add_option("--budget", args->budget, "Configs to evaluate")
      ->check(whole_number(1, 1'000'000'000))
      ->capture_default_str();
  sub->add_option("--time", args->seconds, "Wall-time budget in seconds (0: none)")
      ->check(finite_seconds());
  sub->add_option("--seed", args->seed, "Random seed")
      ->check(whole_number(0))
      ->capture_default_str();
  add_db_option(*sub, args->db);
  sub->add_flag("--no-store", args->no_store, "Keep no results");
  sub->add_option("--devices", args->devices,
                  "Devices measuring at once: all (those CUDA_VISIBLE_DEVICES names) or ordinals "
                  "0,2,..; on the CPU backend, that many worker processes")
      ->capture_default_str();
  sub->add_option("--lease", args->lease,
                  "With --db postgresql://...: seconds a claimed candidate stays this tune's "
                  "before another participant may take it over")
      ->capture_default_str();
  sub->add_flag("--no-warm-start", args->no_warm_start,
                "Do not start from the winners of the nearest shapes tuned in the store");
  sub->add_flag("--no-transfer", args->no_transfer,
                "Do not use the family's results on other devices and shapes in the store as "
                "priors of the search");
  sub->add_option("--warm-start-neighbours", args->neighbours,
                  "How many nearest tuned shapes' winners to start from")
      ->check(whole_number(0, 1000))
      ->capture_default_str();
  sub->add_flag("--json", args->json, "Print the report as JSON");
  sub->add_option("--show", args->show, "How many of the best to list")
      ->check(whole_number(0, 1'000'000))
      ->capture_default_str();
  sub->callback([args] {
    const int status = run_tune(*args);
    if (status != 0) throw CLI::RuntimeError(status);
  });
}

}  // namespace cutune::cli
