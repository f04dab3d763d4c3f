// `cutune tune SPEC|FAMILY`: tunes a kernel described by a spec file, or a built-in kernel family
// (`cutune tune gemm --problem m=2048,n=4096,k=4096,dtype=bf16` on a GPU), and prints the winners.
// The tune starts from the winners of the nearest shapes already tuned in the store (the warm
// start, cutune/warm_start.hpp) unless --no-warm-start.
#include <fmt/core.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>

#include "command.hpp"
#include "cutune/failure_text.hpp"
#include "cutune/family.hpp"
#include "cutune/session.hpp"
#include "cutune/store.hpp"
#include "cutune/tune.hpp"
#include "cutune/tune_json.hpp"
#include "cutune/warm_start.hpp"
#include "interrupt.hpp"
#include "number_options.hpp"
#include "progress.hpp"
#include "store_options.hpp"
#include "text_fit.hpp"
#include "tune_text.hpp"

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
  std::size_t neighbours = kWarmStartNeighbours;
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

std::string signal_name(int signal) { return signal == SIGTERM ? "SIGTERM" : "SIGINT"; }

int run_tune(const TuneArgs& args) {
  // The one session of the CLI, the Python package and the runtime (cutune/session.hpp): family and
  // problem by the rule `cutune space` follows, so that both write and read the same key.
  TuneSessionOptions session_options;
  session_options.devices = parse_devices(args.devices);
  if (!args.no_store) session_options.store = store_path(args.db);
  session_options.warm_start_neighbours = args.no_warm_start ? 0 : args.neighbours;
  session_options.transfer = !args.no_transfer;
  TuneSession session = tune_session(args.spec, args.problem, session_options);
  const Family& family = session.family();
  const Problem& problem = session.problem();

  TuneOptions options;
  options.strategy = args.strategy;
  options.effort = args.effort == "quick" ? Effort::quick : Effort::full;
  options.max_evaluations = args.budget;
  options.max_seconds = args.seconds;
  options.seed = args.seed;
  const InterruptGuard interrupt;
  options.stop = &interrupt.stop();

  ProgressDisplay progress(stderr, args.seconds);
  TuneCallbacks callbacks;
  callbacks.on_progress = [&](const TuneProgress& p) { progress.update(p); };
  callbacks.on_result = [&](const Evaluated& e) {
    if (!e.measurement.ok() && !e.from_store) {
      // Two lines, so that neither a long config nor a long error line hides the other.
      progress.note(fit(fmt::format("  {}: {}", to_string(e.measurement.outcome),
                                    report::first_error_line(e.measurement.detail)),
                        kOutputColumns));
      progress.note(fit("    " + e.config.to_string(), kOutputColumns));
    }
  };
  // A participant of a shared tune that waits on others says on what, and whose (Ctrl-C ends it).
  callbacks.on_wait = [&](const std::string& what) {
    progress.note(fit("  " + what, kOutputColumns));
  };
  const TuneReport report = session.run(options, callbacks);
  const TuningKey& key = session.key();
  const Store* store = session.store();
  const bool transfer = session.transfer();
  WarmStart warm;
  warm.enabled = session_options.warm_start_neighbours > 0 && store != nullptr;
  warm.winners = session.warm_start();
  warm.evaluated = count_evaluated(report, warm.winners);
  Comparison comparison{family.flop_count ? family.flop_count(problem) : 0, family.reference_name,
                        std::nullopt, count_encoder_errors(report, family.tuning->space)};
  if (session.target().time_reference) comparison.reference = session.target().time_reference();
  if (args.json) {
    nlohmann::json out = session.report_json(report);
    out.update(comparison_json(report, comparison));
    out["warm_start"] = warm_start_json(warm);
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
    print_report(report, key, args.show, family.checked_against);
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
  sub->add_option("spec", args->spec,
                  "Kernel spec file (JSON), or a built-in family: " +
                      fmt::format("{}", fmt::join(family_names(), ", ")))
      ->required();
  sub->add_option("--problem", args->problem,
                  "Problem arguments, e.g. m=512,n=512 (the family's example if none; a built-in "
                  "family's example arguments are overridden one by one)");
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
